"""JavaScript regular-expression syntax: which patterns V8 refuses, and in which words.

A tool contract that comes from a JavaScript program validates a pattern with ``new RegExp(pattern)`` and answers
V8's message. :func:`v8_syntax_error` gives that message for a pattern without the ``u`` or ``v`` flag (the web
compatibility grammar of ECMAScript Annex B, as V8 11 in Node 20 parses it), or None when V8 compiles it. It only
judges syntax; the search itself runs on our engines. The scan is one pass over the pattern (linear time).
"""

from __future__ import annotations

import re

__all__ = ["v8_syntax_error"]

_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_GROUP_NAME = re.compile(r"(?:[^\W\d]|\$)[$\w\u200c\u200d]*", re.UNICODE)
_HEX = re.compile(r"[0-9A-Fa-f]+")


def _class_end(pattern: str, start: int, named: bool) -> tuple[int, str | None]:
    """Where the character class opened at ``start`` ends (the index after ``]``), or the first error V8 reports.

    V8 reports a range out of order as soon as it reads it, before it finds out the class is unterminated.
    """
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    pending: list[int | None] = []  # up to "low, '-'" of a range being read; None for a class escape such as \d
    while i < len(pattern):
        char = pattern[i]
        if char == "]":
            return i + 1, None
        dash = char == "-"
        if char == "\\":
            if i + 1 >= len(pattern):
                return len(pattern), "\\ at end of pattern"
            if pattern[i + 1] == "k" and named:
                return len(pattern), "Invalid escape"
            value, i = _class_escape(pattern, i + 1)
        else:
            value = ord(char)
            i += 1
        if len(pending) == 2:  # low, '-', and now high
            low = pending[0]
            if low is not None and value is not None and low > value:
                return i, "Range out of order in character class"
            pending = []
        elif dash and len(pending) == 1:
            pending.append(ord("-"))
        else:
            pending = [value]
    return len(pattern), "Unterminated character class"


def _named_groups(pattern: str) -> tuple[bool, set[str]]:
    """V8's first pass: whether the pattern has named groups (any ``(?<`` not a lookbehind), and their names."""
    named = False
    names: set[str] = set()
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i += 1
            while i < len(pattern) and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
            i += 1
            continue
        if pattern.startswith("(?<", i) and pattern[i + 3:i + 4] not in ("=", "!"):
            named = True
            end = pattern.find(">", i + 3)
            if end != -1 and _GROUP_NAME.fullmatch(pattern[i + 3:end]):
                names.add(pattern[i + 3:end])
        i += 1
    return named, names


def _class_escape(pattern: str, i: int) -> tuple[int | None, int]:
    r"""The code point of the escape whose letter is at ``i`` inside a class, and the index after it.

    None for ``\d`` and its kin; octal ``\12``, ``\xHH``, ``\uHHHH``, ``\cX`` and the one-letter escapes have
    their values; any other is the character itself (Annex B's identity escapes).
    """
    char = pattern[i]
    if char in "dDwWsS":
        return None, i + 1
    if char in "01234567":
        end = i + 1
        while end < len(pattern) and end < i + 3 and pattern[end] in "01234567" and int(pattern[i:end + 1], 8) < 256:
            end += 1
        return int(pattern[i:end], 8), end
    for letter, digits in (("x", 2), ("u", 4)):
        if char == letter:
            chunk = pattern[i + 1:i + 1 + digits]
            if len(chunk) == digits and _HEX.fullmatch(chunk):
                return int(chunk, 16), i + 1 + digits
            return ord(char), i + 1
    if char == "c" and i + 1 < len(pattern) and (pattern[i + 1].isascii() and (pattern[i + 1].isalnum()
                                                                               or pattern[i + 1] == "_")):
        return ord(pattern[i + 1]) % 32, i + 2
    if char == "c":  # no control letter: the backslash stands for itself and the 'c' is read next
        return ord("\\"), i
    return {"b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13}.get(char, ord(char)), i + 1


def v8_syntax_error(pattern: str) -> str | None:
    """V8's message for a pattern ``new RegExp(pattern)`` refuses (``"Unterminated group"``), else None."""
    named, names = _named_groups(pattern)
    closed_names: set[str] = set()
    unknown_reference = False  # reported after the whole pattern parsed, as V8 does
    # What the last item was: None at the start of an alternative, "atom" (quantifiable), "assertion" (not),
    # "lookbehind" (not, and "Invalid quantifier"), "quantified" (a quantifier may follow only as a lazy '?').
    last: str | None = None
    stack: list[tuple[str, str | None]] = []  # open groups: kind, and name if named
    i = 0
    length = len(pattern)
    while i < length:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= length:
                return "\\ at end of pattern"
            escaped = pattern[i + 1]
            if escaped == "k" and named:
                if i + 2 >= length or pattern[i + 2] != "<":
                    return "Invalid named reference"
                end = pattern.find(">", i + 3)
                name = pattern[i + 3:end] if end != -1 else None
                if name is None or not _GROUP_NAME.fullmatch(name):
                    return "Invalid capture group name"
                unknown_reference = unknown_reference or name not in names
                i = end + 1
                last = "atom"
                continue
            last = "assertion" if escaped in "bB" else "atom"
            i += 2
            continue
        if char == "[":
            i, error = _class_end(pattern, i, named)
            if error is not None:
                return error
            last = "atom"
            continue
        if char == "(":
            kind, group_name = "group", None
            if pattern.startswith("(?", i):
                head = pattern[i + 2:i + 4]
                if head[:1] in (":", "=", "!"):
                    kind = "lookahead" if head[:1] in "=!" else "group"
                    i += 3
                elif head in ("<=", "<!"):
                    kind = "lookbehind"
                    i += 4
                elif head[:1] == "<":
                    end = pattern.find(">", i + 3)
                    name = pattern[i + 3:end] if end != -1 else ""
                    if end == -1 or not _GROUP_NAME.fullmatch(name):
                        return "Invalid capture group name"
                    group_name = name
                    i = end + 1
                else:
                    return "Invalid group"
            else:
                i += 1
            stack.append((kind, group_name))
            last = None
            continue
        if char == ")":
            if not stack:
                return "Unmatched ')'"
            kind, group_name = stack.pop()
            if group_name is not None:  # V8 registers a name when its group closes
                if group_name in closed_names:
                    return "Duplicate capture group name"
                closed_names.add(group_name)
            last = "lookbehind" if kind == "lookbehind" else "atom"  # a lookahead is quantifiable in Annex B
            i += 1
            continue
        if char == "|":
            last = None
            i += 1
            continue
        if char in "^$":
            last = "assertion"
            i += 1
            continue
        quantifier = None
        if char in "*+?":
            quantifier = i + 1
        elif char == "{":
            match = _QUANTIFIER.match(pattern, i)
            if match is not None:
                low, high = int(match.group(1)), match.group(3)
                if match.group(2) and high and int(high) < low and last in ("atom", "lookbehind"):
                    return "numbers out of order in {} quantifier"
                quantifier = match.end()
        if quantifier is not None:
            if last == "lookbehind":
                return "Invalid quantifier"
            if last != "atom":
                return "Nothing to repeat"
            i = quantifier
            if i < length and pattern[i] == "?":
                i += 1  # lazy
            last = "quantified"
            continue
        last = "atom"  # any other character, a lone '{', '}' or ']' included
        i += 1
    if stack:
        return "Unterminated group"
    if unknown_reference:
        return "Invalid named capture referenced"
    return None
