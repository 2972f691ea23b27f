"""agenttools: the tools that give an LLM agent its hands, for every SDK.

Start with :func:`toolset` for a ready contract (``toolset("gemini", root=...)``) or :class:`Registry` for
your own tools; both give definitions for OpenAI, Anthropic, Gemini and MCP, and calls that never raise.

``import agenttools`` is light: every public name and family module is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenttools._output import ContentBlock, DataBlock, ImageBlock, TextBlock, ToolOutput
    from agenttools.errors import (
        AccessDeniedError,
        AgentToolsError,
        AlreadyExistsError,
        ArgumentsError,
        ChannelNotFoundError,
        ConfigError,
        DeniedPathError,
        EditError,
        EncodingError,
        FileTooLargeError,
        HardLinkError,
        IsDirectoryError,
        MatchCountError,
        NoChangeError,
        NoMatchError,
        NotDirectoryError,
        NotFoundError,
        OutsideWorkspaceError,
        PathError,
        PatternError,
        ProcessLimitError,
        ProtectedPathError,
        SendError,
        SpecialFileError,
        ToolDefinitionError,
        ToolInputError,
        ToolTimeoutError,
        UnknownProcessError,
        UnknownToolError,
        ValidationIssue,
    )
    from agenttools.registry import ErrorRenderer, Registry, Tool
    from agenttools.toolsets import toolset
    from agenttools.workspace import Workspace

__version__ = "0.1.0.dev0"

__all__ = [
    "AccessDeniedError",
    "AgentToolsError",
    "AlreadyExistsError",
    "ArgumentsError",
    "ChannelNotFoundError",
    "ConfigError",
    "ContentBlock",
    "DataBlock",
    "DeniedPathError",
    "EditError",
    "EncodingError",
    "ErrorRenderer",
    "FileTooLargeError",
    "HardLinkError",
    "ImageBlock",
    "IsDirectoryError",
    "MatchCountError",
    "NoChangeError",
    "NoMatchError",
    "NotDirectoryError",
    "NotFoundError",
    "OutsideWorkspaceError",
    "PathError",
    "PatternError",
    "ProcessLimitError",
    "ProtectedPathError",
    "Registry",
    "SendError",
    "SpecialFileError",
    "TextBlock",
    "Tool",
    "ToolDefinitionError",
    "ToolInputError",
    "ToolOutput",
    "ToolTimeoutError",
    "UnknownProcessError",
    "UnknownToolError",
    "ValidationIssue",
    "Workspace",
    "toolset",
]

_EXPORTS: dict[str, str] = {
    "AccessDeniedError": "agenttools.errors",
    "AgentToolsError": "agenttools.errors",
    "AlreadyExistsError": "agenttools.errors",
    "ArgumentsError": "agenttools.errors",
    "ChannelNotFoundError": "agenttools.errors",
    "ConfigError": "agenttools.errors",
    "ContentBlock": "agenttools._output",
    "DataBlock": "agenttools._output",
    "DeniedPathError": "agenttools.errors",
    "EditError": "agenttools.errors",
    "EncodingError": "agenttools.errors",
    "ErrorRenderer": "agenttools.registry",
    "FileTooLargeError": "agenttools.errors",
    "HardLinkError": "agenttools.errors",
    "ImageBlock": "agenttools._output",
    "IsDirectoryError": "agenttools.errors",
    "MatchCountError": "agenttools.errors",
    "NoChangeError": "agenttools.errors",
    "NoMatchError": "agenttools.errors",
    "NotDirectoryError": "agenttools.errors",
    "NotFoundError": "agenttools.errors",
    "OutsideWorkspaceError": "agenttools.errors",
    "PathError": "agenttools.errors",
    "PatternError": "agenttools.errors",
    "ProcessLimitError": "agenttools.errors",
    "ProtectedPathError": "agenttools.errors",
    "Registry": "agenttools.registry",
    "SendError": "agenttools.errors",
    "SpecialFileError": "agenttools.errors",
    "TextBlock": "agenttools._output",
    "Tool": "agenttools.registry",
    "ToolDefinitionError": "agenttools.errors",
    "ToolInputError": "agenttools.errors",
    "ToolOutput": "agenttools._output",
    "ToolTimeoutError": "agenttools.errors",
    "UnknownProcessError": "agenttools.errors",
    "UnknownToolError": "agenttools.errors",
    "ValidationIssue": "agenttools.errors",
    "Workspace": "agenttools.workspace",
    "toolset": "agenttools.toolsets",
}
"""Public name -> the module that defines it (imported on first access)."""

_FAMILIES = frozenset({"content", "edit", "errors", "files", "message", "process", "registry", "schema", "search",
                       "shell", "stats", "todo", "toolsets", "web", "workspace"})


def __getattr__(name: str) -> Any:
    """Import a public name or a family module on first use (``agenttools.Registry``, ``agenttools.content``)."""
    module_name = _EXPORTS.get(name)
    if module_name is not None:
        value = getattr(importlib.import_module(module_name), name)
        if isinstance(value, type) and value.__module__.startswith("agenttools."):
            value.__module__ = "agenttools"
        globals()[name] = value
        return value
    if name in _FAMILIES:
        return importlib.import_module(f"agenttools.{name}")
    raise AttributeError(f"module 'agenttools' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, *_FAMILIES, "__version__"])
