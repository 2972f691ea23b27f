"""How a Go program words an OS error, for the toolsets whose upstreams are Go (editor, assistant, coder).

Go's ``syscall.Errno`` prints the C library's message for the error number with its first letter lowercased
(``no such file or directory``), and an ``*os.PathError`` prefixes the operation and the path
(``open /p: permission denied``). The number decides, as in Go: a message an exception carries for itself is not
what Go would print.
"""

from __future__ import annotations

import os

__all__ = ["errno_text", "path_error"]


def errno_text(exc: OSError) -> str:
    """Go's words for the error's number (``not a directory``); the exception's own text when it has none."""
    if exc.errno is None:
        return str(exc)
    reason = os.strerror(exc.errno)
    return reason[:1].lower() + reason[1:]


def path_error(op: str, path: str, exc: OSError) -> str:
    """An ``*os.PathError`` as Go prints it: ``open /abs/x: no such file or directory``."""
    return f"{op} {path}: {errno_text(exc)}"
