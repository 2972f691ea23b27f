"""The patch family: V4A patches (the ``*** Begin Patch`` format of Codex's ``apply_patch``), applied all-or-nothing.

:func:`parse_patch` reads a patch into hunks exactly as Codex's parser does (its leniencies and its error texts);
:func:`apply_patch` checks every hunk against the files in order — later hunks see what earlier ones did — and only
when all of them apply writes the result, each file atomically, every path through the :class:`Workspace`. A
patch that fails changes nothing (Codex leaves the hunks before the failing one applied).

Context lines are found as the reference finds them: exactly, then ignoring trailing whitespace, then ignoring
surrounding whitespace, then with typographic dashes, quotes and spaces read as their ASCII forms. Unchanged lines
keep their text and line ending; new lines take the file's first line ending (so a CRLF file stays CRLF). The
texts (:attr:`PatchResult.text`, :attr:`PatchError.message`) are the reference's stdout and stderr lines.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import attrs

from agenttools._diff import unified_diff
from agenttools._display import MarkdownRepr
from agenttools._text import atomic_write, file_kind, make_dirs_beneath, open_dir, read_checked
from agenttools.errors import AgentToolsError, EditError, IsDirectoryError, SpecialFileError
from agenttools.workspace import Workspace

__all__ = ["AddFile", "Chunk", "DeleteFile", "FileChange", "Hunk", "PatchError", "PatchParseError", "PatchResult",
           "UpdateFile", "apply_patch", "operation_patch", "parse_patch", "seek_sequence"]

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
EOF = "*** End of File"
CONTEXT = "@@ "
EMPTY_CONTEXT = "@@"

_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
               "\u2028\u2029\u202f\u205f\u3000")
"""Rust's ``char::is_whitespace`` (Unicode White_Space): what the reference's ``trim`` removes. Python's own
``str.strip()`` would also remove U+001C..U+001F."""

_PUNCTUATION = str.maketrans({
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
})
"""The reference's last matching pass: typographic dashes, quotes and spaces read as ASCII."""


def _trim(text: str) -> str:
    return text.strip(_WHITESPACE)


def _lines(text: str) -> list[str]:
    """Rust's ``str::lines``: split at ``\\n``, drop one ``\\r`` before it, no empty last line after a final one."""
    parts = text.split("\n")
    last = parts.pop()
    lines = [p[:-1] if p.endswith("\r") else p for p in parts]
    return [*lines, last] if last else lines


class PatchError(EditError):
    """A patch could not be applied; nothing was written. ``message`` is the reference's stderr line.

    Attributes:
        path: The file concerned (``""`` when the patch itself is at fault).
    """

    code = "patch_failed"


class PatchParseError(PatchError):
    """The patch text is malformed (``Invalid patch: ...`` / ``Invalid patch hunk on line N: ...``).

    Attributes:
        detail: The reason, without the ``Invalid patch...:`` prefix.
        line: The 1-based patch line of a malformed hunk, or None for the patch's own markers.
    """

    code = "patch_invalid"

    def __init__(self, detail: str, *, line: int | None = None) -> None:
        self.detail = detail
        self.line = line
        prefix = "Invalid patch" if line is None else f"Invalid patch hunk on line {line}"
        super().__init__(f"{prefix}: {detail}", path="")


@attrs.frozen(kw_only=True)
class Chunk:
    """One ``@@`` section of an update: where it is (``context``) and its lines."""

    context: str | None
    """The ``@@ text`` line that must come before the change (None for a bare ``@@``)."""
    lines: tuple[tuple[Literal[" ", "-", "+"], str], ...]
    """Each line of the section: kept (``" "``), removed (``"-"``) or added (``"+"``), with its text."""
    end_of_file: bool = False
    """The section ends with ``*** End of File``: its old lines are looked for at the end of the file first."""

    @property
    def old_lines(self) -> list[str]:
        """The lines the section expects in the file."""
        return [text for kind, text in self.lines if kind != "+"]

    @property
    def new_lines(self) -> list[str]:
        """The lines the section leaves in their place."""
        return [text for kind, text in self.lines if kind != "-"]


@attrs.frozen(kw_only=True)
class AddFile:
    """``*** Add File: path``: create (or overwrite) a file with ``contents``."""

    path: str
    contents: str


@attrs.frozen(kw_only=True)
class DeleteFile:
    """``*** Delete File: path``."""

    path: str


@attrs.frozen(kw_only=True)
class UpdateFile:
    """``*** Update File: path`` (optionally ``*** Move to: move_to``) with its sections."""

    path: str
    move_to: str | None
    chunks: tuple[Chunk, ...]


Hunk = AddFile | DeleteFile | UpdateFile


@attrs.frozen(kw_only=True)
class FileChange:
    """What a patch does to one file (all its hunks on that file together)."""

    action: Literal["add", "update", "delete"]
    path: str
    """The path as the patch names it."""
    real_path: Path
    """The file written or removed."""
    move_to: str | None = None
    """For a moved file, the destination as the patch names it."""
    before: str | None = attrs.field(default=None, repr=False)
    """The text before (None for a file that did not exist)."""
    after: str | None = attrs.field(default=None, repr=False)
    """The text after (None for a deleted file)."""


