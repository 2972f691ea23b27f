"""LangChain ``StructuredTool``s (the ``langchain`` extra; langchain-core is imported only when used).

Each tool keeps its name, description and canonical schema (so ``convert_to_openai_tool`` gives our parameters),
validates its arguments itself (LangChain does not validate dict schemas) by calling through the registry, and
answers with ``out.text`` — or, when the output holds images or other data, with LangChain content blocks
(``{"type": "text"}``, ``{"type": "image", "base64", "mime_type"}``, ``{"type": "file", ...}``). A failing call
raises ``ToolException`` inside the tool, which LangChain turns into a ``ToolMessage`` with ``status="error"``
whose content is the error text (invoked with plain arguments, the tool returns that text).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agenttools.blocks import Answer, DataBlock, ImageBlock, TextBlock
from agenttools.tool import Tool

__all__ = ["content", "tools"]


def content(out: Answer) -> str | list[dict[str, Any]]:
    """A tool's answer as LangChain message content: the text, or content blocks when there is inline data."""
    if not any(isinstance(block, ImageBlock | DataBlock) for block in out.content):
        return out.text
    blocks: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            blocks.append({"type": "text", "text": block.text})
        else:
            kind = "image" if isinstance(block, ImageBlock) else "file"
            blocks.append({"type": kind, "base64": block.data, "mime_type": block.mime_type})
    return blocks


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, dict[str, Any]], Awaitable[Answer]]) -> list[Any]:
    """One ``StructuredTool`` per tool, running each call through ``call``/``acall`` (a registry's).

    Raises:
        ImportError: langchain-core is not installed (``pip install 'agenttools[langchain]'``).
    """
    try:
        from langchain_core.tools import StructuredTool, ToolException
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("LangChain tools need langchain-core: pip install 'agenttools[langchain]'") from None

    def answer(out: Answer) -> str | list[dict[str, Any]]:
        if out.is_error:
            raise ToolException(out.text)
        return content(out)

    out = []
    for tool in defined:

        def run(_name: str = tool.name, **kwargs: Any) -> str | list[dict[str, Any]]:
            return answer(call(_name, kwargs))

        async def arun(_name: str = tool.name, **kwargs: Any) -> str | list[dict[str, Any]]:
            return answer(await acall(_name, kwargs))

        out.append(StructuredTool.from_function(func=run, coroutine=arun, name=tool.name,
                                                description=tool.description, args_schema=dict(tool.parameters),
                                                handle_tool_error=True))
    return out
