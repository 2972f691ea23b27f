"""Tolerant matching for edits: find a text that differs from the file only in whitespace, line endings or quotes.

Each strategy compares a normalised form of the file with the same normal form of the text to find, then maps a
match back to the file's own characters, so only the matched span changes. The strategies form a ladder, each
forgiving what the ones before it forgive and one thing more:

``line_endings``
    ``\\r\\n``, ``\\r`` and ``\\n`` are the same line break.
``unicode_quotes``
    Curly and other typographic quotes (U+2018 to U+201F, primes U+2032/U+2033, guillemets) are their ASCII
    quote.
``trailing_whitespace``
    Spaces and tabs at the end of a line do not count.
``indentation``
    Leading whitespace of each line does not count; the match covers whole lines, and the replacement is
    re-indented by the difference between the file's indentation and the text's (first non-blank line).
``whitespace``
    Every run of whitespace (line breaks included) is one space; leading and trailing whitespace of the text to
    find does not count (nor is it added: the same leading or trailing whitespace of the replacement is dropped).
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Callable, Iterable

import attrs

__all__ = ["STRATEGIES", "Match", "Normalized", "find", "normal_text", "normalize", "strategy_names"]

STRATEGIES = ("line_endings", "unicode_quotes", "trailing_whitespace", "indentation", "whitespace")
"""The tolerant strategies, least tolerant first (``exact`` is always tried before them)."""

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                         "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
                         "\u00ab": '"', "\u00bb": '"'})
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")
_HSPACE = " \t\f\v\u00a0"
_WS_RUN = re.compile(r"\s+")
_BREAK = re.compile(r"\r\n|\r|\n")


def strategy_names(tolerant: bool | Iterable[str]) -> tuple[str, ...]:
    """The strategies ``tolerant`` asks for, in ladder order (``True``: all; ``False``: none).

    Raises:
        ValueError: A name that is not a strategy.
    """
    if tolerant is True:
        return STRATEGIES
    if tolerant is False:
        return ()
    wanted = set(tolerant)
    unknown = sorted(wanted - set(STRATEGIES))
    if unknown:
        raise ValueError(f"unknown matching strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)}")
    return tuple(name for name in STRATEGIES if name in wanted)


@attrs.frozen(kw_only=True)
class Normalized:
    """A normalised text and, piece by piece, where each of its characters came from."""

    text: str
    starts: list[int]
    """Where each piece starts in the normalised text (ascending)."""
    origins: list[tuple[int, int, bool]]
    """Each piece's span in the original, and whether it is copied one to one (else it is one character)."""

    def original_start(self, pos: int) -> int:
        """Where the normalised character at ``pos`` starts in the original."""
        piece = bisect.bisect_right(self.starts, pos) - 1
        begin, _, same = self.origins[piece]
        return begin + (pos - self.starts[piece]) if same else begin

    def original_end(self, pos: int) -> int:
        """Where the normalised character at ``pos`` ends in the original."""
        piece = bisect.bisect_right(self.starts, pos) - 1
        begin, end, same = self.origins[piece]
        return begin + (pos - self.starts[piece]) + 1 if same else end


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.starts: list[int] = []
        self.origins: list[tuple[int, int, bool]] = []
        self.length = 0

    def copy(self, source: str, begin: int, end: int) -> None:
        if begin < end:
            self.parts.append(source[begin:end])
            self.starts.append(self.length)
            self.origins.append((begin, end, True))
            self.length += end - begin

    def one(self, char: str, begin: int, end: int) -> None:
        self.parts.append(char)
        self.starts.append(self.length)
        self.origins.append((begin, end, False))
        self.length += 1

    def build(self, quotes: bool) -> Normalized:
        text = "".join(self.parts)
        return Normalized(text=text.translate(_QUOTES) if quotes else text, starts=self.starts,
                          origins=self.origins)


def normalize(text: str, strategy: str) -> Normalized:
    """``text`` in the normal form of ``strategy`` (a name from :data:`STRATEGIES`)."""
    level = STRATEGIES.index(strategy)
    out = _Builder()
    if strategy == "whitespace":
        pos = 0
        for run in _WS_RUN.finditer(text):
            out.copy(text, pos, run.start())
            out.one(" ", run.start(), run.end())
            pos = run.end()
        out.copy(text, pos, len(text))
        return out.build(quotes=True)
    for line in _LINE.finditer(text):
        begin, end = line.span(1)
        if level >= STRATEGIES.index("indentation"):
            while begin < end and text[begin] in _HSPACE:
                begin += 1
        if level >= STRATEGIES.index("trailing_whitespace"):
            while end > begin and text[end - 1] in _HSPACE:
                end -= 1
        out.copy(text, begin, end)
        if line.group(2):
            out.one("\n", *line.span(2))
        if line.end() == len(text):
            break
    return out.build(quotes=level >= STRATEGIES.index("unicode_quotes"))


