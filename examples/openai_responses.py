"""An OpenAI Responses API tool loop with the editor toolset (strict schemas).

Run it: ``python examples/openai_responses.py [PROJECT [QUESTION]]`` —
with ``OPENAI_API_KEY`` set it asks the real model, without it a scripted
client (examples/scripted.py) plays the model.
"""

from __future__ import annotations

import sys
from typing import Any

import agenttools


def run(client: Any, root: str, question: str, model: str = "gpt-4.1") -> str:
    """Ask ``question``; the model may view files and run commands in ``root``."""
    with agenttools.toolset("editor", root=root) as reg:
        items: list[Any] = [{"role": "user", "content": question}]
        while True:
            response = client.responses.create(model=model, input=items,
                                               tools=reg.definitions("openai-responses", strict=True))
            calls = [item for item in response.output if item.type == "function_call"]
            if not calls:
                return str(response.output_text)
            items.extend(response.output)
            items.extend(reg.run(call) for call in calls)  # function_call_output items


if __name__ == "__main__":
    import os

    import scripted  # the offline stand-in, next to this file

    project, question = scripted.root_and_question(sys.argv)
    try:
        if os.environ.get("OPENAI_API_KEY"):
            from openai import OpenAI

            client = OpenAI()
        else:
            print("(OPENAI_API_KEY is not set: a scripted client plays the model)")
            client = scripted.openai_responses_client(project)
    except ImportError as exc:
        sys.exit(f"this example needs the openai package ({exc.name} is missing): pip install openai")
    print(run(client, project, question))
