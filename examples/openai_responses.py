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
    import scripted  # the offline stand-in, next to this file

    def real() -> Any:
        """The SDK's own client (it reads the API key from the environment)."""
        from openai import OpenAI

        return OpenAI()

    project, question = scripted.root_and_question(sys.argv)
    client = scripted.client("OPENAI_API_KEY", "openai", real, scripted.openai_responses_client, project)
    print(run(client, project, question))
