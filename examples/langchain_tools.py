"""LangChain: the assistant toolset as StructuredTools, driven by any tool-calling chat model.

For real use, pass e.g. ``ChatOpenAI(model="gpt-4.1").bind_tools(tools)`` as ``model``. Run it:
``python examples/langchain_tools.py [PROJECT [QUESTION]]`` — a scripted chat model (examples/scripted.py) plays
the model and the assistant toolset's real tools answer.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

import agenttools


def run(model: Any, root: str, question: str) -> str:
    """A minimal agent loop: the model asks for tools, LangChain runs them (our tools validate and never raise)."""
    with agenttools.toolset("assistant", root=root) as reg:
        tools = {tool.name: tool for tool in reg.to_langchain()}
        messages: list[Any] = [HumanMessage(question)]
        while True:
            ai = model.invoke(messages)
            messages.append(ai)
            if not ai.tool_calls:
                return str(ai.content)
            messages.extend(tools[call["name"]].invoke(call) for call in ai.tool_calls)  # ToolMessages


if __name__ == "__main__":
    import sys

    import scripted  # the offline stand-in, next to this file

    project, question = scripted.root_and_question(sys.argv)
    print(run(scripted.langchain_model(project), project, question))
