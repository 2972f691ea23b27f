"""edit_file's matching and diff: upstream's ``applyFileEdits``, and jsdiff's ``createTwoFilesPatch`` to the byte.

This module belongs in the edit family (multi-edit, dry-run diffs); it lives here until the family has those, so
the lead can move it when merging. What it holds:

- :func:`apply_edits`: each edit in turn on the text so far (line endings normalised to ``\\n``): the first exact
  occurrence, else the first run of lines equal once trimmed, whose replacement takes the first line's indentation
  and keeps the others' relative indentation, as upstream does;
- :func:`line_diff`: jsdiff 8's ``diffLines`` (Myers' algorithm with jsdiff's own choices among equal-cost paths,
  so the hunks are the ones upstream prints);
- :func:`unified_diff`: jsdiff's ``createTwoFilesPatch(path, path, old, new, "original", "modified")``, fenced as
  upstream fences it;
- :func:`rebuild`: the new file's bytes from the original's, keeping every untouched line as it was (its ``\\r\\n``
  and any bytes that are not UTF-8), where upstream rewrote the whole file with ``\\n`` and U+FFFD.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

from agenttools.toolsets.filesystem.texts import fail

__all__ = ["MAX_DIFF_STEPS", "Change", "apply_edits", "line_diff", "rebuild", "unified_diff"]

MAX_DIFF_STEPS = 1_000_000
"""The most steps jsdiff's algorithm may take here (about a second; an edit distance of about 1,400 lines). A diff
that needs more is made the cheap way: the common first and last lines kept, everything between them removed and
added (upstream's JavaScript would take its time; this is pure Python)."""

_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028" \
            "\u2029\u202f\u205f\u3000\ufeff"
_LEADING_SPACE = re.compile(f"^[{re.escape(_JS_SPACE)}]*")


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _indent(line: str) -> str:
    match = _LEADING_SPACE.match(line)
    return match.group(0) if match else ""


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def apply_edits(content: str, edits: Iterable[Mapping[str, str]]) -> str:
    """Upstream's edit loop on ``content`` (already ``\\n``-normalised); the edited text.

    Raises:
        ToolFailure: ``Could not find exact match for edit:\\n<oldText>`` for the first edit that matches nowhere.
    """
    modified = content
    for edit in edits:
        old = _lf(edit["oldText"])
        new = _lf(edit["newText"])
        if old in modified:
            modified = modified.replace(old, new, 1)
            continue
        old_lines = old.split("\n")
        lines = modified.split("\n")
        wanted = [line.strip(_JS_SPACE) for line in old_lines]
        trimmed = [line.strip(_JS_SPACE) for line in lines]
        for start in range(len(lines) - len(old_lines) + 1):
            if trimmed[start] == wanted[0] and trimmed[start:start + len(wanted)] == wanted:
                first_indent = _indent(lines[start])
                replaced = []
                for index, line in enumerate(new.split("\n")):
                    if index == 0:
                        replaced.append(first_indent + line.lstrip(_JS_SPACE))
                        continue
                    old_indent = _indent(old_lines[index]) if index < len(old_lines) else ""
                    new_indent = _indent(line)
                    if old_indent and new_indent:
                        extra = max(0, _utf16_len(new_indent) - _utf16_len(old_indent))
                        replaced.append(first_indent + " " * extra + line.lstrip(_JS_SPACE))
                    else:
                        replaced.append(line)
                lines[start:start + len(old_lines)] = replaced
                modified = "\n".join(lines)
                break
        else:
            raise fail(f"Could not find exact match for edit:\n{edit['oldText']}", "no_match")
    return modified


# --- jsdiff 8: diffLines ------------------------------------------------------------------------------------------

@attrs.define
class Change:
    """One run of jsdiff's result: ``count`` lines kept, added or removed, and their text."""

    count: int
    added: bool = False
    removed: bool = False
    value: str = ""


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


_LINE_BREAK = re.compile(r"(\n|\r\n)")


def _tokenize(text: str) -> list[str]:
    """Jsdiff's line tokens: each line with its line break."""
    parts = _LINE_BREAK.split(text)
    if parts and not parts[-1]:
        parts.pop()
    tokens: list[str] = []
    for index, part in enumerate(parts):
        if index % 2:
            tokens[-1] += part
        else:
            tokens.append(part)
    return [token for token in tokens if token]


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
        if not component.removed:
            value = "".join(new[new_pos:new_pos + component.count])
            new_pos += component.count
            if not component.added:
                old_pos += component.count
        else:
            value = "".join(old[old_pos:old_pos + component.count])
            old_pos += component.count
        changes.append(Change(count=component.count, added=component.added, removed=component.removed,
                              value=value))
    return changes


def _cheap(new: list[str], old: list[str]) -> list[Change]:
    """The diff past the step limit: common leading and trailing lines kept, the rest removed, then added."""
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    runs = [Change(count=head, value="".join(old[:head])),
            Change(count=len(old) - head - tail, removed=True, value="".join(old[head:len(old) - tail])),
            Change(count=len(new) - head - tail, added=True, value="".join(new[head:len(new) - tail])),
            Change(count=tail, value="".join(old[len(old) - tail:]))]
    return [run for run in runs if run.count]


def line_diff(old_text: str, new_text: str, *, max_steps: int = MAX_DIFF_STEPS) -> list[Change]:
    """The runs of kept, removed and added lines, as jsdiff 8's ``diffLines(old, new)`` finds them.

    Past ``max_steps`` steps of the algorithm the diff is made the cheap way (see :data:`MAX_DIFF_STEPS`).
    """
    old = _tokenize(old_text)
    new = _tokenize(new_text)
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


def _split_lines(text: str) -> list[str]:
    """Jsdiff's ``splitLines``: each line with its ``\\n`` (the last one without, when the text has none)."""
    lines = [line + "\n" for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()
    else:
        lines[-1] = lines[-1][:-1]
    return lines


def _patch_lines(old_name: str, new_name: str, changes: list[Change]) -> list[str]:
    """Jsdiff's ``structuredPatch`` with 4 lines of context, then ``formatPatch``'s lines."""
    context = 4
    runs = [*changes, Change(count=0)]
    hunks: list[tuple[int, int, int, int, list[str]]] = []
    old_start = new_start = 0
    current: list[str] = []
    old_line = new_line = 1
    all_lines: list[list[str]] = []
    for index, change in enumerate(runs):
        lines = _split_lines(change.value) if index < len(changes) else []
        all_lines.append(lines)
        if change.added or change.removed:
            if not old_start:
                old_start, new_start = old_line, new_line
                if index > 0:
                    previous = all_lines[index - 1]
                    current = [" " + line for line in previous[-context:]] if previous else []
                    old_start -= len(current)
                    new_start -= len(current)
            current.extend(("+" if change.added else "-") + line for line in lines)
            if change.added:
                new_line += len(lines)
            else:
                old_line += len(lines)
        else:
            if old_start:
                if len(lines) <= context * 2 and index < len(runs) - 2:
                    current.extend(" " + line for line in lines)
                else:
                    size = min(len(lines), context)
                    current.extend(" " + line for line in lines[:size])
                    hunks.append((old_start, old_line - old_start + size, new_start, new_line - new_start + size,
                                  current))
                    old_start = new_start = 0
                    current = []
            old_line += len(lines)
            new_line += len(lines)
    out = ["Index: " + old_name, "=" * 67, f"--- {old_name}\toriginal", f"+++ {new_name}\tmodified"]
    for o_start, o_count, n_start, n_count, lines in hunks:
        out.append(f"@@ -{o_start - 1 if o_count == 0 else o_start},{o_count} "
                   f"+{n_start - 1 if n_count == 0 else n_start},{n_count} @@")
        for line in lines:
            if line.endswith("\n"):
                out.append(line[:-1])
            else:
                out.append(line)
                out.append("\\ No newline at end of file")
    return out


def unified_diff(path: str, original: str, modified: str, changes: list[Change] | None = None) -> str:
    """Upstream's answer for an edit: jsdiff's two-file patch of the ``\\n``-normalised texts, fenced.

    The fence is one backtick more than the longest run inside (at least three); a blank line follows it.
    """
    if changes is None:
        changes = line_diff(_lf(original), _lf(modified))
    diff = "\n".join(_patch_lines(path, path, changes)) + "\n"
    fence = 3
    while "`" * fence in diff:
        fence += 1
    return f"{'`' * fence}diff\n{diff}{'`' * fence}\n\n"


def rebuild(raw_lines: list[str], changes: list[Change]) -> str:
    """The edited file keeping what upstream would have lost: the text to write.

    ``raw_lines`` are the original file's lines as read (each with its ``\\n``, ``\\r\\n`` kept, bytes that are not
    UTF-8 as surrogate escapes) and ``changes`` the :func:`line_diff` of their ``\\n``-normalised text and the
    edited one. Lines the diff keeps are written as they were; added lines end as most of the original's lines ended
    (``\\r\\n`` in a CRLF file). The last line has a line break or not as the edited text says.
    """
    crlf = sum(1 for line in raw_lines if line.endswith("\r\n"))
    newline = "\r\n" if crlf * 2 > len(raw_lines) else "\n"
    out: list[str] = []
    index = 0
    for change in changes:
        lines = _split_lines(change.value) if change.value else []
        if change.removed:
            index += len(lines)
            continue
        if change.added:
            out.extend(line[:-1] + newline if line.endswith("\n") else line for line in lines)
            continue
        for line in lines:
            raw = raw_lines[index]
            index += 1
            if not line.endswith("\n"):  # the last line of the result: no line break after it
                raw = raw[:-2] if raw.endswith("\r\n") else raw[:-1] if raw.endswith("\n") else raw
            out.append(raw)
    return "".join(out)
