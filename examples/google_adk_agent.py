"""Google ADK: the gemini toolset as ADK tools, run by ADK's own agent loop (``LlmAgent`` + ``InMemoryRunner``).

Run it: ``python examples/google_adk_agent.py [PROJECT [QUESTION]]`` — with ``GOOGLE_API_KEY`` (or
``GEMINI_API_KEY``) set, Gemini plays the model; without it, a scripted ADK model (``ScriptedModel`` below) lists
the project with one tool call and answers with what the tool returned. Needs ``pip install 'agenttools[google-adk]'``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

import agenttools

APP = "agenttools-example"


async def ask(model: BaseLlm | str, root: str, question: str) -> str:
    """One user turn through ADK's runner; the text of the agent's final response."""
    with agenttools.toolset("gemini", root=root) as reg:
        agent = LlmAgent(name="assistant", model=model, tools=reg.to_google_adk(),
                         instruction="Answer questions about the project in the workspace; use the tools to look.")
        runner = InMemoryRunner(agent=agent, app_name=APP)
        try:
            session = await runner.session_service.create_session(app_name=APP, user_id="user")
            answer = ""
            async for event in runner.run_async(user_id="user", session_id=session.id,
                                                new_message=types.UserContent(question)):
                if event.is_final_response() and event.content and event.content.parts:
                    answer = "".join(part.text or "" for part in event.content.parts)
            return answer
        finally:
            await runner.close()


def run(model: BaseLlm | str, root: str, question: str) -> str:
    """Ask ``question`` about the project at ``root``; ``model`` is an ADK model or a model name."""
    return asyncio.run(ask(model, root, question))


class ScriptedModel(BaseLlm):
    """An offline ADK model: first lists ``root`` with ``list_directory``, then answers with the listing."""

    root: str

    @classmethod
    def listing(cls, root: str) -> ScriptedModel:
        """A scripted model for the project at ``root``."""
        return cls(model="scripted", root=root)

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        """The next turn: a function call, or once a function response came back, the final text."""
        replies = [part.function_response for part in llm_request.contents[-1].parts or []
                   if part.function_response is not None]
        if not replies:
            call = types.FunctionCall(id="call_1", name="list_directory", args={"path": self.root})
            yield _response(types.Part(function_call=call))
            return
        reply: dict[str, Any] = replies[0].response or {}
        text = str(reply.get("result", reply.get("error", "")))
        lines = [line for line in text.splitlines() if line.strip()]
        summary = f"(scripted model) The tool answered {len(lines)} line(s); the first: {lines[0] if lines else '-'}"
        yield _response(types.Part(text=summary))


def _response(part: types.Part) -> LlmResponse:
    """A model turn as ADK's models return it (with a token count, which ADK's metrics want)."""
    usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=0, candidates_token_count=0,
                                                       total_token_count=0)
    return LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)


if __name__ == "__main__":
    project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    question = sys.argv[2] if len(sys.argv) > 2 else "What is in this project?"
    if os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY"):
        print(run("gemini-2.5-flash", project, question))
    else:
        print("(GOOGLE_API_KEY is not set: a scripted model plays the model)")
        print(run(ScriptedModel.listing(project), project, question))
