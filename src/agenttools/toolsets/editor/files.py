"""The editor file tools: ``view`` (files, images and directory trees), ``str_replace`` and ``create_file``."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agenttools import edit, files
from agenttools._text import TextFormat as _TextFormat
from agenttools._text import detect_bom, open_file, read_limited
from agenttools.errors import (
    EncodingError,
    FileTooLargeError,
    HardLinkError,
    IsDirectoryError,
    MatchCountError,
    NoMatchError,
    NotFoundError,
    ProtectedPathError,
    SpecialFileError,
)
from agenttools.output import ImageBlock, ToolOutput
from agenttools.toolsets._go import path_error
from agenttools.toolsets.editor.render import format_lines, format_size
from agenttools.toolsets.editor.state import MAX_LINE_CHARS, MAX_LINES, State, arg
from agenttools.toolsets.editor.texts import failure
from agenttools.workspace import Workspace

__all__ = ["create_file", "edit_errors", "edit_target", "replaced", "resolve", "str_replace", "view"]

_HEADER_BYTES = 512
_BMP_DIB_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})
_IMAGE_SIGNATURES = ((b"\x00\x00\x01\x00", "image/x-icon"), (b"\x00\x00\x02\x00", "image/x-icon"), (b"BM", "image/bmp"),
                     (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"), (b"\x89PNG\r\n\x1a\n", "image/png"),
                     (b"\xff\xd8\xff", "image/jpeg"))
"""Go's ``net/http`` sniffing table, image rows in its order (the WebP row is masked: see :func:`_image_mime`)."""
_UTF8_BOM = b"\xef\xbb\xbf"


def _extension(path: str) -> str:
    """Go's ``filepath.Ext``: from the last dot of the last element (``.svg`` is the extension of ``.svg``)."""
    name = os.path.basename(path)
    dot = name.rfind(".")
    return name[dot:] if dot >= 0 else ""


def _image_mime(path: str, header: bytes, size: int) -> str | None:
    """The image type Go's ``http.DetectContentType`` sniffs from the header, else ``.svg`` by extension.

    Only upstream's image signatures count (icon, BMP, GIF, WebP, PNG, JPEG): a TIFF or PSD stays a binary file.
    A BMP needs a real header, not just ``BM`` (declared size, DIB header size, pixel offset).
    """
    mime = next((kind for magic, kind in _IMAGE_SIGNATURES if header.startswith(magic)), None)
    if mime is None and header[:4] == b"RIFF" and header[8:14] == b"WEBPVP":
        mime = "image/webp"
    if mime == "image/bmp":
        declared = int.from_bytes(header[2:6], "little")
        offset = int.from_bytes(header[10:14], "little")
        dib = int.from_bytes(header[14:18], "little")
        if len(header) < 26 or dib not in _BMP_DIB_SIZES or declared != size or not 14 + dib <= offset <= size:
            mime = None
    if mime is None and _extension(path).lower() == ".svg":
        mime = "image/svg+xml"
    return mime


def _tree_lines(node: files.TreeNode, directories: tuple[str, ...], ws: Workspace, prefix: str = "") -> list[str]:
    """The tree below ``node``, found at ``directories`` (its path as given and its real path).

    An entry a deny pattern matches (on either path) is left out, name and all, so nothing below it shows.
    """
    children = [c for c in node.children
                if not any(ws.denied_by(os.path.join(d, c.name)) is not None for d in directories)]
    lines = []
    for i, child in enumerate(children):
        last = i == len(children) - 1
        label = child.name + ("/" if child.is_dir else "")
        if child.link_target is not None:
            label = f"{child.name} -> {child.link_target}"
        lines.append(f"{prefix}{'└── ' if last else '├── '}{label}")
        if child.is_dir:
            lines.extend(_tree_lines(child, tuple(os.path.join(d, child.name) for d in directories), ws,
                                     prefix + ("    " if last else "│   ")))
    return lines


