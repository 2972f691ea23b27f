"""What the gemini toolset's handlers share: state, the failure kinds, Node-style messages, path checks."""

from __future__ import annotations

import errno as errno_codes
import os
from typing import Any

import attrs

from agenttools.errors import (
    AgentToolsError,
    OutsideWorkspaceError,
    PathError,
)
from agenttools.shell import new_session
from agenttools.workspace import Workspace

MAX_READ_BYTES = 20 * 1024 * 1024
DEFAULT_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_SVG_BYTES = 1024 * 1024
RECENT_SECONDS = 24 * 60 * 60
_NODE_MESSAGES = {
    errno_codes.ENOENT: "no such file or directory", errno_codes.EACCES: "permission denied",
    errno_codes.ENOTDIR: "not a directory", errno_codes.ELOOP: "too many symbolic links encountered",
    errno_codes.EISDIR: "illegal operation on a directory", errno_codes.EPERM: "operation not permitted",
}


class Failure(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A failure whose model text is exactly ``message``."""

    code = "gemini_failure"


class Invalid(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A validation failure, rendered as ``Error: Invalid parameters provided. Reason: <message>``."""

    code = "gemini_invalid"


class Rejected(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A rejected shell command (``Command rejected: ...``)."""

    code = "gemini_rejected"


@attrs.define
class State:
    """What the handlers share: the workspace and the shell's limits."""

    workspace: Workspace
    shell_timeout: float | None
    max_output: int
    max_matches: int = 20_000
    """The most matching lines search_file_content returns (a truncation note says when there were more)."""
    session: str = attrs.field(factory=new_session)
    """Marks every process the shell tool starts; closing the toolset kills them (background jobs included)."""

    @property
    def root(self) -> str:
        return str(self.workspace.root)


def node_error(exc: OSError, syscall: str, path: str) -> str:
    """Node's ``fs`` error message, e.g. ``ENOENT: no such file or directory, stat '/x'``."""
    code = errno_codes.errorcode.get(exc.errno or 0, "EIO")
    text = _NODE_MESSAGES.get(exc.errno or 0, (exc.strerror or "i/o error").lower())
    return f"{code}: {text}, {syscall} '{path}'"


def _num(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def in_git_repo(path: str) -> bool:
    """Whether ``path`` is inside a git work tree (a ``.git`` entry here or in a parent)."""
    current = path
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def _inside(state: State, path: str, message: str) -> str:
    """The real path of an absolute path argument, or Invalid(message) when it escapes the root."""
    try:
        return str(state.workspace.resolve(path))
    except OutsideWorkspaceError:
        raise Invalid(message) from None
    except PathError as exc:  # a NUL byte or a symlink loop: say so rather than "outside the root"
        raise Invalid(f"{exc}: {path!r}") from None


def _absolute_inside(state: State, path: str, relative: str, label: str = "File path") -> str:
    """Upstream's two path checks: absolute (else Invalid(relative)), then inside the root; the real path."""
    if not os.path.isabs(path):
        raise Invalid(relative)
    return _inside(state, path, f"{label} must be within the root directory ({state.root}): {path}")


