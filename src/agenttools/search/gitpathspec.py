r"""git pathspecs, as ``git grep -- <pathspec>`` reads them, matched in linear time (the ``include`` of ``gemini``).

git's ``match_pathspec_item`` takes a path when the pathspec, compared literally, is the path itself or one of its
leading directories (``src`` and ``src/`` take everything below ``src``), or, when the pathspec has a wildcard
(``*?[\``), when ``wildmatch`` without ``WM_PATHNAME`` matches the whole path: ``*`` (and ``**``, which is the same)
and ``?`` match ``/`` too, so ``src/*.py`` takes ``src/util/helpers.py``. Bracket expressions are wildmatch's
(``[!a]``, ``[^a]``, ranges, ``[:alpha:]`` and the other POSIX classes, ``\`` escapes); a malformed one, or a
trailing ``\``, matches nothing. Matching is on bytes (``?`` is one byte), case-sensitive, as git's.

Two additions, both deliberate: braces with a comma expand first (``*.{ts,tsx}``; a brace without a comma, or
unclosed, is literal), and an alternative without ``/`` also matches the file's *name* at any depth (``Makefile``).

Each alternative is read by :mod:`agenttools._wildmatch` (git's bracket rules, the same reader as gitignore lines)
and compiled by :mod:`agenttools._pathmatch` to RE2, which matches in time linear in the path, so ``*a*a*a…b``
(where ``*`` crosses ``/``, catastrophic for a backtracking engine) is harmless. Paths and patterns are matched one
character per byte of their UTF-8, as git's are. What stays here is git's pathspec logic (a literal prefix takes
what is below it, ``.`` and ``..`` normalized) and the braces, which read text (a brace without a comma is
literal) where :mod:`agenttools._glob`'s read glob tokens (an unclosed one is an error).
"""

from __future__ import annotations

from agenttools._pathmatch import PathMatcher, PatternTooComplexError, compile_alternatives
from agenttools._wildmatch import read_pattern
from agenttools.errors import PatternError

__all__ = ["MAX_ALTERNATIVES", "MAX_BRACE_DEPTH", "MAX_EXPANDED_CHARS", "PathspecMatcher", "compile_pathspec",
           "expand_braces"]

MAX_ALTERNATIVES = 256
"""Most alternatives an include's braces may expand to (as for globs)."""
MAX_EXPANDED_CHARS = 4096
"""Most characters all the alternatives may hold together."""
MAX_BRACE_DEPTH = 32
"""Deepest nesting of braces."""

_SPECIAL = frozenset("*?[\\")
# --- brace expansion ------------------------------------------------------------------------------------------

def _class_end(pattern: str, i: int) -> int:
    """The index after the bracket expression at ``pattern[i] == '['`` as wildmatch scans it; -1 if unclosed."""
    n = len(pattern)
    j = i + 1
    if j < n and pattern[j] in "!^":
        j += 1
    first = True
    while j < n:
        ch = pattern[j]
        if ch == "]" and not first:
            return j + 1
        first = False
        if ch == "\\":
            j += 2
        elif ch == "[" and pattern.startswith(":", j + 1):
            close = pattern.find("]", j + 2)
            if close < 0:
                return -1
            j = close + 1 if close >= j + 3 and pattern[close - 1] == ":" else j + 1
        else:
            j += 1
    return -1


_Item = str | list[list["_Item"]]


def _parse(pattern: str, i: int, depth: int) -> tuple[list[_Item], int]:
    """Items up to the end, or to a ``,``/``}`` closing the current brace level: text, and groups of alternatives."""
    out: list[_Item] = []
    n = len(pattern)
    start = i
    while i < n:
        ch = pattern[i]
        if depth and ch in ",}":
            break
        if ch == "\\":
            i += 2
        elif ch == "[":
            end = _class_end(pattern, i)
            i = i + 1 if end < 0 else end
        elif ch == "{":
            if depth >= MAX_BRACE_DEPTH:
                raise PatternError(pattern=pattern, kind="glob",
                                   reason=f"glob pattern nests braces deeper than {MAX_BRACE_DEPTH} levels")
            group: list[list[_Item]] = []
            j = i + 1
            while True:
                alternative, j = _parse(pattern, j, depth + 1)
                group.append(alternative)
                if j >= n or pattern[j] == "}":
                    break
                j += 1
            if j >= n or len(group) < 2:  # unclosed, or no comma: the brace is literal text
                i += 1
                continue
            out.append(pattern[start:i])
            out.append(group)
            i = start = j + 1
        else:
            i += 1
    out.append(pattern[start:min(i, n)])
    return out, min(i, n)