_EDGE_SPACE = re.compile(f"(?m)^[{_HSPACE}]+|[{_HSPACE}]+$")
_TRAILING_SPACE = re.compile(f"(?m)[{_HSPACE}]+$")


def normal_text(text: str, strategy: str) -> str:
    """``normalize(text, strategy).text``, computed without the map back to the original (much faster).

    :func:`find` looks for the text to find in this first, and maps only when it is there.
    """
    if strategy == "whitespace":
        return _WS_RUN.sub(" ", text).translate(_QUOTES)
    level = STRATEGIES.index(strategy)
    out = text.replace("\r\n", "\n").replace("\r", "\n")
    if level >= STRATEGIES.index("indentation"):
        out = _EDGE_SPACE.sub("", out)
    elif level >= STRATEGIES.index("trailing_whitespace"):
        out = _TRAILING_SPACE.sub("", out)
    return out.translate(_QUOTES) if level >= STRATEGIES.index("unicode_quotes") else out


def _needle(old: str, strategy: str) -> str:
    """``old`` in the normal form of ``strategy``, as a needle (``whitespace`` also strips it)."""
    needle = normal_text(old, strategy)
    return needle.strip(" ") if strategy == "whitespace" else needle


@attrs.frozen(kw_only=True)
class Match:
    """One span of the original text that a strategy matched, and what to put there."""

    start: int
    end: int
    replacement: str


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(_HSPACE))]


def _first_indented(text: str) -> str | None:
    """The indentation of the first non-blank line of ``text``."""
    for line in text.split("\n"):
        if line.strip():
            return _indent(line)
    return None


def _unit(indents: Iterable[str]) -> str | None:
    """The indentation unit of these indentations: a tab, or the common step between space indents."""
    tabs = spaces = 0
    widths = set()
    for indent in indents:
        if "\t" in indent and set(indent) == {"\t"}:
            tabs += 1
        elif set(indent) <= {" "}:
            spaces += bool(indent)
            widths.add(len(indent))
    if tabs > spaces:
        return "\t"
    ordered = sorted(widths)
    step = 0
    for low, high in itertools.pairwise(ordered):
        step = math.gcd(step, high - low)
    return " " * step if step else None


def _levels(indent: str, unit: str) -> int | None:
    """How many ``unit``s ``indent`` is (None when it is not whole units)."""
    count, rest = divmod(len(indent), len(unit))
    return count if not rest and indent == unit * count else None


def _file_unit(text: str) -> str | None:
    """The file's own indentation unit: its most common indent step between consecutive lines."""
    steps: dict[str, int] = {}
    previous = ""
    for line in text.splitlines():
        if not line.strip():
            continue
        indent = _indent(line)
        if indent.startswith(previous) and len(indent) > len(previous) and len(set(indent[len(previous):])) == 1:
            step = indent[len(previous):]
            steps[step] = steps.get(step, 0) + 1
        previous = indent
    return max(steps, key=lambda k: (steps[k], -len(k))) if steps else None


def _reindent(new: str, old: str, span: str, file_unit: Callable[[], str | None]) -> str:
    """``new`` (written with ``old``'s indentation) re-indented as the matched ``span`` is.

    Each indentation of ``old`` maps to the file's indentation on the matching line of ``span`` (the strategy
    matched them line for line); an indentation of ``new`` that ``old`` lacks is counted in ``old``'s unit
    (tabs, or its spaces step) from ``old``'s first indented line and written in the file's unit, so tabs stay
    tabs and spaces spaces. A line that cannot be measured so is shifted by the difference of the first lines.
    """
    old_lines, span_lines = old.split("\n"), span.split("\n")
    mapping: dict[str, str] = {}
    for old_line, span_line in zip(old_lines, span_lines, strict=False):
        if old_line.strip() and span_line.strip():
            mapping.setdefault(_indent(old_line), _indent(span_line))
    if not mapping:
        return new
    old_base = _first_indented(old) or ""
    file_base = mapping.get(old_base, _first_indented(span) or "")
    new_lines = new.split("\n")
    old_unit = _unit(_indent(line) for line in old_lines + new_lines if line.strip())
    unit = _unit(mapping.values()) if len(set(mapping.values())) > 1 else None
    lines = []
    for line in new_lines:
        indent = _indent(line)
        if not line.strip():
            lines.append(line)
            continue
        mapped = mapping.get(indent)
        if mapped is None and old_unit is not None:
            unit = unit or file_unit() or (_first_indented(span) or "")[:1] or None
            if unit is not None:
                mapped = _shifted(indent, old_base, file_base, old_unit, unit)
        if mapped is None:
            mapped = _offset(indent, old_base, file_base)
        lines.append(mapped + line[len(indent):])
    return "\n".join(lines)


