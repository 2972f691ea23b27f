"""The filesystem handlers: one function per tool, each ``(state, arguments) -> text or ToolOutput``.

Each follows upstream's handler step by step (``dist/index.js`` and ``dist/lib.js`` of the npm package), with
Node's error texts; the file operations themselves are the families' (:mod:`agenttools.files`,
:mod:`agenttools._text`, :mod:`agenttools._walk`, :func:`agenttools._glob.minimatch`).
"""

from __future__ import annotations

import codecs
import errno
import functools
import math
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools import files
from agenttools._calls import current_scope, raise_if_cancelled
from agenttools._glob import minimatch
from agenttools._lazy import lazy_module
from agenttools._text import open_file
from agenttools._walk import walk
from agenttools.blocks import DataBlock, ImageBlock
from agenttools.errors import (
    AgentToolsError,
    AlreadyExistsError,
    FileTooLargeError,
    IsDirectoryError,
    NotDirectoryError,
    NotFoundError,
    SpecialFileError,
    ToolFailure,
)
from agenttools.output import ToolOutput
from agenttools.toolsets._collate import locale_key
from agenttools.toolsets._node import node_error
from agenttools.toolsets.filesystem import editing
from agenttools.toolsets.filesystem.state import State, valid_path, within
from agenttools.toolsets.filesystem.texts import (
    fail,
    format_size,
    js_date,
    js_json,
    js_length,
    render_error,
)

if TYPE_CHECKING:
    import ctypes
else:
    ctypes = lazy_module("ctypes")  # slow to import: loaded by the first get_file_info

__all__ = ["create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories",
           "list_directory", "list_directory_with_sizes", "move_file", "read_media_file", "read_multiple_files",
           "read_text_file", "search_files", "write_file"]

_CHUNK = 1024
"""Upstream reads head and tail in 1 KiB chunks (which decides where a character split by a chunk is cut)."""


@contextmanager
def _node_errors(syscall: str, path: str, *, read_syscall: str | None = None) -> Iterator[None]:
    """Word the family's errors for one Node call on ``path`` as Node does (``ENOENT: ..., open '/p'``)."""
    try:
        yield
    except (ToolFailure, FileTooLargeError, SpecialFileError):
        raise
    except IsDirectoryError as exc:  # Node opens a directory, then its read fails, naming no path
        raise fail(node_error(exc, read_syscall or "read")) from None
    except (NotFoundError, NotDirectoryError) as exc:
        raise fail(node_error(exc, syscall, path)) from None
    except AgentToolsError:  # the workspace's refusals (deny globs, hard links, git metadata): our own words
        raise
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EISDIR,
                         errno.EEXIST, errno.ENAMETOOLONG):
            raise fail(node_error(exc, syscall, path)) from None
        raise


def _read_bytes(state: State, path: str) -> bytes:
    with _node_errors("open", path):
        return files.read_bytes(state.workspace, path)


def _read_content(state: State, path: str) -> str:
    """``fs.readFile(path, "utf-8")``: the file as text, bytes that are not UTF-8 as U+FFFD."""
    return _read_bytes(state, path).decode("utf-8", "replace")


def _open(state: State, path: str) -> tuple[int, os.stat_result]:
    with _node_errors("open", path):
        return open_file(path, root=state.workspace.root_of(path))


def _head(state: State, path: str, count: float) -> str:
    """Upstream's ``headFile``: the first ``count`` lines, read 1 KiB at a time."""
    fd, _ = _open(state, path)
    try:
        lines: list[str] = []
        buffer = ""
        position = 0
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while len(lines) < count:
            chunk = os.pread(fd, _CHUNK, position)
            if not chunk:
                break
            position += len(chunk)
            if position > state.max_file_size:
                raise FileTooLargeError(path=path, size=position, limit=state.max_file_size)
            buffer += decoder.decode(chunk)
            newline = buffer.rfind("\n")
            if newline != -1:
                complete = buffer[:newline].split("\n")
                buffer = buffer[newline + 1:]
                for line in complete:
                    lines.append(line)
                    if len(lines) >= count:
                        break
        buffer += decoder.decode(b"", final=True)
        if buffer and len(lines) < count:
            lines.append(buffer)
        return "\n".join(lines)
    finally:
        os.close(fd)


