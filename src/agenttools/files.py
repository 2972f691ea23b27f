"""The files family: list directories, read files (text line ranges streamed, media as bytes), write atomically.

Every path goes through a :class:`~agenttools.Workspace`. Results are data; failures raise typed errors.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

import attrs

from agenttools._display import MarkdownRepr
from agenttools._filetypes import FileKind, classify
from agenttools._lines import read_lines
from agenttools._text import (
    _FALLBACK_SAMPLE,
    FileChangedError,
    TextFormat,
    atomic_write,
    encode,
    file_kind,
    make_dirs_beneath,
    open_dir,
    open_file,
    path_lock,
    read_limited,
    sniff_format,
)
from agenttools.errors import (
    AlreadyExistsError,
    EncodingError,
    FileTooLargeError,
    IsDirectoryError,
    NotDirectoryError,
    NotFoundError,
    StaleFileError,
)
from agenttools.workspace import Workspace

__all__ = ["DirEntry", "DirListing", "FileInfo", "ReadResult", "TreeNode", "WriteResult", "list_dir", "make_dirs",
           "move", "read_bytes", "read_file", "read_text", "remove", "stat_path", "tree", "write_bytes", "write_file"]



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
class FileInfo(MarkdownRepr):
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
class DirListing(MarkdownRepr):
    """The entries of one directory, in the order the OS returned them."""

    path: Path
    """The directory's real path."""
    entries: tuple[DirEntry, ...]
    """Entries that could be stat'ed (a dangling symlink is left out)."""
    total: int
    """How many names the directory holds, before any was left out."""


@attrs.frozen(kw_only=True)
class ReadResult(MarkdownRepr):
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
    """For text: ``count("\\n") + 1`` (a final newline makes a last, empty line); -1 when not counted."""
    cut_lines: tuple[int, ...] = ()
    """Indexes into ``lines`` of lines shortened to ``max_line_chars``."""
    cut_lengths: tuple[int, ...] = ()
    """The full length (characters) of each line in ``cut_lines``."""
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
class TreeNode(MarkdownRepr):
    """One entry of a directory tree."""

    name: str
    """The entry's name."""
    is_dir: bool
    """Whether it is a directory (never true for a symlink: links are not descended)."""
    link_target: str | None = None
    """The raw target of a symbolic link, or None."""
    children: tuple[TreeNode, ...] = ()
    """Entries below a directory, sorted by name (bytewise), down to the requested depth."""


@attrs.frozen(kw_only=True)
class WriteResult(MarkdownRepr):
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
    kind = "dir" if stat.S_ISDIR(st.st_mode) else (file_kind(st.st_mode) or "file")
    return FileInfo(path=real, kind=kind, size=st.st_size, mtime=st.st_mtime,  # type: ignore[arg-type]
                    mode=stat.S_IMODE(st.st_mode), is_symlink=os.path.islink(ws.absolute(path)))


def list_dir(ws: Workspace, path: str | os.PathLike[str], *, broken: bool = False) -> DirListing:
    """List a directory's entries (dotfiles included; symlinks followed for ``is_dir`` and ``size``; denied left out).

    An entry whose target cannot be read (a dangling symlink) is left out, or with ``broken`` listed as it is
    itself: not a directory, size 0.

    Raises:
        NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError, PathError: As
            :meth:`Workspace.resolve` with ``expect="dir"``.
        PermissionError: The directory cannot be read.
    """
    real = ws.resolve(path, expect="dir")
    entries = []
    names = [name for name in os.listdir(real) if ws.denied_by(real / name) is None]
    for name in names:
        full = real / name
        try:
            st = os.stat(full)
            is_link = os.path.islink(full)
        except OSError:
            if not broken:
                continue
            try:
                st = os.lstat(full)
            except OSError:
                continue
            entries.append(DirEntry(name=name, path=full, is_dir=False, is_symlink=stat.S_ISLNK(st.st_mode), size=0,
                                    mtime=st.st_mtime))
            continue
        entries.append(DirEntry(name=name, path=full, is_dir=stat.S_ISDIR(st.st_mode), is_symlink=is_link,
                                size=st.st_size, mtime=st.st_mtime))
    return DirListing(path=real, entries=tuple(entries), total=len(names))


def _open_checked(ws: Workspace, path: str | os.PathLike[str],
                  max_size: int | None) -> tuple[Path, int, int, bytes]:
    """Resolve and open a regular file, check its size on the open descriptor, and read its first 4 KiB.

    Returns ``(real path, descriptor, size, head)``; the caller closes the descriptor (see
    :func:`~agenttools._text.open_file`).
    """
    real = ws.resolve(path, expect="file")
    limit = ws.max_file_size if max_size is None else max_size
    fd, st = open_file(str(real), root=ws.root_of(real), max_size=limit)
    try:
        head = os.pread(fd, 4096, 0)
    except BaseException:
        os.close(fd)
        raise
    return real, fd, st.st_size, head


