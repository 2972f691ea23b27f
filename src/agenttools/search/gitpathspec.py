r"""git pathspecs, as ``git grep -- <pathspec>`` reads them, matched in linear time (the ``include`` of ``gemini``).

git's ``match_pathspec_item`` takes a path when the pathspec, compared literally, is the path itself or one of its
leading directories (``src`` and ``src/`` take everything below ``src``), or, when the pathspec has a wildcard
(``*?[\``), when ``wildmatch`` without ``WM_PATHNAME`` matches the whole path: ``*`` (and ``**``, which is the same)
and ``?`` match ``/`` too, so ``src/*.py`` takes ``src/util/helpers.py``. Bracket expressions are wildmatch's
(``[!a]``, ``[^a]``, ranges, ``[:alpha:]`` and the other POSIX classes, ``\`` escapes); a malformed one, or a
trailing ``\``, matches nothing. Matching is on bytes (``?`` is one byte), case-sensitive, as git's.

Two additions, both deliberate: braces with a comma expand first (``*.{ts,tsx}``; a brace without a comma, or
unclosed, is literal), and an alternative without ``/`` also matches the file's *name* at any depth (``Makefile``).

Each alternative becomes an RE2 regular expression (google-re2, Latin-1 mode): RE2 matches in time linear in the
path, so ``*a*a*a…b`` (where ``*`` crosses ``/``, catastrophic for a backtracking engine) is harmless. A call into
RE2 costs a few microseconds, so a path is first tested against what every match must start and end with.
"""

from __future__ import annotations

import os
from typing import Any

from agenttools._lazy import lazy_module
from agenttools.errors import PatternError

re2: Any = lazy_module("re2")  # google-re2 (no type hints), 8 ms to import: loaded by the first search that needs it

__all__ = ["MAX_ALTERNATIVES", "MAX_BRACE_DEPTH", "MAX_EXPANDED_CHARS", "PathspecMatcher", "compile_pathspec",
           "expand_braces"]

MAX_ALTERNATIVES = 256
"""Most alternatives an include's braces may expand to (as for globs)."""
MAX_EXPANDED_CHARS = 4096
"""Most characters all the alternatives may hold together."""
MAX_BRACE_DEPTH = 32
"""Deepest nesting of braces."""

_SPECIAL = frozenset("*?[\\")
_POSIX: dict[bytes, frozenset[int]] = {
    b"alnum": frozenset(c for c in range(128) if chr(c).isalnum()),
    b"alpha": frozenset(c for c in range(128) if chr(c).isalpha()),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset([*range(32), 127]),
    b"digit": frozenset(b"0123456789"),
    b"graph": frozenset(range(33, 127)),
    b"lower": frozenset(b"abcdefghijklmnopqrstuvwxyz"),
    b"print": frozenset(range(32, 127)),
    b"punct": frozenset(c for c in range(33, 127) if not chr(c).isalnum()),
    b"space": frozenset(b" \t\n\v\f\r"),
    b"upper": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    b"xdigit": frozenset(b"0123456789abcdefABCDEF"),
}


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


# --- wildmatch to RE2 -----------------------------------------------------------------------------------------

def _byte_class(members: set[int]) -> bytes:
    ranges: list[bytes] = []
    ordered = sorted(members)
    index = 0
    while index < len(ordered):
        low = high = ordered[index]
        while index + 1 < len(ordered) and ordered[index + 1] == high + 1:
            index += 1
            high = ordered[index]
        ranges.append(b"\\x%02x" % low if low == high else b"\\x%02x-\\x%02x" % (low, high))
        index += 1
    return b"[" + b"".join(ranges) + b"]"


def _bracket(pattern: bytes, i: int) -> tuple[bytes | None, int]:
    """The RE2 class of wildmatch's bracket expression at ``pattern[i]``; (None, _) when it can never match."""
    n = len(pattern)
    j = i + 1
    negated = j < n and pattern[j] in b"!^"
    if negated:
        j += 1
    members: set[int] = set()
    previous = 0
    first = True
    while True:
        if j >= n:
            return None, n
        ch = pattern[j]
        if ch == 0x5D and not first:  # ]
            j += 1
            break
        first = False
        if ch == 0x5C:  # \
            if j + 1 >= n:
                return None, n
            previous = pattern[j + 1]
            members.add(previous)
            j += 2
        elif ch == 0x2D and previous and j + 1 < n and pattern[j + 1] != 0x5D:  # - (a range)
            j += 1
            high = pattern[j]
            if high == 0x5C:
                j += 1
                if j >= n:
                    return None, n
                high = pattern[j]
            members.update(range(previous, high + 1))
            previous = 0
            j += 1
        elif ch == 0x5B and j + 1 < n and pattern[j + 1] == 0x3A:  # [:class:]
            close = pattern.find(b"]", j + 2)
            if close < 0:
                return None, n
            if close < j + 3 or pattern[close - 1] != 0x3A:  # no ":]": the [ is an ordinary member
                members.add(ch)
                previous = ch
                j += 1
                continue
            posix = _POSIX.get(pattern[j + 2:close - 1])
            if posix is None:
                return None, n  # malformed [:class:]: wildmatch gives up
            members.update(posix)
            previous = 0
            j = close + 1
        else:
            members.add(ch)
            previous = ch
            j += 1
    if negated:
        members = set(range(256)) - members
    return (_byte_class(members) if members else None), j


