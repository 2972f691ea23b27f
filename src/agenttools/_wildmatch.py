r"""git's wildmatch patterns read into path tokens: what ``*``, ``?``, ``[...]`` and ``**`` mean to git.

Two readers use it: gitignore lines (:mod:`agenttools.ignore`, with ``WM_PATHNAME``: wildcards stop at ``/`` and
``**`` is special) and git pathspecs (:mod:`agenttools.search.gitpathspec`, whole paths without it: ``*``, ``?``
and classes match ``/`` too). The tokens are compiled by :mod:`agenttools._pathmatch`.

This is ours because pathspec 1.1.1, which translates the tokens, reads several of git's rules differently (see
:mod:`agenttools._pathmatch`), and has no reading without ``WM_PATHNAME`` at all. What git does, and we do:
``[!a]`` and ``[^a]`` negate; ``]`` first is a member; ``\`` escapes inside and outside classes; ``a-z`` ranges,
a reversed one holding nothing (the character before the ``-`` still counts); ``[:alpha:]`` and the other POSIX
classes, ASCII-only as git's ctype is; an unclosed class, an unknown ``[:name:]`` or a trailing ``\`` make the
whole pattern match nothing; ``**`` is special at the start, after a ``/`` and right after the literal prefix.
"""

from __future__ import annotations

from agenttools._pathmatch import (
    ANY,
    ANY_CHAR,
    ANY_ONE,
    DEEP,
    REST,
    SLASH,
    STAR,
    CharClass,
    Token,
    char_class,
)

__all__ = ["read_class", "read_pattern"]

_POSIX: dict[str, tuple[tuple[str, str], ...]] = {  # git's ctype is ASCII-only
    "alnum": (("a", "z"), ("A", "Z"), ("0", "9")), "alpha": (("a", "z"), ("A", "Z")), "blank": ((" ", " "),
    ("\t", "\t")), "cntrl": (("\x00", "\x1f"), ("\x7f", "\x7f")), "digit": (("0", "9"),), "graph": (("!", "~"),),
    "lower": (("a", "z"),), "print": ((" ", "~"),), "punct": (("!", "/"), (":", "@"), ("[", "`"), ("{", "~")),
    "space": (("\t", "\r"), (" ", " ")), "upper": (("A", "Z"),), "xdigit": (("0", "9"), ("A", "F"), ("a", "f")),
}


_MAX_MEMBERS = 16


def read_class(body: str, i: int, *, slash: bool = False) -> tuple[CharClass | None, int]:
    """The bracket expression at ``body[i] == '['`` as wildmatch reads it, and the index after it.

    None when the pattern can never match (unclosed, or an unknown ``[:name:]``: wildmatch gives up). With
    ``slash`` the class may match ``/`` (wildmatch without ``WM_PATHNAME``).
    """
    n = len(body)
    j = i + 1
    negated = j < n and body[j] in "!^"
    if negated:
        j += 1
    ranges: list[tuple[str, str]] = []
    members: list[str] | None = None if negated else []
    prev: str | None = None  # the previous character, when a '-' after it makes a range
    first = True
    while True:
        if j >= n:
            return None, n  # unclosed: wildmatch aborts, the line never matches
        ch = body[j]
        if ch == "]" and not first:
            break
        first = False
        if ch == "\\":
            j += 1
            if j >= n:
                return None, n
            prev = body[j]
            ranges.append((prev, prev))
            if members is not None:
                members.append(prev)
        elif ch == "-" and prev is not None and j + 1 < n and body[j + 1] != "]":
            j += 1
            high = body[j]
            if high == "\\":
                j += 1
                if j >= n:
                    return None, n
                high = body[j]
            if prev <= high:  # a reversed range holds nothing, as in git
                ranges.append((prev, high))
                if members is not None:
                    span = ord(high) - ord(prev)  # prev itself is in already
                    members = members + [chr(ord(prev) + k) for k in range(1, span + 1)] \
                        if span < _MAX_MEMBERS else None
            prev = None
        elif ch == "[" and body.startswith(":", j + 1):
            end = body.find("]", j + 2)
            if end < 0:
                return None, n
            if end - (j + 2) < 1 or body[end - 1] != ":":  # no ":]": the '[' is an ordinary member
                prev = "["
                ranges.append((prev, prev))
                if members is not None:
                    members.append(prev)
            else:
                posix = _POSIX.get(body[j + 2:end - 1])
                if posix is None:
                    return None, n  # an unknown [:name:] aborts the match
                ranges.extend(posix)
                members = None  # named classes stay regexes
                prev = None
                j = end
        else:
            prev = ch
            ranges.append((ch, ch))
            if members is not None:
                members.append(ch)
        j += 1
    if members is not None:
        members = list(dict.fromkeys(c for c in members if slash or c != "/"))
        if len(members) > _MAX_MEMBERS:
            members = None
    members_text = None if members is None else "".join(members)
    return char_class(ranges, negated=negated, members=members_text, slash=slash), j + 1


