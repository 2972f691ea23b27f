"""The patterns a search takes: regexes (their counted repeats bounded) and include globs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._lazy import lazy_module
from agenttools._pathmatch import PathMatcher
from agenttools.errors import PatternError

if TYPE_CHECKING:
    import regex
else:
    regex = lazy_module("regex")  # about 10 ms to import: loaded by the first search, not by building a toolset

__all__ = ["MAX_REPEAT_EXPANSION", "compile_pattern", "include_matcher"]

MAX_REPEAT_EXPANSION = 100_000
"""Most items a pattern's counted repeats may multiply out to: ``regex`` unrolls ``x{n}`` and ``x{n,}`` into n
copies when it compiles (about 280 bytes each, with the GIL held), so ``a{10000000}`` or ``(?:(?:a{1000}){1000}){1000}``
took gigabytes and killed the process."""

_COUNTED = re.compile(r"\{\s*([0-9]*)\s*(?:,\s*[0-9]*\s*)?\}")
_ESCAPE_WITH_BRACES = frozenset("pPNxuUgk")


_VERBOSE = re.compile(r"\(\?[a-zA-Z0-9-]*x")


def _repeat_expansion(pattern: str) -> int:
    """An upper bound on the items ``regex`` makes of a pattern: each counted repeat multiplies what it repeats.

    A scan, not a parser: anything it cannot read counts as one item or as a group, which can only raise the bound.
    A pattern that may turn on verbose mode is scanned both ways and the larger count kept.
    """
    plain = _scan_repeats(pattern, verbose=False)
    return max(plain, _scan_repeats(pattern, verbose=True)) if _VERBOSE.search(pattern) else plain


def _scan_repeats(pattern: str, *, verbose: bool) -> int:
    stack = [[0, 0]]  # per open group: [items so far, items of the last atom]
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        frame = stack[-1]
        if verbose and ch.isspace():
            i += 1
            continue
        if verbose and ch == "#":
            close = pattern.find("\n", i)
            i = n if close == -1 else close + 1
            continue
        if ch == "\\":
            i += 2
            if i < n and pattern[i - 1] in _ESCAPE_WITH_BRACES and pattern[i] in "{<":
                close = pattern.find("}" if pattern[i] == "{" else ">", i)
                i = n if close == -1 else close + 1
            frame[0] += 1
            frame[1] = 1
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            frame[0] += 1
            frame[1] = 1
            continue
        if ch == "(":
            stack.append([0, 0])
        elif ch == ")" and len(stack) > 1:
            size = max(stack.pop()[0], 1)
            stack[-1][0] += size
            stack[-1][1] = size
        elif ch == "{" and (counted := _COUNTED.match(pattern, i)) is not None:
            times = int(counted.group(1) or 0)
            frame[0] = min(frame[0] + frame[1] * max(times - 1, 0), MAX_REPEAT_EXPANSION + 1)
            frame[1] = min(frame[1] * times, MAX_REPEAT_EXPANSION + 1)
            i = counted.end()
            continue
        else:
            frame[0] += 1
            frame[1] = 1
        i += 1
    while len(stack) > 1:  # unclosed groups: regex refuses them, count them anyway
        size = stack.pop()[0]
        stack[-1][0] += size
    return stack[0][0]


def compile_pattern(pattern: str, *, ignore_case: bool = True) -> regex.Pattern[str]:
    """Compile a grep pattern (Python ``regex`` syntax, close to ripgrep's and JavaScript's).

    Raises:
        PatternError: The pattern does not compile, or its counted repeats multiply out to more than
            :data:`MAX_REPEAT_EXPANSION` items (or the pattern's own length, when that is longer: long literal
            text costs what it says, only repeats multiply).
    """
    if _repeat_expansion(pattern) > max(MAX_REPEAT_EXPANSION, len(pattern)):  # repeats, not long literal text
        raise PatternError(pattern=pattern, kind="regex",
                           reason=f"its counted repeats multiply out to more than {MAX_REPEAT_EXPANSION} items")
    try:
        return regex.compile(pattern, regex.MULTILINE | regex.V0 | (regex.IGNORECASE if ignore_case else 0))
    except (regex.error, ValueError, OverflowError) as exc:
        raise PatternError(pattern=pattern, kind="regex", reason=str(exc)) from None


def include_matcher(include: str | None, case_sensitive: bool = True) -> PathMatcher | None:
    """The matcher of an include glob: without ``/`` it matches names at any depth, with ``/`` paths from the top.

    Raises:
        PatternError: The glob is malformed or too complex.
    """
    if not include:
        return None
    anchored = include if "/" in include.rstrip("/") else "**/" + include
    try:
        compiled = compile_glob(anchored.lstrip("/"), case_sensitive=case_sensitive)
    except GlobSyntaxError as exc:
        raise PatternError(pattern=include, kind="glob", reason=str(exc)) from None
    return compiled
