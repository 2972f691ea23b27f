"""An OpenAI Chat Completions tool loop with the gemini toolset.

Run it: ``python examples/openai_chat.py [PROJECT [QUESTION]]`` —
with ``OPENAI_API_KEY`` set it asks the real model, without it a scripted
client (examples/scripted.py) plays the model.
The test suite runs ``run()`` against a scripted client, so this file cannot rot.
"""

from __future__ import annotations

import sys
from typing import Any

import agenttools


def run(client: Any, root: str, question: str, model: str = "gpt-4.1") -> str:
    """Ask ``question`` about the project at ``root``; return the model's final answer."""
    with agenttools.toolset("gemini", root=root) as reg:
        messages: list[Any] = [{"role": "user", "content": question}]
        while True:
            response = client.chat.completions.create(model=model, messages=messages,
                                                      tools=reg.definitions("openai"))
            message = response.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                return str(message.content)
            messages.extend(reg.run(call) for call in message.tool_calls)  # {"role": "tool", ...} messages


if __name__ == "__main__":
    import scripted  # the offline stand-in, next to this file

    def real() -> Any:
        """The SDK's own client (it reads the API key from the environment)."""
        from openai import OpenAI

        return OpenAI()

    project, question = scripted.root_and_question(sys.argv)
    client = scripted.client("OPENAI_API_KEY", "openai", real, scripted.openai_chat_client, project)
    print(run(client, project, question))
