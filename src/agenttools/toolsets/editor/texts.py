"""The editor contract's words: descriptions and schemas as the boris MCP server has them, and ``[CODE] message``.

Every failure reads ``[CODE] message``: :func:`failure` for the ones a handler words itself, :func:`render_error`
for the typed errors of the families.
"""

from __future__ import annotations

from typing import Any

from agenttools.errors import (
    AgentToolsError,
    ArgumentsError,
    DeniedPathError,
    FileTooLargeError,
    HardLinkError,
    NotFoundError,
    OutsideWorkspaceError,
    PathError,
    ProtectedPathError,
    ToolFailure,
    UnknownToolError,
)

__all__ = ["DESCRIPTIONS", "PARAMETERS", "failure", "quote", "render_error"]

DESCRIPTIONS: dict[str, str] = {
    "view": "Read a file from the filesystem with line numbers, or list a directory (2 levels deep). Supports line "
            "ranges for large files. Returns images as inline content. Lines longer than 2000 characters are "
            "truncated.",
    "str_replace": "Replace a unique string in a file. The old_str must appear exactly once unless replace_all is "
                   "true. Omit new_str or set it to empty string to delete the matched text.",
    "create_file": "Create a new file or overwrite an existing one. Creates parent directories as needed.",
    "bash": "Executes a bash command with optional timeout. The working directory persists between calls. When "
            "run_in_background is true, the command runs asynchronously and returns a task_id for later retrieval "
            "via task_output.",
    "task_output": "Retrieve output from a running or completed background bash command by task_id. Running tasks "
                   "return current output with status: running. Completed tasks return final output, exit code, "
                   "and are cleaned up after retrieval.",
}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


PARAMETERS: dict[str, dict[str, Any]] = {
    "view": _obj({
        "path": {"type": "string", "description": "file or directory path to view"},
        "view_range": {"type": "array", "items": {"type": "integer"},
                       "description": "optional line range [start end] (1-indexed)"},
    }, ["path"]),
    "str_replace": _obj({
        "path": {"type": "string", "description": "file path"},
        "old_str": {"type": "string", "description": "the string to find (must be unique unless replace_all is true)"},
        "new_str": {"type": "string", "description": "replacement string (empty or omitted to delete)"},
        "replace_all": {"type": "boolean",
                        "description": "replace all occurrences instead of requiring a unique match"},
    }, ["path", "old_str"]),
    "create_file": _obj({
        "path": {"type": "string", "description": "file path to create or overwrite"},
        "content": {"type": "string", "description": "file content"},
    }, ["path", "content"]),
    "bash": _obj({
        "command": {"type": "string", "description": "the shell command to execute"},
        "timeout": {"type": "integer", "description": "timeout in milliseconds (default 120000, max 600000)"},
        "run_in_background": {"type": "boolean", "description": "run command in background, returns a task_id"},
        "description": {"type": "string",
                        "description": "optional human-readable description of what this command does"},
    }, ["command"]),
    "task_output": _obj({
        "task_id": {"type": "string", "description": "the task ID returned by a background bash command"},
    }, ["task_id"]),
}


def failure(tag: str, message: str) -> ToolFailure:
    """A failure the model sees as ``[TAG] message`` (its ``code`` is the tag in lower case)."""
    return ToolFailure(f"[{tag}] {message}", code=tag.lower())


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               '"': '\\"', "\\": "\\\\"}


def quote(text: str) -> str:
    """Go's ``%q`` (``strconv.Quote``): printable characters as they are, the rest as Go escapes.

    An undecodable byte of a path (a lone surrogate from ``surrogateescape``) becomes ``\\xHH``, as Go shows an
    invalid UTF-8 byte.
    """
    out = []
    for char in text:
        code = ord(char)
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif char.isprintable():
            out.append(char)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def render_error(tool: str, error: BaseException) -> str:
    """Word every failure as upstream does: ``[CODE] message``."""
    if isinstance(error, UnknownToolError):  # the MCP Go SDK's own answer, before any tool runs
        return f"unknown tool {quote(error.name)}"
    if isinstance(error, ArgumentsError):
        return "[INVALID_INPUT] " + "; ".join(issue.describe() for issue in error.issues)
    if isinstance(error, OutsideWorkspaceError):
        return (f"[ACCESS_DENIED] path not allowed: access denied: path {quote(error.path)} is outside allowed "
                "directories")
    if isinstance(error, HardLinkError):
        return (f"[ACCESS_DENIED] path not allowed: access denied: path {quote(error.path)} has {error.links} hard "
                "links (one may be outside allowed directories)")
    if isinstance(error, ProtectedPathError):
        return (f"[ACCESS_DENIED] path not allowed: access denied: path {quote(error.path)} is inside git metadata "
                f"{quote(error.directory)} (read-only)")
    if isinstance(error, DeniedPathError):
        return (f"[ACCESS_DENIED] path not allowed: access denied: path {quote(error.path)} matches deny pattern "
                f"{quote(error.pattern)}")
    if isinstance(error, NotFoundError):
        return f"[PATH_NOT_FOUND] {error.path} does not exist"
    if isinstance(error, FileTooLargeError):
        return f"[FILE_TOO_LARGE] file {error.path} is {error.size} bytes, exceeds maximum {error.limit} bytes"
    if isinstance(error, PathError):
        return f"[INVALID_INPUT] {error}"
    if isinstance(error, AgentToolsError | OSError):
        return f"[IO_ERROR] {error}"
    return f"[IO_ERROR] {type(error).__name__}: {error}"
