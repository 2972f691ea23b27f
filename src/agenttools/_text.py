"""Text encodings, newline styles and atomic writes: how files are read and written back byte-faithfully.

Decoding order: a BOM decides (UTF-8, UTF-16 or UTF-32); else strict UTF-8; else charset-normalizer's best
single guess (Western cp1252 wins ties); else :class:`~agenttools.errors.EncodingError`. Nothing is ever
decoded with replacement characters, so writing the text back re-creates the same bytes.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterator
from typing import BinaryIO, Literal

import attrs

from agenttools.errors import (
    EncodingError,
    FileTooLargeError,
    HardLinkError,
    IsDirectoryError,
    NotFoundError,
    SpecialFileError,
)

__all__ = ["FileChangedError", "TextFormat", "atomic_write", "decode", "detect_bom", "encode", "file_kind",
           "iter_decoded", "make_dirs_beneath", "newline_style", "open_dir", "open_file", "open_regular",
           "path_lock", "read_checked", "read_fd", "read_limited", "read_regular", "sniff_format"]

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_READ_FLAGS = os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC
_AT = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.rename in os.supports_dir_fd

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_FALLBACK_SAMPLE = 1 << 20  # charset-normalizer looks at most at the first MiB
Newline = Literal["\n", "\r\n", "\r"]


class FileChangedError(Exception):
    """:func:`atomic_write` with ``expect``: the file is not the one read any more (nothing was written).

    Attributes:
        now: Its ``lstat`` now, or None when it is gone.
    """

    def __init__(self, path: str, now: os.stat_result | None) -> None:
        super().__init__(f"{path} changed while it was being written")
        self.now = now


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    """Whether two stats are of one file, unchanged: inode, size, mtime and ctime (a write or chmod moves it)."""
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns, a.st_ctime_ns, a.st_mode) == \
        (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns, b.st_ctime_ns, b.st_mode)


@attrs.frozen(kw_only=True)
class TextFormat:
    """How a text file is stored: what to keep when it is written back."""

    encoding: str
    """Python codec name (``utf-8``, ``utf-16-le``, ``cp1252``, ...), without the BOM."""
    bom: bytes = b""
    """The byte-order mark the file starts with, or ``b""``."""
    newline: Newline = "\n"
    """The file's line-ending style (the most common one; ``\\n`` when it has none)."""


def detect_bom(head: bytes) -> tuple[bytes, str] | None:
    """The (BOM, codec) the bytes start with, or None."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return bom, name
    return None


def _fallback_encoding(sample: bytes, path: str) -> str:
    """charset-normalizer's guess, preferring Western cp1252 among near-equal guesses (its scores are noisy)."""
    from charset_normalizer import from_bytes

    # UTF-16/32 without a byte-order mark is never guessed: NUL-laden binary reads as "valid" UTF-16 noise.
    matches = [m for m in from_bytes(sample) if m.chaos <= 0.2 and not m.encoding.startswith(("utf_16", "utf_32"))]
    if not matches:
        raise EncodingError(f"cannot decode {path}: not UTF-8 and no legacy encoding fits", path=path)
    least_chaos = min(m.chaos for m in matches)
    calm = [m for m in matches if m.chaos <= least_chaos + 0.01]
    most_coherent = max(m.coherence for m in calm)
    close = [m for m in calm if m.coherence >= most_coherent - 0.1]  # never empty: the most coherent is in it
    for match in close:
        if "cp1252" in (match.encoding, *match.could_be_from_charset):
            return "cp1252"
    return min(close, key=lambda m: (m.chaos, -m.coherence)).encoding


def decode(raw: bytes, *, path: str = "<bytes>") -> tuple[str, TextFormat]:
    """Decode file bytes without loss; return the text and how to write it back.

    Raises:
        EncodingError: The bytes are not text in any encoding we would trust.
    """
    found = detect_bom(raw[:4])
    bom, encoding = found if found else (b"", "utf-8")
    body = raw[len(bom):]
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError:
        if found:
            raise EncodingError(f"cannot decode {path}: invalid {encoding} after its byte-order mark",
                                path=path) from None
        encoding = _fallback_encoding(body[:_FALLBACK_SAMPLE], path)
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError:
            raise EncodingError(f"cannot decode {path} as {encoding}", path=path) from None
    return text, TextFormat(encoding=encoding, bom=bom, newline=newline_style(text))