@attrs.frozen(kw_only=True)
class PatchResult(MarkdownRepr):
    """What :func:`apply_patch` did (or, with ``dry_run``, would do)."""

    added: tuple[str, ...]
    """Files added, as the patch names them, in patch order."""
    modified: tuple[str, ...]
    """Files updated (a moved file under its new name)."""
    deleted: tuple[str, ...]
    """Files deleted."""
    changes: tuple[FileChange, ...] = attrs.field(repr=False)
    """Each file's net change, in the order the patch first touches it.

    Several hunks on one file make one change: its first ``before`` and its last ``after`` (an update, then a
    move, is one update with ``move_to``; an added file updated later is one add; a file updated then deleted is
    one delete of its first text). So a patch that changes a file many times keeps two texts of it, not two per
    hunk. A file added and then deleted by the same patch is a delete with neither text.
    """
    dry_run: bool = False
    """Nothing was written."""

    @property
    def text(self) -> str:
        """The reference's report: ``Success. Updated the following files:`` then ``A``/``M``/``D`` lines."""
        rows = ["Success. Updated the following files:"]
        rows += [f"A {p}" for p in self.added] + [f"M {p}" for p in self.modified] + [f"D {p}" for p in self.deleted]
        return "\n".join(rows) + "\n"

    @property
    def diff(self) -> str:
        """A unified diff of every change (what a dry run would write), as ``git diff`` writes one.

        Each file starts with ``diff --git a/path b/path`` (a moved file: ``rename from``/``rename to``; an added or
        deleted one: its mode line, and ``/dev/null`` on its other side), paths as the patch names them: ``patch
        -p1`` or ``git apply`` in the root applies it. See :func:`agenttools._diff.unified_diff`.
        """
        return "".join(unified_diff(change.before, change.after, change.path, new_path=change.move_to,
                                    git_header=True)
                       for change in self.changes if change.before is not None or change.after is not None)


# ---------------------------------------------------------------------------------------------------------- parse

def parse_patch(text: str) -> tuple[Hunk, ...]:
    """The hunks of a V4A patch, read as Codex's parser reads them (its lenient mode).

    The text is trimmed; its first line must be ``*** Begin Patch`` and its last ``*** End Patch`` (surrounding
    whitespace allowed); a patch wrapped in a ``<<EOF`` ... ``EOF`` heredoc is unwrapped.

    Raises:
        PatchParseError: The reference's error, word for word.
    """
    lines = _lines(_trim(text))
    try:
        begin, end = _boundaries(lines, 0, len(lines))
    except PatchParseError:
        if (len(lines) >= 4 and lines[0] in ("<<EOF", "<<'EOF'", '<<"EOF"') and lines[-1].endswith("EOF")):
            begin, end = _boundaries(lines, 1, len(lines) - 1)
        else:
            raise
    # Every step below moves an index through ``lines``: no slice of the rest of the patch is ever copied, so a
    # patch of many hunks or sections parses in linear time.
    hunks: list[Hunk] = []
    position = begin
    while position < end:
        hunk, position = _parse_hunk(lines, position, end, 2 + position - begin)
        hunks.append(hunk)
    return tuple(hunks)


def _boundaries(lines: list[str], first: int, stop: int) -> tuple[int, int]:
    """Where the hunks are: ``(begin, end)`` of the lines inside the patch markers, or the reference's error.

    ``*** Begin Patch`` must be at ``first``; the hunks end at the first ``*** End Patch`` before ``stop``.
    Only blank lines and more end markers may follow the first end marker.
    """
    if first >= stop or _trim(lines[first]) != BEGIN:
        if first < stop:
            raise PatchParseError("The first line of the patch must be '*** Begin Patch'")
        raise PatchParseError("The last line of the patch must be '*** End Patch'")
    for index in range(first + 1, stop):
        if _trim(lines[index]) == END:
            if all(_trim(lines[k]) in ("", END) for k in range(index + 1, stop)):
                return first + 1, index
            break
    raise PatchParseError("The last line of the patch must be '*** End Patch'")


def _parse_hunk(lines: list[str], position: int, end: int, line_number: int) -> tuple[Hunk, int]:
    """The hunk starting at ``lines[position]`` and the index after it."""
    first = _trim(lines[position])
    if first.startswith(ADD):
        contents = []
        index = position + 1
        while index < end and lines[index].startswith("+"):
            contents.append(lines[index][1:] + "\n")
            index += 1
        return AddFile(path=first[len(ADD):], contents="".join(contents)), index
    if first.startswith(DELETE):
        return DeleteFile(path=first[len(DELETE):]), position + 1
    if first.startswith(UPDATE):
        path = first[len(UPDATE):]
        index = position + 1
        move_to = None
        if index < end and lines[index].startswith(MOVE):
            move_to = lines[index][len(MOVE):]
            index += 1
        chunks: list[Chunk] = []
        while index < end:
            if not _trim(lines[index]):
                index += 1
                continue
            if lines[index].startswith("*"):
                break
            chunk, index = _parse_chunk(lines, index, end, line_number + index - position,
                                        allow_missing_context=not chunks)
            chunks.append(chunk)
        if not chunks:
            raise PatchParseError(f"Update file hunk for path '{path}' is empty", line=line_number)
        return UpdateFile(path=path, move_to=move_to, chunks=tuple(chunks)), index
    raise PatchParseError(f"'{first}' is not a valid hunk header. Valid hunk headers: '*** Add File: {{path}}', "
                          "'*** Delete File: {path}', '*** Update File: {path}'", line=line_number)


