"""Unified diffs of two texts, as ``diff -u`` and ``git diff`` print them and ``patch -p1`` applies them.

Lines are split on ``\\n`` only (a ``\\r`` stays on its line, as ``patch`` reads it, and a ``\\r\\n`` line is one
line), a last line without a newline gets the ``\\ No newline at end of file`` marker, and hunks carry ``context``
lines on each side (hunks closer than twice that are merged).

The line diff (:func:`line_diff`) has two algorithms. ``"difflib"`` (the default) is Python's
``SequenceMatcher``: it keeps the longest common blocks whole, so a deleted block reads as the block (``-  {`` ...
``-  },``), as ``git diff`` shows it. ``"jsdiff"`` is Myers' algorithm as jsdiff 8's ``diffLines`` runs it, with
jsdiff's choices among paths of equal cost: a toolset that reproduces jsdiff's output (the filesystem toolset's
``edit_file``) gets it byte for byte. Either diff applies. The hunks are cut as jsdiff's ``structuredPatch``, difflib's
``get_grouped_opcodes`` and GNU diff all cut them; the pieces are separate functions so that a toolset can put its
own header around the hunks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Literal

import attrs

from agenttools._lazy import lazy_module

if TYPE_CHECKING:
    import difflib
else:
    difflib = lazy_module("difflib")  # loaded by the first diff, not by every toolset's start-up

__all__ = ["MAX_DIFF_STEPS", "NO_NEWLINE", "Algorithm", "Change", "diff_hunks", "format_hunks", "line_diff",
           "quote_name", "split_lines", "unified_diff"]

Algorithm = Literal["difflib", "jsdiff"]
"""Which line diff: Python's ``difflib`` (the default) or jsdiff 8's Myers (see the module's documentation)."""

NO_NEWLINE = "\\ No newline at end of file\n"
"""The line ``diff`` and ``patch`` use to say the line before it has no newline."""

MAX_DIFF_STEPS = 1_000_000
"""The most steps the ``jsdiff`` line diff may take (about a second; an edit distance of about 1,400 lines). A
diff that needs more is made the cheap way: the common first and last lines kept, everything between them removed
and added (jsdiff's JavaScript would take its time; this is pure Python)."""


def split_lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` (the last piece may lack one; ``""`` has no lines).

    These are jsdiff's line tokens too: it cuts after ``\\n`` and ``\\r\\n``, which is the same cut.
    """
    lines = text.split("\n")
    pieces = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        pieces.append(lines[-1])
    return pieces


# --- the line diff ----------------------------------------------------------------------------------------------------

@attrs.frozen(kw_only=True)
class Change:
    """One run of the line diff: lines both texts have, or lines only the old (``removed``) or new (``added``) has."""

    lines: tuple[str, ...]
    """The run's lines, each with its line break (the last line of a text may have none)."""
    added: bool = False
    removed: bool = False

    @property
    def count(self) -> int:
        """How many lines the run has."""
        return len(self.lines)

    @property
    def value(self) -> str:
        """The run's text."""
        return "".join(self.lines)


@attrs.define
class _Component:
    count: int
    added: bool
    removed: bool
    previous: _Component | None


@attrs.define
class _Path:
    old_pos: int
    last: _Component | None


def _add_to_path(path: _Path, added: bool, removed: bool, old_inc: int) -> _Path:
    last = path.last
    if last is not None and last.added == added and last.removed == removed:
        return _Path(path.old_pos + old_inc, _Component(last.count + 1, added, removed, last.previous))
    return _Path(path.old_pos + old_inc, _Component(1, added, removed, last))


def _extract_common(path: _Path, new: Sequence[str], old: Sequence[str], diagonal: int) -> tuple[int, int]:
    """Follow the diagonal while lines are equal: the new position, and how many lines that was."""
    old_pos = path.old_pos
    new_pos = old_pos - diagonal
    common = 0
    while new_pos + 1 < len(new) and old_pos + 1 < len(old) and old[old_pos + 1] == new[new_pos + 1]:
        new_pos += 1
        old_pos += 1
        common += 1
    if common:
        path.last = _Component(common, False, False, path.last)
    path.old_pos = old_pos
    return new_pos, common


def _build(last: _Component | None, new: Sequence[str], old: Sequence[str]) -> list[Change]:
    components: list[_Component] = []
    while last is not None:
        components.append(last)
        last = last.previous
    components.reverse()
    changes = []
    new_pos = old_pos = 0
    for component in components:
        if component.removed:
            lines = old[old_pos:old_pos + component.count]
            old_pos += component.count
        else:
            lines = new[new_pos:new_pos + component.count]
            new_pos += component.count
            if not component.added:
                old_pos += component.count
        changes.append(Change(lines=tuple(lines), added=component.added, removed=component.removed))
    return changes


def _cheap(new: list[str], old: list[str]) -> list[Change]:
    """The diff past the step limit: common leading and trailing lines kept, the rest removed, then added."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    runs = [Change(lines=tuple(old[:head])),
            Change(lines=tuple(old[head:len(old) - tail]), removed=True),
            Change(lines=tuple(new[head:len(new) - tail]), added=True),
            Change(lines=tuple(old[len(old) - tail:]))]
    return [run for run in runs if run.lines]


def line_diff(before: str, after: str, *, algorithm: Algorithm = "difflib",
              max_steps: int = MAX_DIFF_STEPS, autojunk: bool = False) -> list[Change]:
    """The runs of kept, removed and added lines that turn ``before`` into ``after``.

    A changed block is its removed lines, then its added ones (``"jsdiff"`` may alternate them, as jsdiff does).

    Args:
        before: The old text.
        after: The new text.
        algorithm: ``"difflib"`` (``SequenceMatcher``, no junk heuristic) or ``"jsdiff"`` (jsdiff 8's
            ``diffLines``, its runs exactly).
        max_steps: For ``"jsdiff"``: past this many steps the diff is made the cheap way (see
            :data:`MAX_DIFF_STEPS`).
        autojunk: For ``"difflib"``: ``SequenceMatcher``'s junk heuristic (lines in over 1% of a long text are
            not used to anchor matches), as go-difflib's ``NewMatcher`` has it.
    """
    old = split_lines(before)
    new = split_lines(after)
    if algorithm == "difflib":
        return _difflib_runs(old, new, autojunk)
    return _jsdiff_runs(old, new, max_steps)


def _difflib_runs(old: list[str], new: list[str], autojunk: bool) -> list[Change]:
    runs = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=autojunk)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            runs.append(Change(lines=tuple(old[i1:i2])))
            continue
        if i1 < i2:
            runs.append(Change(lines=tuple(old[i1:i2]), removed=True))
        if j1 < j2:
            runs.append(Change(lines=tuple(new[j1:j2]), added=True))
    return runs


def _jsdiff_runs(old: list[str], new: list[str], max_steps: int) -> list[Change]:
    """The runs jsdiff 8's ``diffLines`` finds: Myers' algorithm, with its choices among paths of equal cost."""
    steps = 0
    best: dict[int, _Path | None] = {0: _Path(-1, None)}
    start = best[0]
    assert start is not None  # noqa: S101 - just made
    new_pos, _ = _extract_common(start, new, old, 0)
    if start.old_pos + 1 >= len(old) and new_pos + 1 >= len(new):
        return _build(start.last, new, old)
    low, high = -len(old) - len(new) - 1, len(old) + len(new) + 1
    edit_length = 1
    while edit_length <= len(old) + len(new):
        for diagonal in range(max(low, -edit_length), min(high, edit_length) + 1, 2):
            steps += 1
            if steps > max_steps:
                return _cheap(new, old)
            remove = best.get(diagonal - 1)
            add = best.get(diagonal + 1)
            if remove is not None:
                best[diagonal - 1] = None
            can_add = add is not None and 0 <= add.old_pos - diagonal < len(new)
            can_remove = remove is not None and remove.old_pos + 1 < len(old)
            if not can_add and not can_remove:
                best[diagonal] = None
                continue
            if not can_remove or (can_add and remove is not None and add is not None and remove.old_pos < add.old_pos):
                assert add is not None  # noqa: S101 - can_add
                base = _add_to_path(add, True, False, 0)
            else:
                assert remove is not None  # noqa: S101 - can_remove
                base = _add_to_path(remove, False, True, 1)
            new_pos, common = _extract_common(base, new, old, diagonal)
            steps += common // 16  # following equal lines is cheap, but not free
            if base.old_pos + 1 >= len(old) and new_pos + 1 >= len(new):
                return _build(base.last, new, old)
            best[diagonal] = base
            if base.old_pos + 1 >= len(old):
                high = min(high, diagonal - 1)
            if new_pos + 1 >= len(new):
                low = max(low, diagonal + 1)
        edit_length += 1
    raise AssertionError("unreachable: every diff ends within len(old) + len(new) edits")


# --- hunks ----------------------------------------------------------------------------------------------------------

def _range(start: int, count: int, *, always_count: bool) -> str:
    """A hunk range as GNU diff writes it: ``start,count``; ``start`` alone for one line; ``start-1,0`` for none."""
    if count == 0:
        return f"{start},0"
    if count == 1 and not always_count:
        return str(start + 1)
    return f"{start + 1},{count}"


def _line(sign: str, line: str) -> Iterator[str]:
    if line.endswith("\n"):
        yield sign + line
    else:
        yield sign + line + "\n"
        yield NO_NEWLINE


@attrs.define
class _Hunk:
    old_start: int
    new_start: int
    lines: list[str]
    old_count: int = 0
    new_count: int = 0


def _hunks(changes: Sequence[Change], context: int) -> Iterator[_Hunk]:
    """The hunks of a line diff: each change with ``context`` kept lines around it.

    Changes fewer than twice ``context`` kept lines apart share a hunk (jsdiff's ``structuredPatch``; difflib's
    ``get_grouped_opcodes`` and GNU diff cut the same hunks).
    """
    hunk: _Hunk | None = None
    old_line = new_line = 0
    for index, change in enumerate(changes):
        if change.added or change.removed:
            if hunk is None:  # the run before, if any, is a kept one
                lead = changes[index - 1].lines[max(0, changes[index - 1].count - context):] if index else ()
                hunk = _Hunk(old_line - len(lead), new_line - len(lead), [" " + line for line in lead])
            sign = "+" if change.added else "-"
            hunk.lines.extend(sign + line for line in change.lines)
            if change.added:
                new_line += change.count
            else:
                old_line += change.count
            continue
        if hunk is not None:
            if change.count <= 2 * context and index < len(changes) - 1:
                hunk.lines.extend(" " + line for line in change.lines)
            else:
                trail = change.lines[:context]
                hunk.lines.extend(" " + line for line in trail)
                hunk.old_count = old_line + len(trail) - hunk.old_start
                hunk.new_count = new_line + len(trail) - hunk.new_start
                yield hunk
                hunk = None
        old_line += change.count
        new_line += change.count
    if hunk is not None:
        hunk.old_count = old_line - hunk.old_start
        hunk.new_count = new_line - hunk.new_start
        yield hunk


def format_hunks(changes: Sequence[Change], *, context: int = 3, always_count: bool = False) -> str:
    """The ``@@`` hunks of a :func:`line_diff`; ``""`` when it changes nothing.

    Args:
        changes: The line diff.
        context: Unchanged lines shown around each change.
        always_count: Write a one-line range as ``12,1`` (jsdiff's style) instead of ``12`` (GNU diff's).
    """
    out: list[str] = []
    for hunk in _hunks(changes, context):
        out.append(f"@@ -{_range(hunk.old_start, hunk.old_count, always_count=always_count)} "
                   f"+{_range(hunk.new_start, hunk.new_count, always_count=always_count)} @@\n")
        for line in hunk.lines:
            out.extend(_line(line[0], line[1:]))
    return "".join(out)


def diff_hunks(before: str, after: str, *, context: int = 3, always_count: bool = False,
               algorithm: Algorithm = "difflib", autojunk: bool = False) -> str:
    """The ``@@`` hunks that turn ``before`` into ``after``; ``""`` when they are equal.

    Args:
        before: The old text.
        after: The new text.
        context: Unchanged lines shown around each change.
        always_count: Write a one-line range as ``12,1`` (jsdiff's style) instead of ``12`` (GNU diff's).
        algorithm: The line diff (see :func:`line_diff`).
        autojunk: For ``"difflib"``: its junk heuristic (see :func:`line_diff`).
    """
    return format_hunks(line_diff(before, after, algorithm=algorithm, autojunk=autojunk), context=context,
                        always_count=always_count)


_C_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
              '"': '\\"', "\\": "\\\\"}


def _needs_quotes(char: str) -> bool:
    return char in _C_ESCAPES or ord(char) < 0x20 or ord(char) == 0x7F or 0xDC80 <= ord(char) <= 0xDCFF


def quote_name(name: str) -> str:
    """A file name as ``git diff`` writes it in a header (``core.quotePath=false``), so ``patch`` reads it back.

    A name with a control character, ``"`` or ``\\`` (or an undecodable byte, held as a surrogate escape) is
    C-quoted: ``"a/tab\\there"``; other names are written as they are (non-ASCII included).
    """
    if not any(_needs_quotes(c) for c in name):
        return name
    out = []
    for char in name:
        if char in _C_ESCAPES:
            out.append(_C_ESCAPES[char])
        elif _needs_quotes(char):
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogateescape"))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _header_name(name: str) -> str:
    """A ``---``/``+++`` name: quoted when needed, else followed by a tab when it holds a space.

    git does the same, so that ``patch`` does not stop reading the name at the space.
    """
    quoted = quote_name(name)
    return quoted + "\t" if quoted == name and " " in name else quoted


def unified_diff(before: str | None, after: str | None, path: str, *, new_path: str | None = None,
                 context: int = 3, prefixes: tuple[str, str] = ("a/", "b/"), git_header: bool = False) -> str:
    """A unified diff of one file, with ``--- a/path`` and ``+++ b/path`` headers (``""`` when nothing changed).

    ``None`` for ``before`` is a created file (``--- /dev/null``), for ``after`` a deleted one (``+++ /dev/null``):
    ``patch -p1`` and ``git apply`` then create or delete it. A created or deleted empty file has no hunk, so its
    diff always has the git header (``diff --git`` and ``new file mode``/``deleted file mode``), which both read;
    so does a rename (``rename from``/``rename to``: both move the file, its hunks applied). Names are written as
    ``git diff`` writes them: C-quoted when they hold a control character, ``"`` or ``\\``, followed by a tab when
    they hold a space.

    Args:
        before: The old text, or None when the file did not exist.
        after: The new text, or None when the file is deleted.
        path: The file's path as the diff names it (relative to where the patch is applied, ``/`` separators).
        new_path: Its new name, for a rename (default: ``path``).
        context: Unchanged lines shown around each change.
        prefixes: What goes before the old and new names (``("a/", "b/")``: apply with ``patch -p1``).
        git_header: Start with ``diff --git a/path b/path`` (and ``new file mode``/``deleted file mode`` lines).
    """
    new_path = path if new_path is None else new_path
    hunks = diff_hunks(before or "", after or "", context=context)
    if not hunks and (before is None) == (after is None) and new_path == path:
        return ""
    head = []
    old_name, new_name = prefixes[0] + path, prefixes[1] + new_path
    renamed = new_path != path and before is not None and after is not None
    if git_header or not hunks or renamed:
        head.append(f"diff --git {quote_name(old_name)} {quote_name(new_name)}\n")
        if before is None:
            head.append("new file mode 100644\n")
        elif after is None:
            head.append("deleted file mode 100644\n")
        elif renamed:
            head.append(f"rename from {quote_name(path)}\nrename to {quote_name(new_path)}\n")
            if not hunks:  # as git writes a pure rename: GNU patch reads ---/+++ without a hunk as done already
                return "".join(head)
    head.append("--- /dev/null\n" if before is None else f"--- {_header_name(old_name)}\n")
    head.append("+++ /dev/null\n" if after is None else f"+++ {_header_name(new_name)}\n")
    return "".join(head) + hunks
