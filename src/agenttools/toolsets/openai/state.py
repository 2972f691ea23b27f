"""What the openai handlers share: the workspace and the shell's limits."""

from __future__ import annotations

from agenttools.sandbox import Sandbox
from agenttools.shell import new_session
from agenttools.workspace import Workspace

__all__ = ["DEFAULT_MAX_OUTPUT_LENGTH", "DEFAULT_TIMEOUT_MS", "State"]

DEFAULT_TIMEOUT_MS = 10_000
"""The Responses API's default ``timeout_ms`` for a shell command."""
DEFAULT_MAX_OUTPUT_LENGTH = 1_000_000
"""Characters of stdout plus stderr kept per command when the call names no ``max_output_length``."""


class State:
    """What the handlers share."""

    __slots__ = ("__weakref__", "max_output_length", "sandbox", "session", "timeout_ms", "workspace")

    def __init__(self, *, workspace: Workspace, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 max_output_length: int = DEFAULT_MAX_OUTPUT_LENGTH, sandbox: Sandbox | None = None) -> None:
        self.workspace = workspace
        self.sandbox = sandbox
        """Where the shell tool's commands run (None: unsandboxed)."""
        self.timeout_ms = timeout_ms
        """Milliseconds a shell command may run when the call does not say."""
        self.max_output_length = max_output_length
        """Characters kept per command when the call does not say."""
        self.session = new_session()
        """Marks every process the shell tool starts; closing the toolset kills them."""