def _parse_chunk(lines: list[str], position: int, end: int, line_number: int,
                 *, allow_missing_context: bool) -> tuple[Chunk, int]:
    """The section starting at ``lines[position]`` and the index after it."""
    head = lines[position]
    if head == EMPTY_CONTEXT:
        context, start = None, 1
    elif head.startswith(CONTEXT):
        context, start = head[len(CONTEXT):], 1
    elif allow_missing_context:
        context, start = None, 0
    else:
        raise PatchParseError(f"Expected update hunk to start with a @@ context marker, got: '{head}'",
                              line=line_number)
    if position + start >= end:
        raise PatchParseError("Update hunk does not contain any lines", line=line_number + 1)
    body: list[tuple[Literal[" ", "-", "+"], str]] = []
    end_of_file = False
    parsed = 0
    for index in range(position + start, end):
        line = lines[index]
        if line == EOF:
            if parsed == 0:
                raise PatchParseError("Update hunk does not contain any lines", line=line_number + 1)
            end_of_file = True
            parsed += 1
            break
        if line == "":
            body.append((" ", ""))
        elif line[0] in " -+":
            body.append((line[0], line[1:]))  # type: ignore[arg-type]
        else:
            if parsed == 0:
                raise PatchParseError(f"Unexpected line found in update hunk: '{line}'. Every line should start "
                                      "with ' ' (context line), '+' (added line), or '-' (removed line)",
                                      line=line_number + start)
            break  # the next section starts here
        parsed += 1
    return Chunk(context=context, lines=tuple(body), end_of_file=end_of_file), position + start + parsed


def operation_patch(operation: dict[str, object], *, max_size: int | None = None) -> str:
    """The V4A patch of one Responses ``apply_patch_call`` operation.

    ``create_file`` and ``update_file`` carry a ``path`` and a V4A ``diff``; ``delete_file`` only a ``path``. The
    patch must come out as that one operation on that one path: a path of several lines, or a diff holding patch
    headers of its own (``*** Delete File: other``, ``*** Move to: ...``, ``*** End Patch``), would smuggle other
    changes into it and is refused.

    Args:
        operation: The item's ``operation``.
        max_size: Refuse, before parsing it, a patch of more than this many bytes (see :func:`apply_patch`).

    Raises:
        PatchParseError: Not an operation (an unknown ``type``, no ``path``, no ``diff``), its diff is malformed
            or would change more than its own path, or the patch is larger than ``max_size``.
    """
    kind, path, diff = operation.get("type"), operation.get("path"), operation.get("diff")
    if not isinstance(path, str):
        raise PatchParseError("the operation has no path")
    if kind not in ("create_file", "update_file", "delete_file"):
        raise PatchParseError(f"unknown operation type {kind!r}: use create_file, update_file or delete_file")
    if "\n" in path or "\r" in path:
        raise PatchParseError(f"the {kind} operation's path must be one line, got {path!r}")
    if kind == "delete_file":
        patch = f"{BEGIN}\n{DELETE}{path}\n{END}\n"
        expected: type[Hunk] = DeleteFile
    else:
        if not isinstance(diff, str):
            raise PatchParseError(f"the {kind} operation has no diff")
        body = diff if diff.endswith("\n") or not diff else diff + "\n"
        header, expected = (ADD, AddFile) if kind == "create_file" else (UPDATE, UpdateFile)
        patch = f"{BEGIN}\n{header}{path}\n{body}{END}\n"
    if max_size is not None:
        _check_size(patch, max_size)
    hunks = parse_patch(patch)
    if (len(hunks) != 1 or not isinstance(hunks[0], expected) or hunks[0].path != path
            or (isinstance(hunks[0], UpdateFile) and hunks[0].move_to is not None)):
        raise PatchParseError(f"the {kind} operation may only change {path!r}: its diff must not hold patch "
                              "headers ('*** Add File', '*** Update File', '*** Delete File', '*** Move to', "
                              "'*** End Patch')")
    return patch


# ---------------------------------------------------------------------------------------------------------- match

def seek_sequence(lines: Sequence[str], pattern: Sequence[str], start: int, eof: bool) -> int | None:
    """Where ``pattern`` starts in ``lines`` at or after ``start`` (None if nowhere), as the reference seeks.

    Passes of decreasing strictness: exact, then ignoring trailing whitespace, then ignoring surrounding
    whitespace, then also reading typographic dashes, quotes and spaces as ASCII. With ``eof`` the search starts
    where the pattern would end the file. Each pass takes time linear in the lines searched plus the pattern
    (the reference compares the whole pattern at every position: quadratic on repetitive files).
    """
    return _Seeker(lines).seek(pattern, start, eof)


