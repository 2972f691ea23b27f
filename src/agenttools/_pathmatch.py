r"""Path patterns as tokens, and the linear-time matcher they compile to: pathspec translates, RE2 matches.

Globs (:mod:`agenttools._glob`), gitignore lines (:mod:`agenttools.ignore`) and deny patterns reach this module as a
list of *alternatives* (braces already expanded by the caller), each a list of tokens: one-character atoms (a literal
character, or a :class:`CharClass` that never matches ``/``), ``STAR`` (a run of characters within one segment),
``SLASH``, ``DEEP`` (``**/``: zero or more whole segments) and ``REST`` (a final ``**``: anything at all).

Those are exactly the pieces of an anchored gitignore line, so each alternative is written as one
(``/a/**/*.py``) and translated to a regular expression by pathspec's ``GitIgnoreSpecPattern``: the structure of
``*``, ``?``, ``**/`` and ``/**``, the anchoring, and the "or anything below" tail, are pathspec's. The result is
compiled with RE2 (google-re2, pathspec's ``re2`` backend), whose matching is linear in the text whatever the
pattern: patterns come from models and from workspace files, so they are hostile, and ``*a*a*a…b`` in a
backtracking engine takes hours on a name of a few hundred characters with the GIL held.

What is ours, and why:

* **Every literal and every class is a placeholder** when the line is handed to pathspec (a private-use character,
  one per atom), replaced in pathspec's regex by our own RE2 text. pathspec 1.1.1 reads classes and some literals
  differently from git's wildmatch and from minimatch (minimal cases, to report upstream): ``[!a]`` becomes
  ``[^a]``, which matches ``/`` (``a[!x]b`` matches ``a/b``); a class holding ``/`` (``[x/]``) drops the line;
  ``\`` inside a class is a literal (``[\]]x`` is read as ``[\\]`` then ``]x``); ``[[:digit:]]`` becomes a
  broken regex; a reversed range (``[z-a]``) is an RE2 error that fails a whole ``GitIgnoreSpec``; and a final
  ``\r`` is trimmed from a line, which loses the ``Icon\r`` of macOS. With placeholders pathspec sees only
  ``*``, ``?``, ``/`` and ``**``, which it translates as git does.
* **Alternatives that cannot match a path** (an empty segment: ``a//b``) are dropped before translation, and
  consecutive ``DEEP`` tokens are one, since pathspec reads ``**//`` differently from git.
* **One RE2 set per pattern**, asked only whether the text matches: the ``re2`` module's ``fullmatch`` works out
  the spans of every group on each call, an ``re2.Set`` only answers yes or no (several times faster).
* **Compiled on first use.** pathspec and RE2 take tens of milliseconds to import, and most ignore lines are
  decided by :mod:`agenttools.ignore` without a regex, so a process that only lists a directory never loads them.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from agenttools._lazy import lazy_module

if TYPE_CHECKING:
    import pathspec
    import re2
else:  # a dotted name would import its parents now: "pathspec" alone loads everything this module uses
    pathspec = lazy_module("pathspec")
    re2 = lazy_module("re2")

__all__ = ["ANY", "ANY_CHAR", "ANY_ONE", "DEEP", "NO_CHAR", "REST", "SLASH", "STAR", "CharClass", "PathMatcher",
           "PatternTooComplexError", "Special", "Token", "char_class", "compile_alternatives"]


class Special(enum.Enum):
    """The tokens that are not one character."""

    STAR = "*"
    SLASH = "/"
    DEEP = "**/"
    REST = "**"
    ANY = "any"  # any run of characters, '/' included (git's wildmatch without WM_PATHNAME)


STAR = Special.STAR
SLASH = Special.SLASH
DEEP = Special.DEEP
REST = Special.REST
ANY = Special.ANY


class CharClass(NamedTuple):
    """One character out of a set; ``regex`` (RE2 syntax) matches one character (``/`` only without pathnames)."""

    regex: str
    members: str | None = None
    """The characters it matches, in order, when it is a short list of them (to test names without regex)."""


ANY_CHAR = CharClass("[^/]")
ANY_ONE = CharClass("(?s:.)")
"""Any one character, ``/`` included (``?`` without ``WM_PATHNAME``)."""

Token = str | CharClass | Special
"""A literal character (a ``str`` of length one), a class, or one of the special tokens."""

_SLASH = ord("/")
_MAX_CODE = 0x10FFFF


def _code(code: int) -> str:
    return f"\\x{{{code:x}}}"


NO_CHAR = CharClass(f"[^{_code(0)}-{_code(_MAX_CODE)}]")
"""A class that matches no character: an alternative holding it never matches."""


def char_class(ranges: Sequence[tuple[str, str]], *, negated: bool, members: str | None = None,
               slash: bool = False) -> CharClass:
    """The class of the characters in ``ranges`` (inclusive pairs), or of all the others when ``negated``.

    ``/`` is never a member unless ``slash``. A class left with no member (only ``/``; a reversed range is empty,
    as in git) is :data:`NO_CHAR`.
    """
    spans = [(ord(low), ord(high)) for low, high in ranges if low <= high]
    kept: list[tuple[int, int]] = []
    for low, high in spans:  # '/' taken out of every range
        if not slash and low <= _SLASH <= high:
            kept.extend(span for span in ((low, _SLASH - 1), (_SLASH + 1, high)) if span[0] <= span[1])
        else:
            kept.append((low, high))
    body = "".join(_code(low) if low == high else f"{_code(low)}-{_code(high)}" for low, high in kept)
    if negated:
        return CharClass(f"[^{'' if slash else '/'}{body}]" if body or not slash else "(?s:.)", members=None)
    if not kept:
        return NO_CHAR
    return CharClass(f"[{body}]", members=members)


class PatternTooComplexError(ValueError):
    """A pattern compiles to more than RE2 accepts (its program is over the memory budget)."""


@functools.cache
def _options(ignore_case: bool) -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # a pattern RE2 refuses becomes our error, not a line on stderr
    options.max_mem = 64 << 20  # room for a thousand-character pattern with many alternatives
    options.case_sensitive = not ignore_case
    return options


_SURROGATE = re.compile("[\ud800-\udfff]")  # how os.fsdecode keeps bytes that are not UTF-8; RE2 takes UTF-8
_PLACEHOLDER = 0xE000  # the Private Use Area: 6,400 characters, more than a pattern may hold atoms
_DIR_MARK_OPT = "(?:(?P<ps_d>/)|$)"  # pathspec's tail for "this path, or anything below it"


class PathMatcher:
    """A compiled path pattern: does a ``/``-separated text match it as a whole (or, with ``below``, a parent)?

    ``tails`` are literal endings one of which every match has (``.py`` for ``**/*.py``): a text without one is
    turned away by ``str.endswith``, a fraction of the cost of asking RE2, and when every alternative is
    ``**/*`` and a literal, a text with one is a match without asking. The alternatives are translated and
    compiled by :meth:`compile`, or on the first :meth:`match`.
    """

    __slots__ = ("_alternatives", "_below", "_compiled", "_fold", "_ignore_case", "_lock", "_set", "_tails",
                 "_tails_decide")

    def __init__(self, alternatives: Sequence[Sequence[Token]], *, ignore_case: bool = False,
                 below: bool = False) -> None:
        self._alternatives = tuple(tuple(tokens) for tokens in alternatives)
        self._ignore_case = ignore_case
        self._below = below
        tails = () if below else tuple(_tail(tokens) for tokens in alternatives)
        if ignore_case:  # folded only where ASCII is all there is: then lower() is RE2's case folding
            tails = tuple(tail.lower() for tail in tails) if all(tail.isascii() for tail in tails) else ()
        self._fold = ignore_case
        self._tails = tails if all(tails) else ()
        self._tails_decide = bool(self._tails) and all(  # "**/*.py": the name ends in ".py", whatever else
            len(tokens) > 2 and tokens[0] is DEEP and tokens[1] is STAR and "/" not in _tail(tokens)
            and len(_tail(tokens)) == len(tokens) - 2 for tokens in alternatives)
        self._set: re2.Set | None = None  # None once compiled: it matches nothing
        self._compiled = False
        self._lock = threading.Lock()

    @property
    def source(self) -> str:
        """The RE2 regexes of the alternatives, joined by ``|`` (for messages and tests)."""
        return "|".join(self._sources())

    def _sources(self) -> list[str]:
        sources = (_regex(tokens, self._below) for tokens in self._alternatives)
        return list(dict.fromkeys(source for source in sources if source is not None))

    def compile(self) -> PathMatcher:
        """Translate and compile now (it is done once); return the matcher.

        Raises:
            PatternTooComplexError: RE2 cannot compile the alternatives within its memory budget.
        """
        if not self._compiled:
            with self._lock:
                if not self._compiled:
                    try:
                        self._set = self._build()
                    finally:
                        self._compiled = True
        return self

    def _build(self) -> re2.Set | None:
        sources = self._sources()
        if not sources:
            return None
        matcher = re2.Set.FullMatchSet(_options(self._ignore_case))
        try:
            for source in sources:
                matcher.Add(source)
            matcher.Compile()
        except re2.error as exc:
            raise PatternTooComplexError(f"pattern is too complex ({exc})") from None
        return matcher

    def match(self, text: str) -> bool:
        """Whether ``text`` matches (a pattern RE2 could not compile, met here first, matches nothing)."""
        tails = self._tails
        if tails and (not self._fold or text.isascii()):
            if not (text.lower() if self._fold else text).endswith(tails):
                return False
            if self._tails_decide:
                return True
        if not self._compiled:
            with contextlib.suppress(PatternTooComplexError):
                self.compile()
        compiled = self._set
        if compiled is None:
            return False
        try:
            return compiled.Match(text) is not None
        except UnicodeEncodeError:  # a name that is not UTF-8 on disk: each byte git sees is one character here
            return compiled.Match(_SURROGATE.sub("\ufffd", text)) is not None

    def __repr__(self) -> str:
        return f"PathMatcher({self.source!r})"


def _normalized(tokens: Sequence[Token]) -> list[Token] | None:
    """Consecutive ``DEEP`` tokens as one, ``STAR`` runs as one; None when an empty segment makes a match impossible.

    A leading ``SLASH`` (an absolute pattern's empty first segment) is kept: the caller matches it on its own.
    """
    out: list[Token] = []
    for index, token in enumerate(tokens):
        previous = out[-1] if out else None
        if (token is DEEP and previous is DEEP) or (token in (STAR, ANY) and previous is token):
            continue
        if (token is SLASH and index and previous in (SLASH, DEEP)) or token is NO_CHAR:
            return None
        out.append(token)
    return out


def _regex(tokens: Sequence[Token], below: bool) -> str | None:
    """The RE2 source matching a whole text against one alternative (None: it matches nothing)."""
    normalized = _normalized(tokens)
    if normalized is None:
        return None
    head = "/" if normalized and normalized[0] is SLASH else ""  # an absolute pattern
    if head:
        normalized = normalized[1:]
    tail = ""  # what a final "**/" or "/" asks for: pathspec would read either as "directories only"
    if normalized and normalized[-1] is DEEP:
        normalized, tail = normalized[:-1], "(?:.*/)?"
    if normalized and normalized[-1] is SLASH:
        normalized, tail = normalized[:-1], "/" + tail
    body = ""
    if normalized:
        atoms: list[str] = []
        line = ["/"]
        for token in normalized:
            if token is SLASH or token is DEEP or token is REST:
                line.append(token.value)
            else:
                line.append(chr(_PLACEHOLDER + len(atoms)))
                atoms.append(_literal(token) if isinstance(token, str) else
                             token.regex if isinstance(token, CharClass) else ".*" if token is ANY else "[^/]*")
        translated, include = pathspec.patterns.gitignore.spec.GitIgnoreSpecPattern.pattern_to_regex("".join(line))
        if not isinstance(translated, str) or include is None:
            return None
        body = _body(translated).translate({_PLACEHOLDER + index: atom for index, atom in enumerate(atoms)})
    body = head + body + tail
    if below:
        body += "(?:/.*)?"
    return f"(?s:{body})"


def _literal(char: str) -> str:
    return char if char.isascii() and char.isalnum() else _code(ord(char))


def _body(translated: str) -> str:
    """The regex pathspec gives for one anchored line (not ending in '/'), as a regex that must cover the whole text."""
    body = translated.removeprefix("^")
    if body.endswith(_DIR_MARK_OPT):
        return body[: -len(_DIR_MARK_OPT)]
    if body == ".":  # "/**": anything
        return ".*"
    if body.endswith("/"):  # "/a/**" gives the prefix "a/": anything below a
        return body + ".*"
    raise RuntimeError(f"pathspec translated a line in a way this version of agenttools does not know: {translated!r}")


def compile_alternatives(alternatives: Sequence[Sequence[Token]], *, ignore_case: bool = False,
                         below: bool = False, lazy: bool = False) -> PathMatcher:
    """One matcher telling whether a whole ``/``-separated text matches any of the alternatives.

    With ``below``, it tells instead whether the text or one of its parents does (``secrets`` then matches
    ``secrets/key``), in one pass over the text. With ``lazy`` the work is left to the first match.

    Raises:
        PatternTooComplexError: RE2 cannot compile the alternatives within its memory budget (not when ``lazy``).
    """
    matcher = PathMatcher(alternatives, ignore_case=ignore_case, below=below)
    return matcher if lazy else matcher.compile()


def _tail(tokens: Sequence[Token]) -> str:
    """The literal characters that end every text the alternative matches ('' when it ends in a wildcard)."""
    cut = len(tokens)
    while cut and isinstance(tokens[cut - 1], str):
        cut -= 1
    return "".join(token for token in tokens[cut:] if isinstance(token, str))
