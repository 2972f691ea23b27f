"""What the gemini handlers share: the state a toolset holds, upstream's limits, and its two path checks."""

from __future__ import annotations

import os

from agenttools.errors import OutsideWorkspaceError, PathError, ToolFailure
from agenttools.ignore import find_ignore_base
from agenttools.sandbox import Sandbox
from agenttools.shell import new_session
from agenttools.toolsets.gemini.texts import invalid
from agenttools.workspace import Workspace

__all__ = ["DEFAULT_LINES", "MAX_LINE_CHARS", "MAX_READ_BYTES", "MAX_SVG_BYTES", "RECENT_SECONDS", "State",
           "absolute_inside", "eloop", "in_git_repo", "inside"]

MAX_READ_BYTES = 20 * 1024 * 1024
"""Upstream's read limit: the default ``max_file_size`` of the gemini toolset."""
DEFAULT_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_SVG_BYTES = 1024 * 1024
RECENT_SECONDS = 24 * 60 * 60


class State:
    """What the handlers share: the workspace and the shell's limits."""

    __slots__ = ("__weakref__", "max_matches", "max_output", "sandbox", "session", "shell_timeout", "workspace")

    def __init__(self, *, workspace: Workspace, shell_timeout: float | None, max_output: int,
                 max_matches: int = 20_000, sandbox: Sandbox | None = None) -> None:
        self.workspace = workspace
        self.sandbox = sandbox
        """Where run_shell_command runs (None: unsandboxed)."""
        self.shell_timeout = shell_timeout
        """Seconds before run_shell_command kills the command's process group (None: never)."""
        self.max_output = max_output
        """Bytes of stdout and of stderr kept per command."""
        self.max_matches = max_matches
        """The most matching lines search_file_content returns (a truncation note says when there were more)."""
        self.session = new_session()
        """Marks every process the shell tool starts; closing the toolset kills them (background jobs included)."""

    @property
    def root(self) -> str:
        """The project root, as a string."""
        return str(self.workspace.root)


def in_git_repo(path: str) -> bool:
    """Whether ``path`` is inside a git work tree (a ``.git`` entry here or in a parent)."""
    return os.path.exists(os.path.join(find_ignore_base(path), ".git"))


def inside(state: State, path: str, message: str, loop: ToolFailure) -> str:
    """The real path of an absolute path argument; ``invalid(message)`` when it escapes the root.

    A symlink loop raises ``loop``: upstream's text for it, which each tool words its own way (Node's ``ELOOP``,
    or "not found" where upstream asks ``existsSync``).
    """
    try:
        return str(state.workspace.resolve(path))
    except OutsideWorkspaceError:
        raise invalid(message) from None
    except PathError as exc:  # a NUL byte (our text: upstream's is a Node crash) or a symlink loop (upstream's)
        if "\x00" in path:
            raise invalid(f"path contains a NUL byte: {path!r}") from None
        raise loop from exc


def absolute_inside(state: State, path: str, relative: str, loop: ToolFailure, label: str = "File path") -> str:
    """Upstream's two path checks: absolute (else ``invalid(relative)``), then inside the root; the real path.

    ``loop`` is raised for a symlink loop (see :func:`inside`).
    """
    if not os.path.isabs(path):
        raise invalid(relative)
    return inside(state, path, f"{label} must be within the root directory ({state.root}): {path}", loop)


def eloop(path: str) -> str:
    """Node's text for a symlink loop met opening ``path`` (``open`` names it as given)."""
    return f"ELOOP: too many symbolic links encountered, open '{path}'"
