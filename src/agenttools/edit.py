"""The edit family: literal text replacement that changes only the edited spans.

The replacement is literal (no regex, no ``$`` patterns). The file keeps its encoding, BOM, line endings, final
newline, tabs and mode: in a CRLF file, a ``\\n`` in ``old``/``new`` stands for the file's ``\\r\\n`` (in an all-CR
file, for its ``\\r``).

Every edit also takes:

- ``dry_run=True``: nothing is written; the result carries the unified diff (``result.diff``) the edit would apply.
- ``expect_version=``: the :class:`FileVersion` (or its token) of the file as the model read it, from
  :func:`read_for_edit` or :func:`file_version`; the edit is refused with :class:`StaleFileError` if the file
  changed since.
- ``tolerant=True`` (or a list of strategy names): when the text to replace does not occur exactly, try the
  strategies of :mod:`agenttools._tolerant` in order (line endings, Unicode quotes, trailing whitespace,
  indentation, whitespace); the result's ``strategy`` says which one matched, and several matches under a
  strategy are refused like several exact ones.

:func:`replace_many` applies several replacements to one file at once, all or none, each located in the original
text; :func:`write_text` is a whole-file write with the same dry run and guard; :func:`edit_cell`,
:func:`insert_cell` and :func:`delete_cell` change one cell of a Jupyter notebook and nothing else of its bytes.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import attrs

from agenttools._diff import diff_hunks, unified_diff
from agenttools._display import MarkdownRepr
from agenttools._lazy import lazy_module
from agenttools._text import (
    FileChangedError,
    TextFormat,
    atomic_write,
    decode,
    encode,
    file_kind,
    make_dirs_beneath,
    newline_style,
    open_file,
    path_lock,
    read_limited,
    sniff_format,
)
from agenttools.errors import (
    AlreadyExistsError,
    EditError,
    EncodingError,
    FileTooLargeError,
    IsDirectoryError,
    MatchCountError,
    NoChangeError,
    NoMatchError,
    NotFoundError,
    OverlappingEditsError,
    SpecialFileError,
    StaleFileError,
)
from agenttools.workspace import Workspace

__all__ = [
    "STRATEGIES",
    "AppliedEdit",
    "Edit",
    "EditResult",
    "FileVersion",
    "VersionedText",
    "count_occurrences",
    "delete_cell",
    "diff_hunks",
    "edit_cell",
    "file_version",
    "insert_cell",
    "read_for_edit",
    "replace_lines",
    "replace_many",
    "replace_text",
    "unified_diff",
    "write_text",
]

if TYPE_CHECKING:
    import hashlib

    from agenttools import _notebook, _tolerant, files
    from agenttools._tolerant import STRATEGIES
else:  # loaded by the first version taken, tolerant match, notebook edit or whole-file write, not by every start-up
    files = lazy_module("agenttools.files")
    hashlib = lazy_module("hashlib")
    _notebook = lazy_module("agenttools._notebook")
    _tolerant = lazy_module("agenttools._tolerant")

_T = TypeVar("_T")


def __getattr__(name: str) -> Any:
    """``STRATEGIES``: the tolerant matching strategies, least tolerant first (``exact`` is always tried before)."""
    if name == "STRATEGIES":
        return _tolerant.STRATEGIES
    raise AttributeError(f"module 'agenttools.edit' has no attribute {name!r}")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@attrs.frozen(kw_only=True)
class FileVersion:
    """Which version of a file a model read: the SHA-256 of its bytes, and its mtime and size.

    A check compares the hash when there is one, else mtime and size (cheaper, and blind to a same-size change
    within the file system's timestamp resolution). ``str(version)`` is its token: ``sha256:<hex>`` when it has a
    hash, else ``stat:<mtime_ns>:<size>``; :meth:`parse` reads either back.
    """

    sha256: str | None = None
    """Hex SHA-256 of the file's bytes."""
    mtime_ns: int | None = None
    """Modification time in nanoseconds."""
    size: int | None = None
    """Size in bytes."""

    def __attrs_post_init__(self) -> None:
        if self.sha256 is None and (self.mtime_ns is None or self.size is None):
            raise ValueError("a FileVersion needs a sha256, or both mtime_ns and size")

    @classmethod
    def of(cls, data: bytes, st: os.stat_result | None = None) -> FileVersion:
        """The version of a file holding ``data`` (with mtime and size from ``st`` when given)."""
        return cls(sha256=_sha256(data), mtime_ns=None if st is None else st.st_mtime_ns,
                   size=len(data))

    @classmethod
    def parse(cls, token: str | FileVersion) -> FileVersion:
        """A version from its token: ``sha256:<hex>``, a bare 64-digit hex hash, or ``stat:<mtime_ns>:<size>``.

        Raises:
            TypeError: Neither a string nor a :class:`FileVersion`.
            ValueError: Not a version token.
        """
        if isinstance(token, FileVersion):
            return token
        if not isinstance(token, str):
            raise TypeError(f"a file version is a FileVersion or its token string, not {type(token).__name__}")
        text = token.strip()
        digest = text.lower().removeprefix("sha256:")
        if len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
            return cls(sha256=digest)
        parts = text.lower().split(":")
        if len(parts) == 3 and parts[0] == "stat" and all(p.isascii() and p.isdigit() for p in parts[1:]):
            return cls(mtime_ns=int(parts[1]), size=int(parts[2]))
        raise ValueError(f"not a file version: {token!r} (expected sha256:<64 hex digits> or "
                         "stat:<mtime_ns>:<size>)")

    @property
    def token(self) -> str:
        """``sha256:<hex>``, or ``stat:<mtime_ns>:<size>`` for a version without a hash."""
        if self.sha256 is not None:
            return f"sha256:{self.sha256}"
        return f"stat:{self.mtime_ns}:{self.size}"

    @property
    def stat_token(self) -> str | None:
        """``stat:<mtime_ns>:<size>`` when the mtime is known."""
        return None if self.mtime_ns is None or self.size is None else f"stat:{self.mtime_ns}:{self.size}"

    def __str__(self) -> str:
        return self.token

    def check(self, path: str, data: bytes | None, st: os.stat_result | None) -> None:
        """Refuse a file whose bytes (``data``, None when missing) are not this version.

        Raises:
            StaleFileError: The file is missing, or its hash (or, without one, its mtime or size) differs.
        """
        if data is None or st is None:
            raise StaleFileError(path=path, expected=self.token, actual=None)
        if self.sha256 is not None:
            digest = _sha256(data)
            if digest != self.sha256:
                raise StaleFileError(path=path, expected=self.token, actual=f"sha256:{digest}")
        elif (st.st_mtime_ns, len(data)) != (self.mtime_ns, self.size):
            raise StaleFileError(path=path, expected=self.token, actual=f"stat:{st.st_mtime_ns}:{len(data)}")


@attrs.frozen(kw_only=True)
class Edit:
    """One replacement of a multi-edit (:func:`replace_many`)."""

    old: str
    """The text to replace (not empty)."""
    new: str
    """Its replacement, inserted literally."""
    expected: int | None = 1
    """The number of occurrences required (None: any number above zero; all are replaced)."""

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.old, str) or not isinstance(self.new, str):
            raise TypeError(f"an edit's old and new texts must be strings, not {type(self.old).__name__} and "
                            f"{type(self.new).__name__}")
        if self.expected is not None and (isinstance(self.expected, bool) or not isinstance(self.expected, int)):
            raise TypeError(f"an edit's expected count must be an integer or None, not {self.expected!r}")
        if self.expected is not None and self.expected < 1:
            raise ValueError(f"an edit's expected count must be at least 1, not {self.expected}")

    @classmethod
    def coerce(cls, value: Edit | Mapping[str, Any] | Sequence[str]) -> Edit:
        """An :class:`Edit` from itself, ``(old, new)``, or a mapping.

        A mapping has ``old``/``new`` (or ``oldText``/``newText``, ``old_string``/``new_string``,
        ``old_str``/``new_str``; both are required: a missing new text is not taken as a deletion) and an optional
        ``expected`` or ``replace_all``.

        Raises:
            TypeError: Anything else, a mapping without both texts, or an ``expected`` that is not an integer.
            ValueError: An ``expected`` below 1.
        """
        if isinstance(value, Edit):
            return value
        if isinstance(value, Mapping):
            old = next((value[k] for k in ("old", "oldText", "old_string", "old_str") if k in value), None)
            new = next((value[k] for k in ("new", "newText", "new_string", "new_str") if k in value), None)
            expected = value.get("expected", None if value.get("replace_all") else 1)
            if isinstance(old, str) and new is None:
                raise TypeError(f"edit {value!r} has no new text (give new, newText, new_string or new_str; "
                                "an empty string deletes)")
            if isinstance(old, str) and isinstance(new, str):
                return cls(old=old, new=new, expected=expected)
        elif isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2 and \
                all(isinstance(v, str) for v in value):
            return cls(old=value[0], new=value[1])
        raise TypeError(f"not an edit: {value!r} (give Edit(old=..., new=...), (old, new) or a mapping)")