def read_bytes(ws: Workspace, path: str | os.PathLike[str], *, max_size: int | None = None) -> bytes:
    """A regular file's bytes, whole: opened without blocking, its size checked on the open descriptor.

    Raises:
        NotFoundError, IsDirectoryError, SpecialFileError, OutsideWorkspaceError, DeniedPathError: The path.
        FileTooLargeError: The file exceeds ``max_size`` (default: the workspace's ``max_file_size``), also when it
            grows past it while read.
    """
    real = ws.resolve(path, expect="file")
    limit = ws.max_file_size if max_size is None else max_size
    fd, st = open_file(str(real), root=ws.root_of(real), max_size=limit)
    try:
        return read_limited(fd, st.st_size, limit=limit, path=str(real))
    finally:
        os.close(fd)


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
    real, fd, size, head = _open_checked(ws, path, max_size)
    try:
        kind, mime = classify(str(real), head)
        if kind != "text":
            data = None
            if kind != "binary":
                data = read_limited(fd, size, limit=ws.max_file_size if max_size is None else max_size,
                                    path=str(real))
            return ReadResult(path=real, kind=kind, size=size, mime_type=mime, data=data)
        return _text_result(real, fd, size, head, offset=offset, limit=limit, max_line_chars=max_line_chars,
                            count_all=True)
    finally:
        os.close(fd)


def tree(
    ws: Workspace,
    path: str | os.PathLike[str],
    *,
    depth: int = 2,
    skip: frozenset[str] = frozenset({".git", "node_modules"}),
) -> TreeNode:
    """The directory at ``path`` and its entries ``depth`` levels down; symlinks shown, never followed.

    Entries are sorted by name, bytewise; names in ``skip`` and paths the workspace denies are left out.

    Raises:
        NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError, PathError: The path.
        PermissionError: The top directory cannot be read (unreadable subdirectories are shown empty).
    """
    real = ws.resolve(path, expect="dir")

    def children(directory: str, level: int) -> tuple[TreeNode, ...]:
        if level > depth:
            return ()
        try:
            names = sorted(os.listdir(directory), key=os.fsencode)
        except OSError:
            if level == 1:
                raise
            return ()
        nodes = []
        for name in names:
            full = os.path.join(directory, name)
            if name in skip or ws.denied_by(full) is not None:
                continue
            if os.path.islink(full):
                nodes.append(TreeNode(name=name, is_dir=False, link_target=os.readlink(full)))
            elif os.path.isdir(full):
                nodes.append(TreeNode(name=name, is_dir=True, children=children(full, level + 1)))
            else:
                nodes.append(TreeNode(name=name, is_dir=False))
        return tuple(nodes)

    return TreeNode(name=real.name or str(real), is_dir=True, children=children(str(real), 1))


def _text_result(real: Path, fd: int, size: int, head: bytes, *, offset: int, limit: int | None,
                 max_line_chars: int | None, count_all: bool) -> ReadResult:
    text = read_lines(str(real), head, offset=offset, limit=limit, max_line_chars=max_line_chars,
                      count_all=count_all, fd=fd)
    total = text.total if text.total is not None else -1
    return ReadResult(path=real, kind="text", size=size, lines=text.lines,
                      start_line=offset if total < 0 else min(offset, total), total_lines=total,
                      cut_lines=text.cut, cut_lengths=text.cut_lengths, format=text.format)


def read_text(
    ws: Workspace,
    path: str | os.PathLike[str],
    *,
    offset: int = 0,
    limit: int | None = None,
    max_line_chars: int | None = None,
    max_size: int | None = None,
    count_all: bool = True,
) -> ReadResult:
    """Read a range of a file's lines as text, whatever its name or content looks like (no classification).

    With ``count_all=False`` reading stops after the last wanted line (``total_lines`` is then ``-1`` unless the
    end of the file was reached), so a range near the start of a huge file reads only that far.

    Raises:
        As :func:`read_file`.
    """
    real, fd, size, head = _open_checked(ws, path, max_size)
    try:
        return _text_result(real, fd, size, head, offset=offset, limit=limit, max_line_chars=max_line_chars,
                            count_all=count_all)
    finally:
        os.close(fd)


