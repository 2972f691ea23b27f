"""The edit family: literal text replacement that changes only the edited spans.

The replacement is literal (no regex, no ``$`` patterns). The file keeps its encoding, BOM, line endings, final
newline, tabs and mode: in a CRLF file, a ``\\n`` in ``old``/``new`` stands for the file's ``\\r\\n``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import attrs

from agenttools._display import MarkdownRepr
from agenttools._text import (
    TextFormat,
    atomic_write,
    decode,
    encode,
    file_kind,
    make_dirs_beneath,
    path_lock,
    read_checked,
)
from agenttools.errors import (
    AlreadyExistsError,
    EditError,
    FileTooLargeError,
    IsDirectoryError,
    MatchCountError,
    NoChangeError,
    NoMatchError,
    NotFoundError,
    SpecialFileError,
)
from agenttools.workspace import Workspace

__all__ = ["EditResult", "count_occurrences", "replace_lines", "replace_text"]


@attrs.frozen(kw_only=True)
class EditResult(MarkdownRepr):
    """What :func:`replace_text` did."""

    path: Path
    """The real path edited or created."""
    occurrences: int
    """How many occurrences were replaced (0 when the file was created)."""
    created: bool
    """Whether the file was created (an empty ``old`` on a missing file)."""
    lines: tuple[int, ...]
    """1-based line numbers where the replaced occurrences started, in the original file."""
    format: TextFormat
    """Encoding, BOM and newline style the file was written in."""
    before: str | None = attrs.field(default=None, repr=False)
    """The text before the edit, when asked for with ``keep_text=True`` (``""`` for a created file)."""
    after: str | None = attrs.field(default=None, repr=False)
    """The text after the edit, when asked for with ``keep_text=True``."""


def count_occurrences(text: str, needle: str) -> int:
    """Non-overlapping occurrences, left to right; an empty needle occurs 0 times."""
    return text.count(needle) if needle else 0


def _start_lines(text: str, needle: str) -> tuple[int, ...]:
    lines = []
    start = text.find(needle)
    while start != -1 and needle:
        lines.append(text.count("\n", 0, start) + 1)
        start = text.find(needle, start + len(needle))
    return tuple(lines)


def _as_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def replace_text(
    ws: Workspace,
    path: str | os.PathLike[str],
    old: str,
    new: str,
    *,
    expected: int | None = 1,
    create: bool = True,
    first_only: bool = False,
    allow_noop: bool = True,
    keep_text: bool = False,
    max_size: int | None = None,
) -> EditResult:
    """Replace every occurrence of ``old`` with ``new`` in a file, checking how many there are first.

    Args:
        ws: The workspace the path must stay inside.
        path: The file.
        old: The exact text to replace. Empty means "create the file with ``new``" (when ``create``).
        new: The replacement, inserted literally.
        expected: The number of occurrences required; None accepts any number above zero.
        create: Allow an empty ``old`` to create a missing file (parent directories included).
        first_only: Replace only the first occurrence (with ``expected=None``: any count above zero).
        allow_noop: When False, an edit that would leave the file unchanged raises :class:`NoChangeError`.
        keep_text: Return the text before and after the edit in the result (for diffs).
        max_size: The largest file this edit reads or writes (default: the workspace's ``max_file_size``); the
            size is checked on the open descriptor before anything is read.

    Raises:
        NotFoundError: The file is missing and ``old`` is not empty.
        AlreadyExistsError: ``old`` is empty and the file exists.
        NoMatchError: ``old`` does not occur.
        MatchCountError: ``old`` occurs a different number of times than ``expected``.
        FileTooLargeError: The file, or the text the edit would write, is larger than ``max_size``.
        ProtectedPathError: The path is inside git metadata (``.git``).
        PermissionError: The process could not write the file in place, or could not keep its owner, mode or
            extended attributes (see :func:`~agenttools._text.atomic_write`).
        IsDirectoryError, SpecialFileError, EncodingError, OutsideWorkspaceError, DeniedPathError: As for reads
            and writes. The file is unchanged whenever anything is raised.
    """
    real = ws.resolve(path, write=True)
    limit = ws.max_file_size if max_size is None else max_size
    with path_lock(str(real)):
        return _replace_locked(ws, real, old, new, expected=expected, create=create, first_only=first_only,
                               allow_noop=allow_noop, keep_text=keep_text, limit=limit)


def _read_for_edit(ws: Workspace, real: Path, limit: int) -> tuple[str, TextFormat]:
    """Decode a file to edit: opened without following a symlink or blocking, its size checked first."""
    text_path = str(real)
    return decode(read_checked(text_path, root=ws.root_of(text_path), max_size=limit), path=text_path)


def _write_checked(ws: Workspace, text_path: str, data: bytes, limit: int, *, mode: int | None = None) -> None:
    """Write bytes atomically unless they are over ``limit``."""
    if len(data) > limit:
        raise FileTooLargeError(path=text_path, size=len(data), limit=limit)
    atomic_write(text_path, data, mode=mode, root=ws.root_of(text_path))


def _refuse_existing(text_path: str) -> None:
    """Raise why a file cannot be created at ``text_path`` when something is there."""
    try:
        st = os.stat(text_path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        raise IsDirectoryError(path=text_path)
    special = file_kind(st.st_mode)
    if special is not None:
        raise SpecialFileError(path=text_path, kind=special)
    raise AlreadyExistsError(path=text_path)


def _replace_locked(ws: Workspace, real: Path, old: str, new: str, *, expected: int | None, create: bool,
                    first_only: bool, allow_noop: bool, keep_text: bool, limit: int) -> EditResult:
    """:func:`replace_text` once the path is resolved and locked."""
    text_path = str(real)
    if old == "":
        _refuse_existing(text_path)
        if not create:
            raise NotFoundError(path=text_path)
        fmt = TextFormat(encoding="utf-8")
        if len(new) > limit:
            raise FileTooLargeError(path=text_path, size=len(new.encode("utf-8", "surrogatepass")), limit=limit)
        data = encode(new, fmt, path=text_path)
        root = ws.root_of(text_path)
        if root is None:  # pragma: no cover - resolve() keeps paths inside an allowed directory
            real.parent.mkdir(parents=True, exist_ok=True)
        else:
            make_dirs_beneath(root, str(real.parent))
        _write_checked(ws, text_path, data, limit)
        return EditResult(path=real, occurrences=0, created=True, lines=(), format=fmt,
                          before="" if keep_text else None, after=new if keep_text else None)
    text, fmt = _read_for_edit(ws, real, limit)
    needle, replacement = old, new
    if "\r\n" in text and "\r" not in old and "\n" in old:
        crlf = _as_crlf(old)
        if count_occurrences(text, crlf) or not count_occurrences(text, old):
            needle = crlf
            replacement = new if "\r" in new else _as_crlf(new)
    if "\r" not in new and "\n" in new and "\r\n" in text and text.count("\n") == text.count("\r\n"):
        replacement = _as_crlf(new)  # an all-CRLF file stays all-CRLF whatever the edit spans
    found = count_occurrences(text, needle)
    if found == 0:
        raise NoMatchError(path=text_path)
    if expected is not None and found != expected:
        raise MatchCountError(path=text_path, expected=expected, found=found, lines=_start_lines(text, needle))
    lines = _start_lines(text, needle)
    count = 1 if first_only else found
    updated = text.replace(needle, replacement, count)
    if not allow_noop and updated == text:
        raise NoChangeError(path=text_path)
    _write_checked(ws, text_path, encode(updated, fmt, path=text_path), limit)
    return EditResult(path=real, occurrences=count, created=False, lines=lines[:count], format=fmt,
                      before=text if keep_text else None, after=updated if keep_text else None)


def replace_lines(
    ws: Workspace,
    path: str | os.PathLike[str],
    start: int,
    end: int,
    new: str,
    *,
    allow_noop: bool = True,
    max_size: int | None = None,
) -> EditResult:
    """Replace lines ``start``..``end`` (1-based, inclusive) with ``new``'s lines.

    Lines are the file split on ``\\n`` (a final newline makes a last, empty line). In a file whose every line
    ending is CRLF, ``new`` is written with CRLF too.

    Raises:
        EditError: ``end < start``, or the range is outside the file (``line range out of bounds``).
        NoChangeError: The result equals the original and ``allow_noop`` is False.
        FileTooLargeError, ProtectedPathError, PermissionError: As for :func:`replace_text`.
        NotFoundError, IsDirectoryError, EncodingError, OutsideWorkspaceError, DeniedPathError: As for reads.
    """
    real = ws.resolve(path, expect="file", write=True)
    limit = ws.max_file_size if max_size is None else max_size
    with path_lock(str(real)):
        return _replace_lines_locked(ws, real, start, end, new, allow_noop=allow_noop, limit=limit)


def _replace_lines_locked(ws: Workspace, real: Path, start: int, end: int, new: str, *, allow_noop: bool,
                          limit: int) -> EditResult:
    """:func:`replace_lines` once the path is resolved and locked."""
    text, fmt = _read_for_edit(ws, real, limit)
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    view = text.replace("\r\n", "\n") if crlf else text
    if end < start:
        raise EditError("end_line must be >= start_line", path=str(real))
    lines = view.split("\n")
    if start < 1 or start > len(lines) or end > len(lines):
        raise EditError("line range out of bounds", path=str(real))
    inserted = new.replace("\r\n", "\n") if crlf else new
    updated = "\n".join(lines[: start - 1] + inserted.split("\n") + lines[end:])
    if crlf:
        updated = updated.replace("\n", "\r\n")
    if not allow_noop and updated == text:
        raise NoChangeError(path=str(real))
    _write_checked(ws, str(real), encode(updated, fmt, path=str(real)), limit)
    return EditResult(path=real, occurrences=1, created=False, lines=(start,), format=fmt)