@attrs.frozen(kw_only=True)
class AppliedEdit:
    """What one edit of an edit call matched."""

    occurrences: int
    """How many occurrences it replaced."""
    lines: tuple[int, ...]
    """The 1-based line (in the original file) where each replaced occurrence started."""
    strategy: str = "exact"
    """How it matched: ``exact``, or the tolerant strategy that found it (see :data:`STRATEGIES`)."""


@attrs.frozen(kw_only=True)
class EditResult(MarkdownRepr):
    """What an edit did (or, with ``dry_run``, would do)."""

    path: Path
    """The real path edited or created."""
    occurrences: int
    """How many occurrences were replaced (0 when the file was created or written whole)."""
    created: bool
    """Whether the file was created (an empty ``old`` on a missing file, or a write)."""
    lines: tuple[int, ...]
    """1-based line numbers where the replaced occurrences started, in the original file."""
    format: TextFormat
    """Encoding, BOM and newline style the file was written in."""
    before: str | None = attrs.field(default=None, repr=False)
    """The text before the edit, when asked for with ``keep_text=True`` (``""`` for a created file)."""
    after: str | None = attrs.field(default=None, repr=False)
    """The text after the edit, when asked for with ``keep_text=True``."""
    strategy: str = "exact"
    """How the text to replace was found: ``exact`` or a tolerant strategy (for a multi-edit, the most tolerant
    one any edit needed; see ``edits``)."""
    edits: tuple[AppliedEdit, ...] = ()
    """Per edit, in the order given: occurrences, lines and strategy."""
    dry_run: bool = False
    """True when nothing was written."""
    diff: str | None = attrs.field(default=None, repr=False)
    """The unified diff (``--- a/rel``, ``+++ b/rel``, relative to the workspace root) of the change, with
    ``dry_run`` or ``show_diff`` (``""`` when nothing changes)."""
    version: FileVersion | None = None
    """The file's version as it now is on disk (after the write; before it, for a dry run): pass it as
    ``expect_version`` to the next edit."""