def newline_style(text: str) -> Newline:
    """The most common line ending in ``text`` (``\\r\\n``, ``\\r`` or ``\\n``; ``\\n`` when there is none)."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    if cr > lf and cr > crlf:
        return "\r"
    return "\n"


def encode(text: str, fmt: TextFormat, *, path: str = "<bytes>") -> bytes:
    """Encode ``text`` the way ``fmt`` says (BOM included); refuse rather than substitute characters.

    Raises:
        EncodingError: A character cannot be represented in the file's encoding.
    """
    try:
        return fmt.bom + text.encode(fmt.encoding)
    except UnicodeEncodeError as exc:
        bad = text[exc.start:exc.end]
        raise EncodingError(f"cannot write {path}: {bad!r} cannot be encoded as {fmt.encoding}; "
                            "the file was left unchanged", path=path, direction="encode") from None


def iter_decoded(handle: BinaryIO, encoding: str, *, chunk_size: int = 1 << 16) -> Iterator[str]:
    """Decode a binary stream incrementally in chunks (strict errors), without loading it whole."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    while chunk := handle.read(chunk_size):
        text = decoder.decode(chunk)
        if text:
            yield text
    tail = decoder.decode(b"", final=True)
    if tail:
        yield tail


_LOCKS: dict[str, tuple[threading.RLock, int]] = {}
_LOCKS_GUARD = threading.Lock()


@contextlib.contextmanager
def path_lock(path: str) -> Iterator[None]:
    """Hold the lock of one file (by real path) across a read-modify-write, so threads never lose an edit.

    Locks exist only while someone holds or waits for them. A thread holding a path's lock may take it again (a
    read-modify-write that holds it can call a family write, which takes it too). They serialise this process's
    threads; other processes are not stopped (an edit is still atomic, so a file is never corrupted, but a
    concurrent writer in another process can be overwritten).
    """
    with _LOCKS_GUARD:
        lock, users = _LOCKS.get(path, (None, 0))
        if lock is None:
            lock = threading.RLock()
        _LOCKS[path] = (lock, users + 1)
    try:
        with lock:
            yield
    finally:
        with _LOCKS_GUARD:
            lock, users = _LOCKS[path]
            if users == 1:
                del _LOCKS[path]
            else:
                _LOCKS[path] = (lock, users - 1)


