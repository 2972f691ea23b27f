"""What the assistant toolset's handlers share: state, ``ERROR: ...`` failures, Go-style texts, the path guard."""

from __future__ import annotations

import datetime
import errno as errno_codes
import json
import os
import signal
import stat
from collections.abc import Mapping
from typing import Any

import attrs

from agenttools.errors import (
    AccessDeniedError,
    AgentToolsError,
    ArgumentsError,
    PathError,
    ProtectedPathError,
    UnknownToolError,
)
from agenttools.message import ChannelLike
from agenttools.process import ProcessManager
from agenttools.workspace import Workspace

DEFAULT_EXEC_TIMEOUT = 60.0
MAX_EXEC_TIMEOUT = 600.0
MAX_STREAM = 1024 * 1024
DEFAULT_TAIL = 4096

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


class Fail(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A failure the model sees as ``ERROR: <message>``."""

    code = "assistant_error"


@attrs.define
class State:
    """One assistant toolset: its workspace, background processes and message channels."""

    workspace: Workspace
    processes: ProcessManager
    channels: Mapping[str, ChannelLike]
    displays: dict[str, str] = attrs.field(factory=dict)


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


def text_arg(args: Mapping[str, Any], name: str) -> str | None:
    """A string argument, or None when missing or not a string."""
    value = args.get(name)
    return value if isinstance(value, str) else None


def guard(state: State, raw: Any, *, follow_last: bool = True, write: bool = False) -> tuple[str, str, str]:
    """Resolve a path argument: (as given, lexical absolute path, real path) or ``Fail``.

    With ``follow_last=False`` the last component is not resolved (deleting a symlink deletes the link). With
    ``write`` (to write, edit or delete) git metadata is refused too: ``path not allowed: <path> (inside .git)``.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise Fail("path is required")
    given = raw
    ws = state.workspace
    try:
        lexical = ws.absolute(raw.strip())
        real = str(ws.resolve(lexical, write=write) if follow_last else ws.resolve_entry(lexical, write=write))
    except (AccessDeniedError, PathError) as exc:
        why = " (inside .git: git metadata is read-only)" if isinstance(exc, ProtectedPathError) else ""
        raise Fail(f"path not allowed: {os.path.normpath(os.path.join(ws.cwd, raw.strip()))}{why}") from None
    return given, lexical, real


def coerce_bool(value: Any, default: bool) -> bool:
    """Go-style loose boolean: bools, ``strconv.ParseBool`` strings, numbers (non-zero is true)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("1", "t", "true"):
            return True
        if lowered in ("0", "f", "false"):
            return False
    return default


def coerce_int(value: Any) -> int:
    """Numbers and numeric strings to int; anything else is 0."""
    if isinstance(value, bool):
        return 0
    try:
        if isinstance(value, int | float):
            return int(value)
        if isinstance(value, str):
            return int(float(value.strip()))
    except (ValueError, OverflowError):  # not a number, or infinite (1e999)
        return 0
    return 0
