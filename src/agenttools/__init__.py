"""agenttools: the tools that give an LLM agent its hands, for every SDK.

Start with :func:`toolset` for a ready contract (``toolset("gemini", root=...)``) or :class:`Registry` for
your own tools; both give definitions for OpenAI, Anthropic, Gemini and MCP, and calls that never raise.
"""

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

_FAMILIES = frozenset({"content", "edit", "files", "message", "process", "schema", "search", "shell", "stats",
                       "todo", "toolsets", "web", "workspace", "errors", "registry"})


def __getattr__(name: str) -> object:
    """Import a family module on first use (``agenttools.content.session(...)``), keeping the import light."""
    if name in _FAMILIES:
        import importlib

        return importlib.import_module(f"agenttools.{name}")
    raise AttributeError(f"module 'agenttools' has no attribute {name!r}")


for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type) and _obj.__module__.startswith("agenttools."):
        _obj.__module__ = "agenttools"
del _name, _obj
