r"""Doublestar glob patterns, compiled to regular expressions that cannot backtrack.

Syntax: ``*`` (any run of characters except ``/``), ``?`` (one character except ``/``), ``[abc]`` / ``[a-z]`` /
``[!abc]`` / ``[^abc]`` (one character except ``/``), ``{a,b}`` (alternatives, nestable), ``**`` as a whole path
segment (zero or more segments), and ``\\`` to escape the next character. Matching is on ``/``-separated paths.

Patterns come from models and workspaces, so they are hostile: braces are expanded into at most
:data:`MAX_ALTERNATIVES` alternatives and each is compiled by :mod:`agenttools._pathmatch` (pathspec translates,
RE2 matches in time linear in the path: ``*a*a*a…b`` on a long name takes microseconds, not hours). A pattern over
the limits raises :class:`GlobTooComplexError`, a :class:`GlobSyntaxError`, which every caller already reports as
an invalid pattern.

This parser is ours because the syntax is not gitignore's: braces, ``[^...]``, no comments, no negation, no
trailing-space rule (pathspec reads gitignore lines only); the tokens it makes are what pathspec and RE2 compile.
"""

from __future__ import annotations

import functools

from agenttools._pathmatch import (
    ANY_CHAR,
    DEEP,
    REST,
    SLASH,
    STAR,
    CharClass,
    PathMatcher,
    PatternTooComplexError,
    Token,
    char_class,
    compile_alternatives,
)

__all__ = ["MAX_ALTERNATIVES", "MAX_BRACE_DEPTH", "MAX_EXPANDED_TOKENS", "MAX_PATTERN_CHARS", "GlobSyntaxError",
           "GlobTooComplexError", "compile_glob", "compile_wildcard", "glob_match", "minimatch", "parse_glob",
           "wildcard_match"]

MAX_PATTERN_CHARS = 1024
"""Longest glob accepted (characters)."""
MAX_ALTERNATIVES = 256
"""Most alternatives a glob's braces may expand to (``{a,b}/{c,d}`` is four)."""
MAX_EXPANDED_TOKENS = 4096
"""Most characters and wildcards all the alternatives may hold together after brace expansion."""
MAX_BRACE_DEPTH = 32
"""Deepest nesting of braces."""


class GlobSyntaxError(ValueError):
    r"""A glob pattern is malformed (unclosed ``[`` or ``{``, trailing ``\\``)."""


class GlobTooComplexError(GlobSyntaxError):
    """A glob pattern is over the length or complexity limits."""


_Item = Token | list[list["_Item"]]  # a token, or a brace group: its alternatives


def _class(pattern: str, i: int) -> tuple[CharClass, int]:
    """The bracket expression starting at ``pattern[i] == '['``; return (its token, next index)."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    ranges: list[tuple[str, str]] = []
    first = True
    while j < len(pattern) and (first or pattern[j] != "]"):
        ch = pattern[j]
        if ch == "\\" and j + 1 < len(pattern):
            j += 1
            ch = pattern[j]
        if j + 2 < len(pattern) and pattern[j + 1] == "-" and pattern[j + 2] != "]":
            hi = pattern[j + 2]
            if hi < ch:
                raise GlobSyntaxError(f"invalid range {ch}-{hi} in glob pattern {pattern!r}")
            ranges.append((ch, hi))
            j += 3
        else:
            ranges.append((ch, ch))
            j += 1
        first = False
    if j >= len(pattern):
        raise GlobSyntaxError(f"unclosed '[' in glob pattern {pattern!r}")
    return char_class(ranges, negated=negate), j + 1
def _parse(pattern: str, i: int, depth: int) -> tuple[list[_Item], int]:
    """Parse from index ``i`` until the end, or a ``,``/``}`` that closes the current brace level."""
    out: list[_Item] = []
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if depth and ch in ",}":
            return out, i
        if ch == "*":
            if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
                end = i + 2  # a whole segment (decided on the pattern as written, braces and all)
                if end == n:
                    out.append(REST)
                    return out, end
                if pattern[end] == "/":
                    out.append(DEEP)
                    i = end + 1
                    continue
            while i < n and pattern[i] == "*":
                i += 1
            out.append(STAR)
            continue
        if ch == "?":
            out.append(ANY_CHAR)
        elif ch == "[":
            char, i = _class(pattern, i)
            out.append(char)
            continue
        elif ch == "{":
            if depth >= MAX_BRACE_DEPTH:
                raise GlobTooComplexError(f"glob pattern nests braces deeper than {MAX_BRACE_DEPTH} levels")
            group: list[list[_Item]] = []
            i += 1
            while True:
                alternative, i = _parse(pattern, i, depth + 1)
                group.append(alternative)
                if i >= n:
                    raise GlobSyntaxError(f"unclosed '{{' in glob pattern {pattern!r}")
                if pattern[i] == "}":
                    break
                i += 1
            out.append(group)
        elif ch == "\\":
            if i + 1 >= n:
                raise GlobSyntaxError(f"trailing '\\' in glob pattern {pattern!r}")
            i += 1
            out.append(SLASH if pattern[i] == "/" else pattern[i])
        else:
            out.append(SLASH if ch == "/" else ch)
        i += 1
    return out, i


def _size(items: list[_Item], cap: int) -> tuple[int, int]:
    """(number of alternatives, tokens in all of them) once braces are expanded, each capped just above ``cap``."""
    count, tokens = 1, 0
    for item in items:
        if isinstance(item, list):
            sizes = [_size(alternative, cap) for alternative in item]
            group_count = min(sum(c for c, _ in sizes), cap + 1)
            group_tokens = min(sum(t for _, t in sizes), cap + 1)
            count, tokens = min(count * group_count, cap + 1), min(tokens * group_count + count * group_tokens, cap + 1)
        else:
            tokens = min(tokens + count, cap + 1)
    return count, tokens


def _expand(items: list[_Item]) -> list[list[Token]]:
    results: list[list[Token]] = [[]]
    for item in items:
        if isinstance(item, list):
            options = [option for alternative in item for option in _expand(alternative)]
            results = [result + option for result in results for option in options]
        else:
            for result in results:
                result.append(item)
    return results


def parse_glob(pattern: str) -> list[list[Token]]:
    """The token lists of a glob's alternatives (braces expanded).

    Raises:
        GlobSyntaxError: The pattern is malformed.
        GlobTooComplexError: The pattern is over the limits.
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise GlobTooComplexError(f"glob pattern is too long: {len(pattern)} characters (at most {MAX_PATTERN_CHARS})")
    items, _ = _parse(pattern, 0, 0)
    count, tokens = _size(items, max(MAX_ALTERNATIVES, MAX_EXPANDED_TOKENS))
    if count > MAX_ALTERNATIVES:
        raise GlobTooComplexError(f"glob pattern is too complex: its braces expand to more than {MAX_ALTERNATIVES} "
                                  "alternatives")
    if tokens > MAX_EXPANDED_TOKENS:
        raise GlobTooComplexError(f"glob pattern is too complex: its braces expand to more than "
                                  f"{MAX_EXPANDED_TOKENS} characters")
    return _expand(items)


