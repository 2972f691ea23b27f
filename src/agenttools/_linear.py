r"""Path patterns compiled to regular expressions that cannot backtrack: what globs and gitignore lines become.

A pattern reaches this module as a list of *alternatives* (brace expansion is done by the caller), each a list of
tokens: one-character atoms (a literal character, or a :class:`CharClass` that never matches ``/``), ``STAR`` (a run
of characters within one segment), ``SLASH``, ``DEEP`` (``**/``: zero or more whole segments) and ``REST`` (a final
``**``: anything at all, after a ``SLASH`` or at the start).

Python's ``re`` backtracks, and the plain translation of ``*a*a*a*b`` (``[^/]*a[^/]*a[^/]*a[^/]*b``) or of
``**/a/**/a/**/b`` (``(?:.*/)?a/(?:.*/)?a/(?:.*/)?b``) tries every way of splitting the text among its wildcards:
O(n^k) steps for k of them, minutes for a file name of a few hundred characters, with the GIL held throughout. The
regexes built here give every stretch of text one way to be matched:

* **Within a segment** the stars cut the atoms into fixed-width chunks. The first chunk is anchored at the segment's
  start, the last at its end, and each chunk in between is found by a lazy scan in an atomic group,
  ``(?>[^/]*?chunk)``: its leftmost place is always a right one (a star follows it, so starting earlier never
  hurts), and the engine cannot come back to try another. A segment with two stars or more is atomic as a whole
  and checks that it ends at a ``/`` or the end of the text, so it matches in one way or not at all.
* **Across segments** ``DEEP`` cuts an alternative into blocks of whole segments, handled the same way: the first
  block is anchored at the start, each middle block is found by a lazy scan over whole segments in an atomic group,
  ``(?>(?:[^/]*/)*?block)`` (leftmost is right again: ``DEEP`` follows it), and the last block is anchored at the
  end. Consecutive ``DEEP`` tokens are one.
* **Alternatives** are tried one after another, each ending in ``\Z``: their costs add up, never multiply.
  Alternatives that differ only after their last wildcard (``*.{js,ts}``) share one regex ending in a group of
  fixed-width choices: the one unbounded quantifier before it, anchored at ``\Z``, still has one way to match.

Every unbounded quantifier is therefore either the only one that can cover a stretch of text, or inside an atomic
group the engine never re-enters to try another split. Matching n characters against an alternative of m tokens
costs O(n·m) steps at worst; callers bound m (pattern length, number of alternatives) so one match takes
milliseconds, and the GIL is never held for longer than that.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["ANY_CHAR", "DEEP", "REST", "SLASH", "STAR", "CharClass", "Special", "Token", "alternative_regex",
           "alternatives_source", "compile_alternatives", "segment_regex"]


class Special(enum.Enum):
    """The tokens that are not one character."""

    STAR = "*"
    SLASH = "/"
    DEEP = "**/"
    REST = "**"


STAR = Special.STAR
SLASH = Special.SLASH
DEEP = Special.DEEP
REST = Special.REST


class CharClass(NamedTuple):
    """One character out of a set; ``regex`` matches exactly one character and never ``/``."""

    regex: str
    members: str | None = None
    """The characters it matches, in order, when it is a short list of them (to test names without regex)."""


ANY_CHAR = CharClass("[^/]")

Token = str | CharClass | Special
"""A literal character (a ``str`` of length one), a class, or one of the special tokens."""


class _Choice(NamedTuple):
    """Fixed-width alternatives that end a pattern (``*.{js,ts}``): one regex instead of one per alternative."""

    regex: str


def _atom(token: str | CharClass | _Choice) -> str:
    return re.escape(token) if isinstance(token, str) else token.regex


def segment_regex(atoms: Sequence[Token | _Choice]) -> str:
    """The regex of one path segment: one-character atoms and ``STAR`` (runs of stars count once).

    It matches the segment's text in at most one way when it is followed by ``/`` or the end of the text.
    """
    chunks: list[list[str]] = [[]]
    after_star = False
    for token in atoms:
        if token is STAR:
            if not after_star:
                chunks.append([])
            after_star = True
        elif isinstance(token, Special):
            raise ValueError(f"{token} inside a segment")
        else:
            chunks[-1].append(_atom(token))
            after_star = False
    texts = ["".join(chunk) for chunk in chunks]
    if len(texts) == 1:
        return texts[0]
    if len(texts) == 2:  # one star: the only unbounded quantifier over the segment's text
        return f"{texts[0]}[^/]*{texts[1]}"
    middle = "".join(f"(?>[^/]*?{text})" for text in texts[1:-1])
    return f"(?>{texts[0]}{middle}[^/]*{texts[-1]}(?![^/]))"


def _sequence(tokens: Sequence[Token | _Choice]) -> str:
    """Segments separated by ``SLASH``, with an optional final ``REST``; no ``DEEP``."""
    out: list[str] = []
    atoms: list[Token | _Choice] = []
    for index, token in enumerate(tokens):
        if token is SLASH:
            out.append(segment_regex(atoms))
            out.append("/")
            atoms = []
        elif token is REST:
            if atoms or index != len(tokens) - 1:
                raise ValueError("REST must follow a SLASH (or start the pattern) and end it")
            out.append(".*")
        else:
            atoms.append(token)
    out.append(segment_regex(atoms))
    return "".join(out)


def alternative_regex(tokens: Sequence[Token | _Choice]) -> str:
    """The regex of one alternative (to be followed by ``\\Z``; ``.`` must match newlines: use ``(?s:...)``).

    ``DEEP`` must start the alternative or follow a ``SLASH``.
    """
    blocks: list[list[Token | _Choice]] = [[]]
    for index, token in enumerate(tokens):
        if token is DEEP:
            if index and tokens[index - 1] not in (SLASH, DEEP):
                raise ValueError("DEEP must start the pattern or follow a SLASH")
            if blocks[-1] or len(blocks) == 1:  # consecutive DEEP tokens are one
                blocks.append([])
        else:
            blocks[-1].append(token)
    if len(blocks) == 1:
        return _sequence(blocks[0])
    parts = [_sequence(blocks[0])]
    parts.extend(f"(?>(?:[^/]*/)*?{_sequence(block)})" for block in blocks[1:-1])
    parts.append(f"(?:[^/]*/)*?{_sequence(blocks[-1])}")
    return "".join(parts)


def alternatives_source(alternatives: Sequence[Sequence[Token]], end: str = r"\Z") -> str:
    """The regex source matching a whole text against any of the alternatives (each ends in ``\\Z``).

    It needs ``.`` to match newlines: wrap it in ``(?s:...)``. ``end`` replaces ``\\Z`` as the anchor after each
    alternative; it must be a zero-width assertion that holds only before a ``/`` or at the end of the text (such as
    ``(?=/)``), so that every segment still matches in one way.
    """
    tails: dict[tuple[Token, ...], list[str]] = {}
    for tokens in alternatives:
        cut = max((k + 1 for k, token in enumerate(tokens) if isinstance(token, Special)), default=0)
        tails.setdefault(tuple(tokens[:cut]), []).append(
            "".join(_atom(t) for t in tokens[cut:] if not isinstance(t, Special)))
    sources = []
    for head, ends in tails.items():
        ends = list(dict.fromkeys(ends))
        if len(ends) > 1:
            sources.append(alternative_regex([*head, _Choice("(?:" + "|".join(ends) + ")")]))
        else:
            sources.append(alternative_regex([*head, _Choice(ends[0])] if ends[0] else head))
    if not sources:
        return "(?!)"
    return sources[0] + end if len(sources) == 1 else "|".join(f"(?:{source}){end}" for source in sources)


def compile_alternatives(alternatives: Sequence[Sequence[Token]], *, ignore_case: bool = False,
                         end: str = r"\Z") -> re.Pattern[str]:
    """One regex whose ``match`` tells whether a whole ``/``-separated text matches any of the alternatives.

    With ``end=r"(?<=.)(?=/)"`` it tells instead whether a non-empty part of the text before one of its ``/`` does
    (a parent directory of a path), in one pass over the text.
    """
    return re.compile(f"(?s:{alternatives_source(alternatives, end)})", re.IGNORECASE if ignore_case else 0)
