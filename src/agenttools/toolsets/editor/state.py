"""What the editor handlers share: one session's state, upstream's limits, and optional arguments."""

from __future__ import annotations

import os
from typing import Any

from agenttools.process import ProcessTable
from agenttools.workspace import Workspace

__all__ = ["MAX_LINES", "MAX_LINE_CHARS", "MAX_TIMEOUT_MS", "State", "arg"]

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_TIMEOUT_MS = 600_000


class State:
    """One editor session: its workspace (with the session cwd), background tasks and limits."""

    __slots__ = ("__weakref__", "bash_timeout_ms", "sentinel", "tasks", "workspace")

    def __init__(self, *, workspace: Workspace, tasks: ProcessTable, bash_timeout_ms: int) -> None:
        self.workspace = workspace
        self.tasks = tasks
        self.bash_timeout_ms = bash_timeout_ms
        self.sentinel = f"__AGENTTOOLS_CWD_{os.urandom(4).hex()}__"
        """Printed after each command to read the session's working directory."""


def arg(args: dict[str, Any], name: str, default: Any = None) -> Any:
    """An optional argument (absent and null both mean the default)."""
    value = args.get(name)
    return default if value is None else value