def remove(ws: Workspace, path: str | os.PathLike[str]) -> Path:
    """Delete a file, a symlink (never its target) or an empty directory; return the path removed.

    Raises:
        NotFoundError: Nothing is there.
        OutsideWorkspaceError, DeniedPathError, PathError: As :meth:`Workspace.resolve_entry` (an allowed
            directory itself is never removed).
        ProtectedPathError: The entry is inside git metadata (``.git``).
        OSError: The OS refused (a directory that is not empty: ``ENOTEMPTY``).
    """
    target = ws.resolve_entry(path, write=True)
    directory, name = os.path.split(str(target))
    dir_fd = open_dir(directory, root=ws.root_of(directory))  # the parent, reached without following symlinks
    at = name if dir_fd is not None else str(target)
    try:
        try:
            st = os.stat(at, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            raise NotFoundError(path=str(target)) from None
        if stat.S_ISDIR(st.st_mode):
            os.rmdir(at, dir_fd=dir_fd)
        else:
            os.unlink(at, dir_fd=dir_fd)
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
    return target


def move(ws: Workspace, source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> Path:
    """Rename a file or directory (the entry itself: a symlink moves as a symlink); return the new path.

    Nothing is replaced: an existing destination of any kind (a dangling symlink included) is refused.

    Raises:
        OutsideWorkspaceError, DeniedPathError, PathError: Either path, as :meth:`Workspace.resolve_entry` (an
            allowed directory itself is never moved).
        ProtectedPathError: Either path is inside git metadata (``.git``).
        AlreadyExistsError: Something is at ``destination``.
        OSError: The OS refused (``ENOENT`` for a missing source, ``EXDEV``, ``EINVAL`` into itself, ...).
    """
    src = ws.resolve_entry(source, write=True)
    dst = ws.resolve_entry(destination, write=True)
    if os.path.lexists(dst):
        raise AlreadyExistsError(path=str(dst))
    os.rename(src, dst)
    return dst


def make_dirs(directory: Path, *, mode: int | None = None, ws: Workspace | None = None) -> None:
    """``mkdir -p``; each directory it creates gets ``mode`` exactly (chmod after creation, whatever the umask).

    With ``ws`` (``directory`` then being a resolved real path) a directory inside git metadata is refused, and
    the directories are created from the allowed directory down, one component at a time, never following a
    symlink (see :func:`~agenttools._text.make_dirs_beneath`).

    Raises:
        ProtectedPathError: With ``ws``, ``directory`` is inside git metadata.
        OSError: A directory cannot be created.
    """
    if ws is not None:
        ws.check_writable(directory)
        root = ws.root_of(directory)
        if root is not None:
            make_dirs_beneath(root, str(directory), mode=mode)
            return
    missing = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    os.makedirs(directory, exist_ok=True)
    if mode is not None:
        for created in missing:
            os.chmod(created, mode)


def _refuse_directory_syntax(path: str | os.PathLike[str], real: Path) -> None:
    """Refuse to write a file at a path ending in a separator (resolving drops it): ``EISDIR``, or ``ENOTDIR``."""
    if not os.fspath(path).endswith(("/", os.sep)):
        return
    if os.path.lexists(real) and not os.path.isdir(real):
        raise NotDirectoryError(path=str(real))
    raise IsDirectoryError(path=str(real))


def write_file(
    ws: Workspace,
    path: str | os.PathLike[str],
    content: str,
    *,
    keep_format: bool = True,
    create_parents: bool = True,
    new_file_mode: int | None = None,
    new_dir_mode: int | None = None,
    max_size: int | None = None,
) -> WriteResult:
    """Write ``content`` to a file atomically, creating it (and its parent directories) if needed.

    Overwriting keeps the file's mode, its encoding and BOM, and its line endings: when the file used CRLF and
    ``content`` has no ``\\r`` at all, each ``\\n`` is written as ``\\r\\n``. A symlink is written through to its
    (in-workspace) target. The file is never left half-written. A new file gets ``new_file_mode`` exactly (default:
    ``0o666`` less the umask), and directories created for it get ``new_dir_mode`` exactly (default: the umask's).
    An existing file keeps its owner, group, every mode bit and its extended attributes, or is refused (see
    :func:`~agenttools._text.atomic_write`).

    A path ending in ``/`` names a directory, as for the OS: it is never written as a file.

    Raises:
        IsDirectoryError, SpecialFileError, OutsideWorkspaceError, DeniedPathError, PathError: The path (a path
            ending in ``/`` that does not exist is an :class:`IsDirectoryError`, as ``open`` says ``EISDIR``).
        NotDirectoryError: The path ends in ``/`` but names a file (``ENOTDIR``).
        ProtectedPathError: The path is inside git metadata (``.git``).
        FileTooLargeError: The encoded content is larger than ``max_size`` (default: the workspace's
            ``max_file_size``); nothing is written.
        PermissionError: The file could not be written in place, or its owner or mode could not be kept.
        EncodingError: ``content`` cannot be encoded in the existing file's encoding (nothing is written).
    """
    real = ws.resolve(path, write=True)
    _refuse_directory_syntax(path, real)
    limit = ws.max_file_size if max_size is None else max_size
    if len(content) > limit:  # every encoding takes at least a byte a character: too large, whatever the file
        raise FileTooLargeError(path=str(real), size=len(content.encode("utf-8", "surrogatepass")), limit=limit)
    with path_lock(str(real)):
        return _write_locked(ws, real, content, keep_format=keep_format, create_parents=create_parents,
                             new_file_mode=new_file_mode, new_dir_mode=new_dir_mode, limit=limit)


def write_bytes(
    ws: Workspace,
    path: str | os.PathLike[str],
    data: bytes,
    *,
    create_parents: bool = True,
    new_file_mode: int | None = None,
    new_dir_mode: int | None = None,
    max_size: int | None = None,
    expect: os.stat_result | None = None,
) -> Path:
    """Write raw bytes to a file atomically, as they are, under the file's lock; return the real path written.

    The bytes-level twin of :func:`write_file`: the same checks and the same atomic write, with no encoding or
    newline conversion. A symlink is written through to its (in-workspace) target; a new file gets
    ``new_file_mode`` exactly, directories created for it ``new_dir_mode``; an existing file keeps its owner,
    group, every mode bit and its extended attributes, or is refused (see :func:`~agenttools._text.atomic_write`).
    The path's lock is taken for the write; a caller already holding it (for its own read-modify-write) may call
    this inside.

    With ``expect`` (the ``stat`` of the file as it was read), the file must still be that file, unchanged, when
    written: a write by another process since is refused rather than overwritten.

    Raises:
        IsDirectoryError, SpecialFileError, OutsideWorkspaceError, DeniedPathError, PathError: The path (one
            ending in ``/``, a directory's name, too).
        NotDirectoryError: The path ends in ``/`` but names a file.
        ProtectedPathError: The path is inside git metadata (``.git``).
        HardLinkError: The file has more than one hard link.
        FileTooLargeError: ``data`` is larger than ``max_size`` (default: the workspace's ``max_file_size``);
            nothing is written.
        StaleFileError: With ``expect``, the file changed (or went) since; nothing is written.
        PermissionError: The file could not be written in place, or its owner or mode could not be kept.
    """
    real = ws.resolve(path, write=True)
    _refuse_directory_syntax(path, real)
    text_path = str(real)
    limit = ws.max_file_size if max_size is None else max_size
    if len(data) > limit:
        raise FileTooLargeError(path=text_path, size=len(data), limit=limit)
    with path_lock(text_path):
        if create_parents:
            make_dirs(real.parent, mode=new_dir_mode, ws=ws)
        try:
            atomic_write(text_path, data, mode=new_file_mode, root=ws.root_of(text_path), expect=expect)
        except FileChangedError as exc:
            assert expect is not None  # noqa: S101 - only raised with expect
            now = None if exc.now is None else f"stat:{exc.now.st_mtime_ns}:{exc.now.st_size}"
            raise StaleFileError(path=text_path, expected=f"stat:{expect.st_mtime_ns}:{expect.st_size}",
                                 actual=now) from None
    return real


def _existing_format(ws: Workspace, text_path: str, limit: int) -> TextFormat | None:
    """The format of the file at ``text_path``, or None when there is none.

    A file over ``limit`` is sniffed from its first MiB rather than read whole.
    """
    try:
        fd, st = open_file(text_path, root=ws.root_of(text_path))
    except NotFoundError:
        return None
    try:
        complete = st.st_size <= limit
        raw = read_limited(fd, st.st_size, limit=limit, path=text_path) if complete else os.pread(
            fd, _FALLBACK_SAMPLE, 0)
    except FileTooLargeError:  # it grew while read
        raw, complete = os.pread(fd, _FALLBACK_SAMPLE, 0), False
    finally:
        os.close(fd)
    try:
        return sniff_format(raw, complete=complete, path=text_path)
    except EncodingError:
        return TextFormat(encoding="utf-8")


def _write_locked(ws: Workspace, real: Path, content: str, *, keep_format: bool, create_parents: bool,
                  new_file_mode: int | None, new_dir_mode: int | None, limit: int) -> WriteResult:
    """:func:`write_file` once the path is resolved and locked."""
    text_path = str(real)
    fmt = TextFormat(encoding="utf-8")
    created = True
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    if st is not None:
        created = False
        if keep_format or not stat.S_ISREG(st.st_mode):
            fmt = _existing_format(ws, text_path, limit) or fmt  # also refuses a directory or a special file
    if fmt.newline == "\r\n" and "\r" not in content:
        content = content.replace("\n", "\r\n")
    data = encode(content, fmt, path=text_path)
    if len(data) > limit:
        raise FileTooLargeError(path=text_path, size=len(data), limit=limit)
    if create_parents:
        make_dirs(real.parent, mode=new_dir_mode, ws=ws)
    atomic_write(text_path, data, mode=new_file_mode, root=ws.root_of(text_path))
    return WriteResult(path=real, created=created, size=len(data), format=fmt)