_PASSES: tuple[Callable[[str], str], ...] = (
    lambda s: s.rstrip(_WHITESPACE), _trim, lambda s: _trim(s).translate(_PUNCTUATION))
"""The normalisations of the passes after the exact one."""


class _Seeker:
    """:func:`seek_sequence` over one file, its lines normalised once per pass for all of a patch's sections."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._normalised: list[list[str] | None] = [None] * len(_PASSES)

    def _pass(self, number: int) -> Sequence[str]:
        if number == 0:
            return self.lines
        found = self._normalised[number - 1]
        if found is None:
            found = self._normalised[number - 1] = list(map(_PASSES[number - 1], self.lines))
        return found

    def seek(self, pattern: Sequence[str], start: int, eof: bool) -> int | None:
        if not pattern:
            return start
        if len(pattern) > len(self.lines):
            return None
        first = len(self.lines) - len(pattern) if eof else start
        last = len(self.lines) - len(pattern)
        if first > last:
            return None
        for number in range(len(_PASSES) + 1):
            want = list(pattern) if number == 0 else list(map(_PASSES[number - 1], pattern))
            found = _find(self._pass(number), want, first, last)
            if found is not None:
                return found
        return None


def _find(lines: Sequence[str], pattern: list[str], first: int, last: int) -> int | None:
    """The first ``i`` in ``first..last`` where ``lines[i:i+len(pattern)] == pattern``, in linear time.

    Candidates are found at C speed (``list.index`` on the first line, a slice compare); when they keep failing
    late (a repetitive file), Knuth-Morris-Pratt takes over for the rest, so the worst case stays linear.
    """
    size = len(pattern)
    head = pattern[0]
    budget = 4 * (last - first + 1) + 4 * size  # elements compared before the slow-but-linear path takes over
    index = first
    as_list = lines if isinstance(lines, list) else list(lines)
    while index <= last and budget > 0:
        try:
            index = as_list.index(head, index, last + 1)
        except ValueError:
            return None
        if as_list[index:index + size] == pattern:
            return index
        budget -= size
        index += 1
    if index > last:
        return None
    # Knuth-Morris-Pratt from ``index`` on
    fail = [0] * size
    k = 0
    for i in range(1, size):
        while k and pattern[i] != pattern[k]:
            k = fail[k - 1]
        if pattern[i] == pattern[k]:
            k += 1
        fail[i] = k
    k = 0
    for i in range(index, last + size):
        line = as_list[i]
        while k and line != pattern[k]:
            k = fail[k - 1]
        if line == pattern[k]:
            k += 1
            if k == size:
                return i - size + 1
    return None


def _split(contents: str) -> tuple[list[str], list[str], str]:
    """The file's lines without their endings, their endings, and the preferred ending.

    An unterminated last line has the ending ``""``; the preferred ending is the first one (LF when none).
    """
    texts = contents.split("\n")
    last = texts.pop()
    if "\r" in contents:
        endings = ["\r\n" if text.endswith("\r") else "\n" for text in texts]
        texts = [text[:-1] if ending == "\r\n" else text for text, ending in zip(texts, endings, strict=True)]
    else:
        endings = ["\n"] * len(texts)
    preferred = endings[0] if endings else "\n"
    if last:
        texts.append(last)
        endings.append("")
    return texts, endings, preferred


_Item = tuple[Literal["keep"], int] | tuple[Literal["new"], str]


def _updated(contents: str, chunks: Sequence[Chunk], display: str) -> str:
    """The file's text after the sections, or the reference's error."""
    texts, endings, preferred = _split(contents)
    seeker = _Seeker(texts)
    replacements: list[tuple[int, int, list[_Item]]] = []
    index = 0
    for chunk in chunks:
        if chunk.context is not None:
            found = seeker.seek([chunk.context], index, False)
            if found is None:
                raise PatchError(f"Failed to find context '{chunk.context}' in {display}", path=display)
            index = found + 1
        ops = list(chunk.lines)
        if not chunk.old_lines:
            replacements.append((len(texts), 0, [("new", text) for _, text in ops]))
            continue
        pattern = chunk.old_lines
        found = seeker.seek(pattern, index, chunk.end_of_file)
        if found is None and pattern[-1] == "":
            pattern = pattern[:-1]
            ops = _drop_last_blank(ops, new_too=chunk.new_lines[-1:] == [""])
            found = seeker.seek(pattern, index, chunk.end_of_file)
        if found is None:
            raise PatchError(f"Failed to find expected lines in {display}:\n" + "\n".join(chunk.old_lines),
                             path=display)
        items: list[_Item] = []
        offset = 0
        for kind, text in ops:
            if kind == " ":
                items.append(("keep", found + offset))
            elif kind == "+":
                items.append(("new", text))
            if kind != "+":
                offset += 1
        replacements.append((found, len(pattern), items))
        index = found + len(pattern)
    replacements.sort(key=lambda r: r[0])
    # Unchanged runs of lines are copied from ``contents`` as they are (one slice each, not line by line).
    starts = [0, *itertools.accumulate(len(text) + len(ending) for text, ending in zip(texts, endings, strict=True))]

    def run(begin: int, stop: int) -> str:
        piece = contents[starts[begin]:starts[stop]]
        return piece + preferred if stop == len(texts) and stop > begin and not endings[-1] else piece

    out: list[str] = []
    source = 0
    for start, length, items in replacements:
        if start >= source:
            out.append(run(source, start))
        for item in items:
            if item[0] == "keep":
                out.append(texts[item[1]] + (endings[item[1]] or preferred))
            else:
                out.append(item[1] + preferred)
        source = max(source, start + length)
    if source < len(texts):
        out.append(run(source, len(texts)))
    return "".join(out)


def _drop_last_blank(ops: list[tuple[Literal[" ", "-", "+"], str]],
                     *, new_too: bool) -> list[tuple[Literal[" ", "-", "+"], str]]:
    """The section without its last old line (a blank one), and its last new line when that is blank too.

    The reference's second try for a section whose old lines end with the file's final newline.
    """
    ops = list(ops)
    old_at = max(i for i, (kind, _) in enumerate(ops) if kind != "+")
    new_at = max((i for i, (kind, _) in enumerate(ops) if kind != "-"), default=None) if new_too else None
    if new_at == old_at:
        del ops[old_at]
        return ops
    if ops[old_at][0] == " ":
        ops[old_at] = ("+", ops[old_at][1])  # it stays a new line
    else:
        del ops[old_at]
        if new_at is not None and new_at > old_at:
            new_at -= 1
    if new_at is not None:
        del ops[new_at]
    return ops


_DELETED = None


@attrs.define
class _Plan:
    """The files as the patch leaves them, hunk by hunk, before anything is written."""

    ws: Workspace
    limit: int
    state: dict[str, str | None] = attrs.field(factory=dict)
    """Real (or entry) path -> its new text, or None when deleted."""
    created_dirs: set[str] = attrs.field(factory=set)
    modes: dict[str, int] = attrs.field(factory=dict)
    """Permission bits for a file a move creates: the source's (a moved script stays executable)."""

    def text_of(self, key: str, display: str) -> str:
        if key in self.state:
            text = self.state[key]
            if text is None:
                raise _io_error("Failed to read file to update", display, errno.ENOENT)
            return text
        try:
            st = os.stat(key)
        except OSError as exc:
            raise _io_error("Failed to read file to update", display, exc.errno or errno.EIO) from None
        if not stat.S_ISREG(st.st_mode):
            raise PatchError(f"Failed to read file to update {display}: path `{display}` is not a file", path=display)
        raw = self._read_bytes(key, display, "Failed to read file to update")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.reason == "unexpected end of data":
                reason = f"incomplete utf-8 byte sequence from index {exc.start}"
            else:
                reason = f"invalid utf-8 sequence of {exc.end - exc.start} bytes from index {exc.start}"
            raise PatchError(f"Failed to read file to update {display}: {reason}", path=display) from None

    def exists(self, key: str) -> bool:
        if key in self.state:
            return self.state[key] is not None
        return os.path.lexists(key)

    def is_dir(self, key: str) -> bool:
        if key in self.state:
            return False
        return key in self.created_dirs or os.path.isdir(key)

    def check_writable(self, key: str, display: str) -> None:
        """Refuse (with the reference's text) a write the OS would refuse: a directory there, a file above it."""
        if self.is_dir(key):
            raise PatchError(f"Failed to write file {display}", path=display)
        parent = os.path.dirname(key)
        missing = []
        while not self.is_dir(parent):
            if self.exists(parent):
                raise PatchError(f"Failed to write file {display}", path=display)
            missing.append(parent)
            parent = os.path.dirname(parent)
        self.created_dirs.update(missing)

    def before(self, key: str, display: str) -> str | None:
        """The text of what a write to ``key`` replaces (None: nothing there), or why it may not be replaced.

        Only a regular file no larger than the limit may be overwritten (its bytes are kept until the patch is
        done, to put back on a failure); a FIFO, socket or device is never opened, so it cannot block the patch.
        """
        if key in self.state:
            return self.state[key]
        try:
            st = os.stat(key, follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            if stat.S_ISLNK(st.st_mode) or stat.S_ISDIR(st.st_mode):
                return None  # a symlink this patch deleted (replaced as an entry); a directory is refused later
            raise PatchError(f"Failed to write file {display}: {SpecialFileError(path=key, kind=_kind(st))}",
                             path=display)
        raw = self._read_bytes(key, display, "Failed to write file")
        return raw.decode("utf-8", "replace")

    def _read_bytes(self, key: str, display: str, context: str) -> bytes:
        """A regular file's bytes (bounded, no symlink followed); a failure worded ``<context> <display>: ...``."""
        try:
            return read_checked(key, root=self.ws.root_of(key), max_size=self.limit)
        except AgentToolsError as exc:
            raise PatchError(f"{context} {display}: {exc}", path=display) from None
        except OSError as exc:
            raise _io_error(context, display, exc.errno or errno.EIO) from None

    def write(self, key: str, text: str, display: str, *, checked: bool = False) -> str | None:
        """Record ``text`` as the new contents of ``key``; returns the text it replaces (see :meth:`before`).

        ``checked``: ``key`` was just read by :meth:`text_of` (a regular file within the limit): not read again.
        """
        if len(text.encode("utf-8", "surrogatepass")) > self.limit:
            raise PatchError(f"Failed to write file {display}: the new text is larger than {self.limit} bytes",
                             path=display)
        self.check_writable(key, display)
        old = None if checked else self.before(key, display)
        self.state[key] = text
        return old


def _kind(st: os.stat_result) -> str:
    return file_kind(st.st_mode) or "special file"


def _io_error(context: str, display: str, code: int) -> PatchError:
    """The reference's ``{context} {path}: {strerror} (os error N)``."""
    return PatchError(f"{context} {display}: {os.strerror(code)} (os error {code})", path=display)


def _refused(context: str, display: str, exc: AgentToolsError) -> PatchError:
    return PatchError(f"{context} {display}: {exc}", path=display)


def apply_patch(ws: Workspace, patch: str | Sequence[Hunk], *, dry_run: bool = False,
                max_size: int | None = None, max_patch_size: int | None = None) -> PatchResult:
    """Apply a V4A patch all-or-nothing: every hunk is checked in order, then every file is written.

    Relative paths resolve against the workspace's cwd; every path must stay inside the workspace. ``Add File``
    overwrites an existing file and creates missing directories; ``Update File`` needs an existing UTF-8 text file;
    ``Move to`` writes the destination and removes the source (a move onto the same file — its own path, or a
    symlink to it — keeps the file; a new destination gets the source's permission bits).

    Args:
        ws: Where the files are.
        patch: The patch text, or hunks from :func:`parse_patch`.
        dry_run: Check everything and report, write nothing (:attr:`PatchResult.diff` shows the change).
        max_size: The largest file read, overwritten or written (default: the workspace's ``max_file_size``).
        max_patch_size: The largest patch text, in UTF-8 bytes (default: the workspace's ``max_file_size``); a
            larger one is refused before it is read (hunks passed as a sequence are not measured).

    Raises:
        PatchParseError: The patch is malformed (the reference's ``Invalid patch...`` text), or larger than
            ``max_patch_size`` (``Invalid patch: the patch is larger than N bytes (max_patch_size); ...``).
        PatchError: A hunk does not apply, or a path is refused; nothing was written. Its message is the
            reference's, or for a path the reference would have used but we refuse, the reference's context
            followed by why (``Failed to write file /abs/x: path ... is outside the allowed directories``).
    """
    if isinstance(patch, str):
        _check_size(patch, ws.max_file_size if max_patch_size is None else max_patch_size)
        hunks = parse_patch(patch)
    else:
        hunks = tuple(patch)
    if not hunks:
        raise PatchError("No files were modified.", path="")
    plan = _Plan(ws=ws, limit=ws.max_file_size if max_size is None else max_size)
    added: list[str] = []
    modified: list[str] = []
    deleted: list[str] = []
    changes = _Changes()

    for hunk in hunks:
        display = _display(ws, hunk.path)
        if isinstance(hunk, AddFile):
            key = _write_key(ws, plan, hunk.path, display)
            old = plan.write(key, hunk.contents, display)
            added.append(hunk.path)
            changes.add(key, hunk.path, old, hunk.contents)
        elif isinstance(hunk, DeleteFile):
            try:
                entry = str(ws.resolve_entry(hunk.path, write=True))
            except AgentToolsError as exc:
                raise _refused("Failed to delete file", display, exc) from None
            if not plan.exists(entry) or plan.is_dir(entry):  # a symlink to a directory too, as the reference
                raise PatchError(f"Failed to delete file {display}", path=display)
            old = None if entry in changes.live else plan.state[entry] if entry in plan.state else _peek(plan, entry)
            plan.state[entry] = _DELETED
            deleted.append(hunk.path)
            changes.delete(entry, hunk.path, old)
        else:
            key = _read_key(ws, plan, hunk.path, display)
            old = plan.text_of(key, display)
            new = _updated(old, hunk.chunks, display)
            if hunk.move_to is None:
                plan.write(key, new, display, checked=True)
                modified.append(hunk.path)
                changes.update(key, key, hunk.path, None, old, new)
                continue
            dest_display = _display(ws, hunk.move_to)
            source_entry = _entry(ws, hunk.path, display)
            dest_entry = _entry(ws, hunk.move_to, dest_display)
            dest = key if dest_entry == source_entry else _write_key(ws, plan, hunk.move_to, dest_display)
            mode = _mode_of(key) if key not in plan.state else plan.modes.get(key)
            if mode is not None and not plan.exists(dest):
                plan.modes[dest] = mode
            plan.write(dest, new, dest_display)
            # A move onto the file itself (its own path, or a symlink to it) keeps it: the reference writes the
            # destination and then deletes the source, which is the same file, and reports success.
            if dest_entry != source_entry and dest != source_entry:
                plan.state[source_entry] = _DELETED
            modified.append(hunk.move_to)
            changes.update(key, dest, hunk.path, hunk.move_to, old, new)
    if not dry_run:
        _commit(ws, plan)
    return PatchResult(added=tuple(added), modified=tuple(modified), deleted=tuple(deleted),
                       changes=changes.result(), dry_run=dry_run)


def _check_size(patch: str, limit: int) -> None:
    """Refuse, before reading it, a patch text of more than ``limit`` bytes (UTF-8)."""
    if len(patch) > limit or (4 * len(patch) > limit and len(patch.encode("utf-8", "surrogatepass")) > limit):
        raise PatchParseError(f"the patch is larger than {limit} bytes (max_patch_size); split it into smaller "
                              "patches")


class _Record:
    """One file's net change so far (a mutable :class:`FileChange`)."""

    __slots__ = ("action", "after", "before", "move_to", "path", "real_path", "source")

    def __init__(self, action: Literal["add", "update", "delete"], path: str, real_path: str,
                 before: str | None, after: str | None, move_to: str | None = None) -> None:
        self.action: Literal["add", "update", "delete"] = action
        self.path = path
        self.real_path = real_path
        self.source = real_path
        """Where the file was before the patch (a moved file's source)."""
        self.move_to = move_to
        self.before = before
        self.after = after


class _Changes:
    """The :attr:`PatchResult.changes` being built: one record per file, merged hunk by hunk.

    ``live`` maps each path whose text in the plan a record holds to that record's index: a later hunk on the
    same file updates the record (its ``after``, its name when moved) instead of adding one, so a patch that
    changes one file many times keeps two texts of it (the first ``before``, the last ``after``), not two per
    hunk.
    """

    def __init__(self) -> None:
        self.records: list[_Record | None] = []
        self.live: dict[str, int] = {}

    def _record(self, key: str) -> _Record | None:
        at = self.live.get(key)
        return None if at is None else self.records[at]

    def _new(self, key: str, record: _Record) -> None:
        self.live[key] = len(self.records)
        self.records.append(record)

    def add(self, key: str, path: str, old: str | None, contents: str) -> None:
        record = self._record(key)
        if record is None:
            self._new(key, _Record("add", path, key, old, contents))
            return
        record.after = contents
        if record.action == "delete":
            record.action = "add" if record.before is None else "update"

    def delete(self, entry: str, path: str, old: str | None) -> None:
        record = self._record(entry)
        if record is None:
            self._new(entry, _Record("delete", path, entry, old, None))
            return
        record.after = None
        record.action = "delete"
        if record.move_to is not None:  # moved, then deleted: what is gone is the file at its first name
            record.move_to = None
            record.real_path = record.source

    def update(self, key: str, dest: str, path: str, move_to: str | None, old: str, new: str) -> None:
        at = self.live.get(key)
        if dest != key:
            self.live.pop(key, None)
            replaced = self.live.pop(dest, None)
            if replaced is not None and replaced != at:
                self.records[replaced] = None  # a move over a file this patch changed: that change is overwritten
        if at is None:
            self._new(dest, _Record("update", path, dest, old, new, move_to))
            return
        record = self.records[at]
        assert record is not None  # noqa: S101 - live records are never dropped
        record.after = new
        record.real_path = dest
        if move_to is not None:
            if record.action == "add":
                record.path = move_to
            else:
                record.move_to = None if dest == record.source else move_to
        self.live[dest] = at

    def result(self) -> tuple[FileChange, ...]:
        return tuple(FileChange(action=r.action, path=r.path, real_path=Path(r.real_path), move_to=r.move_to,
                                before=r.before, after=r.after) for r in self.records if r is not None)


def _display(ws: Workspace, path: str) -> str:
    """The path as the reference names it in errors: made absolute against the cwd, normalised lexically."""
    return os.path.normpath(os.path.join(str(ws.cwd), path)) if path else str(ws.cwd)


def _entry(ws: Workspace, path: str, display: str) -> str:
    try:
        return str(ws.resolve_entry(path, write=True))
    except AgentToolsError as exc:
        raise _refused("Failed to write file", display, exc) from None


def _write_key(ws: Workspace, plan: _Plan, path: str, display: str) -> str:
    """Where a write to ``path`` lands: through a symlink on disk, or the entry itself if this patch deleted it."""
    entry = _entry(ws, path, display)
    if entry in plan.state:
        return entry
    try:
        return str(ws.resolve(path, write=True))
    except AgentToolsError as exc:
        raise _refused("Failed to write file", display, exc) from None


def _read_key(ws: Workspace, plan: _Plan, path: str, display: str) -> str:
    try:
        entry = str(ws.resolve_entry(path, write=True))
        if entry in plan.state:
            return entry
        return str(ws.resolve(path, write=True))
    except AgentToolsError as exc:
        raise _refused("Failed to read file to update", display, exc) from None


def _mode_of(key: str) -> int | None:
    """The permission bits of a regular file (None for anything else)."""
    try:
        st = os.stat(key, follow_symlinks=False)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) & 0o777 if stat.S_ISREG(st.st_mode) else None


