"""How Node.js words an OS error, for the toolsets whose upstreams run on Node (gemini, filesystem).

Node's ``fs`` errors read ``<CODE>: <libuv's description>, <syscall> '<path>'`` (``ENOENT: no such file or
directory, open '/p'``), with `` -> '<dest>'`` after the path for the calls that take two (``rename``), and no path
at all for a ``read`` on a descriptor. The descriptions are libuv's ``uv_strerror`` table, not the C library's.
"""

from __future__ import annotations

import errno as errno_codes

__all__ = ["node_error"]

_LIBUV: dict[int, str] = {
    errno_codes.E2BIG: "argument list too long", errno_codes.EACCES: "permission denied",
    errno_codes.EAGAIN: "resource temporarily unavailable", errno_codes.EBADF: "bad file descriptor",
    errno_codes.EBUSY: "resource busy or locked", errno_codes.EEXIST: "file already exists",
    errno_codes.EFBIG: "file too large", errno_codes.EINVAL: "invalid argument", errno_codes.EIO: "i/o error",
    errno_codes.EISDIR: "illegal operation on a directory", errno_codes.ELOOP: "too many symbolic links encountered",
    errno_codes.EMFILE: "too many open files", errno_codes.EMLINK: "too many links",
    errno_codes.ENAMETOOLONG: "name too long", errno_codes.ENFILE: "file table overflow",
    errno_codes.ENODEV: "no such device", errno_codes.ENOENT: "no such file or directory",
    errno_codes.ENOMEM: "not enough memory", errno_codes.ENOSPC: "no space left on device",
    errno_codes.ENOTDIR: "not a directory", errno_codes.ENOTEMPTY: "directory not empty",
    errno_codes.ENXIO: "no such device or address", errno_codes.EPERM: "operation not permitted",
    errno_codes.EROFS: "read-only file system", errno_codes.ESPIPE: "invalid seek",
    errno_codes.ETXTBSY: "text file is busy", errno_codes.EXDEV: "cross-device link not permitted",
}


def node_error(exc: OSError, syscall: str, path: str | None = None, dest: str | None = None) -> str:
    """Node's ``fs`` error message, e.g. ``ENOENT: no such file or directory, open '/x'``.

    Args:
        exc: The OS error (its ``errno`` decides the code and the words).
        syscall: The call as Node names it (``open``, ``read``, ``scandir``, ``realpath``, ``rename``, ``mkdir``).
        path: The path the call was given; None for a call on a descriptor (``read``).
        dest: The second path of a two-path call (``rename``).
    """
    number = exc.errno or errno_codes.EIO
    code = errno_codes.errorcode.get(number, "EIO")
    words = _LIBUV.get(number, (exc.strerror or "i/o error").lower())
    text = f"{code}: {words}, {syscall}"
    if path is not None:
        text += f" '{path}'"
    if dest is not None:
        text += f" -> '{dest}'"
    return text
