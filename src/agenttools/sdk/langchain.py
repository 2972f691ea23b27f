"""LangChain ``StructuredTool``s (the ``langchain`` extra; langchain-core is imported only when used).

Each tool keeps its name, description and canonical schema (so ``convert_to_openai_tool`` gives our parameters),
validates its arguments itself (LangChain does not validate dict schemas) by calling through the registry, and
returns ``out.text``: errors as text, never raised.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agenttools.blocks import Answer
from agenttools.tool import Tool

__all__ = ["tools"]


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, dict[str, Any]], Awaitable[Answer]]) -> list[Any]:
    """One ``StructuredTool`` per tool, running each call through ``call``/``acall`` (a registry's).

    Raises:
        ImportError: langchain-core is not installed (``pip install 'agenttools[langchain]'``).
    """
    try:
        from langchain_core.tools import StructuredTool
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("LangChain tools need langchain-core: pip install 'agenttools[langchain]'") from None
    out = []
    for tool in defined:

        def run(_name: str = tool.name, **kwargs: Any) -> str:
            return call(_name, kwargs).text

        async def arun(_name: str = tool.name, **kwargs: Any) -> str:
            return (await acall(_name, kwargs)).text

        out.append(StructuredTool.from_function(func=run, coroutine=arun, name=tool.name,
                                                description=tool.description, args_schema=dict(tool.parameters)))
    return out