def _peek(plan: _Plan, entry: str) -> str | None:
    """The text of an entry about to be deleted, for the result.

    Only a regular file's (no symlink followed, nothing larger than the limit read); else None.
    """
    if not stat.S_ISREG(os.stat(entry, follow_symlinks=False).st_mode):
        return None
    try:
        raw = read_checked(entry, root=plan.ws.root_of(entry), max_size=plan.limit)
    except (AgentToolsError, OSError):
        return None
    return raw.decode("utf-8", "replace")


@attrs.define
class _Undo:
    """What :func:`_commit` did so far, to put back on a failure."""

    ws: Workspace
    aside: list[tuple[str, str]] = attrs.field(factory=list)
    """(entry, the name it was moved to): entries deleted, or symlinks replaced by a file."""
    written: list[tuple[str, bytes | None]] = attrs.field(factory=list)
    """(file, its bytes before, or None when it did not exist)."""
    made: list[str] = attrs.field(factory=list)
    """Directories created, outermost first."""

    def rollback(self) -> None:
        for key, saved in reversed(self.written):
            with contextlib.suppress(OSError, AgentToolsError):
                if saved is None:
                    _at_dir(self.ws, key, lambda dir_fd, name: os.unlink(name, dir_fd=dir_fd))
                else:
                    atomic_write(key, saved, root=self.ws.root_of(key))
        for directory in reversed(self.made):
            with contextlib.suppress(OSError, AgentToolsError):
                _at_dir(self.ws, directory, lambda dir_fd, name: os.rmdir(name, dir_fd=dir_fd))
        for key, temp in reversed(self.aside):
            with contextlib.suppress(OSError, AgentToolsError):
                _at_dir(self.ws, key, lambda dir_fd, name, temp=temp: os.rename(
                    temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd))

    def discard(self) -> None:
        for key, temp in self.aside:
            with contextlib.suppress(OSError, AgentToolsError):
                _at_dir(self.ws, key, lambda dir_fd, name, temp=temp: os.unlink(temp, dir_fd=dir_fd))