def _shifted(indent: str, old_base: str, file_base: str, old_unit: str, file_unit: str) -> str | None:
    """``indent`` moved from ``old_base`` to ``file_base``, counted in units (None when not whole units)."""
    level, base = _levels(indent, old_unit), _levels(old_base, old_unit)
    if level is None or base is None:
        return None
    delta = level - base
    if delta >= 0:
        return file_base + file_unit * delta
    cut = file_unit * -delta
    return file_base[: len(file_base) - len(cut)] if file_base.endswith(cut) else None


def _offset(indent: str, old_base: str, file_base: str) -> str:
    """``indent`` shifted by the difference between ``old_base`` and ``file_base`` (same character), or rebased."""
    same_char = len(set(old_base + file_base)) <= 1
    char = (old_base + file_base)[:1] or " "
    if same_char and set(indent) <= {char}:
        return char * max(0, len(indent) + len(file_base) - len(old_base))
    if indent.startswith(old_base):
        return file_base + indent[len(old_base):]
    return indent


def _line_start(text: str, pos: int) -> int:
    return max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1


def _newlines_like(new: str, span: str, fallback: str) -> str:
    """``new`` with its line breaks written as the matched span writes them (else as ``fallback``)."""
    style = "\r\n" if "\r\n" in span else "\n" if "\n" in span else "\r" if "\r" in span else fallback
    plain = new.replace("\r\n", "\n").replace("\r", "\n")
    return plain if style == "\n" else plain.replace("\n", style)


def _adapt(new: str, old: str, span: str, strategy: str, file_unit: Callable[[], str | None]) -> str:
    """``new`` fitted to the matched ``span`` of ``text``.

    Re-indented (``indentation``), or without the leading and trailing whitespace that ``old`` had and the match
    left out (``whitespace``).
    """
    if strategy == "indentation":
        return _reindent(_plain(new), _plain(old), _plain(span), file_unit)
    if strategy == "whitespace":
        lead, trail = old[: len(old) - len(old.lstrip())], old[len(old.rstrip()):]
        if lead and new.startswith(lead):
            new = new[len(lead):]
        if trail and new.endswith(trail):
            new = new[: len(new) - len(trail)]
    return new


def _keep_untouched(adapted: str, old: str, new: str, span: str) -> str:
    """``adapted`` with the lines the edit leaves alone taken back from the file.

    The lines ``new`` shares with ``old`` at its start and at its end are the file's lines the model did not
    mean to change: they keep the file's own bytes (its trailing whitespace, typographic quotes, indentation).
    The other strategies match line for line, so ``old``'s lines are ``span``'s lines.
    """
    old_lines, new_lines = _plain(old).split("\n"), _plain(new).split("\n")
    span_lines, out = _BREAK.split(span), _plain(adapted).split("\n")
    if len(old_lines) != len(span_lines) or len(out) != len(new_lines):  # pragma: no cover - line for line
        return adapted
    limit = min(len(old_lines), len(new_lines))
    head = 0
    while head < limit and old_lines[head] == new_lines[head]:
        out[head] = span_lines[head]
        head += 1
    tail = 1
    while tail <= limit - head and old_lines[-tail] == new_lines[-tail]:
        out[-tail] = span_lines[-tail]
        tail += 1
    return "\n".join(out)


def _plain(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def find(text: str, old: str, new: str, strategy: str, *, newline: str = "\n") -> list[Match]:
    """Every non-overlapping match of ``old`` in ``text`` under ``strategy``, left to right, with its replacement.

    Args:
        text: The file's text.
        old: The text to find.
        new: What the model wants in its place (adapted to each match: line breaks, indentation).
        strategy: A name from :data:`STRATEGIES`.
        newline: The file's line break, for a replacement whose match spans none.
    """
    needle = _needle(old, strategy)
    if not needle.strip():
        return []  # a text of only whitespace matches nothing tolerantly
    if needle not in normal_text(text, strategy):
        return []  # the common case, decided without mapping every character back
    hay = normalize(text, strategy)
    units: list[str | None] = []

    def file_unit() -> str | None:  # the whole file's unit, measured once and only when a match needs it
        if not units:
            units.append(_file_unit(text))
        return units[0]

    matches = []
    at = hay.text.find(needle)
    while at != -1:
        if strategy == "indentation" and at > 0 and hay.text[at - 1] != "\n":
            at = hay.text.find(needle, at + 1)  # this strategy matches whole lines only
            continue
        start, end = hay.original_start(at), hay.original_end(at + len(needle) - 1)
        if strategy == "indentation":
            start = _line_start(text, start)
        span = text[start:end]
        adapted = _adapt(new, old, span, strategy, file_unit)
        if strategy != "whitespace":
            adapted = _keep_untouched(adapted, old, new, span)
        replacement = _newlines_like(adapted, span, newline)
        matches.append(Match(start=start, end=end, replacement=replacement))
        at = hay.text.find(needle, at + len(needle))
    return matches