def open_regular(path: str) -> tuple[int, int] | None:
    """``(descriptor, size)`` of a regular file opened for reading, or None for anything else or an error.

    Opened without blocking (a FIFO swapped in after a check cannot hang the call) and checked with ``fstat``
    on the open descriptor. The caller closes the descriptor.
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        st = None
    if st is None or not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None
    return fd, st.st_size


def read_fd(fd: int, size: int) -> bytes:
    """Read a descriptor to its end, in one call when ``size`` (its ``fstat`` size) is still right."""
    data = os.read(fd, size + 1)
    if len(data) == size:
        return data
    chunks = [data]  # a short read, or the file grew: read on to the end
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def read_regular(path: str) -> bytes | None:
    """The bytes of a regular file (see :func:`open_regular`), or None for anything else or an error."""
    opened = open_regular(path)
    if opened is None:
        return None
    fd, size = opened
    try:
        return read_fd(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def file_kind(mode: int) -> str | None:
    """Name a special file type, or None for regular files, directories and symlinks."""
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
        return None
    return "special file"


def open_dir(directory: str, *, root: str | None = None) -> int | None:
    """A descriptor of ``directory``, opened one component at a time from ``root`` without following symlinks.

    ``directory`` must be a real path (no symlinks) inside ``root``: a component that became a symlink or stopped
    being a directory after the path was resolved fails (``ELOOP`` / ``ENOTDIR``) instead of leading elsewhere, so
    the descriptor is the directory inside ``root`` or nothing. Without ``root`` the directory is opened by path.
    None where the platform has no ``*at`` calls (the callers then use paths).

    Raises:
        OSError: A component is missing, not a directory, a symlink, or cannot be opened.
    """
    if not _AT:
        return None
    if root is None:
        return os.open(directory, _DIR_FLAGS)
    rel = os.path.relpath(directory, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):  # the parent of the root itself: by path
        return os.open(directory, _DIR_FLAGS)
    fd = os.open(root, _DIR_FLAGS | _O_NOFOLLOW)
    try:
        for part in [] if rel == os.curdir else rel.split(os.sep):
            child = os.open(part, _DIR_FLAGS | _O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _at(dir_fd: int | None, directory: str, name: str) -> str:
    """The name to pass with ``dir_fd``: the bare name, or the whole path when there is no descriptor."""
    return name if dir_fd is not None else os.path.join(directory, name)


def open_file(path: str, *, root: str | None = None, max_size: int | None = None) -> tuple[int, os.stat_result]:
    """Open a regular file for reading: ``(descriptor, fstat)``; the caller closes the descriptor.

    The parent is reached with :func:`open_dir` (from ``root`` when given), the file itself is opened with
    ``O_NOFOLLOW`` (``path`` is a real path: a symlink there now was swapped in) and ``O_NONBLOCK`` (a FIFO cannot
    block the call), and what was opened is checked with ``fstat`` before a byte is read.

    Raises:
        NotFoundError: Nothing is there.
        IsDirectoryError, SpecialFileError: Not a regular file (a FIFO, socket or device is never read).
        FileTooLargeError: Larger than ``max_size``.
        OSError: The OS refused (``EACCES``, ``ELOOP`` for a symlink swapped in, ...).
    """
    directory, name = os.path.split(path)
    try:
        dir_fd = open_dir(directory or ".", root=root)
        try:
            fd = os.open(_at(dir_fd, directory, name), _READ_FLAGS | _O_NOFOLLOW, dir_fd=dir_fd)
        finally:
            if dir_fd is not None:
                os.close(dir_fd)
    except FileNotFoundError:
        raise NotFoundError(path=path) from None
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a socket cannot be opened: name what it is
            with contextlib.suppress(OSError):
                kind = file_kind(os.stat(path, follow_symlinks=False).st_mode)
                if kind is not None:
                    raise SpecialFileError(path=path, kind=kind) from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsDirectoryError(path=path)
        kind = file_kind(st.st_mode)
        if kind is not None:
            raise SpecialFileError(path=path, kind=kind)
        if max_size is not None and st.st_size > max_size:
            raise FileTooLargeError(path=path, size=st.st_size, limit=max_size)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_limited(fd: int, size: int, *, limit: int | None, path: str) -> bytes:
    """Read a descriptor to its end like :func:`read_fd`, but never more than ``limit`` bytes.

    Raises:
        FileTooLargeError: The file grew past ``limit`` while it was read.
    """
    if limit is None:
        return read_fd(fd, size)
    chunks, total = [], 0
    want = min(size, limit) + 1
    while chunk := os.read(fd, min(want, 1 << 24)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise FileTooLargeError(path=path, size=total, limit=limit)
        want = min(limit + 1 - total, 1 << 20)
    return b"".join(chunks)


def read_checked(path: str, *, root: str | None, max_size: int | None) -> bytes:
    """The bytes of a regular file, opened as :func:`open_file` does and read as :func:`read_limited` does.

    Raises:
        NotFoundError, IsDirectoryError, SpecialFileError, FileTooLargeError, OSError: As :func:`open_file`
            and :func:`read_limited` raise them.
    """
    fd, st = open_file(path, root=root, max_size=max_size)
    try:
        return read_limited(fd, st.st_size, limit=max_size, path=path)
    finally:
        os.close(fd)


def sniff_format(head: bytes, *, complete: bool, path: str = "<bytes>") -> TextFormat:
    """How a file is stored, from its bytes or (``complete=False``) only its first bytes.

    A prefix may end inside a character, which is not held against it.

    Raises:
        EncodingError: The bytes are not text in any encoding we would trust.
    """
    if complete:
        return decode(head, path=path)[1]
    found = detect_bom(head[:4])
    bom, encoding = found if found else (b"", "utf-8")
    body = head[len(bom):]
    try:
        text = codecs.getincrementaldecoder(encoding)("strict").decode(body, final=False)
    except UnicodeDecodeError:
        if found:
            raise EncodingError(f"cannot decode {path}: invalid {encoding} after its byte-order mark",
                                path=path) from None
        encoding = _fallback_encoding(body[:_FALLBACK_SAMPLE], path)
        text = body.decode(encoding, errors="ignore")
    return TextFormat(encoding=encoding, bom=bom, newline=newline_style(text))


def _make_temp(dir_fd: int | None, directory: str, name: str, perms: int = 0o600) -> tuple[str, int]:
    """Create a new temporary file (``perms`` less the umask, ``O_EXCL``, no symlink followed) next to ``name``."""
    for _ in range(100):
        temp = f".{os.fsdecode(os.fsencode(name)[:180])}.{os.urandom(4).hex()}.agenttools-tmp"  # 205 bytes at most
        try:
            fd = os.open(_at(dir_fd, directory, temp), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC,
                         perms, dir_fd=dir_fd)
        except FileExistsError:
            continue
        return temp, fd
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", os.path.join(directory, name))


_KEEPABLE_XATTR_ERRORS = frozenset({errno.EPERM, errno.EACCES, errno.ENOTSUP, errno.EOPNOTSUPP})


def _copy_xattrs(source: int, target: int, path: str) -> None:
    """Give ``target`` exactly the extended attributes of ``source`` (where the platform has them).

    ``security.*`` attributes (SELinux labels, file capabilities) the process may not set are left as the
    system makes them; any other attribute that cannot be copied refuses the write.
    """
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(source)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS):
            return
        raise
    for name in names:
        try:
            value = os.getxattr(source, name)
            with contextlib.suppress(OSError):
                if os.getxattr(target, name) == value:
                    continue
            os.setxattr(target, name, value)
        except OSError as exc:
            if name.startswith("security.") and exc.errno in _KEEPABLE_XATTR_ERRORS:
                continue
            raise OSError(exc.errno, f"{exc.strerror} (cannot keep the extended attribute {name!r})",
                          path) from None
    with contextlib.suppress(OSError):
        for name in set(os.listxattr(target)) - set(names):  # e.g. an ACL inherited from the directory
            with contextlib.suppress(OSError):
                os.removexattr(target, name)


def _keep_metadata(source: int, target: int, st: os.stat_result, path: str) -> None:
    """Give the new file the old one's owner, group, extended attributes and every mode bit, or refuse.

    Owner first (``chown`` clears setuid/setgid and file capabilities), mode last. When the owner or group
    cannot be kept (a user who is not root replacing another user's file), the OS's ``EPERM`` refuses the write.
    """
    current = os.fstat(target)
    if (current.st_uid, current.st_gid) != (st.st_uid, st.st_gid) and hasattr(os, "fchown"):
        try:
            os.fchown(target, st.st_uid, st.st_gid)
        except PermissionError as exc:
            raise PermissionError(exc.errno, f"{exc.strerror} (cannot keep owner {st.st_uid}:{st.st_gid})",
                                  path) from None
    _copy_xattrs(source, target, path)
    wanted = stat.S_IMODE(st.st_mode)
    os.fchmod(target, wanted)
    if stat.S_IMODE(os.fstat(target).st_mode) != wanted:
        raise PermissionError(errno.EPERM, f"{os.strerror(errno.EPERM)} (cannot keep mode {wanted:o})", path)


def _fsync_dir(dir_fd: int | None, directory: str) -> None:
    with contextlib.suppress(OSError):
        if dir_fd is not None:
            os.fsync(dir_fd)
            return
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: str, data: bytes, *, mode: int | None = None, root: str | None = None,
                 expect: os.stat_result | None = None) -> None:
    """Write ``data`` to ``path`` atomically: a temp file in the same directory, fsync, then ``os.replace``.

    An existing file keeps every mode bit (setuid, setgid and sticky included), its owner and group, and its
    extended attributes; a file the process could not write in place (read-only, owned by another user, immutable)
    is refused with the OS's own error rather than replaced. A new file gets ``mode`` exactly when given, else the
    usual ``0o666 & ~umask``. ``path`` must be the real path (symlinks already resolved): a symlink found there is
    refused (``ELOOP``), never written through or replaced. With ``root`` (the allowed directory ``path`` is in),
    the directory is reached from ``root`` one component at a time without following symlinks, and every step
    after that uses its descriptor, so a directory swapped for a symlink cannot redirect the write. Readers never
    see a half-written file.

    With ``expect`` (the ``fstat`` of the file as it was read for a read-modify-write), the file must still be
    that file, unchanged (inode, size, mtime, ctime, mode), when the write starts and again just before the
    rename: a write by another process in between is not lost but refused with :class:`FileChangedError`.
    (The rename itself cannot be made conditional: a write landing in the microseconds between the last check
    and the rename is still replaced.)

    Raises:
        HardLinkError: ``path`` has more than one hard link (replacing it would silently break the link, and the
            other name may be outside the workspace).
        IsDirectoryError, SpecialFileError: ``path`` is not a regular file.
        PermissionError: The file could not be written in place, or its owner, group, mode or extended
            attributes could not be kept (nothing is written).
        FileChangedError: The file is not ``expect`` any more.
        OSError: Anything else the OS refused; the old file is unchanged and no temporary file is left.
    """
    directory, name = os.path.split(path)
    directory = directory or "."
    dir_fd = open_dir(directory, root=root)
    try:
        _write_at(dir_fd, directory, name, path, data, mode, expect)
    finally:
        if dir_fd is not None:
            os.close(dir_fd)


def _check_unchanged(target: str, dir_fd: int | None, path: str, expect: os.stat_result | None) -> None:
    if expect is None:
        return
    try:
        now: os.stat_result | None = os.stat(target, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        now = None
    if now is None or not _same_file(now, expect):
        raise FileChangedError(path, now)


def _write_at(dir_fd: int | None, directory: str, name: str, path: str, data: bytes, mode: int | None,
              expect: os.stat_result | None = None) -> None:
    """:func:`atomic_write` once the directory is open."""
    target = _at(dir_fd, directory, name)
    try:
        existing: os.stat_result | None = os.stat(target, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        existing = None
    if expect is not None and (existing is None or not _same_file(existing, expect)):
        raise FileChangedError(path, existing)
    probe = None
    if existing is not None:
        if stat.S_ISLNK(existing.st_mode):
            raise OSError(errno.ELOOP,
                          "is a symbolic link: not written through (it may have replaced the file after a check)", path)
        if stat.S_ISDIR(existing.st_mode):
            raise IsDirectoryError(path=path)
        kind = file_kind(existing.st_mode)
        if kind is not None:
            raise SpecialFileError(path=path, kind=kind)
        if existing.st_nlink > 1:
            raise HardLinkError(path=path, links=existing.st_nlink)
        # Could this process write the file in place? Ask the OS (permissions, ACLs, immutable, read-only mounts).
        probe = os.open(target, os.O_WRONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC, dir_fd=dir_fd)
    try:
        if probe is not None and existing is not None:
            now = os.fstat(probe)
            if (now.st_dev, now.st_ino) != (existing.st_dev, existing.st_ino) or not stat.S_ISREG(now.st_mode):
                raise OSError(errno.EAGAIN, "the file changed while it was being written", path)
        # A new file without a mode is created 0666 and the kernel applies the umask (or the directory's default
        # ACL), as for any new file; asking for the umask would mean setting it, which is process-wide.
        temp, fd = _make_temp(dir_fd, directory, name, 0o666 if existing is None and mode is None else 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if probe is not None and existing is not None:
                    _keep_metadata(probe, handle.fileno(), existing, path)
                elif mode is not None:
                    os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            _check_unchanged(target, dir_fd, path, expect)  # as late as can be: the temp file is ready
            os.replace(_at(dir_fd, directory, temp), target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(_at(dir_fd, directory, temp), dir_fd=dir_fd)
            raise
    finally:
        if probe is not None:
            os.close(probe)
    _fsync_dir(dir_fd, directory)


def make_dirs_beneath(root: str, directory: str, *, mode: int | None = None) -> None:
    """``mkdir -p`` of a real path inside ``root``, one component at a time, never following a symlink.

    Each directory created gets ``mode`` exactly when given (else ``0o777`` less the umask).

    Raises:
        OSError: A component is a symlink (``ELOOP``), a file (``ENOTDIR``), or cannot be created.
    """
    rel = os.path.relpath(directory, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        raise ValueError(f"{directory} is not inside {root}")
    if not _AT or rel == os.curdir:
        os.makedirs(directory, exist_ok=True)
        return
    fd = os.open(root, _DIR_FLAGS | _O_NOFOLLOW)
    try:
        for part in rel.split(os.sep):
            created = False
            try:
                child = os.open(part, _DIR_FLAGS | _O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                    created = True
                child = os.open(part, _DIR_FLAGS | _O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = child
            if created and mode is not None:
                os.fchmod(fd, mode)
    finally:
        os.close(fd)
