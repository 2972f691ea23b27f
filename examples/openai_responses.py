"""An OpenAI Responses API tool loop with the editor toolset (strict schemas).

Run it for real with ``OPENAI_API_KEY`` set: ``python examples/openai_responses.py /path/to/project "..."``.
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
    from openai import OpenAI

    print(run(OpenAI(), sys.argv[1], sys.argv[2]))
