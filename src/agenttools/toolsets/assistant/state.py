"""What the assistant handlers share: the toolset's state and limits, the path guard, and loose argument reading."""

from __future__ import annotations

import decimal
import math
import os
import re
from collections.abc import Mapping
from typing import Any

from agenttools.errors import AccessDeniedError, PathError, ProtectedPathError
from agenttools.message import ChannelLike
from agenttools.process import ProcessManager
from agenttools.toolsets.assistant.texts import fail
from agenttools.workspace import Workspace

__all__ = ["DEFAULT_EXEC_TIMEOUT", "DEFAULT_TAIL", "MAX_EXEC_TIMEOUT", "MAX_STREAM", "State", "coerce_bool",
           "coerce_float", "coerce_int", "coerce_str", "go_clean", "guard", "text_arg"]

DEFAULT_EXEC_TIMEOUT = 60.0
MAX_EXEC_TIMEOUT = 600.0
MAX_STREAM = 1024 * 1024
DEFAULT_TAIL = 4096


class State:
    """One assistant toolset: its workspace, background processes and message channels."""

    __slots__ = ("__weakref__", "channels", "cwds", "displays", "processes", "workspace")

    def __init__(self, *, workspace: Workspace, processes: ProcessManager,
                 channels: Mapping[str, ChannelLike]) -> None:
        self.workspace = workspace
        self.processes = processes
        self.channels = channels
        self.displays: dict[str, str] = {}
        """Each started process's command as upstream reports it (argv items joined by spaces)."""
        self.cwds: dict[str, str] = {}
        """Each started process's ``working_dir`` as upstream reports it (not symlink-resolved)."""


def text_arg(args: Mapping[str, Any], name: str) -> str | None:
    """A string argument, or None when missing or not a string (Go's ``args[name].(string)``)."""
    value = args.get(name)
    return value if isinstance(value, str) else None


def guard(state: State, raw: Any, *, follow_last: bool = True, write: bool = False,
          trim: bool = True) -> tuple[str, str, str]:
    """Resolve a path argument: (as given, lexical absolute path, real path) or ``fail(...)``.

    With ``follow_last=False`` the last component is not resolved (deleting a symlink deletes the link). With
    ``write`` (to write, edit or delete) git metadata is refused too: ``path not allowed: <path> (inside .git)``.
    With ``trim=False`` (the ``file`` tool) the path is used as given, spaces included, as upstream's ``file`` does.
    """
    if not isinstance(raw, str) or not (raw.strip() if trim else raw):
        raise fail("path is required")
    given = raw
    path = raw.strip() if trim else raw
    ws = state.workspace
    try:
        lexical = ws.absolute(path)
        real = str(ws.resolve(lexical, write=write) if follow_last else ws.resolve_entry(lexical, write=write))
    except (AccessDeniedError, PathError) as exc:
        why = " (inside .git: git metadata is read-only)" if isinstance(exc, ProtectedPathError) else ""
        raise fail(f"path not allowed: {go_clean(os.path.join(ws.cwd, path))}{why}") from None
    return given, lexical, real


_GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def coerce_bool(value: Any) -> bool:
    """Go's ``gconv.To[bool]``: bools, numbers (non-zero is true), ``strconv.ParseBool`` strings; else false."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    return isinstance(value, str) and value in _GO_TRUE


def coerce_int(value: Any) -> int:
    """Go's ``gconv.To[int]``: numbers truncated, ``true`` is 1, decimal strings (``"3"``, ``"3.0"``); else 0.

    Strings are not trimmed (``" 3"`` is 0) and may not have a fraction (``"3.5"`` is 0); an out-of-range string
    saturates, as ``strconv.ParseInt`` does; a non-finite or huge number is Go's amd64 conversion result.
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or not _INT64_MIN <= value <= _INT64_MAX:
            return _INT64_MIN
        return int(value)
    if isinstance(value, str):
        whole, dot, fraction = value.partition(".")
        text = whole if not dot or not fraction.rstrip("0") else f"{whole}.{fraction.rstrip('0')}"
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            return 0
        return max(_INT64_MIN, min(_INT64_MAX, int(text)))
    return 0


def coerce_float(value: Any) -> float:
    """Go's ``gconv.To[float64]``: numbers, ``true`` is 1, ``strconv.ParseFloat`` strings (not trimmed); else 0."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str) and value.isascii() and value == value.strip() and "_" not in value:
        try:
            return float(value)
        except ValueError:
            try:
                return float.fromhex(value) if "p" in value.lower() else 0.0
            except ValueError:
                return 0.0
    return 0.0


def coerce_str(value: Any) -> str:
    """Go's ``gconv.To[string]``: strings, ``true``/``false``, numbers as ``FormatFloat(v, 'f', -1, 64)``; else "".

    JSON numbers reach Go as float64, so an integer is printed as that float is (``12``, ``1000000000000000000000``).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        number = float(value)
        if not math.isfinite(number):
            return {math.inf: "+Inf", -math.inf: "-Inf"}.get(number, "NaN")
        text = format(decimal.Decimal(repr(number)), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    return ""


def go_clean(path: str) -> str:
    """Go's ``filepath.Clean``: ``os.path.normpath``, except that a leading ``//`` is one ``/``."""
    cleaned = os.path.normpath(path) if path else "."
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned
