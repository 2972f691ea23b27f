"""A Gemini (google-genai) function-calling loop with the gemini toolset.

Run it: ``python examples/gemini_genai.py [PROJECT [QUESTION]]`` —
with ``GEMINI_API_KEY`` set it asks the real model, without it a scripted
client (examples/scripted.py) plays the model.
"""

from __future__ import annotations

import sys
from typing import Any

from google.genai import types

import agenttools


def run(client: Any, root: str, question: str, model: str = "gemini-2.5-flash") -> str:
    """Ask ``question``; function responses go back as ``Part``s."""
    with agenttools.toolset("gemini", root=root) as reg:
        config = types.GenerateContentConfig(
            tools=[types.Tool(function_declarations=reg.definitions("gemini"))],
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True))
        contents: list[Any] = [types.Content(role="user", parts=[types.Part(text=question)])]
        while True:
            response = client.models.generate_content(model=model, contents=contents, config=config)
            if not response.function_calls:
                return str(response.text)
            contents.append(response.candidates[0].content)
            parts = [types.Part.model_validate(reg.run(call)) for call in response.function_calls]
            contents.append(types.Content(role="user", parts=parts))


if __name__ == "__main__":
    import scripted  # the offline stand-in, next to this file

    def real() -> Any:
        """The SDK's own client (it reads the API key from the environment)."""
        from google import genai

        return genai.Client()

    project, question = scripted.root_and_question(sys.argv)
    client = scripted.client("GEMINI_API_KEY", "google-genai", real, scripted.gemini_client, project)
    print(run(client, project, question))