def _js_slice_from(items: list[str], start: float) -> list[str]:
    """JavaScript's ``items.slice(start)`` for a number ``start`` (fractions truncated toward zero)."""
    begin = int(start) if math.isfinite(start) else (-len(items) if start < 0 else len(items))
    return items[max(len(items) + begin, 0):] if begin < 0 else items[begin:]


def _tail(state: State, path: str, count: float) -> str:
    """Upstream's ``tailFile``: the last ``count`` lines, read 1 KiB at a time from the end."""
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise fail(node_error(exc, "stat", path)) from None
    if size == 0:  # upstream's answer for an empty file, and for a FIFO (whose size is 0), before opening it
        return ""
    fd, _ = _open(state, path)
    try:
        chunks: list[bytes] = []
        position = size
        newlines = 0
        total = 0
        while position > 0 and newlines < count:
            length = min(_CHUNK, position)
            position -= length
            data = os.pread(fd, length, position)
            if not data:
                break
            total += len(data)
            if total > state.max_file_size:
                raise FileTooLargeError(path=path, size=size, limit=state.max_file_size)
            chunks.insert(0, data)
            newlines += data.count(b"\n")
        text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
        return "\n".join(_js_slice_from(text.split("\n"), -count))
    finally:
        os.close(fd)


def read_text_file(state: State, args: dict[str, Any]) -> str:
    """``read_text_file`` (and the deprecated ``read_file``): the whole file, or its first or last N lines."""
    path = valid_path(state, args["path"])
    head, tail = args.get("head"), args.get("tail")
    if head and tail:
        raise fail("Cannot specify both head and tail parameters simultaneously")
    if tail:
        return _tail(state, path, tail)
    if head:
        return _head(state, path, head)
    return _read_content(state, path)


_MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
                ".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml", ".mp3": "audio/mpeg",
                ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac"}


def _extension(path: str) -> str:
    """Node's ``path.extname``: from the last dot of the base name, unless the name starts with its only dot."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return "" if dot <= 0 else name[dot:]


def read_media_file(state: State, args: dict[str, Any]) -> ToolOutput:
    """``read_media_file``: one image, audio or embedded-resource block holding the file's bytes (base64)."""
    path = valid_path(state, args["path"])
    mime = _MEDIA_TYPES.get(_extension(path).lower(), "application/octet-stream")
    raw = _read_bytes(state, path)
    block: ImageBlock | DataBlock = ImageBlock.from_bytes(raw, mime) if mime.startswith("image/") \
        else DataBlock.from_bytes(raw, mime)
    kind = "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else "resource"
    return ToolOutput(text=f"[{kind}: {mime}]", content=(block,), data=Path(path).as_uri())


def read_multiple_files(state: State, args: dict[str, Any]) -> str:
    """``read_multiple_files``: each file's text after its path, or its error; a failed read stops nothing."""
    results = []
    for requested in args["paths"]:
        try:
            content = _read_content(state, valid_path(state, requested))
            results.append(f"{requested}:\n{content}\n")
        except ToolFailure as exc:
            results.append(f"{requested}: Error - {exc.text}")
        except Exception as exc:  # noqa: BLE001 - upstream catches every error of one file and goes on
            results.append(f"{requested}: Error - {render_error('read_multiple_files', exc)}")
    return "\n---\n".join(results)


