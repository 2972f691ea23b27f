"""LlamaIndex: the assistant toolset as LlamaIndex tools, driven by LlamaIndex's own ``FunctionAgent``.

``reg.to_llama_index()`` gives ``FunctionTool``\\ s that show the model our JSON Schemas verbatim and answer with a
``ToolOutput`` of our content (a failed call is marked ``is_error``; an image is an ``ImageBlock``). The agent
awaits each call, so cancelling the run stops a running command.

Run it: ``python examples/llama_index_agent.py [PROJECT [QUESTION]]``. With ``OPENAI_API_KEY`` set, OpenAI's gpt-4.1
plays the model (``pip install llama-index-llms-openai``); without it, :func:`scripted_llm` below does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms import MockFunctionCallingLLM

import agenttools


def run(llm: Any, root: str, question: str) -> str:
    """Let a LlamaIndex ``FunctionAgent`` answer ``question`` with the assistant tools over ``root``."""
    with agenttools.toolset("assistant", root=root) as reg:
        agent = FunctionAgent(tools=reg.to_llama_index(), llm=llm,
                              system_prompt="You answer questions about the project in your workspace.")

        async def main() -> Any:
            return await agent.run(user_msg=question)

        return str(asyncio.run(main()))


def openai_llm() -> Any:
    """gpt-4.1 through LlamaIndex's OpenAI integration."""
    from llama_index.llms.openai import OpenAI

    return OpenAI(model="gpt-4.1")


def scripted_llm(root: str) -> Any:
    """An offline LlamaIndex LLM: calls the assistant's ``list`` for the workspace, then answers with what it got."""

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        results = [message for message in messages if message.role == MessageRole.TOOL]
        if not results:
            call = ToolCallBlock(tool_call_id="call_1", tool_name="list", tool_kwargs={"path": "."})
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])
        lines = [line for line in str(results[-1].content).splitlines() if line.strip()]
        first = lines[0] if lines else "-"
        first = first if len(first) <= 100 else first[:97] + "..."
        return ChatMessage(role=MessageRole.ASSISTANT,
                           content=f"(scripted model) The tool answered {len(lines)} line(s); the first: {first}")

    return MockFunctionCallingLLM(response_generator=respond)


if __name__ == "__main__":
    import sys

    import scripted  # the examples' shared helpers, next to this file

    project, question = scripted.root_and_question(sys.argv)
    llm = scripted.client("OPENAI_API_KEY", "llama-index-llms-openai", openai_llm, scripted_llm, project)
    print(run(llm, project, question))
