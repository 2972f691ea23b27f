"""edit_file's matching and answer: upstream's ``applyFileEdits``, and jsdiff's ``createTwoFilesPatch`` to the byte.

- :func:`apply_edits`: each edit in turn on the text so far (line endings normalised to ``\\n``): the first exact
  occurrence, else the first run of lines equal once trimmed, whose replacement takes the first line's indentation
  and keeps the others' relative indentation, as upstream does. The edit family's tolerant matching cannot stand
  in for it: its ``indentation`` strategy also folds typographic quotes, strips fewer characters than JavaScript's
  ``trim``, may end a match inside a line, matches nothing for a text of only whitespace, asks for a unique match
  and re-indents the replacement by indentation units, where upstream takes the first whole-line match and adds
  spaces;
- :func:`line_diff`: the diff family's line diff with jsdiff 8's algorithm (``diffLines``), so the hunks are the
  ones upstream prints;
- :func:`unified_diff`: jsdiff's ``createTwoFilesPatch(path, path, old, new, "original", "modified")``, fenced as
  upstream fences it: the ``Index:`` header around the diff family's hunks;
- :func:`rebuild`: the new file's bytes from the original's, keeping every untouched line as it was (its ``\\r\\n``
  and any bytes that are not UTF-8), where upstream rewrote the whole file with ``\\n`` and U+FFFD.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from agenttools import _diff
from agenttools._diff import MAX_DIFF_STEPS, Change, format_hunks
from agenttools.toolsets.filesystem.texts import JS_SPACE, fail, js_length

__all__ = ["apply_edits", "line_diff", "rebuild", "unified_diff"]

_LEADING_SPACE = re.compile(f"^[{re.escape(JS_SPACE)}]*")


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _indent(line: str) -> str:
    match = _LEADING_SPACE.match(line)
    return match.group(0) if match else ""


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
        wanted = [line.strip(JS_SPACE) for line in old_lines]
        trimmed = [line.strip(JS_SPACE) for line in lines]
        for start in range(len(lines) - len(old_lines) + 1):
            if trimmed[start] == wanted[0] and trimmed[start:start + len(wanted)] == wanted:
                first_indent = _indent(lines[start])
                replaced = []
                for index, line in enumerate(new.split("\n")):
                    if index == 0:
                        replaced.append(first_indent + line.lstrip(JS_SPACE))
                        continue
                    old_indent = _indent(old_lines[index]) if index < len(old_lines) else ""
                    new_indent = _indent(line)
                    if old_indent and new_indent:
                        extra = max(0, js_length(new_indent) - js_length(old_indent))
                        replaced.append(first_indent + " " * extra + line.lstrip(JS_SPACE))
                    else:
                        replaced.append(line)
                lines[start:start + len(old_lines)] = replaced
                modified = "\n".join(lines)
                break
        else:
            raise fail(f"Could not find exact match for edit:\n{edit['oldText']}", "no_match")
    return modified


def line_diff(old_text: str, new_text: str, *, max_steps: int = MAX_DIFF_STEPS) -> list[Change]:
    """The runs of kept, removed and added lines, as jsdiff 8's ``diffLines(old, new)`` finds them.

    Past ``max_steps`` steps of the algorithm the diff is made the cheap way (see :data:`.MAX_DIFF_STEPS`).
    """
    return _diff.line_diff(old_text, new_text, algorithm="jsdiff", max_steps=max_steps)


def unified_diff(path: str, original: str, modified: str, changes: Sequence[Change] | None = None) -> str:
    """Upstream's answer for an edit: jsdiff's two-file patch of the ``\\n``-normalised texts, fenced.

    jsdiff's header (``Index:``, a rule of 67 ``=``, the names followed by a tab and ``original``/``modified``),
    then the hunks with 4 lines of context and every range counted (``1,1``). The fence is one backtick more than
    the longest run inside (at least three); a blank line follows it. ``changes`` is the :func:`.line_diff` of the
    two texts, when the caller has it already.
    """
    if changes is None:
        changes = line_diff(_lf(original), _lf(modified))
    diff = (f"Index: {path}\n{'=' * 67}\n--- {path}\toriginal\n+++ {path}\tmodified\n"
            + format_hunks(changes, context=4, always_count=True))
    fence = 3
    while "`" * fence in diff:
        fence += 1
    return f"{'`' * fence}diff\n{diff}{'`' * fence}\n\n"


def rebuild(raw_lines: list[str], changes: Sequence[Change]) -> str:
    """The edited file keeping what upstream would have lost: the text to write.

    ``raw_lines`` are the original file's lines as read (each with its ``\\n``, ``\\r\\n`` kept, bytes that are not
    UTF-8 as surrogate escapes) and ``changes`` the :func:`.line_diff` of their ``\\n``-normalised text and the
    edited one. Lines the diff keeps are written as they were; added lines end as most of the original's lines ended
    (``\\r\\n`` in a CRLF file). The last line has a line break or not as the edited text says.
    """
    crlf = sum(1 for line in raw_lines if line.endswith("\r\n"))
    newline = "\r\n" if crlf * 2 > len(raw_lines) else "\n"
    out: list[str] = []
    index = 0
    for change in changes:
        if change.removed:
            index += change.count
            continue
        if change.added:
            out.extend(line[:-1] + newline if line.endswith("\n") else line for line in change.lines)
            continue
        for line in change.lines:
            raw = raw_lines[index]
            index += 1
            if not line.endswith("\n"):  # the last line of the result: no line break after it
                raw = raw[:-2] if raw.endswith("\r\n") else raw[:-1] if raw.endswith("\n") else raw
            out.append(raw)
    return "".join(out)