def _well_formed(text: str) -> str:
    """The text as Node encodes it to UTF-8: a lone surrogate becomes U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def write_file(state: State, args: dict[str, Any]) -> str:
    """``write_file``: create the file, or replace its content (its mode kept); the parent must exist."""
    path = valid_path(state, args["path"])
    content = _well_formed(args["content"])
    if os.path.isdir(path):  # upstream fails renaming a random temporary name onto it; we name the path
        raise fail(node_error(OSError(errno.EISDIR, "is a directory"), "open", path))
    if not os.path.isdir(os.path.dirname(path)):
        raise fail(node_error(OSError(errno.ENOENT, "missing"), "open", path))
    with _node_errors("open", path):
        files.write_file(state.workspace, path, content, keep_format=False, create_parents=False)
    return f"Successfully wrote to {args['path']}"


def edit_file(state: State, args: dict[str, Any]) -> str:
    """``edit_file``: apply the edits in turn, answer the diff, and write unless ``dryRun``.

    Matching and the diff are upstream's, on the text with ``\\r\\n`` read as ``\\n`` and bytes that are not UTF-8
    read as U+FFFD; the file written keeps each untouched line's bytes (see :func:`.editing.rebuild`).
    """
    path = valid_path(state, args["path"])
    raw = _read_bytes(state, path)
    original = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    edits = [{"oldText": _well_formed(e["oldText"]), "newText": _well_formed(e["newText"])} for e in args["edits"]]
    modified = editing.apply_edits(original, edits)
    changes = editing.line_diff(original, modified)
    answer = editing.unified_diff(path, original, modified, changes)
    if not args["dryRun"]:
        text = raw.decode("utf-8", "surrogateescape")
        raw_lines = text.split("\n")
        kept = [line + "\n" for line in raw_lines[:-1]] + ([raw_lines[-1]] if raw_lines[-1] else [])
        data = editing.rebuild(kept, changes).encode("utf-8", "surrogateescape")
        real = state.workspace.resolve(path, expect="file", write=True)
        # no size cap: upstream writes whatever the edits make
        files.write_bytes(state.workspace, real, data, create_parents=False, max_size=len(data))
    return answer


def create_directory(state: State, args: dict[str, Any]) -> str:
    """``create_directory``: ``mkdir -p``; an existing directory is fine."""
    path = valid_path(state, args["path"])
    real = state.workspace.resolve(path, write=True)
    if os.path.lexists(real) and not os.path.isdir(real):
        raise fail(node_error(OSError(errno.EEXIST, "exists"), "mkdir", path))
    with _node_errors("mkdir", path):
        files.make_dirs(real, ws=state.workspace)
    return f"Successfully created directory {args['path']}"


def _listing(state: State, path: str) -> list[files.DirEntry]:
    """The directory's entries in Node's ``readdir`` order (bytewise by name), dangling symlinks included."""
    with _node_errors("scandir", path):
        listing = files.list_dir(state.workspace, path, broken=True)
    return sorted(listing.entries, key=lambda e: os.fsencode(e.name))


def _shown(name: str) -> str:
    """A name as Node reads it from the directory: bytes that are not UTF-8 become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _readable(name: str) -> bool:
    """Whether Node can reach the entry by the name it read.

    A name that is not UTF-8 comes back with U+FFFD in it, which names nothing (its stat fails, its path check fails).
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_dir(entry: files.DirEntry) -> bool:
    """A ``Dirent``'s ``isDirectory()``: a symlink is not a directory, whatever it points to."""
    return entry.is_dir and not entry.is_symlink


def list_directory(state: State, args: dict[str, Any]) -> str:
    """``list_directory``: ``[DIR] name`` or ``[FILE] name``, one a line."""
    path = valid_path(state, args["path"])
    return "\n".join(f"{'[DIR]' if _is_dir(e) else '[FILE]'} {_shown(e.name)}" for e in _listing(state, path))


def _pad_end(text: str, width: int) -> str:
    return text + " " * max(0, width - js_length(text))


def list_directory_with_sizes(state: State, args: dict[str, Any]) -> str:
    """``list_directory_with_sizes``: entries with their sizes, sorted by name or size, then the totals."""
    path = valid_path(state, args["path"])
    entries = _listing(state, path)
    sizes = {e.name: e.size if _readable(e.name) else 0 for e in entries}
    if args["sortBy"] == "size":
        ordered = sorted(entries, key=lambda e: -sizes[e.name])
    else:
        ordered = sorted(entries, key=lambda e: locale_key(_shown(e.name)))
    lines = []
    for entry in ordered:
        directory = _is_dir(entry)
        size = "" if directory else format_size(sizes[entry.name]).rjust(10)
        lines.append(f"{'[DIR]' if directory else '[FILE]'} {_pad_end(_shown(entry.name), 30)} {size}")
    dirs = sum(1 for e in entries if _is_dir(e))
    total = sum(sizes[e.name] for e in entries if not _is_dir(e))
    lines += ["", f"Total: {len(entries) - dirs} files, {dirs} directories", f"Combined size: {format_size(total)}"]
    return "\n".join(lines)


