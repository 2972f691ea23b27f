"""Text encodings, newline styles and atomic writes: how files are read and written back byte-faithfully.

Decoding order: a BOM decides (UTF-8, UTF-16 or UTF-32); else strict UTF-8; else charset-normalizer's best
single guess (Western cp1252 wins ties); else :class:`~agenttools.errors.EncodingError`. Nothing is ever
decoded with replacement characters, so writing the text back re-creates the same bytes.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from typing import BinaryIO, Literal

import attrs

from agenttools.errors import EncodingError

__all__ = ["TextFormat", "atomic_write", "decode", "detect_bom", "encode", "iter_decoded", "newline_style",
           "open_regular", "path_lock", "read_fd", "read_regular"]

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_FALLBACK_SAMPLE = 1 << 20  # charset-normalizer looks at most at the first MiB
Newline = Literal["\n", "\r\n", "\r"]


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

    matches = [m for m in from_bytes(sample) if m.chaos <= 0.2]
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
                            "the file was left unchanged", path=path) from None


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


_LOCKS: dict[str, tuple[threading.Lock, int]] = {}
_LOCKS_GUARD = threading.Lock()


@contextlib.contextmanager
def path_lock(path: str) -> Iterator[None]:
    """Hold the lock of one file (by real path) across a read-modify-write, so threads never lose an edit.

    Locks exist only while someone holds or waits for them. They serialise this process's threads; other
    processes are not stopped (an edit is still atomic, so a file is never corrupted, but a concurrent writer in
    another process can be overwritten).
    """
    with _LOCKS_GUARD:
        lock, users = _LOCKS.get(path, (None, 0))
        if lock is None:
            lock = threading.Lock()
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
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
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


def _fsync_dir(directory: str) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(path: str, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically: a temp file in the same directory, fsync, then ``os.replace``.

    An existing file keeps its permission bits (and owner, where we may set it); a new file gets
    ``mode`` exactly when given, else the usual ``0o666 & ~umask``. ``path`` must be the real path (symlinks
    already resolved), so a symlink is written through rather than replaced. Readers never see a half-written file.

    Raises:
        HardLinkError: ``path`` has more than one hard link (replacing it would silently break the link, and the
            other name may be outside the workspace).
    """
    directory = os.path.dirname(path) or "."
    try:
        existing: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        existing = None
    if existing is not None and existing.st_nlink > 1 and stat.S_ISREG(existing.st_mode):
        from agenttools.errors import HardLinkError

        raise HardLinkError(path=path, links=existing.st_nlink)
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".agenttools-tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None:
            os.chmod(temp, stat.S_IMODE(existing.st_mode))
            if hasattr(os, "chown"):
                with contextlib.suppress(OSError):
                    os.chown(temp, existing.st_uid, existing.st_gid)
        elif mode is not None:
            os.chmod(temp, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp, 0o666 & ~umask)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_dir(directory)