def count_occurrences(text: str, needle: str) -> int:
    """Non-overlapping occurrences, left to right; an empty needle occurs 0 times."""
    return text.count(needle) if needle else 0


@attrs.frozen(kw_only=True)
class VersionedText(MarkdownRepr):
    """A text file as :func:`read_for_edit` read it, with the version to hand back to an edit."""

    path: Path
    """The real path read."""
    text: str = attrs.field(repr=False)
    """The decoded text, line endings as in the file."""
    format: TextFormat
    """How the file is stored."""
    version: FileVersion
    """The version of the bytes read."""


def _open_for_edit(ws: Workspace, real: Path, limit: int, *,
                   missing_ok: bool = False) -> tuple[bytes, os.stat_result] | None:
    """The bytes and ``fstat`` of a file to edit, read from one descriptor (None when missing and ``missing_ok``)."""
    text_path = str(real)
    try:
        fd, st = open_file(text_path, root=ws.root_of(text_path), max_size=limit)
    except NotFoundError:
        if missing_ok:
            return None
        raise
    try:
        return read_limited(fd, st.st_size, limit=limit, path=text_path), st
    finally:
        os.close(fd)


def read_for_edit(ws: Workspace, path: str | os.PathLike[str], *, max_size: int | None = None) -> VersionedText:
    """Read a text file whole, with the :class:`FileVersion` of the very bytes read.

    Raises:
        NotFoundError, IsDirectoryError, SpecialFileError, FileTooLargeError, EncodingError, OutsideWorkspaceError,
            DeniedPathError: As for reads.
    """
    real = ws.resolve(path, expect="file")
    opened = _open_for_edit(ws, real, ws.max_file_size if max_size is None else max_size)
    assert opened is not None  # noqa: S101 - not missing_ok
    data, st = opened
    text, fmt = decode(data, path=str(real))
    return VersionedText(path=real, text=text, format=fmt, version=FileVersion.of(data, st))


def file_version(ws: Workspace, path: str | os.PathLike[str], *, max_size: int | None = None) -> FileVersion:
    """The version (SHA-256, mtime, size) of a file as it is now; any file, text or not.

    Raises:
        NotFoundError, IsDirectoryError, SpecialFileError, FileTooLargeError, OutsideWorkspaceError,
            DeniedPathError: As for reads.
    """
    real = ws.resolve(path, expect="file")
    opened = _open_for_edit(ws, real, ws.max_file_size if max_size is None else max_size)
    assert opened is not None  # noqa: S101 - not missing_ok
    return FileVersion.of(*opened)


def _diff_for(ws: Workspace, real: Path, before: str | None, after: str | None, fmt: TextFormat) -> str:
    """The diff of an edit; a UTF-8 byte-order mark is part of the first line, as ``patch`` sees it."""
    bom = "\ufeff" if fmt.bom == codecs.BOM_UTF8 else ""
    return unified_diff(None if before is None else bom + before, None if after is None else bom + after,
                        ws.relative(real))


def _line_numbers(text: str, starts: Iterable[int]) -> tuple[int, ...]:
    """The 1-based line of each position of ``starts`` (ascending), counted in one pass over ``text``."""
    lines, line, pos = [], 1, 0
    newline = "\r" if "\n" not in text else "\n"  # lines of an all-CR file end with \r
    for start in starts:
        line += text.count(newline, pos, start)
        pos = start
        lines.append(line)
    return tuple(lines)


def _starts(text: str, needle: str) -> Iterator[int]:
    """Where each non-overlapping occurrence of ``needle`` starts, left to right."""
    start = text.find(needle) if needle else -1
    while start != -1:
        yield start
        start = text.find(needle, start + len(needle))


def _as_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


@attrs.frozen(kw_only=True)
class _Span:
    start: int
    end: int
    replacement: str
    edit: int