@functools.lru_cache(maxsize=512)
def compile_glob(pattern: str, *, case_sensitive: bool = True, below: bool = False) -> PathMatcher:
    """Compile a doublestar glob to a matcher whose ``match`` tells whether it covers a whole ``/``-separated path.

    With ``below`` the matcher tells instead whether the glob matches the path or one of its parents, in one
    linear pass.

    Raises:
        GlobSyntaxError: The pattern is malformed.
        GlobTooComplexError: The pattern is longer than :data:`MAX_PATTERN_CHARS` or its braces expand to more than
            :data:`MAX_ALTERNATIVES` alternatives (:data:`MAX_EXPANDED_TOKENS` characters).
    """
    try:
        return compile_alternatives(parse_glob(pattern), ignore_case=not case_sensitive, below=below)
    except PatternTooComplexError as exc:
        raise GlobTooComplexError(f"glob {exc}") from None


def glob_match(pattern: str, path: str, *, case_sensitive: bool = True) -> bool:
    """Whether ``path`` (``/``-separated) matches the doublestar glob ``pattern`` entirely."""
    return compile_glob(pattern, case_sensitive=case_sensitive).match(path)


_NAME_MAX = 4096  # no file name is longer (Linux: 255 bytes), so a wildcard needing more characters matches none
_NOTHING = compile_alternatives([])


@functools.lru_cache(maxsize=512)
def compile_wildcard(pattern: str) -> PathMatcher:
    """A file name wildcard where ``*`` is any run of characters, ``?`` one character and the rest literal.

    Any string is a valid wildcard; one that needs more characters than a file name can hold matches nothing.
    """
    tokens: list[Token] = []
    needed = 0
    for ch in pattern:
        if ch == "*":
            if not tokens or tokens[-1] is not STAR:
                tokens.append(STAR)
            continue
        needed += 1
        if needed > _NAME_MAX:
            return _NOTHING
        tokens.append(ANY_CHAR if ch == "?" else ch)
    return compile_alternatives([tokens])


def wildcard_match(pattern: str, name: str) -> bool:
    """Whether the file name ``name`` matches the wildcard ``pattern`` entirely (see :func:`compile_wildcard`)."""
    return compile_wildcard(pattern).match(name)


def minimatch(pattern: str, path: str) -> bool:
    """Whether ``path`` matches ``pattern`` as npm's ``minimatch(path, pattern, {dot: true})`` decides.

    That is :func:`glob_match`, plus minimatch's own rules: a pattern starting with ``#`` is a comment (matches
    nothing), each leading ``!`` negates, and a pattern that is not a valid glob (an unclosed ``[``) or is over the
    limits is compared literally. Extended globs (``+(a|b)``), POSIX classes (``[[:alpha:]]``) and numeric ranges
    (``{1..3}``) are not supported.
    """
    if pattern.startswith("#"):
        return False
    negate = False
    while pattern.startswith("!"):
        negate = not negate
        pattern = pattern[1:]
    try:
        matched = glob_match(pattern, path)
    except GlobSyntaxError:
        matched = pattern == path
    return matched != negate
