r"""Doublestar glob patterns compiled to regular expressions.

Syntax: ``*`` (any run of characters except ``/``), ``?`` (one character except ``/``), ``[abc]`` / ``[a-z]`` /
``[!abc]`` / ``[^abc]`` (one character except ``/``), ``{a,b}`` (alternatives, nestable), ``**`` as a whole path
segment (zero or more segments), and ``\\`` to escape the next character. Matching is on ``/``-separated paths.
"""

from __future__ import annotations

import functools
import re

__all__ = ["GlobSyntaxError", "compile_glob", "glob_match"]


class GlobSyntaxError(ValueError):
    r"""A glob pattern is malformed (unclosed ``[`` or ``{``, trailing ``\\``)."""


def _class(pattern: str, i: int) -> tuple[str, int]:
    """Translate the bracket expression starting at ``pattern[i] == '['``; return (regex, next index)."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    parts: list[str] = []
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
            parts.append(f"{re.escape(ch)}-{re.escape(hi)}")
            j += 3
        else:
            parts.append(re.escape(ch))
            j += 1
        first = False
    if j >= len(pattern):
        raise GlobSyntaxError(f"unclosed '[' in glob pattern {pattern!r}")
    body = "".join(parts)
    return (f"[^/{body}]" if negate else f"(?!/)[{body}]"), j + 1


def _translate(pattern: str, i: int, depth: int) -> tuple[str, int]:
    """Translate from index ``i`` until the end, or a ``,``/``}`` that closes the current brace level."""
    out: list[str] = []
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if depth and ch in ",}":
            return "".join(out), i
        if ch == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                end = i + 2
                if at_start and (end == n or pattern[end] == "/"):
                    if end == n:
                        out.append(".*")
                        i = end
                    else:
                        out.append("(?:.*/)?")
                        i = end + 1
                    continue
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[":
            regex, i = _class(pattern, i)
            out.append(regex)
            continue
        elif ch == "{":
            alternatives: list[str] = []
            i += 1
            while True:
                alt, i = _translate(pattern, i, depth + 1)
                alternatives.append(alt)
                if i >= n:
                    raise GlobSyntaxError(f"unclosed '{{' in glob pattern {pattern!r}")
                if pattern[i] == "}":
                    break
                i += 1
            out.append("(?:" + "|".join(alternatives) + ")")
        elif ch == "\\":
            if i + 1 >= n:
                raise GlobSyntaxError(f"trailing '\\' in glob pattern {pattern!r}")
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    if depth:
        return "".join(out), i
    return "".join(out), i


@functools.lru_cache(maxsize=512)
def compile_glob(pattern: str, *, case_sensitive: bool = True) -> re.Pattern[str]:
    """Compile a doublestar glob to a regex that must match a whole ``/``-separated path.

    Raises:
        GlobSyntaxError: The pattern is malformed.
    """
    regex, _ = _translate(pattern, 0, 0)
    return re.compile(r"(?s:" + regex + r")\Z", 0 if case_sensitive else re.IGNORECASE)


def glob_match(pattern: str, path: str, *, case_sensitive: bool = True) -> bool:
    """Whether ``path`` (``/``-separated) matches the doublestar glob ``pattern`` entirely."""
    return compile_glob(pattern, case_sensitive=case_sensitive).match(path) is not None
