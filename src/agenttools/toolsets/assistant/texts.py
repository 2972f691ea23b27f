"""The assistant contract's words: descriptions and schemas as friday has them, compact JSON, Go-style texts.

Successes are compact JSON objects (:func:`dumps`); failures read ``ERROR: <message>`` (:func:`fail` for the
ones a handler words, :func:`render_error` for any other error). Go's texts for OS errors, durations, wait
statuses, file modes and times are reproduced here.
"""

from __future__ import annotations

import datetime
import json
import signal
import stat
from typing import Any

from agenttools.errors import ArgumentsError, ToolFailure, UnknownToolError

__all__ = ["DESCRIPTIONS", "PARAMETERS", "dumps", "fail", "go_duration", "go_mode", "go_wait_error",
           "render_error", "rfc3339"]

# The ToolInfo of each tool at TGIFAI/friday d828a5d (internal/agent/tool/{filex,shellx,msgx}/*.go): its Desc, and
# its parameters as eino's ParamsOneOf.ToJSONSchema() renders them (properties sorted by name, "required" in that
# order, each property's keys in jsonschema.Schema's field order: type, enum, description).
DESCRIPTIONS: dict[str, str] = {
    "read": "Read file content from an allowed path",
    "write": "Write content to a file in allowed paths",
    "edit": "Edit file by text replacement or line range replacement",
    "list": "List files in an allowed directory",
    "delete": "Delete a file in allowed paths",
    "file": "File operations: read_file(path), write_file(path, content), list_dir(path), delete_file(path)",
    "exec": "Execute short-lived commands",
    "process": "Manage long-running background processes",
    "message": "Send a message to a specific channel/chat",
}


def _prop(kind: str, description: str, enum: list[str] | None = None) -> dict[str, Any]:
    return {"type": kind, **({"enum": enum} if enum else {}), "description": description}


