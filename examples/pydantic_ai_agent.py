"""pydantic-ai: the assistant toolset as a toolset of a ``pydantic_ai.Agent``.

Run it: ``python examples/pydantic_ai_agent.py [PROJECT [QUESTION]]`` — with ``OPENAI_API_KEY`` set the agent
asks OpenAI (``pip install 'pydantic-ai-slim[openai]'``), without it pydantic-ai's own scripted model
(``FunctionModel``) plays the model: it lists the project, then answers with what the tool returned.
"""

from __future__ import annotations

import os
import sys

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

import agenttools

MODEL = "openai:gpt-4.1"
"""The real model, as pydantic-ai names models (``provider:model``)."""


def run(model: Model | str, root: str, question: str) -> str:
    """Ask ``question``; the agent may read, list and edit files and run commands in ``root``."""
    with agenttools.toolset("assistant", root=root) as reg:
        agent = Agent(model, instructions="Answer questions about the project in the workspace.",
                      toolsets=[reg.to_pydantic_ai()])
        return agent.run_sync(question).output


def scripted_model() -> FunctionModel:
    """Two turns: call ``list`` on the workspace, then answer with what it returned."""

    def turn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        returned = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
        if not returned:
            return ModelResponse(parts=[ToolCallPart("list", {"path": "."}, "call_1")])
        answer = f"(scripted model) The tool answered: {returned[0].model_response_str()}"
        return ModelResponse(parts=[TextPart(answer)])

    return FunctionModel(turn)


if __name__ == "__main__":
    project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    question = sys.argv[2] if len(sys.argv) > 2 else "What is in this project?"
    if os.environ.get("OPENAI_API_KEY"):
        print(run(MODEL, project, question))
    else:
        print("(OPENAI_API_KEY is not set: a scripted model plays the model)")
        print(run(scripted_model(), project, question))
