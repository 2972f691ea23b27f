"""How the reference shows a file, and where each shown character comes from in the file.

The reference reads a file with universal newlines and edits ``read_text().expandtabs()``, writing that back: a
CRLF file becomes LF and every tab becomes spaces. We decide and word every edit on that same shown text, so each
answer is the reference's, but write only the span the edit covers back into the file's own bytes: the other
lines keep their tabs and line endings. :class:`Shown` maps shown offsets back to the file.
"""

from __future__ import annotations

import bisect
import re

from agenttools._text import newline_style

__all__ = ["Shown", "universal"]

_TOKENS = re.compile(r"[^\t\r\n]+|\t|\r\n|\r|\n")
_TAB = 8


def universal(text: str) -> str:
    """Text as Python's universal-newline reading gives it (``\\r\\n`` and ``\\r`` become ``\\n``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class Shown:
    """A file's text as the reference edits it (universal newlines, tabs expanded), mapped back to the file.

    Args:
        raw: The file's text, decoded and otherwise untouched.
    """

    __slots__ = ("_kinds", "_raw_starts", "_shown_starts", "newline", "raw", "text")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.newline = newline_style(raw)
        """The file's line ending (the most common one): what new lines are written with."""
        pieces: list[str] = []
        shown_starts: list[int] = []
        raw_starts: list[int] = []
        kinds: list[str] = []
        shown = column = 0
        if "\t" not in raw and "\r" not in raw:
            pieces.append(raw)
            shown_starts.append(0)
            raw_starts.append(0)
            kinds.append("text")
        else:
            for match in _TOKENS.finditer(raw):
                piece = match.group()
                shown_starts.append(shown)
                raw_starts.append(match.start())
                if piece == "\t":
                    kinds.append("tab")
                    piece = " " * (_TAB - column % _TAB)
                    column += len(piece)
                elif piece[0] in "\r\n":
                    kinds.append("newline")
                    piece = "\n"
                    column = 0
                else:
                    kinds.append("text")
                    column += len(piece)
                pieces.append(piece)
                shown += len(piece)
        self.text = "".join(pieces)
        """What the reference edits: ``read_text().expandtabs()``."""
        self._shown_starts = shown_starts
        self._raw_starts = raw_starts
        self._kinds = kinds

    def _piece(self, offset: int) -> int:
        return bisect.bisect_right(self._shown_starts, offset) - 1

    def _piece_end(self, index: int) -> tuple[int, int]:
        """(shown end, raw end) of piece ``index``."""
        last = index + 1 == len(self._kinds)
        shown_end = len(self.text) if last else self._shown_starts[index + 1]
        raw_end = len(self.raw) if last else self._raw_starts[index + 1]
        return shown_end, raw_end

    def replace(self, start: int, end: int, new: str) -> str:
        """The file's text with the shown span ``[start, end)`` replaced by ``new``, written in the file's line ending.

        A tab the span only partly covers keeps its uncovered columns as spaces.
        """
        new = self.adapt(new)
        if not self.text:
            return new
        if start == end:
            raw_start = raw_end = self._raw_offset(start)
            return self.raw[:raw_start] + new + self.raw[raw_end:]
        first = self._piece(start)
        prefix = ""
        if self._kinds[first] == "tab":
            prefix = " " * (start - self._shown_starts[first])
            raw_start = self._raw_starts[first]
        else:
            raw_start = self._raw_starts[first] + (start - self._shown_starts[first])
        last = self._piece(end - 1)
        shown_end, raw_end = self._piece_end(last)
        suffix = ""
        if self._kinds[last] == "tab":
            suffix = " " * (shown_end - end)
        elif self._kinds[last] == "text":
            raw_end = self._raw_starts[last] + (end - self._shown_starts[last])
        return self.raw[:raw_start] + prefix + new + suffix + self.raw[raw_end:]

    def _raw_offset(self, offset: int) -> int:
        if offset >= len(self.text):
            return len(self.raw)
        index = self._piece(offset)
        if self._kinds[index] == "text":
            return self._raw_starts[index] + (offset - self._shown_starts[index])
        return self._raw_starts[index]

    def line_start(self, line: int) -> int:
        """The raw offset where 0-based line ``line`` starts (lines split as the shown text splits)."""
        if line == 0:
            return 0
        seen = 0
        for index, kind in enumerate(self._kinds):
            if kind == "newline":
                seen += 1
                if seen == line:
                    return self._piece_end(index)[1]
        if "\t" not in self.raw and "\r" not in self.raw:
            position = -1
            for _ in range(line):
                position = self.raw.index("\n", position + 1)
            return position + 1
        raise IndexError(line)  # pragma: no cover - callers check the line count

    def insert(self, line: int, text: str) -> str:
        """The file's text with ``text`` inserted as whole lines before 0-based line ``line`` (or after the last)."""
        text = self.adapt(text)
        lines = self.text.count("\n") + 1
        if line >= lines:
            return self.raw + self.newline + text
        at = self.line_start(line)
        return self.raw[:at] + text + self.newline + self.raw[at:]

    def adapt(self, new: str) -> str:
        """New text in the file's line ending (a text carrying its own ``\\r`` is kept as it is)."""
        if self.newline != "\n" and "\r" not in new:
            return new.replace("\n", self.newline)
        return new
