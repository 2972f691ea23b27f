"""The files family: list directories, read files (text line ranges streamed, media as bytes), write atomically.

Every path goes through a :class:`~agenttools.Workspace`. Results are data; failures raise typed errors.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

import attrs

from agenttools._filetypes import FileKind, classify
from agenttools._text import TextFormat, atomic_write, decode, detect_bom, encode, iter_decoded, newline_style
from agenttools._text import _fallback_encoding as fallback_encoding
from agenttools.errors import EncodingError, IsDirectoryError, SpecialFileError
from agenttools.workspace import Workspace, _file_kind

__all__ = ["DirEntry", "DirListing", "FileInfo", "ReadResult", "WriteResult", "list_dir", "read_file", "stat_path",
           "write_file"]

_SAMPLE = 1 << 20


@attrs.frozen(kw_only=True)
class DirEntry:
    """One entry of a directory listing."""

    name: str
    """The entry's name."""
    path: Path
    """Its absolute path (not resolved: a symlink stays a symlink)."""
    is_dir: bool
    """Whether it is a directory, following symlinks."""
    is_symlink: bool
    """Whether the entry itself is a symbolic link."""
    size: int
    """Size in bytes (of the target, for symlinks)."""
    mtime: float
    """Modification time, seconds since the epoch."""


@attrs.frozen(kw_only=True)
class FileInfo:
    """What :func:`stat_path` found."""

    path: Path
    """The real path (symlinks resolved)."""
    kind: Literal["file", "dir", "fifo", "socket", "character device", "block device", "special file"]
    """What the path is."""
    size: int
    """Size in bytes."""
    mtime: float
    """Modification time, seconds since the epoch."""
    mode: int
    """Permission bits (``0o644`` style)."""
    is_symlink: bool
    """Whether the path as given is a symbolic link."""


@attrs.frozen(kw_only=True)
class DirListing:
    """The entries of one directory, in the order the OS returned them."""

    path: Path
    """The directory's real path."""
    entries: tuple[DirEntry, ...]
    """Entries that could be stat'ed (a dangling symlink is left out)."""
    total: int
    """How many names the directory holds, before any was left out."""


@attrs.frozen(kw_only=True)
class ReadResult:
    """What :func:`read_file` found: a range of text lines, or the bytes of a media file, or a binary file."""

    path: Path
    """The file's real path."""
    kind: FileKind
    """``text``, ``svg``, ``image``, ``pdf``, ``audio``, ``video`` or ``binary``."""
    size: int
    """File size in bytes."""
    mime_type: str | None = None
    """MIME type, for media kinds."""
    lines: tuple[str, ...] = ()
    """For text: the selected lines, split on ``\\n`` only (a ``\\r`` before it stays on the line)."""
    start_line: int = 0
    """0-based index of the first selected line."""
    total_lines: int = 0
    """For text: ``count("\\n") + 1`` (a final newline makes a last, empty line)."""
    cut_lines: tuple[int, ...] = ()
    """Indexes into ``lines`` of lines shortened to ``max_line_chars``."""
    format: TextFormat | None = None
    """For text: encoding, BOM and newline style."""
    data: bytes | None = attrs.field(default=None, repr=False)
    """For media kinds (and SVG): the raw bytes."""

    @property
    def end_line(self) -> int:
        """0-based index after the last selected line."""
        return self.start_line + len(self.lines)

    @property
    def text(self) -> str:
        """The selected lines joined with ``\\n``."""
        return "\n".join(self.lines)


@attrs.frozen(kw_only=True)
class WriteResult:
    """What :func:`write_file` did."""

    path: Path
    """The real path written (a symlink's target)."""
    created: bool
    """Whether the file did not exist before."""
    size: int
    """Bytes written."""
    format: TextFormat
    """The encoding, BOM and newline style the content was written in."""


def stat_path(ws: Workspace, path: str | os.PathLike[str]) -> FileInfo:
    """Describe an existing path (following symlinks) without opening it.

    Raises:
        NotFoundError, OutsideWorkspaceError, DeniedPathError, PathError: As :meth:`Workspace.resolve`.
    """
    real = ws.resolve(path, expect="exists")
    st = os.stat(real)
    kind = "dir" if stat.S_ISDIR(st.st_mode) else (_file_kind(st.st_mode) or "file")
    return FileInfo(path=real, kind=kind, size=st.st_size, mtime=st.st_mtime,  # type: ignore[arg-type]
                    mode=stat.S_IMODE(st.st_mode), is_symlink=os.path.islink(ws.absolute(path)))


def list_dir(ws: Workspace, path: str | os.PathLike[str]) -> DirListing:
    """List a directory's entries (dotfiles included; symlinks followed for ``is_dir`` and ``size``).

    Raises:
        NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError, PathError: As
            :meth:`Workspace.resolve` with ``expect="dir"``.
        PermissionError: The directory cannot be read.
    """
    real = ws.resolve(path, expect="dir")
    entries = []
    names = os.listdir(real)
    for name in names:
        full = real / name
        try:
            st = os.stat(full)
            is_link = os.path.islink(full)
        except OSError:
            continue
        entries.append(DirEntry(name=name, path=full, is_dir=stat.S_ISDIR(st.st_mode), is_symlink=is_link,
                                size=st.st_size, mtime=st.st_mtime))
    return DirListing(path=real, entries=tuple(entries), total=len(names))


