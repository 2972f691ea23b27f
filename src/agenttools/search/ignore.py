r"""gitignore semantics and a walker that prunes ignored directories instead of filtering after.

Rules come from ``.gitignore`` in every directory from the *ignore base* down (the git top-level above the search
directory, or the directory itself outside a repository) and from ``<base>/.git/info/exclude``. As in git, a
deeper file overrides a shallower one, the last matching line of a file wins, ``!`` re-includes, a trailing ``/``
matches directories only, and nothing below an ignored directory can be re-included (it is never walked).

Lines are translated here the way git's ``wildmatch`` reads them (``*``, ``?``, ``[...]`` with ``[:alpha:]`` classes
and ``\`` escapes, ``**`` in ``**/x``, ``x/**`` and ``a/**/b``, trailing spaces, a final ``\r``, a leading BOM)
onto :mod:`agenttools._linear`, whose regexes cannot backtrack: ignore files are workspace content, so hostile. A
line longer than :data:`MAX_LINE_CHARS` is skipped, as git skips a line it cannot use (an unclosed ``[``, a
trailing ``\``). Like git, this works on characters git would see as bytes only in the rare case of a non-ASCII
character under ``?`` or in a class.

Checks are tiered: what can match the entries of a directory is worked out once for it, as a set of literal
names, tuples of suffixes (``*.log``) and prefixes (``tmp-*``), a set of literal paths, and the remaining lines
as regexes combined in groups of bounded size; a file's own lines are scanned only when one of those hits.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agenttools._glob import MAX_PATTERN_CHARS
from agenttools._linear import (
    ANY_CHAR,
    DEEP,
    REST,
    SLASH,
    STAR,
    CharClass,
    Token,
    alternatives_source,
)
from agenttools._text import open_regular

__all__ = ["ALWAYS_SKIPPED", "MAX_LINE_CHARS", "IgnoreRules", "RuleFile", "find_ignore_base", "walk_files"]

ALWAYS_SKIPPED = frozenset({".git"})

MAX_LINE_CHARS = MAX_PATTERN_CHARS
"""Longest ignore line used (characters, after trailing spaces are trimmed); a longer one is skipped."""

_GROUP_CHARS = 8192  # combined pre-check regexes are compiled in groups about this long, so no compile is long

_POSIX = {  # git's ctype is ASCII-only
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9",
    "graph": "!-~", "lower": "a-z", "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\r ",
    "upper": "A-Z", "xdigit": "0-9A-Fa-f",
}


def _trim_trailing_spaces(line: str) -> str:
    """Drop trailing spaces unless escaped with ``\\`` (git's ``trim_trailing_spaces``)."""
    last_space = None
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == " ":
            if last_space is None:
                last_space = i
        elif ch == "\\":
            i += 1
            if i >= len(line):
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def _wild_class(body: str, i: int) -> tuple[CharClass | None, int]:
    """The bracket expression at ``body[i] == '['`` as wildmatch reads it; None if it can never match."""
    n = len(body)
    j = i + 1
    negated = j < n and body[j] in "!^"
    if negated:
        j += 1
    items: list[str] = []
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
            items.append(re.escape(prev))
        elif ch == "-" and prev is not None and j + 1 < n and body[j + 1] != "]":
            j += 1
            high = body[j]
            if high == "\\":
                j += 1
                if j >= n:
                    return None, n
                high = body[j]
            if prev <= high:
                items.append(f"{re.escape(prev)}-{re.escape(high)}")
            prev = None
        elif ch == "[" and body.startswith(":", j + 1):
            end = body.find("]", j + 2)
            if end < 0:
                return None, n
            if end - (j + 2) < 1 or body[end - 1] != ":":  # no ":]": the '[' is an ordinary member
                prev = "["
                items.append(re.escape(prev))
            else:
                posix = _POSIX.get(body[j + 2:end - 1])
                if posix is None:
                    return None, n  # an unknown [:name:] aborts the match
                items.append(posix)
                prev = None
                j = end
        else:
            prev = ch
            items.append(re.escape(ch))
        j += 1
    members = "".join(items)
    return CharClass(f"[^/{members}]" if negated else f"(?!/)[{members}]"), j + 1


def _wild_tokens(body: str, pathname: bool) -> list[list[Token]] | None:
    """The alternatives of a pattern as wildmatch reads it (``pathname``: ``/`` is special); None: never matches.

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
            tokens.append(STAR)
            i = j
            continue
        if ch == "\\":
            if i + 1 >= n:
                return None  # a trailing backslash never matches
            i += 1
            tokens.append(SLASH if body[i] == "/" else body[i])
        elif ch == "?":
            tokens.append(ANY_CHAR)
        elif ch == "[":
            char_class, i = _wild_class(body, i)
            if char_class is None:
                return None
            tokens.append(char_class)
            continue
        else:
            tokens.append(SLASH if ch == "/" else ch)
        i += 1
    return _glued(tokens)


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


@dataclass(frozen=True, slots=True)
class _Line:
    """One usable ignore line."""

    ignore: bool  # False for a '!' line
    dir_only: bool
    on_name: bool  # no '/': matched against the last component; else against the path below the file's directory
    source: str  # alternatives_source() of the pattern
    regex: re.Pattern[str]
    tier: tuple[str, str] | None  # ("name" | "suffix" | "prefix" | "path", text) when a string test is exact

    def matches(self, rel: str, name: str) -> bool:
        return self.regex.match(name if self.on_name else rel) is not None


def _tier(alternatives: list[list[Token]], on_name: bool) -> tuple[str, str] | None:
    if len(alternatives) != 1:
        return None
    tokens = alternatives[0]
    if not on_name:
        if all(isinstance(t, str) or t is SLASH for t in tokens):
            return "path", "".join(t if isinstance(t, str) else "/" for t in tokens)
        return None
    literal = [t for t in tokens if isinstance(t, str)]
    if len(literal) == len(tokens):
        return "name", "".join(literal)
    if len(literal) == len(tokens) - 1:
        if tokens[0] is STAR:
            return "suffix", "".join(literal)
        if tokens[-1] is STAR:
            return "prefix", "".join(literal)
    return None


def _parse_line(raw: str) -> _Line | None:
    line = _trim_trailing_spaces(raw)
    ignore = not line.startswith("!")
    if not ignore:
        line = line[1:]
    dir_only = line.endswith("/")
    if dir_only:
        line = line[:-1]
    if not line or len(line) > MAX_LINE_CHARS:
        return None
    on_name = "/" not in line
    if not on_name and line.startswith("/"):
        line = line[1:]
    alternatives = _wild_tokens(line, pathname=not on_name)
    if alternatives is None:
        return None
    source = alternatives_source(alternatives)
    return _Line(ignore=ignore, dir_only=dir_only, on_name=on_name, source=source,
                 regex=re.compile(f"(?s:{source})"), tier=_tier(alternatives, on_name))


def _groups(sources: list[str]) -> tuple[re.Pattern[str], ...]:
    """Alternations of ``sources``, compiled in groups of about :data:`_GROUP_CHARS` characters."""
    groups: list[re.Pattern[str]] = []
    current: list[str] = []
    size = 0
    for source in sources:
        current.append(f"(?:{source})")
        size += len(source)
        if size >= _GROUP_CHARS:
            groups.append(re.compile("(?s:" + "|".join(current) + ")"))
            current, size = [], 0
    if current:
        groups.append(re.compile("(?s:" + "|".join(current) + ")"))
    return tuple(groups)


class _Tiers:
    """Whether any of a set of lines can match an entry: string tests first, then grouped regexes."""

    __slots__ = ("names", "path_regexes", "paths", "prefixes", "regexes", "suffixes")

    def __init__(self, lines: Iterable[tuple[str, _Line]]) -> None:
        """Take ``(base, line)`` pairs; ``base`` is the line's directory relative to the ignore base."""
        names: set[str] = set()
        paths: set[str] = set()
        suffixes: list[str] = []
        prefixes: list[str] = []
        name_sources: list[str] = []
        path_sources: list[str] = []
        for base, line in lines:
            prefix = base + "/" if base else ""
            kind, text = line.tier or ("", "")
            if kind == "name":
                names.add(text)
            elif kind == "suffix":
                suffixes.append(text)
            elif kind == "prefix":
                prefixes.append(text)
            elif kind == "path":
                paths.add(prefix + text)
            elif line.on_name:
                name_sources.append(line.source)
            else:
                path_sources.append(re.escape(prefix) + f"(?:{line.source})")
        self.names = frozenset(names)
        self.paths = frozenset(paths)
        self.suffixes = tuple(dict.fromkeys(suffixes))
        self.prefixes = tuple(dict.fromkeys(prefixes))
        self.regexes = _groups(name_sources)
        self.path_regexes = _groups(path_sources)

    def __bool__(self) -> bool:
        return bool(self.names or self.paths or self.suffixes or self.prefixes or self.regexes or self.path_regexes)

    def hit(self, rel: str, name: str) -> bool:
        """Whether a line may match the entry at ``rel`` (relative to the ignore base) named ``name``."""
        return (name in self.names or name.endswith(self.suffixes) or name.startswith(self.prefixes)
                or rel in self.paths or any(r.match(name) for r in self.regexes)
                or any(r.match(rel) for r in self.path_regexes))


@dataclass(frozen=True)
class RuleFile:
    """The usable lines of one ignore file, relative to the directory it applies to."""

    base: str  # '/'-separated directory relative to the ignore base ('' for the base itself)
    lines: tuple[_Line, ...]  # in file order

    @classmethod
    def parse(cls, base: str, text: str) -> RuleFile | None:
        """The rules of an ignore file's text (None when no line is usable), read as git reads it."""
        lines = []
        for raw in text.removeprefix("\ufeff").split("\n"):
            if not raw or raw.startswith("#"):
                continue
            line = _parse_line(raw.removesuffix("\r"))
            if line is not None:
                lines.append(line)
        return cls(base=base, lines=tuple(lines)) if lines else None

    def match(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included) or None (no line matches) for the entry at ``rel`` itself.

        ``rel`` is relative to ``base``, without a trailing ``/``; the entry's parents are not considered.
        """
        name = rel.rpartition("/")[2]
        for line in reversed(self.lines):
            if (is_dir or not line.dir_only) and line.matches(rel, name):
                return line.ignore
        return None

    def decide(self, rel: str) -> bool | None:
        """Like :meth:`match`, for a path whose directories are checked first (a directory's path ends with ``/``).

        As in git, an entry below an ignored directory is ignored whatever the lines say about it.
        """
        parts = rel.rstrip("/").split("/")
        for depth in range(1, len(parts)):
            if self.match("/".join(parts[:depth]), True):
                return True
        return self.match("/".join(parts), rel.endswith("/"))


_Check = tuple[_Tiers, list[RuleFile]]


@functools.lru_cache(maxsize=1024)
def _parse_cached(base: str, text: str) -> RuleFile | None:
    """Rule files are parsed once per process for a given text (a search over a tree re-reads dozens)."""
    return RuleFile.parse(base, text)


MAX_IGNORE_FILE = 1 << 20
"""Bytes of an ignore file that are read (1 MiB, tens of thousands of lines); the rest is not read."""


def _read(path: str) -> str | None:
    """An ignore file's text; None when it is missing or not a regular file.

    A FIFO there is passed by, never opened for a blocking read. At most :data:`MAX_IGNORE_FILE` bytes are read,
    to the last whole line.
    """
    opened = open_regular(path)
    if opened is None:
        return None
    fd, _ = opened
    try:
        raw = os.read(fd, MAX_IGNORE_FILE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(raw) > MAX_IGNORE_FILE:
        raw = raw[: raw.rfind(b"\n", 0, MAX_IGNORE_FILE) + 1]
    return raw.decode("utf-8", errors="replace")


def find_ignore_base(directory: str, *, stop: str | None = None) -> str:
    """The git top-level that contains ``directory`` (not above ``stop`` when given), else ``directory``."""
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current or (stop is not None and current == stop):
            return directory
        current = parent


class IgnoreRules:
    """The gitignore rules that apply below ``base``; rule files are loaded lazily, once per directory."""

    def __init__(self, base: str) -> None:
        self.base = base
        self._files: dict[str, RuleFile | None] = {}
        self._chains: dict[str, list[RuleFile]] = {}
        self._dirs: dict[str, bool] = {}
        self._file_checks: dict[str, _Check | bool] = {}
        self._tiers: dict[tuple[bool, tuple[int, ...]], _Tiers | None] = {}
        exclude = _read(os.path.join(base, ".git", "info", "exclude"))
        self._exclude = RuleFile.parse("", exclude) if exclude else None

    def _file(self, rel_dir: str) -> RuleFile | None:
        if rel_dir not in self._files:
            text = _read(os.path.join(self.base, rel_dir, ".gitignore"))
            self._files[rel_dir] = _parse_cached(rel_dir, text) if text else None
        return self._files[rel_dir]

    def ignored(self, rel: str, is_dir: bool, chain: list[RuleFile] | None = None) -> bool:
        """Whether the entry at ``rel`` (relative to base) is ignored by its own rules (parents not checked)."""
        if chain is None:
            chain = self._chain(rel.rpartition("/")[0])
        for rule in chain:
            decision = rule.match(rel[len(rule.base) + 1:] if rule.base else rel, is_dir)
            if decision is not None:
                return decision
        return False

    def _chain_tiers(self, chain: list[RuleFile], dirs: bool) -> _Tiers | None:
        """The pre-check for the files (or the directories) of a directory with this chain; None: nothing applies."""
        key = (dirs, tuple(map(id, chain)))  # directories sharing rule files share the pre-checks
        if key not in self._tiers:
            tiers = _Tiers((rule.base, line) for rule in chain for line in rule.lines if dirs or not line.dir_only)
            self._tiers[key] = tiers if tiers else None
        return self._tiers[key]

    def file_ignored(self, rel: str) -> bool:
        """Whether the file at ``rel`` (relative to base) is ignored, by its own rules or one of its directories.

        What can apply in a directory is worked out once for it, so most files cost a few string tests.
        """
        parent, _, name = rel.rpartition("/")
        check = self._file_checks.get(parent)
        if check is None:
            check = self._file_checks[parent] = self._file_check(parent)
        if isinstance(check, bool):
            return check
        tiers, chain = check
        return tiers.hit(rel, name) and self.ignored(rel, False, chain)

    def _file_check(self, parent: str) -> _Check | bool:
        """For the files of ``parent``: a constant answer, or (pre-check, rule chain)."""
        if parent and self.dir_ignored(parent):
            return True
        chain = self._chain(parent)
        tiers = self._chain_tiers(chain, dirs=False)
        return False if tiers is None else (tiers, chain)

    def _chain(self, rel_dir: str) -> list[RuleFile]:
        """Rule files that apply to entries of ``rel_dir``, deepest first (the exclude file last); cached."""
        chain = self._chains.get(rel_dir)
        if chain is not None:
            return chain
        pending = [rel_dir]  # the directories from rel_dir up that are not cached yet (no recursion: a tree may be
        while pending[-1] and (parent := pending[-1].rpartition("/")[0]) not in self._chains:  # thousands deep)
            pending.append(parent)
        for directory in reversed(pending):
            if directory:
                inherited = self._chains[directory.rpartition("/")[0]]
            else:
                inherited = [self._exclude] if self._exclude is not None else []
            own = self._file(directory)
            self._chains[directory] = [own, *inherited] if own is not None else inherited
        return self._chains[rel_dir]

    def dir_ignored(self, rel_dir: str) -> bool:
        """Whether the directory at ``rel_dir`` (relative to base) or one of its parents is ignored (cached)."""
        known = self._dirs.get(rel_dir)
        if known is not None:
            return known
        pending = [rel_dir]  # the directories from rel_dir up that are not cached yet, checked top down
        while (parent := pending[-1].rpartition("/")[0]) and parent not in self._dirs:
            pending.append(parent)
        known = bool(parent) and self._dirs[parent]
        for directory in reversed(pending):
            if not known:
                parent, _, name = directory.rpartition("/")
                chain = self._chain(parent)
                tiers = self._chain_tiers(chain, dirs=True)
                known = tiers is not None and tiers.hit(directory, name) and self.ignored(directory, True, chain)
            self._dirs[directory] = known
        return known

    def ancestors_ignored(self, rel_dir: str) -> bool:
        """Whether ``rel_dir`` or one of its parents (below base) is ignored."""
        parts = rel_dir.split("/") if rel_dir else []
        return any(self.ignored("/".join(parts[: i + 1]), True) for i in range(len(parts)))


def walk_files(
    top: str,
    *,
    rules: IgnoreRules | None,
    skip_dirs: frozenset[str] = ALWAYS_SKIPPED,
    on_ignored: bool = False,
    ordered: bool = False,
) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    """Yield ``(path relative to top, entry, ignored)`` for every regular file below ``top``.

    Symlinks are not followed (neither to files nor to directories). Ignored directories are pruned, and ignored
    files are skipped, unless ``on_ignored`` asks to see them too (flagged ``ignored=True``; used to count them).
    With ``ordered``, files come in path order (entries sorted by name, depth first), so a consumer can stop early.
    """
    if ordered:
        yield from _walk_ordered(top, rules, skip_dirs, on_ignored)
        return
    base_rel = ""
    if rules is not None:
        base_rel = os.path.relpath(top, rules.base).replace(os.sep, "/")
        base_rel = "" if base_rel == "." else base_rel
    stack: list[tuple[str, str, bool]] = [(top, "", False)]
    while stack:
        directory, rel_dir, inherited = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            continue
        for rel, entry, is_dir, ignored in _classify(entries, base_rel, rel_dir, rules, inherited):
            if is_dir:
                if entry.name in skip_dirs or (ignored and not on_ignored):
                    continue
                stack.append((entry.path, rel, ignored))
            elif not ignored or on_ignored:
                yield rel, entry, ignored


def _classify(entries: list[os.DirEntry[str]], base_rel: str, rel_dir: str,
              rules: IgnoreRules | None, inherited: bool,
              ) -> Iterator[tuple[str, os.DirEntry[str], bool, bool]]:
    """Yield ``(rel, entry, is_dir, ignored)`` for the regular files and directories of one listing."""
    full_rel_dir = "/".join(p for p in (base_rel, rel_dir) if p)
    check = rules is not None and not inherited
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if not (is_dir or is_file):
            continue
        full_rel = f"{full_rel_dir}/{entry.name}" if full_rel_dir else entry.name
        ignored = inherited or (check and rules is not None
                                and (rules.dir_ignored(full_rel) if is_dir else rules.file_ignored(full_rel)))
        yield (f"{rel_dir}/{entry.name}" if rel_dir else entry.name), entry, is_dir, ignored


def _walk_ordered(top: str, rules: IgnoreRules | None, skip_dirs: frozenset[str],
                  on_ignored: bool) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    base_rel = ""
    if rules is not None:
        base_rel = os.path.relpath(top, rules.base).replace(os.sep, "/")
        base_rel = "" if base_rel == "." else base_rel

    def listing(directory: str, rel_dir: str, inherited: bool) -> Iterator[tuple[str, os.DirEntry[str], bool, bool]]:
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return iter(())
        return _classify(entries, base_rel, rel_dir, rules, inherited)

    # iterative, a stack of listings (recursion failed at ~1,000 levels): a directory's entries are taken up
    # again after everything below one of its subdirectories has been yielded
    stack = [listing(top, "", False)]
    while stack:
        for rel, entry, is_dir, ignored in stack[-1]:
            if is_dir:
                if entry.name not in skip_dirs and (not ignored or on_ignored):
                    stack.append(listing(entry.path, rel, ignored))
                    break
            elif not ignored or on_ignored:
                yield rel, entry, ignored
        else:
            stack.pop()

