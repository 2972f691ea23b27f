"""The assistant file tools: read, write, edit, list, delete, and the legacy ``file`` tool, on the families."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

from agenttools import edit, files
from agenttools._text import decode
from agenttools.errors import (
    AgentToolsError,
    EditError,
    EncodingError,
    FileTooLargeError,
    HardLinkError,
    NoChangeError,
    NoMatchError,
    SpecialFileError,
    ToolFailure,
)
from agenttools.toolsets._go import path_error
from agenttools.toolsets.assistant.state import State, coerce_bool, coerce_int, go_clean, guard, text_arg
from agenttools.toolsets.assistant.texts import dumps, fail, go_mode

__all__ = ["delete", "edit_file", "file_tool", "list_dir", "read", "write"]


def _read_bytes(lexical: str, real: str, state: State) -> bytes:
    """The file's bytes through the files family, or upstream's ``failed to read file: ...``."""
    ws = state.workspace
    try:
        return files.read_bytes(ws, real)
    except SpecialFileError:
        raise fail(f"failed to read file: read {lexical}: not a regular file") from None
    except FileTooLargeError as exc:
        raise fail(f"failed to read file: {lexical} is {exc.size} bytes, exceeds maximum {ws.max_file_size} "
                   "bytes") from None
    except IsADirectoryError as exc:
        raise fail(f"failed to read file: {path_error('read', lexical, exc)}") from None
    except OSError as exc:
        raise fail(f"failed to read file: {path_error('open', lexical, exc)}") from None


def _os_text(lexical: str, exc: BaseException) -> str:
    """Go's ``open <path>: permission denied`` when the OS refused to open the file for writing, else the text."""
    if isinstance(exc, PermissionError) and not isinstance(exc, AgentToolsError) and exc.errno == errno.EACCES:
        return path_error("open", lexical, exc)
    return str(exc)


def read(state: State, args: dict[str, Any], *, trim: bool = True) -> str:
    """``read``: a file's content and size."""
    given, lexical, real = guard(state, args.get("path"), trim=trim)
    raw = _read_bytes(lexical, real, state)
    try:
        content = decode(raw, path=lexical)[0]
    except EncodingError:
        content = raw.decode("utf-8", errors="replace")
    return dumps({"success": True, "path": given, "content": content, "size": len(raw)})


def write(state: State, args: dict[str, Any], *, legacy: bool = False) -> str:
    """``write``: create or overwrite a file, making its parent directories.

    ``write`` checks ``content`` before the path; the ``file`` tool's ``write_file`` (``legacy``) checks the path
    first, does not trim it, and names itself in the missing-content text, as upstream's two tools do.
    """
    if legacy:
        given, lexical, real = guard(state, args.get("path"), write=True, trim=False)
    content = text_arg(args, "content")
    if content is None:
        raise fail(f"{'write_file' if legacy else 'write'}: missing required parameter 'content'")
    if not legacy:
        given, lexical, real = guard(state, args.get("path"), write=True)
    try:
        files.make_dirs(Path(real).parent, mode=0o755, ws=state.workspace)
    except OSError as exc:
        raise fail(f"failed to create parent directory: {path_error('mkdir', os.path.dirname(lexical), exc)}") from None
    try:
        result = files.write_file(state.workspace, real, content, create_parents=False, new_file_mode=0o644)
    except IsADirectoryError as exc:
        raise fail(f"failed to write file: {path_error('open', lexical, exc)}") from None
    except HardLinkError:
        raise fail(f"path not allowed: {lexical}") from None
    except (EncodingError, OSError) as exc:
        raise fail(f"failed to write file: {_os_text(lexical, exc)}") from None
    return dumps({"success": True, "path": given, "size": result.size})