def _ends_with_newline(real: str, result: files.ReadResult, ws: Workspace) -> bool:
    fmt = result.format
    if fmt is None:
        return False
    newline = "\n".encode(fmt.encoding)
    fd, _ = open_file(real, root=ws.root_of(real))
    try:
        return os.pread(fd, len(newline), max(0, result.size - len(newline))) == newline and \
            result.size > len(fmt.bom)
    finally:
        os.close(fd)


def _eval_symlinks_problem(lexical: str) -> str | None:
    """What Go's ``filepath.EvalSymlinks`` (upstream's resolver) says about a path, or None when it resolves.

    A missing path is resolved through its nearest existing parent, as upstream does; a path that continues
    below a file gives ``not a directory``, a symlink loop ``EvalSymlinks: too many links``.
    """
    path = lexical
    while True:
        try:
            os.path.realpath(path, strict=True)
            return None
        except FileNotFoundError:
            parent = os.path.dirname(path)
            if parent == path:
                return None
            path = parent
        except NotADirectoryError:
            return "not a directory"
        except OSError as exc:
            return "EvalSymlinks: too many links" if exc.errno == errno.ELOOP else None


def _resolve(ws: Workspace, path: str) -> str:
    """The real path for a tool, refused as upstream refuses it (``[ACCESS_DENIED] path not allowed: ...``).

    An empty path is the session cwd, as Go's ``filepath.Join(cwd, "")`` makes it. Our containment and deny checks
    come first: a path outside the allowed directories is refused as such whatever is (or is not) there.
    """
    path = path or "."
    problem = _eval_symlinks_problem(ws.absolute(path))
    if problem is not None and problem.startswith("EvalSymlinks"):
        raise failure("ACCESS_DENIED", f"path not allowed: {problem}")
    real = str(ws.resolve(path))
    if problem is not None:
        raise failure("ACCESS_DENIED", f"path not allowed: {problem}")
    return real


_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""Errors a write (not the open before it) fails with: Go names the ``write`` operation for them."""


def _go_error(op: str, path: str, exc: OSError) -> str:
    """Go's ``*PathError`` text; a write error of an open (a full disk) names Go's ``write`` operation."""
    if op == "open" and exc.errno in _WRITE_ERRNOS:
        op = "write"
    return path_error(op, path, exc)


def _with_bom(lines: list[str], cut: dict[int, int], fmt: _TextFormat | None) -> None:
    """Put a UTF-8 BOM back on the file's first line (``lines[0]``), as upstream shows the file's bytes.

    The BOM counts as one character of the line, for the 2000-character cut too.
    """
    if fmt is None or fmt.bom != _UTF8_BOM or not lines:
        return
    length = cut.get(0, len(lines[0])) + 1
    lines[0] = ("\ufeff" + lines[0])[:MAX_LINE_CHARS]
    if length > MAX_LINE_CHARS:
        cut[0] = length


def view(state: State, args: dict[str, Any]) -> str | ToolOutput:
    """``view``: a file's numbered lines (or a range), an image as a content block, or a directory tree."""
    ws = state.workspace
    real = _resolve(ws, args["path"])
    if not os.path.lexists(real):
        raise NotFoundError(path=real)
    if os.path.isdir(real):
        try:
            node = files.tree(ws, real)
        except OSError as exc:
            raise failure("IO_ERROR", f"could not list directory {real}: {exc}") from None
        given = ws.absolute(args["path"] or ".")
        return "\n".join([f"{node.name}/", *_tree_lines(node, (given, real), ws)]) + "\n"
    try:  # one descriptor, opened without blocking and checked with fstat: a FIFO swapped in is never read
        fd, st = open_file(real, root=ws.root_of(real), max_size=ws.max_file_size)
    except SpecialFileError as exc:
        raise failure("IO_ERROR", f"could not read {real}: it is a {exc.kind}, not a regular file") from None
    except (FileTooLargeError, NotFoundError):
        raise
    except OSError as exc:
        raise failure("IO_ERROR", f"could not open {real}: {_go_error('open', real, exc)}") from None
    try:
        header = os.pread(fd, _HEADER_BYTES, 0)
        mime = _image_mime(real, header, st.st_size)
        if mime is not None:
            os.lseek(fd, 0, os.SEEK_SET)
            block = ImageBlock.from_bytes(read_limited(fd, st.st_size, limit=ws.max_file_size, path=real), mime)
            return ToolOutput(text=f"Image file {real} ({mime}, {format_size(st.st_size)})", content=(block,))
    finally:
        os.close(fd)
    if b"\x00" in header and detect_bom(header[:4]) is None:
        return f"Binary file ({format_size(st.st_size)})"
    view_range = args.get("view_range")
    try:
        if isinstance(view_range, list) and len(view_range) == 2:
            return _view_range(state, real, int(view_range[0]), int(view_range[1]))
        return _view_whole(state, real)
    except EncodingError as exc:
        raise failure("IO_ERROR", f"could not read {real}: {exc}") from None