def _tree_excluded(relative: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if "*" in pattern:
            if minimatch(pattern, relative):
                return True
        elif (minimatch(pattern, relative) or minimatch(f"**/{pattern}", relative)
              or minimatch(f"**/{pattern}/**", relative)):
            return True
    return False


def directory_tree(state: State, args: dict[str, Any]) -> str:
    """``directory_tree``: the whole tree below the path as JSON (``name``, ``type``, ``children``)."""
    path = valid_path(state, args["path"])
    patterns = list(args["excludePatterns"])
    with _node_errors("scandir", path):
        state.workspace.resolve(path, expect="dir")
    top: list[dict[str, Any]] = []
    stack: list[tuple[str, str, list[dict[str, Any]]]] = [(path, "", top)]
    scope = current_scope()
    while stack:
        raise_if_cancelled(scope)  # a cancelled call stops before its next directory
        directory, rel_dir, children = stack.pop()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: os.fsencode(e.name))
        except OSError as exc:
            raise fail(node_error(exc, "scandir", directory)) from None
        pending = []
        for entry in entries:
            relative = rel_dir + entry.name
            if _tree_excluded(relative, patterns) or state.workspace.denied_by(entry.path) is not None:
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir and not _readable(entry.name):  # upstream's check of the subdirectory's path fails
                raise fail(f"Parent directory does not exist: {directory}")
            node: dict[str, Any] = {"name": _shown(entry.name), "type": "directory" if is_dir else "file"}
            if is_dir:
                node["children"] = []
                pending.append((entry.path, relative + "/", node["children"]))
            children.append(node)
        stack.extend(reversed(pending))
    return js_json(top)


def move_file(state: State, args: dict[str, Any]) -> str:
    """``move_file``: rename; an existing destination of any kind is refused."""
    source = valid_path(state, args["source"])
    destination = valid_path(state, args["destination"])
    try:
        files.move(state.workspace, source, destination)
    except AlreadyExistsError:
        raise fail(f"Destination already exists: {destination}") from None
    except (NotFoundError, NotDirectoryError) as exc:
        raise fail(node_error(exc, "rename", source, destination)) from None
    except AgentToolsError:
        raise
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EINVAL, errno.EACCES, errno.EPERM, errno.EXDEV,
                         errno.EISDIR, errno.ENOTEMPTY, errno.EBUSY):
            raise fail(node_error(exc, "rename", source, destination)) from None
        raise
    return f"Successfully moved {args['source']} to {args['destination']}"


def _entry_allowed(state: State, path: str, entry: os.DirEntry[str]) -> bool:
    """Whether upstream's ``validatePath`` passes an entry met in a search: a symlink must lead inside."""
    if state.workspace.denied_by(path) is not None:
        return False
    if not entry.is_symlink():
        return True
    try:
        return within(os.path.realpath(path, strict=True), state.allowed)
    except OSError:
        return False


def search_files(state: State, args: dict[str, Any]) -> str:
    """``search_files``: every entry below the path whose path relative to it matches the glob, in readdir order."""
    root = valid_path(state, args["path"])
    pattern: str = args["pattern"]
    excludes: list[str] = list(args["excludePatterns"])
    with _node_errors("scandir", root):
        state.workspace.resolve(root, expect="dir")
        os.listdir(root)
    results = []
    skipped: set[str] = set()

    def enter(rel: str, entry: os.DirEntry[str]) -> bool:
        return rel not in skipped

    for rel, entry, is_dir in walk(root, path_order=True, enter=enter):
        full = os.path.join(root, rel)
        if (not _readable(entry.name) or not _entry_allowed(state, full, entry)
                or any(minimatch(e, rel) for e in excludes)):
            if is_dir:
                skipped.add(rel)
            continue
        if minimatch(pattern, rel):
            results.append(_shown(full))
    return "\n".join(results) if results else "No matches found"