def _at_dir(ws: Workspace, path: str, action: Callable[..., object]) -> None:
    """Run ``action(dir_fd, name)`` in ``path``'s directory, opened from its allowed directory.

    No symlink is followed on the way; without ``*at`` calls, ``action(None, path)``.
    """
    directory, name = os.path.split(path)
    dir_fd = open_dir(directory, root=ws.root_of(directory))
    try:
        action(dir_fd, name if dir_fd is not None else path)
    finally:
        if dir_fd is not None:
            os.close(dir_fd)


def _move_aside(ws: Workspace, undo: _Undo, key: str) -> None:
    """Rename an entry to a free hidden name in its directory (a delete that can be undone, metadata and all)."""
    def rename(dir_fd: int | None, name: str) -> None:
        if stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            raise IsDirectoryError(path=key)
        for _ in range(100):
            temp = os.path.join(os.path.dirname(name),
                                f".{os.path.basename(name)[:180]}.{os.urandom(4).hex()}.agenttools-del")
            try:
                os.stat(temp, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                os.rename(name, temp, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                undo.aside.append((key, temp))
                return
        raise FileExistsError(errno.EEXIST, "no unused temporary name", key)

    _at_dir(ws, key, rename)


def _make_parents(ws: Workspace, undo: _Undo, key: str) -> None:
    root = ws.root_of(key)
    parent = os.path.dirname(key)
    missing = []
    while root is not None and parent != root and not os.path.isdir(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    if missing and root is not None:
        make_dirs_beneath(root, missing[0])
        undo.made.extend(reversed(missing))


def _commit(ws: Workspace, plan: _Plan) -> None:
    """Make the plan real, all or nothing.

    First every entry the patch deletes (and every symlink it replaces by a file) is renamed aside; then every
    file is written, atomically, each checked again against the git metadata rule (so no patch can assemble a
    git directory from files none of which existed when the hunks were checked); only then are the entries set
    aside removed. On a failure the written files get their bytes back, new files and directories are removed,
    and the entries set aside are renamed back — the same inode, permissions, owner and links as before.
    """
    undo = _Undo(ws=ws)
    failed = ""
    try:
        for key, text in plan.state.items():
            failed = key
            if (text is None and os.path.lexists(key)) or (text is not None and os.path.islink(key)):
                _move_aside(ws, undo, key)
        for key, text in plan.state.items():
            if text is None:
                continue
            failed = key
            ws.check_writable(key)
            _make_parents(ws, undo, key)
            root = ws.root_of(key)
            saved = read_checked(key, root=root, max_size=plan.limit) if os.path.lexists(key) else None
            atomic_write(key, text.encode("utf-8", "surrogatepass"), root=root,
                         mode=plan.modes.get(key) if saved is None else None)
            undo.written.append((key, saved))
    except (OSError, AgentToolsError) as exc:
        undo.rollback()
        raise PatchError(f"Failed to write file {failed}: {exc}", path=failed) from None
    undo.discard()
