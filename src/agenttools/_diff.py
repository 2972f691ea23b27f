"""Unified diffs of two texts, as ``diff -u`` and ``git diff`` print them and ``patch -p1`` applies them.

Lines are split on ``\\n`` only (a ``\\r`` stays on its line, as ``patch`` reads it), a last line without a newline
gets the ``\\ No newline at end of file`` marker, and hunks carry ``context`` lines on each side (hunks closer than
twice that are merged). The hunk body is its own function so that a toolset can put its own header on it.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["NO_NEWLINE", "diff_hunks", "quote_name", "split_lines", "unified_diff"]

NO_NEWLINE = "\\ No newline at end of file\n"
"""The line ``diff`` and ``patch`` use to say the line before it has no newline."""


def split_lines(text: str) -> list[str]:
    """``text`` cut after each ``\\n`` (the last piece may lack one; ``""`` has no lines)."""
    lines = text.split("\n")
    pieces = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        pieces.append(lines[-1])
    return pieces


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


def diff_hunks(before: str, after: str, *, context: int = 3, always_count: bool = False) -> str:
    """The ``@@`` hunks that turn ``before`` into ``after``; ``""`` when they are equal.

    Args:
        before: The old text.
        after: The new text.
        context: Unchanged lines shown around each change.
        always_count: Write a one-line range as ``12,1`` (jsdiff's style) instead of ``12`` (GNU diff's).
    """
    import difflib  # loaded by the first diff, not by every toolset's start-up

    old, new = split_lines(before), split_lines(after)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    out: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        old_start, old_count = first[1], last[2] - first[1]
        new_start, new_count = first[3], last[4] - first[3]
        out.append(f"@@ -{_range(old_start, old_count, always_count=always_count)} "
                   f"+{_range(new_start, new_count, always_count=always_count)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for line in old[i1:i2]:
                    out.extend(_line(" ", line))
                continue
            for line in old[i1:i2]:
                out.extend(_line("-", line))
            for line in new[j1:j2]:
                out.extend(_line("+", line))
    return "".join(out)


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
    diff always has the git header (``diff --git`` and ``new file mode``/``deleted file mode``), which both read.
    Names are written as ``git diff`` writes them: C-quoted when they hold a control character, ``"`` or ``\\``,
    followed by a tab when they hold a space.

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
    if git_header or not hunks:
        head.append(f"diff --git {quote_name(old_name)} {quote_name(new_name)}\n")
        if before is None:
            head.append("new file mode 100644\n")
        elif after is None:
            head.append("deleted file mode 100644\n")
    head.append("--- /dev/null\n" if before is None else f"--- {_header_name(old_name)}\n")
    head.append("+++ /dev/null\n" if after is None else f"+++ {_header_name(new_name)}\n")
    return "".join(head) + hunks
