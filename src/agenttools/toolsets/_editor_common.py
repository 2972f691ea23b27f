"""What the editor toolset's handlers share: state, ``[CODE] message`` errors, line formatting."""

from __future__ import annotations

import json
import secrets
from typing import Any

import attrs

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
)
from agenttools.process import ProcessTable
from agenttools.workspace import Workspace

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 30000
MAX_TIMEOUT_MS = 600_000


class EditorError(AgentToolsError):
    """An error the model sees as ``[CODE] message``."""

    code = "editor_error"

    def __init__(self, tag: str, message: str) -> None:
        self.tag = tag
        super().__init__(message)


@attrs.define
class State:
    """One editor session: its workspace (with the session cwd), background tasks and limits."""

    workspace: Workspace
    tasks: ProcessTable
    bash_timeout_ms: int
    sentinel: str = attrs.field(factory=lambda: f"__AGENTTOOLS_CWD_{secrets.token_hex(4)}__")


def quote(text: str) -> str:
    """Go's ``%q`` for the texts we show (JSON string escaping matches it for paths)."""
    return json.dumps(text, ensure_ascii=False)


def render_error(tool: str, error: BaseException) -> str:
    """Word every failure as upstream does: ``[CODE] message``."""
    if isinstance(error, EditorError):
        return f"[{error.tag}] {error}"
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
        return f"[PATH_NOT_FOUND] path not found: {error.path}"
    if isinstance(error, FileTooLargeError):
        return f"[FILE_TOO_LARGE] file {error.path} is {error.size} bytes, exceeds maximum {error.limit} bytes"
    if isinstance(error, PathError):
        return f"[INVALID_INPUT] {error}"
    if isinstance(error, AgentToolsError | OSError):
        return f"[IO_ERROR] {error}"
    return f"[IO_ERROR] {type(error).__name__}: {error}"


def format_lines(lines: list[str] | tuple[str, ...], start: int, cut: dict[int, int] | None = None) -> str:
    """``%*d\\t%s\\n`` per line, the width of the last number shown; cut lines get their total length."""
    if not lines:
        return ""
    width = len(str(start + len(lines) - 1))
    out = []
    for i, line in enumerate(lines):
        if cut and i in cut:
            line = f"{line}... [truncated, {cut[i]} chars total]"
        out.append(f"{start + i:>{width}}\t{line}\n")
    return "".join(out)


def format_size(size: int) -> str:
    """1024-based, one decimal: ``104 bytes``, ``1.0 KB``, ``2.4 MB``, ``1.0 GB``."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    return f"{size} bytes"  # pragma: no cover - unreachable


def truncate_output(text: str, total: int | None = None) -> str:
    """Upstream's per-stream cap: the first 30000 characters and a note with the total.

    ``total`` is the stream's real length when only part of it was kept in memory.
    """
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return (text[:MAX_OUTPUT_CHARS] + f"\n\n[Truncated: output was {total or len(text)} characters, showing first "
            f"{MAX_OUTPUT_CHARS}]")


def sections(stdout: str, stderr: str, totals: tuple[int | None, int | None] = (None, None)) -> str:
    """The ``\\nstderr:\\n...`` and ``\\nstdout:\\n...`` sections, stderr first, empty ones left out."""
    text = ""
    if stderr:
        text += "\nstderr:\n" + truncate_output(stderr, totals[1])
    if stdout:
        text += "\nstdout:\n" + truncate_output(stdout, totals[0])
    return text


def arg(args: dict[str, Any], name: str, default: Any = None) -> Any:
    """An optional argument (absent and null both mean the default)."""
    value = args.get(name)
    return default if value is None else value