def _translate(pattern: bytes) -> bytes | None:
    """The RE2 source of a wildmatch pattern without ``WM_PATHNAME`` (matched whole); None: matches nothing."""
    parts: list[bytes] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == 0x2A:  # *, **, ***: any run of bytes, / included
            while i < n and pattern[i] == 0x2A:
                i += 1
            if not parts or parts[-1] != b".*":
                parts.append(b".*")
            continue
        if ch == 0x3F:  # ?
            parts.append(b".")
        elif ch == 0x5C:  # \
            if i + 1 >= n:
                return None  # a trailing backslash matches nothing
            i += 1
            parts.append(b"\\x%02x" % pattern[i])
        elif ch == 0x5B:  # [
            cls, i = _bracket(pattern, i)
            if cls is None:
                return None
            parts.append(cls)
            continue
        else:
            parts.append(b"\\x%02x" % ch)
        i += 1
    return b"".join(parts)


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate outside the escape range: as Node writes it
        return text.encode("utf-8", "replace")


def _compile(sources: list[bytes], pattern: str) -> Any:
    """An RE2 set of the alternatives' regexes, asked only *whether* a text matches one (0.6 µs, not 4)."""
    if not sources:
        return None
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.dot_nl = True
    options.log_errors = False
    options.max_mem = 64 << 20
    matcher = re2.Set.FullMatchSet(options)
    try:
        for source in sources:
            matcher.Add(source)
        matcher.Compile()
    except re2.error as exc:
        raise PatternError(pattern=pattern, kind="glob", reason=f"glob pattern is too complex ({exc})") from None
    return matcher


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


def _head(alternative: str) -> str:
    """The literal text before the first wildcard."""
    for index, ch in enumerate(alternative):
        if ch in _SPECIAL:
            return alternative[:index]
    return alternative


def _tail(alternative: str) -> str:
    """Literal text every match ends with: what follows the last wildcard, bracket or backslash."""
    last = max(alternative.rfind(ch) for ch in "*?[]\\")
    return alternative[last + 1:]


class PathspecMatcher:
    """Whether a ``/``-separated path relative to the search directory matches an ``include`` pathspec."""

    __slots__ = ("_ancestors", "_exact", "_full", "_full_heads", "_full_tails", "_name", "_name_heads",
                 "_name_tails", "everything")

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
        wild = [a for a in alternatives if _SPECIAL & set(a)]
        named = [a for a in alternatives if "/" not in a]
        full = [(a, source) for a in wild if (source := _translate(_encode(a))) is not None]
        name = [(a, source) for a in named if (source := _translate(_encode(a))) is not None]
        self._full = _compile([source for _, source in full], pattern)
        self._full_heads = tuple(_head(a) for a, _ in full)
        self._full_tails = tuple(_tail(a) for a, _ in full)
        self._name = _compile([source for _, source in name], pattern)
        self._name_heads = tuple(_head(a) for a, _ in name)
        self._name_tails = tuple(_tail(a) for a, _ in name)

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
        full = self._full
        if (full is not None and rel.startswith(self._full_heads) and rel.endswith(self._full_tails)
                and full.Match(os.fsencode(rel)) is not None):
            return True
        named = self._name
        if named is None:
            return False
        name = rel.rpartition("/")[2]
        if name in self._exact:
            return True
        return (name.startswith(self._name_heads) and name.endswith(self._name_tails)
                and named.Match(os.fsencode(name)) is not None)


def compile_pathspec(pattern: str) -> PathspecMatcher:
    """A :class:`PathspecMatcher` for ``pattern``.

    Raises:
        PatternError: The braces expand too far, or RE2 cannot hold the pattern.
    """
    return PathspecMatcher(pattern)
