"""The assistant contract's words: descriptions and schemas as friday has them, compact JSON, Go-style texts.

Successes are compact JSON objects (:func:`dumps`); failures read ``ERROR: <message>`` (:func:`fail` for the
ones a handler words, :func:`render_error` for any other error). Go's texts for OS errors, durations, wait
statuses, file modes and times are reproduced here.
"""

from __future__ import annotations

import datetime
import errno as errno_codes
import json
import signal
import stat
from typing import Any

from agenttools.errors import ArgumentsError, ToolFailure, UnknownToolError

__all__ = ["DESCRIPTIONS", "PARAMETERS", "dumps", "fail", "go_duration", "go_error", "go_mode", "go_wait_error",
           "render_error", "rfc3339"]

DESCRIPTIONS: dict[str, str] = {
    "read": "Read a single file. Returns its content and size. Use list first to discover the correct path.",
    "write": "Create or overwrite a file with the given content (parent directories are created).",
    "edit": "Modify an existing file with minimal changes. Text mode: old_text/new_text (replace_all defaults to "
            "true). Line mode: start_line/end_line (1-based, inclusive) replaced by new_text.",
    "list": "List the entries of a directory (name, path, type, size, mode).",
    "delete": "Delete a single file (or an empty directory).",
    "file": "Legacy multi-operation file tool (read_file, write_file, list_dir, delete_file); prefer read, write, "
            "list and delete. If operation is omitted it is inferred.",
    "exec": "Run a short command synchronously: a shell string or an argv array. A non-zero exit is returned as "
            "success=false with exit_code, not as an error; a timeout is an error.",
    "process": "Manage long-running background processes without blocking: action start, status, log, kill or list.",
    "message": "Send a message to a channel/chat.",
}

_PATH = {"type": "string", "description": "File or directory path, relative to the workspace or absolute."}
_COMMAND = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            "description": "The command: a shell string, or an array of program and arguments."}
_WORKING_DIR = {"type": "string", "description": "Directory to run in, relative to the workspace (default: the "
                                                 "workspace)."}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


PARAMETERS: dict[str, dict[str, Any]] = {
    "read": _obj({"path": _PATH}, ["path"]),
    "write": _obj({"path": _PATH, "content": {"type": "string", "description": "The full file content."}},
                  ["path", "content"]),
    "edit": _obj({
        "path": _PATH,
        "old_text": {"type": "string", "description": "Text mode: the exact text to replace."},
        "new_text": {"type": "string", "description": "The replacement text (both modes)."},
        "replace_all": {"type": "boolean", "description": "Text mode: replace every occurrence (default true) or "
                                                          "only the first."},
        "start_line": {"type": "integer", "description": "Line mode: first line to replace (1-based)."},
        "end_line": {"type": "integer", "description": "Line mode: last line to replace (1-based, inclusive)."},
    }, ["path", "new_text"]),
    "list": _obj({"path": _PATH}, ["path"]),
    "delete": _obj({"path": _PATH}, ["path"]),
    "file": _obj({
        "operation": {"type": "string", "enum": ["read_file", "write_file", "list_dir", "delete_file"],
                      "description": "The operation (strongly recommended; inferred when omitted)."},
        "path": _PATH,
        "content": {"type": "string", "description": "Content for write_file."},
    }, ["path"]),
    "exec": _obj({
        "command": _COMMAND, "working_dir": _WORKING_DIR,
        "timeout": {"type": "number", "description": "Timeout in seconds (default 60, at most 600)."},
    }, ["command"]),
    "process": _obj({
        "action": {"type": "string", "enum": ["start", "status", "log", "kill", "list"],
                   "description": "What to do."},
        "command": _COMMAND, "working_dir": _WORKING_DIR,
        "process_id": {"type": "string", "description": "The process id (e.g. proc-1) for status, log and kill; "
                                                        "alias pid."},
        "tail": {"type": "integer", "description": "log: how many bytes of each stream to return (default 4096)."},
    }, ["action"]),
    "message": _obj({
        "chanId": {"type": "string", "description": "The channel id (aliases chan_id, channelId, channel_id)."},
        "chatId": {"type": "string", "description": "The chat id within the channel (alias chat_id)."},
        "content": {"type": "string", "description": "The message text."},
    }, ["chanId", "chatId", "content"]),
}


_GO_ERRNO = {
    errno_codes.ENOENT: "no such file or directory", errno_codes.EISDIR: "is a directory",
    errno_codes.ENOTDIR: "not a directory", errno_codes.EACCES: "permission denied",
    errno_codes.EEXIST: "file exists", errno_codes.ENOTEMPTY: "directory not empty",
    errno_codes.EPERM: "operation not permitted", errno_codes.ELOOP: "too many levels of symbolic links",
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


def go_error(op: str, path: str, exc: OSError) -> str:
    """Go's ``*PathError`` text, e.g. ``open /abs/x: no such file or directory``."""
    text = _GO_ERRNO.get(exc.errno or 0) or (exc.strerror or str(exc)).lower()
    return f"{op} {path}: {text}"


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
