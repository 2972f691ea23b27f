"""OpenAI Agents SDK: the assistant toolset as the ``FunctionTool``\\ s of an ``agents.Agent``, run by ``Runner``.

Run it: ``python examples/openai_agents_agent.py [PROJECT [QUESTION]]`` — with ``OPENAI_API_KEY`` set the agent
asks the real model, without it the SDK's own test model (``agents.testing.ScriptedModel``) plays it: it lists
the project, then answers with what the tool returned.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from agents import Agent, Model, Runner
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

import agenttools


def run(model: str | Model | None, root: str, question: str) -> str:
    """Ask ``question``; the agent may read, list and edit files and run commands in ``root``.

    ``model``: a model name, a ``Model``, or None for the SDK's default (``OPENAI_DEFAULT_MODEL`` overrides it).
    """
    with agenttools.toolset("assistant", root=root) as reg:
        agent = Agent(name="assistant", instructions="Answer questions about the project in the workspace.",
                      model=model, tools=reg.to_openai_agents())
        return str(Runner.run_sync(agent, question).final_output)


def scripted_model() -> ScriptedModel:
    """Two turns: call ``list`` on the workspace, then answer with what it returned."""

    def answer(call: Any) -> list[Any]:
        output = next(item["output"] for item in reversed(call.input)
                      if isinstance(item, dict) and item.get("type") == "function_call_output")
        return [assistant_message(f"(scripted model) The tool answered: {output}")]

    return ScriptedModel([[function_call("list", {"path": "."}, call_id="call_1")], ModelStep.respond(answer)])


if __name__ == "__main__":
    from agents import set_tracing_disabled

    project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    question = sys.argv[2] if len(sys.argv) > 2 else "What is in this project?"
    if os.environ.get("OPENAI_API_KEY"):
        print(run(None, project, question))  # the SDK's default OpenAI model
    else:
        print("(OPENAI_API_KEY is not set: a scripted model plays the model)")
        set_tracing_disabled(True)  # nothing to export traces to without a key
        print(run(scripted_model(), project, question))