def edit_file(state: State, args: dict[str, Any]) -> str:
    """``edit``: replace a text (every occurrence by default) or a range of lines."""
    given, lexical, real = guard(state, args.get("path"), write=True)
    if not os.path.isfile(real) or not os.access(real, os.R_OK):
        _read_bytes(lexical, real, state)  # upstream reads the file first: its read error comes before any other
    new_text = text_arg(args, "new_text")
    if new_text is None:
        raise fail("new_text is required")
    old_text = text_arg(args, "old_text")
    try:
        if old_text is not None:
            if old_text == "":
                raise fail("old_text must not be empty when provided")
            replace_all = coerce_bool(args["replace_all"]) if "replace_all" in args else True
            result = edit.replace_text(state.workspace, real, old_text, new_text, expected=None, create=False,
                                       first_only=not replace_all, allow_noop=False)
        else:
            start, end = coerce_int(args.get("start_line")), coerce_int(args.get("end_line"))
            if start <= 0 or end <= 0:
                raise fail("either old_text or start_line/end_line is required")
            result = edit.replace_lines(state.workspace, real, start, end, new_text, allow_noop=False)
    except NoMatchError:
        raise fail("old_text not found in file") from None
    except NoChangeError:
        raise fail("edit made no changes") from None
    except EditError as exc:
        raise fail(str(exc)) from None
    except HardLinkError:
        raise fail(f"path not allowed: {lexical}") from None
    except PermissionError as exc:  # the OS would not let this user write the file in place
        raise fail(f"failed to write file: {_os_text(lexical, exc)}") from None
    except (EncodingError, OSError) as exc:
        raise fail(f"failed to read file: {exc}") from None
    return dumps({"success": True, "path": given, "changes": result.occurrences, "size": os.stat(real).st_size})


def _entries(state: State, given: str, lexical: str, real: str, with_mtime: bool) -> list[dict[str, Any]]:
    try:
        os.stat(real)
        if not os.path.isdir(real):
            raise NotADirectoryError(20, "not a directory")
        names = sorted(os.listdir(real))
    except NotADirectoryError as exc:
        raise fail(f"failed to list directory: {path_error('readdirent', lexical, exc)}") from None
    except OSError as exc:
        raise fail(f"failed to list directory: {path_error('open', lexical, exc)}") from None
    entries = []
    for name in names:
        if state.workspace.denied_by(os.path.join(real, name)) is not None:
            continue  # denied paths are never listed
        try:
            st = os.lstat(os.path.join(real, name))
        except OSError:
            continue
        entry: dict[str, Any] = {"name": name, "path": go_clean(os.path.join(given, name)),
                                 "type": "directory" if stat.S_ISDIR(st.st_mode) else "file",
                                 "size": st.st_size, "mode": go_mode(st.st_mode)}
        if with_mtime:
            entry["mtime"] = int(st.st_mtime)
        entries.append(entry)
    return entries


def list_dir(state: State, args: dict[str, Any]) -> str:
    """``list``: a directory's entries (name, path, type, size, mode)."""
    given, lexical, real = guard(state, args.get("path"))
    entries = _entries(state, given, lexical, real, with_mtime=False)
    return dumps({"success": True, "path": given, "files": entries, "count": len(entries)})


def delete(state: State, args: dict[str, Any], *, trim: bool = True) -> str:
    """``delete``: remove a file or an empty directory (a symlink itself, never its target)."""
    given, lexical, _ = guard(state, args.get("path"), follow_last=False, write=True, trim=trim)
    try:
        files.remove(state.workspace, lexical)
    except OSError as exc:  # missing (ENOENT), a directory that is not empty (ENOTEMPTY), ...
        raise fail(f"failed to delete file: {path_error('remove', lexical, exc)}") from None
    return dumps({"success": True, "path": given})


_OPERATIONS = ("read_file", "write_file", "list_dir", "delete_file")


def _infer_operation(state: State, args: dict[str, Any]) -> str:
    """Upstream's guess when ``operation`` is not a string: content means write_file, a directory list_dir."""
    if "path" not in args:
        return ""
    if "content" in args:
        return "write_file"
    path = text_arg(args, "path")
    if not path:
        return ""
    try:
        return "list_dir" if os.path.isdir(guard(state, path, trim=False)[2]) else "read_file"
    except ToolFailure:  # not a path we may use: read_file words the refusal
        return "read_file"


def file_tool(state: State, args: dict[str, Any]) -> str:
    """``file``: the legacy tool, dispatching to read, write, list or delete (its paths are not trimmed)."""
    operation = text_arg(args, "operation")
    if operation is None:
        operation = _infer_operation(state, args)
    if not operation:
        raise fail("operation not specified, use one of: " + ", ".join(_OPERATIONS))
    if operation == "read_file":
        return read(state, args, trim=False)
    if operation == "write_file":
        return write(state, args, legacy=True)
    if operation == "delete_file":
        return delete(state, args, trim=False)
    if operation == "list_dir":
        given, lexical, real = guard(state, args.get("path"), trim=False)
        entries = _entries(state, given, lexical, real, with_mtime=True)
        return dumps({"success": True, "path": given, "files": entries or None, "count": len(entries)})
    raise fail(f"unknown operation: {operation}")