def read_pattern(body: str, *, pathname: bool, slash: bool = False) -> list[list[Token]] | None:
    """The alternatives of a pattern as wildmatch reads it; None when it never matches.

    With ``pathname`` (``WM_PATHNAME``) ``**`` is special; with ``slash`` (a whole path matched without
    ``WM_PATHNAME``, as git reads a pathspec) ``*``, ``?`` and classes match ``/`` too.

    A ``**`` is special at the start, after a ``/`` and, as in git, right after the pattern's literal prefix (git
    compares that prefix first and runs wildmatch on the rest): there ``foo**/bar`` reads as ``foo``, then nothing
    or anything ending in ``/``, then ``bar`` (see :func:`_glued`).
    """
    n = len(body)
    prefix_end = next((k for k, c in enumerate(body) if c in "*?[\\"), n)
    tokens: list[Token] = []
    i = 0
    while i < n:
        ch = body[i]
        if ch == "*":
            j = i
            while j < n and body[j] == "*":
                j += 1
            if pathname and j - i >= 2 and (i == 0 or body[i - 1] == "/" or i == prefix_end):
                if j == n:
                    tokens.append(REST)
                    break
                if body[j] == "/":
                    tokens.append(DEEP)
                    i = j + 1
                    continue
                if body.startswith("\\/", j):  # "**\/": anything ending in '/', without the "nothing" shortcut
                    tokens += [STAR, SLASH, DEEP]
                    i = j + 2
                    continue
            tokens.append(ANY if slash else STAR)
            i = j
            continue
        if ch == "\\":
            if i + 1 >= n:
                return None  # a trailing backslash never matches
            i += 1
            tokens.append(SLASH if body[i] == "/" else body[i])
        elif ch == "?":
            tokens.append(ANY_ONE if slash else ANY_CHAR)
        elif ch == "[":
            char_class, i = read_class(body, i, slash=slash)
            if char_class is None:
                return None
            tokens.append(char_class)
            continue
        else:
            tokens.append(SLASH if ch == "/" else ch)
        i += 1
    return _glued(tokens) if pathname else [tokens]


def _glued(tokens: list[Token]) -> list[list[Token]]:
    """Alternatives without a ``DEEP`` or ``REST`` inside a segment: there ``**/`` is nothing or ``*/**/``.

    Nothing glues what follows to the segment, where a ``**`` that follows is special again (git matches the rest
    of the pattern as a new one), so this repeats.
    """
    for k, token in enumerate(tokens):
        if token in (DEEP, REST) and k and tokens[k - 1] not in (SLASH, DEEP):
            head, tail = tokens[:k], tokens[k + 1:]
            if token is REST:
                return [[*head, STAR], [*head, STAR, SLASH, REST]]
            return [*_glued(head + tail), [*head, STAR, SLASH, DEEP, *tail]]
    return [tokens]
