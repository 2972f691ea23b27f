"""LangGraph: the gemini toolset in LangGraph's prebuilt ReAct agent (``create_react_agent``).

``reg.to_langchain()`` gives LangChain ``StructuredTool``s that LangGraph's ``ToolNode`` runs: a failed call comes
back as a ``ToolMessage`` with ``status="error"`` and our error text, an image as an image content block. Run it:
``python examples/langgraph_agent.py [PROJECT [QUESTION]]`` — with ``OPENAI_API_KEY`` set it asks
``gpt-4.1-mini`` (``pip install langchain-openai``); without it a scripted chat model plays the model.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import agenttools


def run(model: Any, root: str, question: str) -> str:
    """Build the agent over the project, ask it ``question``, return its final answer."""
    from langgraph.prebuilt import create_react_agent

    with agenttools.toolset("gemini", root=root) as reg:
        with warnings.catch_warnings():  # LangGraph 1.x also offers langchain.agents.create_agent; both work
            warnings.simplefilter("ignore", DeprecationWarning)
            agent = create_react_agent(model, tools=reg.to_langchain())
        final = agent.invoke({"messages": [("user", question)]})
        return str(final["messages"][-1].content)


def scripted_model(root: str) -> Any:
    """An offline chat model: it lists the project with ``list_directory``, then answers with what it got."""
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class Scripted(BaseChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Scripted:  # type: ignore[override]
            return self

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            results = [m for m in messages if isinstance(m, ToolMessage)]
            if not results:
                reply = AIMessage(content="", tool_calls=[{"name": "list_directory", "args": {"path": root},
                                                           "id": "call_1", "type": "tool_call"}])
            else:
                reply = AIMessage(content=f"(scripted model) The project holds:\n{results[-1].content}")
            return ChatResult(generations=[ChatGeneration(message=reply)])

        @property
        def _llm_type(self) -> str:
            return "scripted"

    return Scripted()


if __name__ == "__main__":
    import sys

    project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    question = sys.argv[2] if len(sys.argv) > 2 else "What is in this project?"
    if os.environ.get("OPENAI_API_KEY"):
        try:
            from langchain_openai import ChatOpenAI
        except ImportError:
            raise SystemExit("this example needs langchain-openai with OPENAI_API_KEY: pip install langchain-openai") \
                from None
        chat: Any = ChatOpenAI(model="gpt-4.1-mini")
    else:
        print("(OPENAI_API_KEY is not set: a scripted chat model plays the model)")
        chat = scripted_model(project)
    print(run(chat, project, question))