def _view_whole(state: State, real: str) -> str:
    result = files.read_text(state.workspace, real, limit=MAX_LINES + 1, max_line_chars=MAX_LINE_CHARS)
    total = result.total_lines - (1 if _ends_with_newline(real, result, state.workspace) else 0)
    if result.size == 0 or total <= 0:
        return ""
    shown = min(total, MAX_LINES)
    lines = list(result.lines[:shown])
    cut = {i: n for i, n in zip(result.cut_lines, result.cut_lengths, strict=True) if i < shown}
    _with_bom(lines, cut, result.format)
    text = format_lines(lines, 1, cut)
    if total > MAX_LINES:
        text += f"\n[Truncated: file has {total} lines. Use view_range to read specific sections.]"
    return text


def _view_range(state: State, real: str, start: int, end: int) -> str:
    if start < 1:
        raise failure("INVALID_INPUT", f"invalid view_range: start must be >= 1, got {start}")
    if start > end:
        raise failure("INVALID_INPUT", f"invalid view_range: start {start} > end {end}")
    result = files.read_text(state.workspace, real, offset=start - 1, limit=end - start + 1,
                             max_line_chars=MAX_LINE_CHARS, count_all=False)
    lines = list(result.lines)
    if result.total_lines >= 0:  # the end of the file was reached: drop the phantom line after a final newline
        total = result.total_lines - (1 if _ends_with_newline(real, result, state.workspace) or result.size == 0 else 0)
        if start > total:
            raise failure("INVALID_INPUT", f"invalid view_range: start {start} exceeds total lines {total} "
                                               f"in {real}")
        lines = lines[: total - (start - 1)]
    lines = [line.removesuffix("\r") for line in lines]
    cut = {i: n for i, n in zip(result.cut_lines, result.cut_lengths, strict=True) if i < len(lines)}
    if start == 1:
        _with_bom(lines, cut, result.format)
    return format_lines(lines, start, cut)


def str_replace(state: State, args: dict[str, Any]) -> str:
    """``str_replace``: replace one unique occurrence of a text."""
    old = args["old_str"]
    if old == "":
        raise failure("INVALID_INPUT", "old_str must not be empty")
    real = edit_target(state, args["path"])
    replace_all = bool(arg(args, "replace_all", False))
    with edit_errors(real):
        result = edit.replace_text(state.workspace, real, old, arg(args, "new_str", ""),
                                   expected=None if replace_all else 1, create=False)
    return replaced(state, real, result, replace_all=replace_all)


def resolve(state: State, path: str) -> str:
    """The real path of a path argument, checked against the workspace (the session cwd for a relative one)."""
    return _resolve(state.workspace, path)


def edit_target(state: State, path: str) -> str:
    """The real path of an existing file to edit, checked as upstream checks it (found, not a directory, size)."""
    ws = state.workspace
    real = _resolve(ws, path)
    if not os.path.lexists(real):
        raise NotFoundError(path=real)
    if os.path.isdir(real):
        raise failure("IO_ERROR", f"could not read {real}: read {real}: is a directory")
    ws.check_size(real)
    return real