def _size(items: list[_Item], cap: int) -> tuple[int, int]:
    """(alternatives, characters in all of them) once expanded, each capped just above ``cap``."""
    count, chars = 1, 0
    for item in items:
        if isinstance(item, str):
            chars = min(chars + count * len(item), cap + 1)
            continue
        sizes = [_size(alternative, cap) for alternative in item]
        group_count = min(sum(c for c, _ in sizes), cap + 1)
        group_chars = min(sum(t for _, t in sizes), cap + 1)
        count, chars = min(count * group_count, cap + 1), min(chars * group_count + count * group_chars, cap + 1)
    return count, chars


def _expand(items: list[_Item]) -> list[str]:
    results = [""]
    for item in items:
        if isinstance(item, str):
            results = [result + item for result in results]
        else:
            options = [option for alternative in item for option in _expand(alternative)]
            results = [result + option for result in results for option in options]
    return results


def expand_braces(pattern: str) -> list[str]:
    """The alternatives of ``pattern`` with its comma braces expanded (``*.{ts,tsx}``: ``*.ts``, ``*.tsx``).

    Raises:
        PatternError: The braces expand to more than :data:`MAX_ALTERNATIVES` alternatives or
            :data:`MAX_EXPANDED_CHARS` characters, or nest too deep.
    """
    items, _ = _parse(pattern, 0, 0)
    count, chars = _size(items, max(MAX_ALTERNATIVES, MAX_EXPANDED_CHARS))
    if count > MAX_ALTERNATIVES or chars > MAX_EXPANDED_CHARS:
        raise PatternError(pattern=pattern, kind="glob", reason=f"glob pattern is too complex: its braces expand to "
                           f"more than {MAX_ALTERNATIVES} alternatives or {MAX_EXPANDED_CHARS} characters")
    return list(dict.fromkeys(_expand(items)))


# --- matching ------------------------------------------------------------------------------------------------

def _as_bytes(text: str) -> str:
    """``text`` one character per byte of its UTF-8 (git's wildmatch reads bytes: ``?`` is one byte)."""
    if text.isascii():
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate outside the escape range: as Node writes it
        raw = text.encode("utf-8", "replace")
    return raw.decode("latin-1")


def _compile(alternatives: list[str], pattern: str) -> PathMatcher | None:
    """One matcher for the alternatives, read as wildmatch without ``WM_PATHNAME`` reads them."""
    tokens = [read for alternative in alternatives
              for read in read_pattern(_as_bytes(alternative), pathname=False, slash=True) or ()]
    if not tokens:
        return None
    try:
        return compile_alternatives(tokens)
    except PatternTooComplexError as exc:
        raise PatternError(pattern=pattern, kind="glob", reason=f"glob pattern is too complex ({exc})") from None


def _normalize(alternative: str) -> str | None:
    """The pathspec as git's ``prefix_path`` leaves it: ``.`` and empty components dropped, ``..`` applied.

    None when ``..`` climbs out of the search directory (nothing in it can match).
    """
    if "//" not in alternative and "." not in alternative:
        return alternative
    trailing = alternative.endswith("/")
    parts: list[str] = []
    for part in alternative.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
            continue
        parts.append(part)
    text = "/".join(parts)
    return text + "/" if trailing and text else text


class PathspecMatcher:
    """Whether a ``/``-separated path relative to the search directory matches an ``include`` pathspec."""

    __slots__ = ("_ancestors", "_exact", "_full", "_name", "everything")

    def __init__(self, pattern: str) -> None:
        """Compile ``pattern`` (braces expanded, each alternative normalized as git does).

        Raises:
            PatternError: The braces expand too far, or RE2 cannot hold the pattern.
        """
        alternatives = [normal for alternative in expand_braces(pattern)
                        if (normal := _normalize(alternative)) is not None]
        self.everything = "" in alternatives
        """The pathspec names the search directory itself (``.``): every file matches."""
        self._exact = frozenset(a for a in alternatives if not a.endswith("/"))
        self._ancestors = frozenset(a.rstrip("/") for a in alternatives if a.rstrip("/"))
        self._full = _compile([a for a in alternatives if _SPECIAL & set(a)], pattern)
        self._name = _compile([a for a in alternatives if "/" not in a], pattern)

    def match(self, rel: str) -> bool:
        """Whether ``rel`` (a file's path relative to the search directory) is included."""
        if self.everything or rel in self._exact:
            return True
        ancestors = self._ancestors
        if ancestors and "/" in rel:
            cut = rel.find("/")
            while cut >= 0:
                if rel[:cut] in ancestors:
                    return True
                cut = rel.find("/", cut + 1)
        if self._full is not None and self._full.match(_as_bytes(rel)):
            return True
        if self._name is None:
            return False
        name = rel.rpartition("/")[2]
        return name in self._exact or self._name.match(_as_bytes(name))


def compile_pathspec(pattern: str) -> PathspecMatcher:
    """A :class:`PathspecMatcher` for ``pattern``.

    Raises:
        PatternError: The braces expand too far, or RE2 cannot hold the pattern.
    """
    return PathspecMatcher(pattern)
