"""agenttools: the tools that give an LLM agent its hands, for every SDK.

Start with :func:`toolset` for a ready contract (``toolset("gemini", root=...)``) or :class:`Registry` for
your own tools; both give definitions for OpenAI, Anthropic, Gemini and MCP, and calls that never raise.

``import agenttools`` is light: every public name and family module is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenttools.blocks import ContentBlock, DataBlock, ImageBlock, TextBlock
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
        GitError,
        HardLinkError,
        IsDirectoryError,
        MatchCountError,
        NoChangeError,
        NoMatchError,
        NotDirectoryError,
        NotFoundError,
        OutsideWorkspaceError,
        OverlappingEditsError,
        PathError,
        PatternError,
        ProcessLimitError,
        ProtectedPathError,
        SandboxError,
        SandboxWarning,
        SendError,
        SpecialFileError,
        StaleFileError,
        ToolDefinitionError,
        ToolFailure,
        ToolInputError,
        ToolTimeoutError,
        UnknownProcessError,
        UnknownToolError,
    )
    from agenttools.output import ToolOutput
    from agenttools.registry import Registry
    from agenttools.sandbox import Sandbox
    from agenttools.schema import ValidationIssue
    from agenttools.tool import ErrorRenderer, Tool, ToolCall
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
    "GitError",
    "HardLinkError",
    "ImageBlock",
    "IsDirectoryError",
    "MatchCountError",
    "NoChangeError",
    "NoMatchError",
    "NotDirectoryError",
    "NotFoundError",
    "OutsideWorkspaceError",
    "OverlappingEditsError",
    "PathError",
    "PatternError",
    "ProcessLimitError",
    "ProtectedPathError",
    "Registry",
    "Sandbox",
    "SandboxError",
    "SandboxWarning",
    "SendError",
    "SpecialFileError",
    "StaleFileError",
    "TextBlock",
    "Tool",
    "ToolCall",
    "ToolDefinitionError",
    "ToolFailure",
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
    "ContentBlock": "agenttools.blocks",
    "DataBlock": "agenttools.blocks",
    "DeniedPathError": "agenttools.errors",
    "EditError": "agenttools.errors",
    "EncodingError": "agenttools.errors",
    "ErrorRenderer": "agenttools.tool",
    "FileTooLargeError": "agenttools.errors",
    "GitError": "agenttools.errors",
    "HardLinkError": "agenttools.errors",
    "ImageBlock": "agenttools.blocks",
    "IsDirectoryError": "agenttools.errors",
    "MatchCountError": "agenttools.errors",
    "NoChangeError": "agenttools.errors",
    "NoMatchError": "agenttools.errors",
    "NotDirectoryError": "agenttools.errors",
    "NotFoundError": "agenttools.errors",
    "OutsideWorkspaceError": "agenttools.errors",
    "OverlappingEditsError": "agenttools.errors",
    "PathError": "agenttools.errors",
    "PatternError": "agenttools.errors",
    "ProcessLimitError": "agenttools.errors",
    "ProtectedPathError": "agenttools.errors",
    "Registry": "agenttools.registry",
    "Sandbox": "agenttools.sandbox",
    "SandboxError": "agenttools.errors",
    "SandboxWarning": "agenttools.errors",
    "SendError": "agenttools.errors",
    "SpecialFileError": "agenttools.errors",
    "StaleFileError": "agenttools.errors",
    "TextBlock": "agenttools.blocks",
    "Tool": "agenttools.tool",
    "ToolCall": "agenttools.tool",
    "ToolDefinitionError": "agenttools.errors",
    "ToolFailure": "agenttools.errors",
    "ToolInputError": "agenttools.errors",
    "ToolOutput": "agenttools.output",
    "ToolTimeoutError": "agenttools.errors",
    "UnknownProcessError": "agenttools.errors",
    "UnknownToolError": "agenttools.errors",
    "ValidationIssue": "agenttools.schema",
    "Workspace": "agenttools.workspace",
    "toolset": "agenttools.toolsets",
}
"""Public name -> the module that defines it (imported on first access)."""

_FAMILIES = frozenset({"content", "edit", "errors", "files", "git", "message", "process", "registry", "sandbox",
                       "schema", "sdk", "search", "shell", "stats", "todo", "toolsets", "web", "workspace"})


def __getattr__(name: str) -> Any:
    """Import a public name or a family module on first use (``agenttools.Registry``, ``agenttools.content``)."""
    module_name = _EXPORTS.get(name)
    if module_name is not None:
        value = getattr(importlib.import_module(module_name), name)
        globals()[name] = value
        return value
    if name in _FAMILIES:
        return importlib.import_module(f"agenttools.{name}")
    raise AttributeError(f"module 'agenttools' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, *_FAMILIES, "__version__"])
