"""What the assistant handlers share: the toolset's state and limits, the path guard, and loose argument reading."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import attrs

from agenttools.errors import AccessDeniedError, PathError, ProtectedPathError
from agenttools.message import ChannelLike
from agenttools.process import ProcessManager
from agenttools.toolsets.assistant.texts import fail
from agenttools.workspace import Workspace

__all__ = ["DEFAULT_EXEC_TIMEOUT", "DEFAULT_TAIL", "MAX_EXEC_TIMEOUT", "MAX_STREAM", "State", "coerce_bool",
           "coerce_int", "guard", "text_arg"]

DEFAULT_EXEC_TIMEOUT = 60.0
MAX_EXEC_TIMEOUT = 600.0
MAX_STREAM = 1024 * 1024
DEFAULT_TAIL = 4096


@attrs.define
class State:
    """One assistant toolset: its workspace, background processes and message channels."""

    workspace: Workspace
    processes: ProcessManager
    channels: Mapping[str, ChannelLike]
    displays: dict[str, str] = attrs.field(factory=dict)


def text_arg(args: Mapping[str, Any], name: str) -> str | None:
    """A string argument, or None when missing or not a string."""
    value = args.get(name)
    return value if isinstance(value, str) else None


def guard(state: State, raw: Any, *, follow_last: bool = True, write: bool = False) -> tuple[str, str, str]:
    """Resolve a path argument: (as given, lexical absolute path, real path) or ``fail(...)``.

    With ``follow_last=False`` the last component is not resolved (deleting a symlink deletes the link). With
    ``write`` (to write, edit or delete) git metadata is refused too: ``path not allowed: <path> (inside .git)``.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise fail("path is required")
    given = raw
    ws = state.workspace
    try:
        lexical = ws.absolute(raw.strip())
        real = str(ws.resolve(lexical, write=write) if follow_last else ws.resolve_entry(lexical, write=write))
    except (AccessDeniedError, PathError) as exc:
        why = " (inside .git: git metadata is read-only)" if isinstance(exc, ProtectedPathError) else ""
        raise fail(f"path not allowed: {os.path.normpath(os.path.join(ws.cwd, raw.strip()))}{why}") from None
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
