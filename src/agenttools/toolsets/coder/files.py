"""The coder file tools: read_file, list_files, edit_file, delete_file, glob, head and tail."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from typing import Any

from agenttools import edit, files
from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._text import decode
from agenttools._walk import walk
from agenttools.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    EncodingError,
    FileTooLargeError,
    HardLinkError,
    MatchCountError,
    NoMatchError,
    NotFoundError,
    PathError,
    ProtectedPathError,
    SpecialFileError,
)
from agenttools.toolsets._go import errno_text
from agenttools.toolsets.coder import coreutils
from agenttools.toolsets.coder.gostr import unescape_go_string
from agenttools.toolsets.coder.state import LIST_SKIPPED, State, resolve, split_args
from agenttools.toolsets.coder.texts import cap, fail, go_json

__all__ = ["delete_file", "edit_file", "glob", "head", "list_files", "read_file", "tail"]


def read_file(state: State, args: dict[str, Any]) -> str:
    """``read_file``: a file's text (undecodable bytes replaced)."""
    path = args["path"]
    real = resolve(state, path)
    try:  # os.ReadFile's words: "open p: not a directory" for a/b when a is a file, and so on
        os.stat(real)
    except OSError as exc:
        raise fail(f"open {path}: {errno_text(exc)}") from None
    if os.path.isdir(real):
        raise fail(f"read {path}: is a directory")
    if not os.path.isfile(real):
        raise fail(f"read {path}: not a regular file")  # a FIFO or device would block or never end
    size = os.path.getsize(real)
    if size > state.workspace.max_file_size:
        raise fail(f"read {path}: file is {size} bytes, exceeds maximum {state.workspace.max_file_size} bytes")
    try:  # opened without blocking and checked with fstat: a FIFO swapped in after the checks is never read
        raw = files.read_bytes(state.workspace, real)
    except FileTooLargeError as exc:
        raise fail(f"read {path}: file is {exc.size} bytes, exceeds maximum {exc.limit} bytes") from None
    except (SpecialFileError, IsADirectoryError):
        raise fail(f"read {path}: not a regular file") from None
    except OSError as exc:
        raise fail(f"open {path}: {errno_text(exc)}") from None
    try:
        return decode(raw, path=path)[0]
    except EncodingError:
        return raw.decode("utf-8", errors="replace")


def list_files(state: State, args: dict[str, Any]) -> str:
    """``list_files``: every file and directory below a path, depth first in name order, directories with a ``/``."""
    path = args.get("path") or "."
    real = resolve(state, path)
    if not os.path.exists(real):
        raise fail(f"lstat {path}: no such file or directory")
    ws = state.workspace

    def listed(rel: str, entry: os.DirEntry[str], is_dir: bool) -> bool:
        return not (is_dir and rel in LIST_SKIPPED) and ws.denied_by(entry.path) is None

    entries = [(rel.split("/"), rel + "/" if is_dir else rel)
               for rel, entry, is_dir in walk(real, enter=lambda rel, entry: listed(rel, entry, True))
               if listed(rel, entry, is_dir)]
    entries.sort(key=lambda item: item[0])  # component by component: a directory's entries right after it
    return go_json([shown for _, shown in entries])


def _diff(path: str, before: str, after: str) -> str:
    """go-difflib's unified diff of the texts cut at every ``\\n`` (the last piece too), its junk heuristic on."""
    hunks = edit.diff_hunks(before + "\n", after + "\n", autojunk=True)
    return f"--- {path}\n+++ {path}\n{hunks}" if hunks else ""


def _result(message: str, replacements: int, diff: str) -> str:
    return json.dumps({"message": message, "actual_replacements": replacements, "diff": diff}, ensure_ascii=False)