_STATX_BTIME = 0x800
_STATX_BASIC = 0x7FF
_AT_FDCWD = -100


@functools.cache
def _load_statx() -> tuple[Callable[..., int], type] | None:
    """The C library's ``statx`` and the kernel's ``struct statx`` (256 bytes), made on first use.

    ctypes is slow to import, so it waits for the first ``get_file_info``. None where there is no ``statx`` (not
    Linux, an old C library).
    """

    class Timestamp(ctypes.Structure):
        _fields_ = [  # noqa: RUF012 - ctypes reads the layout from this class attribute
            ("tv_sec", ctypes.c_int64), ("tv_nsec", ctypes.c_uint32), ("reserved", ctypes.c_int32)]

    class Statx(ctypes.Structure):
        _fields_ = [  # noqa: RUF012 - ctypes reads the layout from this class attribute
            ("stx_mask", ctypes.c_uint32), ("stx_blksize", ctypes.c_uint32), ("stx_attributes", ctypes.c_uint64),
            ("stx_nlink", ctypes.c_uint32), ("stx_uid", ctypes.c_uint32), ("stx_gid", ctypes.c_uint32),
            ("stx_mode", ctypes.c_uint16), ("spare0", ctypes.c_uint16), ("stx_ino", ctypes.c_uint64),
            ("stx_size", ctypes.c_uint64), ("stx_blocks", ctypes.c_uint64), ("stx_attributes_mask", ctypes.c_uint64),
            ("stx_atime", Timestamp), ("stx_btime", Timestamp), ("stx_ctime", Timestamp), ("stx_mtime", Timestamp),
            ("stx_rdev_major", ctypes.c_uint32), ("stx_rdev_minor", ctypes.c_uint32),
            ("stx_dev_major", ctypes.c_uint32), ("stx_dev_minor", ctypes.c_uint32), ("spare", ctypes.c_uint64 * 14)]

    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).statx
    except (OSError, AttributeError):
        return None
    if ctypes.sizeof(Statx) != 256:  # never write past a buffer of the wrong size
        return None
    return function, Statx


def _birth_time(path: str, st: os.stat_result) -> float:
    """The file's creation time as Node's ``stats.birthtime`` has it.

    That is ``statx``'s ``btime`` (0 where the file system keeps none), or ``st_birthtime`` or the change time where
    there is no ``statx``.
    """
    loaded = _load_statx()
    if loaded is not None:
        statx, struct = loaded
        buffer = struct()
        if statx(_AT_FDCWD, os.fsencode(path), 0, _STATX_BASIC | _STATX_BTIME, ctypes.byref(buffer)) == 0:
            return int(buffer.stx_btime.tv_sec) + int(buffer.stx_btime.tv_nsec) / 1e9
    birth: float = getattr(st, "st_birthtime", st.st_ctime)
    return float(birth)


def get_file_info(state: State, args: dict[str, Any]) -> str:
    """``get_file_info``: size, times, type and permission bits, one ``key: value`` a line."""
    path = valid_path(state, args["path"])
    try:
        st = os.stat(path)
    except OSError as exc:
        raise fail(node_error(exc, "stat", path)) from None
    info = [("size", str(st.st_size)), ("created", js_date(_birth_time(path, st))),
            ("modified", js_date(st.st_mtime)), ("accessed", js_date(st.st_atime)),
            ("isDirectory", "true" if stat.S_ISDIR(st.st_mode) else "false"),
            ("isFile", "true" if stat.S_ISREG(st.st_mode) else "false"),
            ("permissions", format(st.st_mode, "o")[-3:])]
    return "\n".join(f"{key}: {value}" for key, value in info)


def list_allowed_directories(state: State, args: dict[str, Any]) -> str:
    """``list_allowed_directories``: upstream's list, one a line."""
    return "Allowed directories:\n" + "\n".join(state.allowed)

