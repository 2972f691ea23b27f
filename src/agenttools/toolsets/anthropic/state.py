"""What the anthropic handlers share: the workspace, the view limit and the bash session's settings."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from agenttools.errors import DeniedPathError, OutsideWorkspaceError, PathError, ProtectedPathError
from agenttools.sandbox import Sandbox
from agenttools.toolsets.anthropic.session import BashSession
from agenttools.toolsets.anthropic.texts import fail
from agenttools.workspace import Workspace

__all__ = ["DEFAULT_TIMEOUT", "State", "resolve"]

DEFAULT_TIMEOUT = 120.0
"""The reference's ``_BashSession._timeout``: seconds a command may take before the session must be restarted."""


class State:
    """What the handlers share: the workspace, ``max_characters`` and the bash session (started on first use)."""

    __slots__ = ("__weakref__", "lock", "max_characters", "max_output", "sandbox", "session", "timeout",
                 "workspace")

    def __init__(self, *, workspace: Workspace, max_characters: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                 max_output: int = 16 * 1024 * 1024, sandbox: Sandbox | None = None) -> None:
        self.workspace = workspace
        self.sandbox = sandbox
        """Where the bash session runs (None: unsandboxed)."""
        self.max_characters = max_characters
        """Characters of a file ``view`` shows before the clipped note (None: the reference's 16000)."""
        self.timeout = timeout
        """Seconds a bash command may take before the session must be restarted."""
        self.max_output = max_output
        """Bytes of stdout and of stderr kept per command (the middle is elided beyond it)."""
        self.session: BashSession | None = None
        """The bash session, or None before the first call and after the registry is closed."""
        self.lock = threading.RLock()
        """Held to start, replace or end the session, so concurrent calls never start two (one would be lost)."""

    def close_session(self) -> None:
        """End the bash session and everything it started (background jobs included)."""
        with self.lock:
            session, self.session = self.session, None
            if session is not None:
                session.close()

    def close(self) -> None:
        """End the bash session, then the sandbox (its private directories and cgroups)."""
        self.close_session()
        if self.sandbox is not None:
            self.sandbox.close()


def resolve(state: State, shown: Path, *, write: bool = False) -> str:
    """The real path of an absolute path argument, refused with a reference-styled text when it may not be used.

    The path must stay inside the workspace, match no deny pattern and, to be written, not be git metadata. A
    symlink loop resolves to the looping path itself (the reference sees a path that does not exist).
    """
    ws = state.workspace
    try:
        return str(ws.resolve(str(shown), write=write))
    except OutsideWorkspaceError:
        roots = ", ".join(str(root) for root in ws.roots)
        raise fail(f"The path {shown} is outside the workspace ({roots}). Please provide a path inside it.") from None
    except ProtectedPathError:
        raise fail(f"The path {shown} is inside git metadata and cannot be written.") from None
    except DeniedPathError as exc:
        raise fail(f"The path {shown} is denied by the pattern `{exc.pattern}`. Please provide another path.") from None
    except PathError as exc:
        lexical = os.path.normpath(str(shown))
        if "symbolic links" in str(exc) and ws.contains(lexical) and ws.denied_by(lexical) is None:
            return lexical  # a loop: the reference sees a path that does not exist
        raise fail(f"The path {shown} cannot be used: {exc}.") from None