def edit_file(state: State, args: dict[str, Any]) -> str:
    """``edit_file``: replace a Go-unescaped text the expected number of times, or create a file; JSON with a diff."""
    path: str = args["path"]
    if not path:
        raise fail("EDIT_INVALID_PATH: file path cannot be empty ()")
    raw_old, raw_new = args["old_str"], args["new_str"]
    old, new = unescape_go_string(raw_old), unescape_go_string(raw_new)
    real = resolve(state, path)
    exists = os.path.lexists(real)
    try:  # os.ReadFile comes first upstream: a directory or a bad path fails even when old_str == new_str
        is_dir = stat.S_ISDIR(os.stat(real).st_mode)
    except FileNotFoundError:
        is_dir = False
    except OSError as exc:
        raise fail(f"EDIT_FILE_READ_ERROR: failed to read file ({path}): open {path}: {errno_text(exc)}") from None
    if is_dir:
        raise fail(f"EDIT_FILE_READ_ERROR: failed to read file ({path}): read {path}: is a directory")
    if old == new and not (old == "" and not exists):
        return _result("No changes applied, old_str and new_str are identical.", 0, "")
    expected = args.get("expected_replacements")
    expected = 1 if expected is None else int(expected)
    term = "occurrence" if expected == 1 else "occurrences"
    try:
        result = edit.replace_text(state.workspace, real, old, new, expected=expected, keep_text=True)
    except AlreadyExistsError:
        raise fail("ATTEMPT_TO_CREATE_EXISTING_FILE: File already exists, cannot create using empty old_str: "
                   f"{path}") from None
    except NotFoundError:
        raise fail(f"EDIT_FILE_NOT_FOUND: file not found: {path}") from None
    except NoMatchError:
        raise fail(f"EDIT_NO_OCCURRENCE_FOUND: could not find the string to replace: '{raw_old}' "
                   f"(attempted unescaped: '{old}')") from None
    except MatchCountError as exc:
        raise fail(f"EDIT_EXPECTED_OCCURRENCE_MISMATCH: expected {expected} {term} but found {exc.found} for "
                   f"'{raw_old}' (attempted unescaped: '{old}')") from None
    except IsADirectoryError:
        raise fail(f"EDIT_FILE_READ_ERROR: failed to read file ({path}): read {path}: is a directory") from None
    except EncodingError as exc:
        raise fail(f"EDIT_FILE_READ_ERROR: failed to read file ({path}): {exc}") from None
    except (HardLinkError, ProtectedPathError):
        raise fail(f"path not allowed: {path}") from None
    except FileTooLargeError as exc:
        raise fail(f"EDIT_FILE_READ_ERROR: failed to read file ({path}): {exc}") from None
    except OSError as exc:
        raise fail(f"EDIT_FILE_RENAME_ERROR: failed to write file ({path}): {exc}") from None
    diff = _diff(path, result.before or "", result.after or "")
    if result.created:
        return _result(f"Created new file: {path} with provided content.", 0, diff)
    return _result(f"Successfully modified file: {path} ({result.occurrences} replacement(s)).",
                   result.occurrences, diff)


def delete_file(state: State, args: dict[str, Any]) -> str:
    """``delete_file``: remove a file (a symlink itself, never its target)."""
    path: str = args["path"]
    if not path:
        raise fail("path cannot be empty")
    try:
        files.remove(state.workspace, os.path.join(state.root, path))
    except (AccessDeniedError, PathError):
        raise fail(f"path not allowed: {path}") from None
    except NotFoundError:
        raise fail(f"file does not exist: {path}") from None
    except OSError as exc:
        raise fail(f"failed to delete file: remove {path}: {errno_text(exc)}") from None
    return f"Successfully deleted file {path}"


def glob(state: State, args: dict[str, Any]) -> str:
    """``glob``: the paths below root that match a glob, sorted, as a JSON array."""
    pattern: str = args["pattern"]
    if not pattern.strip():
        raise fail("glob pattern cannot be empty")
    if pattern.startswith("/") or ".." in pattern.split("/"):
        raise fail(f"path not allowed: {pattern}")
    try:
        matcher = compile_glob(pattern)
    except GlobSyntaxError:
        raise fail("invalid glob pattern: syntax error in pattern") from None
    ws = state.workspace

    def kept(entry: os.DirEntry[str], is_dir: bool) -> bool:
        return not (is_dir and entry.name == ".git") and ws.denied_by(entry.path) is None

    found = [rel for rel, entry, is_dir in walk(str(state.root), enter=lambda rel, entry: kept(entry, True))
             if kept(entry, is_dir) and matcher.match(rel)]
    if not found:
        return "No matches found"
    # filepath.Glob's order: each directory's matches in name order, so "a/x" comes before "a-b/y"
    return go_json(sorted(found, key=lambda rel: rel.split("/")))


def _file_resolver(state: State) -> Callable[[str], str | None]:
    def resolve_file(name: str) -> str | None:
        try:
            return str(state.workspace.resolve(os.path.join(state.root, name), expect="any"))
        except (AccessDeniedError, PathError):
            return None

    return resolve_file


def head(state: State, args: dict[str, Any]) -> str:
    """``head``: the first lines or bytes of files, as GNU head prints them."""
    return cap(coreutils.head(split_args(args.get("args")), _file_resolver(state)))


def tail(state: State, args: dict[str, Any]) -> str:
    """``tail``: the last lines or bytes of files, as GNU tail prints them."""
    return cap(coreutils.tail(split_args(args.get("args")), _file_resolver(state)))
