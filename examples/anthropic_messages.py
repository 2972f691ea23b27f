"""An Anthropic Messages tool loop with the coder toolset.

Run it: ``python examples/anthropic_messages.py [PROJECT [QUESTION]]`` —
with ``ANTHROPIC_API_KEY`` set it asks the real model, without it a scripted
client (examples/scripted.py) plays the model.
"""

from __future__ import annotations

import sys
from typing import Any

import agenttools


def run(client: Any, root: str, question: str, model: str = "claude-sonnet-4-5") -> str:
    """Ask ``question``; tool results go back as ``tool_result`` blocks (images included)."""
    with agenttools.toolset("coder", root=root) as reg:
        messages: list[Any] = [{"role": "user", "content": question}]
        while True:
            response = client.messages.create(model=model, max_tokens=4096, messages=messages,
                                              tools=reg.definitions("anthropic"))
            messages.append({"role": "assistant", "content": response.content})
            uses = [block for block in response.content if block.type == "tool_use"]
            if not uses:
                return "".join(block.text for block in response.content if block.type == "text")
            messages.append({"role": "user", "content": [reg.run(block) for block in uses]})


if __name__ == "__main__":
    import scripted  # the offline stand-in, next to this file

    def real() -> Any:
        """The SDK's own client (it reads the API key from the environment)."""
        from anthropic import Anthropic

        return Anthropic()

    project, question = scripted.root_and_question(sys.argv)
    client = scripted.client("ANTHROPIC_API_KEY", "anthropic", real, scripted.anthropic_client, project)
    print(run(client, project, question))