def _locate(text: str, old: str, new: str, *, path: str, expected: int | None, first_only: bool,
            strategies: tuple[str, ...], edit: int | None) -> tuple[list[_Span], AppliedEdit]:
    """Where ``old`` occurs in ``text`` (exactly, else by the first strategy that finds it), and what replaces it.

    Raises:
        NoMatchError: No strategy finds it.
        MatchCountError: The first strategy that finds it finds a different number than ``expected``.
    """
    needle, replacement = old, new
    if "\r\n" in text and "\r" not in old and "\n" in old:
        crlf = _as_crlf(old)
        if count_occurrences(text, crlf) or not count_occurrences(text, old):
            needle = crlf
            replacement = new if "\r" in new else _as_crlf(new)
    if "\r" not in new and "\n" in new and "\r\n" in text and text.count("\n") == text.count("\r\n"):
        replacement = _as_crlf(new)  # an all-CRLF file stays all-CRLF whatever the edit spans
    if "\r" in text and "\n" not in text:  # an all-CR file (classic Mac OS): there a \n stands for \r
        if "\n" in old and "\r" not in old:
            needle = old.replace("\n", "\r")
        if "\n" in new and "\r" not in new:
            replacement = new.replace("\n", "\r")
    found = count_occurrences(text, needle)
    index = 0 if edit is None else edit
    if found:
        starts = list(_starts(text, needle))
        lines = _line_numbers(text, starts)
        if expected is not None and found != expected:
            raise MatchCountError(path=path, expected=expected, found=found, lines=lines, edit=edit)
        spans = [_Span(start=at, end=at + len(needle), replacement=replacement, edit=index)
                 for at in starts[: 1 if first_only else found]]
        return spans, AppliedEdit(occurrences=len(spans), lines=lines[: len(spans)])
    newline = newline_style(text)
    for strategy in strategies:
        matches = _tolerant.find(text, old, new, strategy, newline=newline)
        if not matches:
            continue
        lines = _line_numbers(text, (m.start for m in matches))
        if expected is not None and len(matches) != expected:
            raise MatchCountError(path=path, expected=expected, found=len(matches), lines=lines, edit=edit,
                                  strategy=strategy)
        if first_only:
            matches = matches[:1]
        spans = [_Span(start=m.start, end=m.end, replacement=m.replacement, edit=index) for m in matches]
        return spans, AppliedEdit(occurrences=len(spans), lines=lines[: len(spans)], strategy=strategy)
    raise NoMatchError(path=path, edit=edit)


def _apply(text: str, spans: list[_Span], *, path: str) -> str:
    """``text`` with every span replaced; spans are refused when two overlap."""
    spans = sorted(spans, key=lambda s: (s.start, s.end))
    out, pos, previous = [], 0, None
    for span in spans:
        if previous is not None and span.start < previous.end:
            first, second = sorted((previous.edit, span.edit))
            raise OverlappingEditsError(path=path, first=first, second=second,
                                        line=text.count("\n", 0, span.start) + 1)
        out.append(text[pos:span.start])
        out.append(span.replacement)
        pos, previous = span.end, span
    out.append(text[pos:])
    return "".join(out)


def _strategies(tolerant: bool | Iterable[str]) -> tuple[str, ...]:
    try:
        return _tolerant.strategy_names(tolerant)
    except ValueError as exc:
        raise ValueError(str(exc)) from None


def _most_tolerant(applied: Iterable[AppliedEdit]) -> str:
    order = ("exact", *_tolerant.STRATEGIES)
    return max((a.strategy for a in applied), key=order.index, default="exact")


@attrs.frozen(kw_only=True)
class _Change:
    """The outcome of a read-modify-write: the texts, the format, the version on disk, the diff."""

    before: str
    after: str
    format: TextFormat
    version: FileVersion
    diff: str | None


def _modify(ws: Workspace, real: Path, limit: int, compute: Callable[[str], tuple[str, _T]], *,
            expect_version: FileVersion | str | None, dry_run: bool, show_diff: bool,
            allow_noop: bool = True) -> tuple[_Change, _T]:
    """Read the file, check its version, compute the new text, and write it (unless a dry run), under its lock.

    The file is unchanged whenever anything is raised.
    """
    expected = None if expect_version is None else FileVersion.parse(expect_version)
    text_path = str(real)
    with path_lock(text_path):
        opened = _open_for_edit(ws, real, limit, missing_ok=expected is not None)
        if expected is not None:
            expected.check(text_path, *(opened or (None, None)))
        assert opened is not None  # noqa: S101 - a missing file raised above
        data, st = opened
        text, fmt = decode(data, path=text_path)
        updated, info = compute(text)
        if not allow_noop and updated == text:
            raise NoChangeError(path=text_path)
        encoded = encode(updated, fmt, path=text_path)
        if len(encoded) > limit:
            raise FileTooLargeError(path=text_path, size=len(encoded), limit=limit)
        if dry_run:
            version = FileVersion.of(data, st)
        else:
            _write_unchanged(ws, text_path, encoded, data, st, expected)
            version = _version_now(text_path, encoded)
        diff = _diff_for(ws, real, text, updated, fmt) if dry_run or show_diff else None
        return _Change(before=text, after=updated, format=fmt, version=version, diff=diff), info


