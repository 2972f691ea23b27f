"""The coder toolset's state, errors and file tools: read_file, list_files, edit_file, delete_file, glob."""

from __future__ import annotations

import datetime
import difflib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from agenttools import edit, files
from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._gostr import unescape_go_string
from agenttools._text import atomic_write, decode, read_checked
from agenttools.errors import (
    AccessDeniedError,
    AgentToolsError,
    AlreadyExistsError,
    ArgumentsError,
    EncodingError,
    FileTooLargeError,
    HardLinkError,
    MatchCountError,
    NoMatchError,
    NotFoundError,
    PathError,
    ProtectedPathError,
    SpecialFileError,
    UnknownToolError,
)
from agenttools.todo import TodoList
from agenttools.workspace import Workspace

__all__ = ["LIST_SKIPPED", "Fail", "State", "delete_file", "edit_file", "glob", "go_json", "list_files", "read_file",
           "render_error", "resolve", "walk_tree", "write_own_file"]

LIST_SKIPPED = (".git", ".agent/prompts", ".agent/sessions")


class Fail(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A failure the model sees as ``Error: <message>``."""

    code = "coder_error"


@attrs.define
class State:
    """One coder toolset: its root, its session directory (made on first use) and its todo list."""

    workspace: Workspace
    allow_private_network: bool
    started: datetime.datetime = attrs.field(factory=datetime.datetime.now)
    todos: TodoList = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.todos = TodoList(path=lambda: self.session_dir() / "todos.json",
                              writer=lambda path, data: write_own_file(self, path, data))

    @property
    def root(self) -> Path:
        return self.workspace.root

    def session_dir(self) -> Path:
        """``.agent/sessions/<YYYY-MM-DD-HH-MM-SS>`` under root (not created here)."""
        return self.root / ".agent" / "sessions" / self.started.strftime("%Y-%m-%d-%H-%M-%S")


def render_error(tool: str, error: BaseException) -> str:
    """``Error: <message>`` as the spec's examples show."""
    if isinstance(error, ArgumentsError):
        return "Error: invalid input: " + "; ".join(issue.describe() for issue in error.issues)
    if isinstance(error, UnknownToolError):
        return f"Error: unknown tool: {error.name}"
    return f"Error: {error}"


def resolve(state: State, path: str) -> str:
    """The real path of a path argument (relative to root), or ``path not allowed: <path>``."""
    try:
        return str(state.workspace.resolve(os.path.join(state.root, path), expect="any"))
    except (AccessDeniedError, PathError):
        raise Fail(f"path not allowed: {path}") from None


def _own_path(state: State, rel: str, real: str, kind: str) -> str:
    """``real`` re-resolved through the Workspace: inside the root, and a directory or regular file if it exists."""
    try:
        resolved = str(state.workspace.resolve(real, expect="any", write=True))
    except ProtectedPathError:
        raise Fail(f"path not allowed: {rel} (the toolset's own files are never written inside git metadata)") from None
    except (AccessDeniedError, PathError):
        raise Fail(f"path not allowed: {rel} (the toolset's own files must stay inside the project)") from None
    try:
        mode = os.stat(resolved).st_mode
    except FileNotFoundError:
        return resolved
    except OSError as exc:
        raise Fail(f"cannot write {rel}: {exc.strerror}") from None
    if not (stat.S_ISDIR(mode) if kind == "dir" else stat.S_ISREG(mode)):
        raise Fail(f"cannot write {rel}: not a {'directory' if kind == 'dir' else 'regular file'}")
    return resolved


def write_own_file(state: State, path: str | os.PathLike[str], data: bytes, mode: int | None = None) -> str:
    """Write a file the toolset itself keeps (todo list, fetched pages) under root, through the Workspace.

    Every directory on the way is resolved (a symlinked ``.agent`` leading out of the root is refused, one inside
    it is followed like a model's path) and made if missing; the file must be a regular file if it exists (no
    FIFO or device) and is written atomically. Returns the real path written.

    Raises:
        Fail: ``path not allowed: <rel> (...)`` or ``cannot write <rel>: ...``.
    """
    rel = os.path.relpath(os.fspath(path), state.root)
    parts = Path(rel).parts
    if rel.startswith("..") or os.path.isabs(rel) or not parts:
        raise Fail(f"path not allowed: {rel} (the toolset's own files must stay inside the project)")
    current = str(state.root)
    for index, part in enumerate(parts[:-1]):
        current = _own_path(state, "/".join(parts[:index + 1]), os.path.join(current, part), "dir")
        if not os.path.lexists(current):
            try:
                os.mkdir(current)
            except FileExistsError:
                pass
            except OSError as exc:
                raise Fail(f"cannot write {rel}: {exc.strerror}") from None
            current = _own_path(state, "/".join(parts[:index + 1]), current, "dir")
    target = _own_path(state, rel, os.path.join(current, parts[-1]), "file")
    try:
        atomic_write(target, data, mode=mode)
    except HardLinkError:
        raise Fail(f"path not allowed: {rel} (it has other hard links)") from None
    except OSError as exc:
        raise Fail(f"cannot write {rel}: {exc.strerror or exc}") from None
    return target


def go_json(value: Any) -> str:
    """Go's ``json.Marshal``: compact, with ``<``, ``>``, ``&``, U+2028 and U+2029 escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                          ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def read_file(state: State, args: dict[str, Any]) -> str:
    path = args["path"]
    real = resolve(state, path)
    if os.path.isdir(real):
        raise Fail(f"read {path}: is a directory")
    if not os.path.exists(real):
        raise Fail(f"open {path}: no such file or directory")
    if not os.path.isfile(real):
        raise Fail(f"read {path}: not a regular file")  # a FIFO or device would block or never end
    size = os.path.getsize(real)
    if size > state.workspace.max_file_size:
        raise Fail(f"read {path}: file is {size} bytes, exceeds maximum {state.workspace.max_file_size} bytes")
    try:  # opened without blocking and checked with fstat: a FIFO swapped in after the checks is never read
        raw = read_checked(real, root=state.workspace.root_of(real), max_size=state.workspace.max_file_size)
    except FileTooLargeError as exc:
        raise Fail(f"read {path}: file is {exc.size} bytes, exceeds maximum {exc.limit} bytes") from None
    except (SpecialFileError, IsADirectoryError):
        raise Fail(f"read {path}: not a regular file") from None
    except OSError as exc:
        raise Fail(f"open {path}: {exc.strerror or exc}") from None
    try:
        return decode(raw, path=path)[0]
    except EncodingError:
        return raw.decode("utf-8", errors="replace")


def list_files(state: State, args: dict[str, Any]) -> str:
    path = args.get("path") or "."
    real = resolve(state, path)
    if not os.path.exists(real):
        raise Fail(f"lstat {path}: no such file or directory")
    entries: list[str] = []
    stack: list[tuple[str, str, list[str]]] = [(real, "", _sorted_names(real))]
    while stack:  # depth-first in name order, without recursion (a 1,200-deep tree is fine)
        directory, rel, names = stack[-1]
        if not names:
            stack.pop()
            continue
        name = names.pop(0)
        child_rel = f"{rel}{name}"
        full = os.path.join(directory, name)
        if os.path.isdir(full) and not os.path.islink(full):
            if child_rel in LIST_SKIPPED:
                continue
            entries.append(child_rel + "/")
            stack.append((full, child_rel + "/", _sorted_names(full)))
        else:
            entries.append(child_rel)
    return go_json(entries)


def _sorted_names(directory: str) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def walk_tree(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)`` without recursion (Python 3.11's walk recurses): yields ``(dir, dirnames, filenames)``.

    Symlinked directories are listed among the files, never entered; ``dirnames`` may be pruned in place.
    """
    pending = [top]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as scan:
                entries = list(scan)
        except OSError:
            continue
        dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        names = [e.name for e in entries if not e.is_dir(follow_symlinks=False)]
        yield directory, dirs, names
        pending.extend(os.path.join(directory, d) for d in reversed(dirs))


def _diff(path: str, before: str, after: str) -> str:
    def split(text: str) -> list[str]:
        return [line + "\n" for line in text.split("\n")]

    return "".join(difflib.unified_diff(split(before), split(after), path, path, n=3, lineterm="\n"))


def _result(message: str, replacements: int, diff: str) -> str:
    return json.dumps({"message": message, "actual_replacements": replacements, "diff": diff}, ensure_ascii=False)


def edit_file(state: State, args: dict[str, Any]) -> str:
    path: str = args["path"]
    if not path:
        raise Fail("EDIT_INVALID_PATH: file path cannot be empty ()")
    raw_old, raw_new = args["old_str"], args["new_str"]
    old, new = unescape_go_string(raw_old), unescape_go_string(raw_new)
    real = resolve(state, path)
    exists = os.path.lexists(real)
    if old == new and not (old == "" and not exists):
        return _result("No changes applied, old_str and new_str are identical.", 0, "")
    expected = args.get("expected_replacements")
    expected = 1 if expected is None else int(expected)
    term = "occurrence" if expected == 1 else "occurrences"
    try:
        result = edit.replace_text(state.workspace, real, old, new, expected=expected, keep_text=True)
    except AlreadyExistsError:
        raise Fail("ATTEMPT_TO_CREATE_EXISTING_FILE: File already exists, cannot create using empty old_str: "
                   f"{path}") from None
    except NotFoundError:
        raise Fail(f"EDIT_FILE_NOT_FOUND: file not found: {path}") from None
    except NoMatchError:
        raise Fail(f"EDIT_NO_OCCURRENCE_FOUND: could not find the string to replace: '{raw_old}' "
                   f"(attempted unescaped: '{old}')") from None
    except MatchCountError as exc:
        raise Fail(f"EDIT_EXPECTED_OCCURRENCE_MISMATCH: expected {expected} {term} but found {exc.found} for "
                   f"'{raw_old}' (attempted unescaped: '{old}')") from None
    except (EncodingError, IsADirectoryError) as exc:
        raise Fail(f"EDIT_FILE_READ_ERROR: failed to read file ({path}): {exc}") from None
    except (HardLinkError, ProtectedPathError):
        raise Fail(f"path not allowed: {path}") from None
    except FileTooLargeError as exc:
        raise Fail(f"EDIT_FILE_READ_ERROR: failed to read file ({path}): {exc}") from None
    except OSError as exc:
        raise Fail(f"EDIT_FILE_RENAME_ERROR: failed to write file ({path}): {exc}") from None
    diff = _diff(path, result.before or "", result.after or "")
    if result.created:
        return _result(f"Created new file: {path} with provided content.", 0, diff)
    return _result(f"Successfully modified file: {path} ({result.occurrences} replacement(s)).",
                   result.occurrences, diff)


def delete_file(state: State, args: dict[str, Any]) -> str:
    path: str = args["path"]
    if not path:
        raise Fail("path cannot be empty")
    try:
        files.remove(state.workspace, os.path.join(state.root, path))
    except (AccessDeniedError, PathError):
        raise Fail(f"path not allowed: {path}") from None
    except NotFoundError:
        raise Fail(f"file does not exist: {path}") from None
    except OSError as exc:
        raise Fail(f"failed to delete file: remove {path}: {(exc.strerror or str(exc)).lower()}") from None
    return f"Successfully deleted file {path}"


def glob(state: State, args: dict[str, Any]) -> str:
    pattern: str = args["pattern"]
    if not pattern.strip():
        raise Fail("glob pattern cannot be empty")
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise Fail(f"path not allowed: {pattern}")
    try:
        matcher = compile_glob(pattern)
    except GlobSyntaxError:
        raise Fail("invalid glob pattern: syntax error in pattern") from None
    found: list[str] = []
    for directory, dirs, names in walk_tree(str(state.root)):
        rel_dir = os.path.relpath(directory, state.root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        dirs[:] = [d for d in dirs if d != ".git"]
        found.extend(rel_dir + name for name in [*dirs, *names] if matcher.match(rel_dir + name))
    if not found:
        return "No matches found"
    return go_json(sorted(found))