@contextlib.contextmanager
def edit_errors(real: str) -> Iterator[None]:
    """Word an edit's failures as upstream's ``str_replace`` does (``edits[i]`` named for a multi-edit)."""
    try:
        yield
    except NoMatchError as exc:
        which = "old_str" if exc.edit is None else f"edits[{exc.edit}].old_str"
        raise failure("STR_REPLACE_NOT_FOUND", f"{which} not found in {real}") from None
    except MatchCountError as exc:
        which = "" if exc.edit is None else f"edits[{exc.edit}]: "
        raise failure("STR_REPLACE_AMBIGUOUS", f"{which}found {exc.found} occurrences in {real}; match must be "
                                                   "unique (use replace_all to replace all)") from None
    except (HardLinkError, ProtectedPathError):
        raise
    except (EncodingError, IsDirectoryError) as exc:
        raise failure("IO_ERROR", f"could not write {real}: {exc}") from None
    except OSError as exc:
        raise failure("IO_ERROR", f"could not write {real}: {_go_error('open', real, exc)}") from None


def replaced(state: State, real: str, result: edit.EditResult, *, replace_all: bool) -> str:
    """Upstream's answer to a replacement: the count, or the lines around the edit."""
    if replace_all:
        return f"Replaced {result.occurrences} occurrences in {real}"
    if os.stat(real).st_size == 0:
        return f"Replaced in {real}\n\n"
    return f"Replaced in {real}\n\n" + _snippet(state.workspace, real, result.lines[0])


def _snippet(ws: Workspace, real: str, line: int) -> str:
    """Upstream's ``contextSnippet``: the lines 4 before to 4 after ``line`` (1-based) of the edited file.

    Upstream finds the line from the byte offset of the edit, clamped to the last byte: an edit that ends the file
    after a final newline (a deletion of its last line) shows the line before, not the empty line after it.
    """
    while True:
        low = max(1, line - 4)
        window = files.read_text(ws, real, offset=low - 1, limit=line + 4 - low + 1, max_line_chars=MAX_LINE_CHARS,
                                 count_all=False)
        if line > 1 and window.total_lines == line and _ends_with_newline(real, window, ws) and \
                window.lines[line - low] == "":
            line -= 1
            continue
        lines = list(window.lines)
        cut = dict(zip(window.cut_lines, window.cut_lengths, strict=True))
        if low == 1:
            _with_bom(lines, cut, window.format)
        return format_lines(lines, low, cut)


def create_file(state: State, args: dict[str, Any]) -> str:
    """``create_file``: create or overwrite a file, making its parent directories."""
    content: str = args["content"]
    ws = state.workspace
    size = len(content.encode("utf-8", errors="surrogatepass"))
    if size > ws.max_file_size:
        raise failure("FILE_TOO_LARGE", f"content is {size} bytes, exceeds maximum {ws.max_file_size} bytes")
    real = _resolve(ws, args["path"])
    parent = os.path.dirname(real)
    first_missing = parent
    while not os.path.lexists(os.path.dirname(first_missing)) and os.path.dirname(first_missing) != first_missing:
        first_missing = os.path.dirname(first_missing)
    try:
        files.make_dirs(Path(parent), mode=0o755, ws=ws)
    except ProtectedPathError:
        raise
    except OSError as exc:
        raise failure("IO_ERROR", f"could not create directories for {real}: "
                                  f"{_go_error('mkdir', first_missing, exc)}") from None
    try:
        files.write_file(ws, real, content, create_parents=False, new_file_mode=0o644)
    except IsDirectoryError:
        raise failure("IO_ERROR", f"could not write {real}: open {real}: is a directory") from None
    except (HardLinkError, ProtectedPathError):
        raise
    except EncodingError as exc:
        raise failure("IO_ERROR", f"could not write {real}: {exc}") from None
    except OSError as exc:
        raise failure("IO_ERROR", f"could not write {real}: {_go_error('open', real, exc)}") from None
    return f"Created {real} ({size} bytes)"
