"""LangChain ``StructuredTool``s for a registry (the ``langchain`` extra).

Each tool keeps the registry's name, description and canonical schema (so ``convert_to_openai_tool`` gives our
parameters), validates its arguments itself (LangChain does not validate dict schemas) and returns ``out.text`` —
errors as text, never raised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenttools.registry import Registry

__all__ = ["to_langchain"]


def to_langchain(registry: Registry) -> list[Any]:
    """One ``StructuredTool`` per registry tool.

    Raises:
        ImportError: langchain-core is not installed (``pip install 'agenttools[langchain]'``).
    """
    try:
        from langchain_core.tools import StructuredTool
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("LangChain tools need langchain-core: pip install 'agenttools[langchain]'") from None
    tools = []
    for tool in registry:

        def run(_name: str = tool.name, **kwargs: Any) -> str:
            return registry.call(_name, kwargs).text

        async def arun(_name: str = tool.name, **kwargs: Any) -> str:
            return (await registry.acall(_name, kwargs)).text

        tools.append(StructuredTool.from_function(func=run, coroutine=arun, name=tool.name,
                                                  description=tool.description,
                                                  args_schema=dict(tool.parameters)))
    return tools