def _obj(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {"properties": dict(sorted(properties.items())), "type": "object", "required": sorted(required)}


PARAMETERS: dict[str, dict[str, Any]] = {
    "read": _obj({"path": _prop("string", "File path to read")}, ["path"]),
    "write": _obj({"path": _prop("string", "File path to write"),
                   "content": _prop("string", "Full file content to write")}, ["path", "content"]),
    "edit": _obj({
        "path": _prop("string", "File path to edit"),
        "old_text": _prop("string", "Text to replace (omit to use line-range mode)"),
        "new_text": _prop("string", "Replacement text"),
        "replace_all": _prop("boolean", "Replace all matches (default true)"),
        "start_line": _prop("integer", "1-based start line (for line-range mode)"),
        "end_line": _prop("integer", "1-based end line (for line-range mode)"),
    }, ["path", "new_text"]),
    "list": _obj({"path": _prop("string", "Directory path to list")}, ["path"]),
    "delete": _obj({"path": _prop("string", "File path to delete")}, ["path"]),
    "file": _obj({
        "operation": _prop("string", "Operation to perform: read_file, write_file, list_dir, delete_file",
                           ["read_file", "write_file", "list_dir", "delete_file"]),
        "path": _prop("string", "File or directory path"),
        "content": _prop("string", "File content (required for write_file)"),
    }, ["path"]),
    "exec": _obj({
        "command": _prop("string", "Command string (shell) or JSON array of argv strings"),
        "working_dir": _prop("string", "Working directory (optional, defaults to workspace)"),
        "timeout": _prop("number", "Timeout in seconds (optional, default 60, max 600)"),
    }, ["command"]),
    "process": _obj({
        "action": _prop("string", "Action to perform: start, status, log, kill, list",
                        ["start", "status", "log", "kill", "list"]),
        "process_id": _prop("string", "Process ID (required for status, log, kill)"),
        "command": _prop("string", "Command string or JSON array of argv strings (required for start)"),
        "working_dir": _prop("string", "Working directory (optional, start only)"),
        "tail": _prop("integer", "Max bytes per stream to return (optional, log only, default 4096)"),
    }, ["action"]),
    "message": _obj({
        "chanId": _prop("string", "Channel ID to send the message to"),
        "chatId": _prop("string", "Chat ID within the channel"),
        "content": _prop("string", "Message content to send"),
    }, ["chanId", "chatId", "content"]),
}


_GO_SIGNALS: dict[int, str] = {
    signal.SIGKILL: "killed", signal.SIGTERM: "terminated", signal.SIGINT: "interrupt", signal.SIGHUP: "hangup",
    signal.SIGSEGV: "segmentation fault", signal.SIGABRT: "aborted", signal.SIGPIPE: "broken pipe",
    signal.SIGQUIT: "quit", signal.SIGUSR1: "user defined signal 1", signal.SIGUSR2: "user defined signal 2",
}


def fail(message: str) -> ToolFailure:
    """A failure the model sees as ``ERROR: <message>``."""
    return ToolFailure(f"ERROR: {message}", code="assistant_error")


def dumps(value: Any) -> str:
    """Compact JSON without ASCII or HTML escaping, keys in insertion order (upstream's ``sonic`` output)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render_error(tool: str, error: BaseException) -> str:
    """``ERROR: <message>``, with upstream's texts for unparsable arguments and unknown tools."""
    if isinstance(error, ArgumentsError):
        return f"ERROR: failed to parse tool arguments: {error.issues[0].describe() if error.issues else error}"
    if isinstance(error, UnknownToolError):
        return f"ERROR: tool not found: {error.name}"
    return f"ERROR: {error}"


def go_duration(seconds: float) -> str:
    """Go's ``time.Duration.String()``: ``100ms``, ``1.5s``, ``1m0s``, ``2h0m0s``."""
    nanos = round(seconds * 1e9)
    if nanos == 0:
        return "0s"
    if nanos < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanos >= size:
                return f"{_trim(nanos / size)}{unit}"
    hours, rest = divmod(nanos, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    secs = _trim(rest / 1e9) + "s"
    if hours:
        return f"{hours}h{minutes}m{secs}"
    if minutes:
        return f"{minutes}m{secs}"
    return secs


def _trim(value: float) -> str:
    text = f"{value:.9f}".rstrip("0").rstrip(".")
    return text or "0"


def go_wait_error(exit_code: int | None, signum: int | None) -> str | None:
    """Go's ``exec.ExitError`` text: ``exit status 3``, ``signal: killed``; None for a clean exit."""
    if signum is not None:
        return f"signal: {_GO_SIGNALS.get(signum, signal.strsignal(signum) or str(signum)).lower()}"
    if exit_code:
        return f"exit status {exit_code}"
    return None


def go_mode(mode: int) -> str:
    """Go's ``FileMode.String()`` for an ``lstat`` mode: ``-rw-r--r--``, ``drwxr-xr-x``, ``Lrwxrwxrwx``."""
    kinds = [
        (stat.S_ISDIR(mode), "d"), (stat.S_ISLNK(mode), "L"), (stat.S_ISBLK(mode), "D"),
        (stat.S_ISFIFO(mode), "p"), (stat.S_ISSOCK(mode), "S"), (bool(mode & stat.S_ISUID), "u"),
        (bool(mode & stat.S_ISGID), "g"), (stat.S_ISCHR(mode), "c"), (bool(mode & stat.S_ISVTX), "t"),
    ]
    prefix = "".join(letter for on, letter in kinds if on)
    if stat.S_ISCHR(mode):
        prefix = prefix.replace("D", "")
    perms = "".join(c if mode & (1 << (8 - i)) else "-" for i, c in enumerate("rwxrwxrwx"))
    return (prefix or "-") + perms


def rfc3339(timestamp: float) -> str:
    """Local time with its offset, seconds precision; ``Z`` for UTC (Go's ``time.RFC3339``)."""
    text = datetime.datetime.fromtimestamp(timestamp).astimezone().isoformat(timespec="seconds")
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text
