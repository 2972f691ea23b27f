"""What the coder handlers share: the toolset's state, path resolution, its own files, and argument splitting."""

from __future__ import annotations

import datetime
import os
import shlex
import stat
from pathlib import Path
from typing import Any

from agenttools import files
from agenttools.errors import AccessDeniedError, HardLinkError, PathError, ProtectedPathError
from agenttools.todo import TodoList
from agenttools.toolsets.coder.texts import fail
from agenttools.workspace import Workspace

__all__ = ["LIST_SKIPPED", "State", "deny_globs", "resolve", "split_args", "write_own_file"]

LIST_SKIPPED = (".git", ".agent/prompts", ".agent/sessions")


class State:
    """One coder toolset: its root, its session directory (made on first use) and its todo list."""

    __slots__ = ("__weakref__", "allow_private_network", "started", "todos", "workspace")

    def __init__(self, *, workspace: Workspace, allow_private_network: bool) -> None:
        self.workspace = workspace
        self.allow_private_network = allow_private_network
        self.started = datetime.datetime.now()
        """When the toolset was built: names its session directory."""
        self.todos = TodoList(path=lambda: self.session_dir() / "todos.json",
                              writer=lambda path, data: write_own_file(self, path, data))

    @property
    def root(self) -> Path:
        """The project root."""
        return self.workspace.root

    def session_dir(self) -> Path:
        """``.agent/sessions/<YYYY-MM-DD-HH-MM-SS>`` under root (not created here)."""
        return self.root / ".agent" / "sessions" / self.started.strftime("%Y-%m-%d-%H-%M-%S")


def resolve(state: State, path: str) -> str:
    """The real path of a path argument (relative to root), or ``path not allowed: <path>``."""
    try:
        return str(state.workspace.resolve(os.path.join(state.root, path), expect="any"))
    except (AccessDeniedError, PathError):
        raise fail(f"path not allowed: {path}") from None


def _own_path(state: State, rel: str, real: str, kind: str) -> str:
    """``real`` re-resolved through the Workspace: inside the root, and a directory or regular file if it exists."""
    try:
        resolved = str(state.workspace.resolve(real, expect="any", write=True))
    except ProtectedPathError:
        raise fail(f"path not allowed: {rel} (the toolset's own files are never written inside git metadata)") from None
    except (AccessDeniedError, PathError):
        raise fail(f"path not allowed: {rel} (the toolset's own files must stay inside the project)") from None
    try:
        mode = os.stat(resolved).st_mode
    except FileNotFoundError:
        return resolved
    except OSError as exc:
        raise fail(f"cannot write {rel}: {exc.strerror}") from None
    if not (stat.S_ISDIR(mode) if kind == "dir" else stat.S_ISREG(mode)):
        raise fail(f"cannot write {rel}: not a {'directory' if kind == 'dir' else 'regular file'}")
    return resolved


def write_own_file(state: State, path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> str:
    """Write a file the toolset itself keeps (todo list, fetched pages) under root, through the Workspace.

    Every directory on the way is resolved (a symlinked ``.agent`` leading out of the root is refused, one inside
    it is followed like a model's path) and made if missing; the file must be a regular file if it exists (no
    FIFO or device) and is written atomically. Returns the real path written.

    Raises:
        ToolFailure: ``path not allowed: <rel> (...)`` or ``cannot write <rel>: ...``.
    """
    rel = os.path.relpath(os.fspath(path), state.root)
    parts = Path(rel).parts
    if rel.startswith("..") or os.path.isabs(rel) or not parts:
        raise fail(f"path not allowed: {rel} (the toolset's own files must stay inside the project)")
    current = str(state.root)
    for index, part in enumerate(parts[:-1]):
        current = _own_path(state, "/".join(parts[:index + 1]), os.path.join(current, part), "dir")
        if not os.path.lexists(current):
            try:
                os.mkdir(current)
            except FileExistsError:
                pass
            except OSError as exc:
                raise fail(f"cannot write {rel}: {exc.strerror}") from None
            current = _own_path(state, "/".join(parts[:index + 1]), current, "dir")
    target = _own_path(state, rel, os.path.join(current, parts[-1]), "file")
    try:
        files.write_bytes(state.workspace, target, data, create_parents=False, new_file_mode=mode,
                          max_size=len(data))
    except HardLinkError:
        raise fail(f"path not allowed: {rel} (it has other hard links)") from None
    except OSError as exc:
        raise fail(f"cannot write {rel}: {exc.strerror or exc}") from None
    return target


def split_args(args: Any) -> list[str]:
    """A command-line-like ``args`` string split as a POSIX shell would (no expansion); ``[]`` when empty."""
    if not isinstance(args, str) or not args.strip():
        return []
    try:
        return shlex.split(args)
    except ValueError as exc:
        raise fail(f"cannot parse args: {exc}") from None


def deny_globs(state: State) -> list[str]:
    """The workspace's deny patterns as globs relative to root, for programs given the root (git, ripgrep).

    A pattern that names an absolute place outside root can deny nothing there and is left out.
    """
    root = str(state.root).rstrip("/") + "/"
    globs = []
    for pattern in state.workspace.deny:
        if pattern.startswith("/"):
            if pattern.startswith(root):
                globs.append(pattern[len(root):])
        else:
            globs.append(pattern if pattern.startswith("**") else "**/" + pattern)
    return globs
