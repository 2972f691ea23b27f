"""What the editor handlers share: one session's state, upstream's limits, and optional arguments."""

from __future__ import annotations

import secrets
from typing import Any

import attrs

from agenttools.process import ProcessTable
from agenttools.workspace import Workspace

__all__ = ["MAX_LINES", "MAX_LINE_CHARS", "MAX_TIMEOUT_MS", "State", "arg"]

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_TIMEOUT_MS = 600_000


@attrs.define
class State:
    """One editor session: its workspace (with the session cwd), background tasks and limits."""

    workspace: Workspace
    tasks: ProcessTable
    bash_timeout_ms: int
    sentinel: str = attrs.field(factory=lambda: f"__AGENTTOOLS_CWD_{secrets.token_hex(4)}__")


def arg(args: dict[str, Any], name: str, default: Any = None) -> Any:
    """An optional argument (absent and null both mean the default)."""
    value = args.get(name)
    return default if value is None else value