def _read_lines(real: str, fmt: TextFormat, offset: int, limit: int | None,
                max_line_chars: int | None) -> tuple[list[str], list[int], int]:
    """Stream the file once: keep lines [offset, offset+limit), count all lines. Returns (lines, cut, total)."""
    end = None if limit is None else offset + limit
    keep_chars = None if max_line_chars is None else max_line_chars
    lines: list[str] = []
    cut: list[int] = []
    index = 0
    pieces: list[str] = []
    length = 0

    def finish() -> None:
        nonlocal pieces, length
        if offset <= index and (end is None or index < end):
            text = "".join(pieces)
            if keep_chars is not None and length > keep_chars:
                cut.append(len(lines))
                text = text[:keep_chars]
            lines.append(text)
        pieces = []
        length = 0

    with open(real, "rb") as handle:
        handle.seek(len(fmt.bom))
        for chunk in iter_decoded(handle, fmt.encoding):
            parts = chunk.split("\n")
            for i, part in enumerate(parts):
                if offset <= index and (end is None or index < end):
                    if keep_chars is None or length <= keep_chars:
                        pieces.append(part)
                    length += len(part)
                if i < len(parts) - 1:
                    finish()
                    index += 1
    finish()
    return lines, cut, index + 1


def read_file(
    ws: Workspace,
    path: str | os.PathLike[str],
    *,
    offset: int = 0,
    limit: int | None = None,
    max_line_chars: int | None = None,
    max_size: int | None = None,
) -> ReadResult:
    """Read a file: a range of text lines (streamed: a range of a huge file never loads it), or media bytes.

    Args:
        ws: The workspace the path must stay inside.
        path: The file.
        offset: 0-based index of the first text line to return.
        limit: How many lines to return (None: all from ``offset``).
        max_line_chars: Cut longer lines to this many characters (their indexes go to ``cut_lines``).
        max_size: Refuse files larger than this (default: the workspace's ``max_file_size``).

    Raises:
        NotFoundError, IsDirectoryError, SpecialFileError, OutsideWorkspaceError, DeniedPathError: The path.
        FileTooLargeError: The file exceeds ``max_size``.
        EncodingError: A text file is not valid in any encoding we trust.
    """
    real = ws.resolve(path, expect="file")
    size = ws.check_size(real, limit=max_size)
    with open(real, "rb") as handle:
        head = handle.read(4096)
    kind, mime = classify(str(real), head)
    if kind != "text":
        data = None
        if kind != "binary":
            with open(real, "rb") as handle:
                data = handle.read()
        return ReadResult(path=real, kind=kind, size=size, mime_type=mime, data=data)
    found = detect_bom(head[:4])
    fmt = TextFormat(encoding=found[1], bom=found[0]) if found else TextFormat(encoding="utf-8")
    try:
        lines, cut, total = _read_lines(str(real), fmt, offset, limit, max_line_chars)
    except UnicodeDecodeError:
        if found:
            raise EncodingError(f"cannot decode {real}: invalid {fmt.encoding} after its byte-order mark",
                                path=str(real)) from None
        with open(real, "rb") as handle:
            fmt = TextFormat(encoding=fallback_encoding(handle.read(_SAMPLE), str(real)))
        try:
            lines, cut, total = _read_lines(str(real), fmt, offset, limit, max_line_chars)
        except UnicodeDecodeError:
            raise EncodingError(f"cannot decode {real} as {fmt.encoding}", path=str(real)) from None
    fmt = attrs.evolve(fmt, newline=newline_style(head[len(fmt.bom):].decode(fmt.encoding, errors="ignore")))
    return ReadResult(path=real, kind="text", size=size, lines=tuple(lines), start_line=min(offset, total),
                      total_lines=total, cut_lines=tuple(cut), format=fmt)


def write_file(
    ws: Workspace,
    path: str | os.PathLike[str],
    content: str,
    *,
    keep_format: bool = True,
    create_parents: bool = True,
) -> WriteResult:
    """Write ``content`` to a file atomically, creating it (and its parent directories) if needed.

    Overwriting keeps the file's mode, its encoding and BOM, and its line endings: when the file used CRLF and
    ``content`` has no ``\\r`` at all, each ``\\n`` is written as ``\\r\\n``. A symlink is written through to its
    (in-workspace) target. The file is never left half-written.

    Raises:
        IsDirectoryError, SpecialFileError, OutsideWorkspaceError, DeniedPathError, PathError: The path.
        EncodingError: ``content`` cannot be encoded in the existing file's encoding (nothing is written).
    """
    real = ws.resolve(path)
    text_path = str(real)
    fmt = TextFormat(encoding="utf-8")
    created = True
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    if st is not None:
        created = False
        if stat.S_ISDIR(st.st_mode):
            raise IsDirectoryError(path=text_path)
        special = _file_kind(st.st_mode)
        if special is not None:
            raise SpecialFileError(path=text_path, kind=special)
        if keep_format:
            with open(real, "rb") as handle:
                raw = handle.read()
            try:
                fmt = decode(raw, path=text_path)[1]
            except EncodingError:
                fmt = TextFormat(encoding="utf-8")
    if fmt.newline == "\r\n" and "\r" not in content:
        content = content.replace("\n", "\r\n")
    data = encode(content, fmt, path=text_path)
    if create_parents:
        os.makedirs(real.parent, exist_ok=True)
    atomic_write(text_path, data)
    return WriteResult(path=real, created=created, size=len(data), format=fmt)