def _write_unchanged(ws: Workspace, text_path: str, encoded: bytes, read: bytes, st: os.stat_result,
                     expected: FileVersion | None) -> None:
    """Write ``encoded`` over the file read as ``read`` (``st``), unless another process changed it since.

    The lock serialises this process's edits; a write by anyone else between the read and the rename is caught
    by :func:`atomic_write`'s ``expect`` and refused rather than overwritten.

    Raises:
        StaleFileError: The file changed (or went) after it was read.
    """
    try:
        atomic_write(text_path, encoded, root=ws.root_of(text_path), expect=st)
    except FileChangedError as exc:
        token = (expected or FileVersion.of(read, st)).token
        now = None if exc.now is None else f"stat:{exc.now.st_mtime_ns}:{exc.now.st_size}"
        raise StaleFileError(path=text_path, expected=token, actual=now) from None


def _version_now(text_path: str, data: bytes) -> FileVersion:
    """The version of bytes just written (mtime from the file, when it still holds them)."""
    try:
        st = os.stat(text_path)
    except OSError:
        return FileVersion.of(data)
    return FileVersion.of(data, st if st.st_size == len(data) else None)


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
    dry_run: bool = False,
    show_diff: bool = False,
    expect_version: FileVersion | str | None = None,
    tolerant: bool | Iterable[str] = False,
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
        dry_run: Check and compute the edit, write nothing, and return its unified diff in ``diff``.
        show_diff: Return the diff of a real edit too.
        expect_version: The version the edit is based on (a :class:`FileVersion` or its token); a file that
            changed since is refused with :class:`StaleFileError`.
        tolerant: When ``old`` does not occur exactly, try these matching strategies in order (``True``: all of
            :data:`STRATEGIES`); ``result.strategy`` names the one that matched.

    Raises:
        NotFoundError: The file is missing and ``old`` is not empty.
        AlreadyExistsError: ``old`` is empty and the file exists.
        NoMatchError: ``old`` does not occur (under any strategy asked for).
        MatchCountError: ``old`` occurs a different number of times than ``expected`` (exactly, or under the
            first strategy that finds it).
        StaleFileError: The file is not the version ``expect_version`` names.
        FileTooLargeError: The file, or the text the edit would write, is larger than ``max_size``.
        ProtectedPathError: The path is inside git metadata (``.git``).
        PermissionError: The process could not write the file in place, or could not keep its owner, mode or
            extended attributes (see :func:`~agenttools._text.atomic_write`).
        ValueError: An unknown strategy name in ``tolerant``.
        IsDirectoryError, SpecialFileError, EncodingError, OutsideWorkspaceError, DeniedPathError: As for reads
            and writes. The file is unchanged whenever anything is raised.
    """
    strategies = _strategies(tolerant)
    real = ws.resolve(path, write=True)
    limit = ws.max_file_size if max_size is None else max_size
    if old == "":
        with path_lock(str(real)):
            return _create_locked(ws, real, new, create=create, keep_text=keep_text, limit=limit,
                                  dry_run=dry_run, show_diff=show_diff, expect_version=expect_version)
    text_path = str(real)

    def compute(text: str) -> tuple[str, AppliedEdit]:
        spans, applied = _locate(text, old, new, path=text_path, expected=expected, first_only=first_only,
                                 strategies=strategies, edit=None)
        return _apply(text, spans, path=text_path), applied

    change, applied = _modify(ws, real, limit, compute, expect_version=expect_version, dry_run=dry_run,
                              show_diff=show_diff, allow_noop=allow_noop)
    return EditResult(path=real, occurrences=applied.occurrences, created=False, lines=applied.lines,
                      format=change.format, before=change.before if keep_text else None,
                      after=change.after if keep_text else None, strategy=applied.strategy, edits=(applied,),
                      dry_run=dry_run, diff=change.diff, version=change.version)


def replace_many(
    ws: Workspace,
    path: str | os.PathLike[str],
    edits: Iterable[Edit | Mapping[str, Any] | Sequence[str]],
    *,
    allow_noop: bool = True,
    keep_text: bool = False,
    max_size: int | None = None,
    dry_run: bool = False,
    show_diff: bool = False,
    expect_version: FileVersion | str | None = None,
    tolerant: bool | Iterable[str] = False,
) -> EditResult:
    """Apply several replacements to one file, all or none.

    Every edit is located in the original text (an edit never sees another's result), with its own ``expected``
    count; then all are applied at once. Edits whose matched spans overlap are refused
    (:class:`OverlappingEditsError`), as is an edit that fails on its own (its ``edit`` attribute is its index);
    the file is then unchanged. Spans that merely touch are fine.

    Args:
        ws: The workspace the path must stay inside.
        path: The file (it must exist).
        edits: :class:`Edit` objects, ``(old, new)`` pairs or mappings (see :meth:`Edit.coerce`); at least one.
        allow_noop: As for :func:`replace_text`.
        keep_text: As for :func:`replace_text`.
        max_size: As for :func:`replace_text`.
        dry_run: As for :func:`replace_text`.
        show_diff: As for :func:`replace_text`.
        expect_version: As for :func:`replace_text`.
        tolerant: As for :func:`replace_text` (each edit tries the strategies on its own).

    Raises:
        EditError: No edits, or an edit with an empty ``old``.
        OverlappingEditsError: Two edits (or two occurrences of one) overlap.
        NoMatchError, MatchCountError, StaleFileError, NotFoundError, FileTooLargeError, ...: As for
            :func:`replace_text`, for the first edit that fails.
    """
    strategies = _strategies(tolerant)
    items = [Edit.coerce(e) for e in edits]
    real = ws.resolve(path, write=True)
    text_path = str(real)
    if not items:
        raise EditError("no edits given", path=text_path)
    for i, item in enumerate(items):
        if item.old == "":
            raise EditError(f"edit {i}: the text to replace is empty", path=text_path)
    limit = ws.max_file_size if max_size is None else max_size

    def compute(text: str) -> tuple[str, tuple[AppliedEdit, ...]]:
        spans: list[_Span] = []
        applied = []
        for i, item in enumerate(items):
            found, info = _locate(text, item.old, item.new, path=text_path, expected=item.expected,
                                  first_only=False, strategies=strategies, edit=i)
            spans += found
            applied.append(info)
        return _apply(text, spans, path=text_path), tuple(applied)

    change, applied = _modify(ws, real, limit, compute, expect_version=expect_version, dry_run=dry_run,
                              show_diff=show_diff, allow_noop=allow_noop)
    return EditResult(path=real, occurrences=sum(a.occurrences for a in applied), created=False,
                      lines=tuple(sorted(line for a in applied for line in a.lines)), format=change.format,
                      before=change.before if keep_text else None, after=change.after if keep_text else None,
                      strategy=_most_tolerant(applied), edits=applied, dry_run=dry_run, diff=change.diff,
                      version=change.version)


def _read_for_edit(ws: Workspace, real: Path, limit: int) -> tuple[str, TextFormat]:
    """Decode a file to edit: opened without following a symlink or blocking, its size checked first."""
    opened = _open_for_edit(ws, real, limit)
    assert opened is not None  # noqa: S101 - not missing_ok
    return decode(opened[0], path=str(real))


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


def _make_parents(ws: Workspace, real: Path) -> None:
    root = ws.root_of(str(real))
    if root is None:  # pragma: no cover - resolve() keeps paths inside an allowed directory
        real.parent.mkdir(parents=True, exist_ok=True)
    else:
        make_dirs_beneath(root, str(real.parent))


def _create_locked(ws: Workspace, real: Path, new: str, *, create: bool, keep_text: bool, limit: int,
                   dry_run: bool, show_diff: bool, expect_version: FileVersion | str | None) -> EditResult:
    """:func:`replace_text` with an empty ``old``: create the file, once the path is resolved and locked."""
    text_path = str(real)
    if expect_version is not None and not os.path.lexists(text_path):  # the version read is gone
        raise StaleFileError(path=text_path, expected=FileVersion.parse(expect_version).token, actual=None)
    _refuse_existing(text_path)
    if not create:
        raise NotFoundError(path=text_path)
    fmt = TextFormat(encoding="utf-8")
    if len(new) > limit:
        raise FileTooLargeError(path=text_path, size=len(new.encode("utf-8", "surrogatepass")), limit=limit)
    data = encode(new, fmt, path=text_path)
    if len(data) > limit:
        raise FileTooLargeError(path=text_path, size=len(data), limit=limit)
    if not dry_run:
        _make_parents(ws, real)
        _write_checked(ws, text_path, data, limit)
    diff = _diff_for(ws, real, None, new, fmt) if dry_run or show_diff else None
    return EditResult(path=real, occurrences=0, created=True, lines=(), format=fmt,
                      before="" if keep_text else None, after=new if keep_text else None, dry_run=dry_run,
                      diff=diff, version=None if dry_run else _version_now(text_path, data))


def write_text(
    ws: Workspace,
    path: str | os.PathLike[str],
    content: str,
    *,
    dry_run: bool = False,
    show_diff: bool = False,
    expect_version: FileVersion | str | None = None,
    create_parents: bool = True,
    new_file_mode: int | None = None,
    max_size: int | None = None,
) -> EditResult:
    """Write a whole file as :func:`agenttools.files.write_file` does, with a dry run and a stale-write guard.

    The write keeps the file's encoding, BOM, mode and line endings (``content`` without any ``\\r`` is written
    with CRLF into a CRLF file) and is atomic. With ``expect_version``, the file must exist and be that version.

    Raises:
        StaleFileError: The file is missing, or is not the version ``expect_version`` names.
        EncodingError: ``content`` cannot be written in the file's encoding (or, for a diff, the file is not text).
        FileTooLargeError, IsDirectoryError, SpecialFileError, ProtectedPathError, PermissionError,
            OutsideWorkspaceError, DeniedPathError: As :func:`~agenttools.files.write_file` raises them.
    """
    real = ws.resolve(path, write=True)
    text_path = str(real)
    limit = ws.max_file_size if max_size is None else max_size
    if len(content) > limit:
        raise FileTooLargeError(path=text_path, size=len(content.encode("utf-8", "surrogatepass")), limit=limit)
    expected = None if expect_version is None else FileVersion.parse(expect_version)
    with path_lock(text_path):
        opened = None
        if expected is not None or dry_run or show_diff:
            opened = _open_for_edit(ws, real, limit, missing_ok=True)
        if expected is not None:
            expected.check(text_path, *(opened or (None, None)))
        diff = None
        if dry_run or show_diff:
            before, fmt = decode(opened[0], path=text_path) if opened else (None, TextFormat(encoding="utf-8"))
            data = encode(_like_file(content, fmt), fmt, path=text_path)
            if len(data) > limit:
                raise FileTooLargeError(path=text_path, size=len(data), limit=limit)
            diff = _diff_for(ws, real, before, _like_file(content, fmt), fmt)
            if dry_run:
                return EditResult(path=real, occurrences=0, created=opened is None, lines=(), format=fmt,
                                  dry_run=True, diff=diff, version=None if opened is None else FileVersion.of(*opened))
        if expected is not None and opened is not None:  # checked again at the rename: nobody wrote since
            try:
                fmt = sniff_format(opened[0], complete=True, path=text_path)
            except EncodingError:
                fmt = TextFormat(encoding="utf-8")
            data = encode(_like_file(content, fmt), fmt, path=text_path)
            if len(data) > limit:
                raise FileTooLargeError(path=text_path, size=len(data), limit=limit)
            _write_unchanged(ws, text_path, data, *opened, expected)
            return EditResult(path=real, occurrences=0, created=False, lines=(), format=fmt, diff=diff,
                              version=_version_now(text_path, data))
        written = files.write_file(ws, real, content, keep_format=True, create_parents=create_parents,
                                   new_file_mode=new_file_mode, max_size=limit)
        data = encode(_like_file(content, written.format), written.format, path=text_path)
        return EditResult(path=real, occurrences=0, created=written.created, lines=(), format=written.format,
                          diff=diff, version=_version_now(text_path, data))


def _like_file(content: str, fmt: TextFormat) -> str:
    """``content`` as a write stores it: with CRLF line breaks in a CRLF file when it has no ``\\r`` of its own."""
    return content.replace("\n", "\r\n") if fmt.newline == "\r\n" and "\r" not in content else content


CellType = Literal["code", "markdown", "raw"]


def _cell_op(ws: Workspace, path: str | os.PathLike[str], op: Callable[[str], tuple[str, int]], *,
             dry_run: bool, show_diff: bool, expect_version: FileVersion | str | None,
             max_size: int | None) -> EditResult:
    real = ws.resolve(path, expect="file", write=True)
    limit = ws.max_file_size if max_size is None else max_size
    text_path = str(real)

    def compute(text: str) -> tuple[str, int]:
        try:
            return op(text)
        except _notebook.NotebookError as exc:
            raise EditError(str(exc), path=text_path) from None

    change, offset = _modify(ws, real, limit, compute, expect_version=expect_version, dry_run=dry_run,
                             show_diff=show_diff)
    line = change.after.count("\n", 0, offset) + 1
    return EditResult(path=real, occurrences=1, created=False, lines=(line,), format=change.format,
                      edits=(AppliedEdit(occurrences=1, lines=(line,)),), dry_run=dry_run, diff=change.diff,
                      version=change.version)


def edit_cell(
    ws: Workspace,
    path: str | os.PathLike[str],
    source: str,
    *,
    index: int | None = None,
    cell_id: str | None = None,
    cell_type: CellType | None = None,
    clear_outputs: bool = True,
    dry_run: bool = False,
    show_diff: bool = False,
    expect_version: FileVersion | str | None = None,
    max_size: int | None = None,
) -> EditResult:
    """Replace the source of one cell of a Jupyter notebook (``.ipynb``), found by ``index`` or ``cell_id``.

    Only that cell's text changes: the rest of the file (indentation, key order, escapes, metadata, the final
    newline) is kept byte for byte, and the new source is written as the notebook writes its sources (a list of
    lines or one string). A code cell's outputs and execution count are cleared (they described the old source)
    unless ``clear_outputs=False``; ``cell_type`` changes the cell's type (a code cell loses its outputs and
    execution count, a new code cell gets empty ones).

    ``result.lines`` holds the line of the (new) file where the cell starts.

    Raises:
        EditError: Not a notebook, no such cell, or neither or both of ``index`` and ``cell_id``.
        StaleFileError, NotFoundError, FileTooLargeError, ...: As for :func:`replace_text`.
    """
    def op(text: str) -> tuple[str, int]:
        return _notebook.edit_cell(text, source, index=index, cell_id=cell_id, cell_type=cell_type,
                                   clear_outputs=clear_outputs)

    return _cell_op(ws, path, op, dry_run=dry_run, show_diff=show_diff, expect_version=expect_version,
                    max_size=max_size)


def insert_cell(
    ws: Workspace,
    path: str | os.PathLike[str],
    source: str,
    *,
    index: int | None = None,
    after_id: str | None = None,
    cell_type: CellType = "code",
    cell_id: str | None = None,
    dry_run: bool = False,
    show_diff: bool = False,
    expect_version: FileVersion | str | None = None,
    max_size: int | None = None,
) -> EditResult:
    """Insert a new cell into a notebook, at position ``index`` or after the cell whose id is ``after_id``.

    ``index`` 0 is first; neither ``index`` nor ``after_id`` appends the cell at the end.
    The new cell is written in the notebook's own style (indentation, separators, ASCII escapes, line endings)
    with nbformat's keys in nbformat's order; it gets an ``id`` (``cell_id``, else a fresh random one) when the
    notebook's format has cell ids (nbformat 4.5 and later, or other cells have one). Nothing else of the file
    changes.

    Raises:
        EditError: Not a notebook, an index out of range, an unknown ``after_id``, or a ``cell_id`` in use.
        StaleFileError, NotFoundError, FileTooLargeError, ...: As for :func:`replace_text`.
    """
    def op(text: str) -> tuple[str, int]:
        return _notebook.insert_cell(text, source, index=index, after_id=after_id, cell_type=cell_type,
                                     cell_id=cell_id)

    return _cell_op(ws, path, op, dry_run=dry_run, show_diff=show_diff, expect_version=expect_version,
                    max_size=max_size)


def delete_cell(
    ws: Workspace,
    path: str | os.PathLike[str],
    *,
    index: int | None = None,
    cell_id: str | None = None,
    dry_run: bool = False,
    show_diff: bool = False,
    expect_version: FileVersion | str | None = None,
    max_size: int | None = None,
) -> EditResult:
    """Delete one cell of a notebook, found by ``index`` or ``cell_id``; nothing else of the file changes.

    Raises:
        EditError: Not a notebook, no such cell, or neither or both of ``index`` and ``cell_id``.
        StaleFileError, NotFoundError, FileTooLargeError, ...: As for :func:`replace_text`.
    """
    def op(text: str) -> tuple[str, int]:
        return _notebook.delete_cell(text, index=index, cell_id=cell_id)

    return _cell_op(ws, path, op, dry_run=dry_run, show_diff=show_diff, expect_version=expect_version,
                    max_size=max_size)


def replace_lines(
    ws: Workspace,
    path: str | os.PathLike[str],
    start: int,
    end: int,
    new: str,
    *,
    allow_noop: bool = True,
    max_size: int | None = None,
    dry_run: bool = False,
    show_diff: bool = False,
    expect_version: FileVersion | str | None = None,
) -> EditResult:
    """Replace lines ``start``..``end`` (1-based, inclusive) with ``new``'s lines.

    Lines are the file split on ``\\n`` (a final newline makes a last, empty line). In a file whose every line
    ending is CRLF, ``new`` is written with CRLF too. ``dry_run``, ``show_diff`` and ``expect_version`` are as for
    :func:`replace_text`.

    Raises:
        EditError: ``end < start``, or the range is outside the file (``line range out of bounds``).
        NoChangeError: The result equals the original and ``allow_noop`` is False.
        StaleFileError: The file is not the version ``expect_version`` names.
        FileTooLargeError, ProtectedPathError, PermissionError: As for :func:`replace_text`.
        NotFoundError, IsDirectoryError, EncodingError, OutsideWorkspaceError, DeniedPathError: As for reads.
    """
    real = ws.resolve(path, expect="file", write=True)
    limit = ws.max_file_size if max_size is None else max_size

    def compute(text: str) -> tuple[str, None]:
        return _replaced_lines(text, start, end, new, path=str(real)), None

    change, _ = _modify(ws, real, limit, compute, expect_version=expect_version, dry_run=dry_run,
                        show_diff=show_diff, allow_noop=allow_noop)
    return EditResult(path=real, occurrences=1, created=False, lines=(start,), format=change.format,
                      edits=(AppliedEdit(occurrences=1, lines=(start,)),), dry_run=dry_run, diff=change.diff,
                      version=change.version)


def _replaced_lines(text: str, start: int, end: int, new: str, *, path: str) -> str:
    """``text`` with lines ``start``..``end`` replaced (see :func:`replace_lines`)."""
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    view = text.replace("\r\n", "\n") if crlf else text
    if end < start:
        raise EditError("end_line must be >= start_line", path=path)
    lines = view.split("\n")
    if start < 1 or start > len(lines) or end > len(lines):
        raise EditError("line range out of bounds", path=path)
    inserted = new.replace("\r\n", "\n") if crlf else new
    updated = "\n".join(lines[: start - 1] + inserted.split("\n") + lines[end:])
    return updated.replace("\n", "\r\n") if crlf else updated
