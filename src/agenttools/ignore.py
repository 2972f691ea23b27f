r"""gitignore semantics and a walker that prunes ignored directories instead of filtering after.

Rules come from ``.gitignore`` in every directory from the *ignore base* down (the git top-level above the search
directory, or the directory itself outside a repository) and from ``<base>/.git/info/exclude``. As in git, a
deeper file overrides a shallower one, the last matching line of a file wins, ``!`` re-includes, a trailing ``/``
matches directories only, and nothing below an ignored directory can be re-included (it is never walked).

Every pattern is matched by pathspec's translation, run by RE2 (:mod:`agenttools._pathmatch`): ignore files are
workspace content, so hostile, and RE2 matches in linear time. What this module keeps of its own, and why:

* **Reading a line as git does** (:mod:`agenttools._wildmatch`): ``*``, ``?``, ``[...]`` with
  ``[:alpha:]`` classes and ``\`` escapes, ``**`` in ``**/x``, ``x/**``, ``a/**/b`` and right after a literal
  prefix (``foo**/bar``), trailing spaces, a final ``\r``, a leading BOM. pathspec 1.1.1 reads several of these
  differently from git (listed in :mod:`agenttools._pathmatch`), and a line it cannot compile would fail a whole
  ``GitIgnoreSpec``; here each line is checked alone, and one git cannot use (an unclosed ``[``, a trailing ``\``,
  longer than :data:`MAX_LINE_CHARS`) is skipped as git skips it. The 2,600 random ignore files of the tests agree
  with ``git ls-files``. Like git, this works on characters git would see as bytes only in the rare case of a
  non-ASCII character under ``?`` or in a class.
* **Nested ignore files**, one per directory, each relative to its own directory: pathspec matches one list of
  lines against paths relative to one place.
* **Tiered decisions**, for speed on real trees (dozens of ignore files full of ``*.ext`` lines): each line is cut
  once, when parsed, at its last ``/`` into a test of the directory and a test of the name. What applies to the
  entries of a directory is then worked out once for it (:class:`_Chain`, :class:`_Names`): literal names looked
  up in a dict, suffixes (``*.log``, and ``*.py[cod]`` expanded to three) and prefixes (``tmp-*``) picked by the
  name's last or first character, and compiled patterns for the rest, tried only while they could still change the
  answer. As in git, the line tried first that matches decides (deepest file first, last line first).
  pathspec's own ``GitIgnoreSpec`` (``re2`` backend) asked about each file by every ignore file above it is
  several times slower on a real monorepo: ``bench/run.py`` measures both side by side.

The walker is :func:`agenttools._walk.walk` with an ``enter`` that prunes ignored directories
(:func:`walk_files`); it tells the rules which directories have no ``.gitignore``, so they are not opened.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from agenttools._glob import MAX_PATTERN_CHARS
from agenttools._pathmatch import DEEP, REST, SLASH, STAR, CharClass, PathMatcher, Token, compile_alternatives
from agenttools._text import open_regular
from agenttools._walk import walk
from agenttools._wildmatch import read_pattern

__all__ = ["ALWAYS_SKIPPED", "MAX_LINE_CHARS", "IgnoreRules", "RuleFile", "find_ignore_base", "walk_files"]

ALWAYS_SKIPPED = frozenset({".git"})

MAX_LINE_CHARS = MAX_PATTERN_CHARS
"""Longest ignore line used (characters, after trailing spaces are trimmed); a longer one is skipped."""


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


_NEVER = 1 << 62  # an index past every line's
_MAX_BUILT = 256  # directories with lines of their own whose tests a chain keeps between searches
_MAX_EXPANSION = 16  # a segment whose classes expand to at most this many literal forms is tested without regex

_Test = tuple[str, str] | tuple[str, tuple[str, str, PathMatcher]]  # (kind, text) or ("regex", (head, tail, re))
_Entry = tuple[int, _Test]  # (index of the line, a test on the name that is true exactly when the line matches)


def _literal(tokens: Sequence[Token]) -> str | None:
    """The text of tokens that are all literal characters, else None."""
    chars = [t for t in tokens if isinstance(t, str)]
    return "".join(chars) if len(chars) == len(tokens) else None


def _simple_test(tokens: list[Token]) -> _Test | None:
    """``name``, ``suffix``, ``prefix`` or ``always`` for a segment of literal characters and at most one edge star."""
    if (text := _literal(tokens)) is not None:
        return "name", text
    if tokens == [STAR]:
        return "always", ""
    if tokens[0] is STAR and (text := _literal(tokens[1:])) is not None:
        return "suffix", text
    if tokens[-1] is STAR and (text := _literal(tokens[:-1])) is not None:
        return "prefix", text
    return None


def _segment_tests(segment: Sequence[Token]) -> tuple[_Test, ...]:
    """Tests on a name that together are true exactly when the one-segment pattern ``segment`` matches it.

    A class of a few characters is expanded (``*.py[cod]`` is three suffixes) when every form is then simple;
    otherwise the segment is one linear-time regex, behind a test of its literal head and tail.
    """
    forms: list[list[Token]] = [[]]
    for token in segment:
        members = token.members if isinstance(token, CharClass) else None
        if members is not None and len(forms) * len(members) <= _MAX_EXPANSION:
            forms = [[*form, char] for form in forms for char in members]
        elif isinstance(token, CharClass):
            forms = []
            break
        else:
            for form in forms:
                form.append(token)
    if forms or not segment:
        simple = [_simple_test(form) for form in forms]
        if all(test is not None for test in simple):
            return tuple(test for test in simple if test is not None)
    first = next((k for k, t in enumerate(segment) if not isinstance(t, str)), len(segment))
    last = next((k for k in range(len(segment), 0, -1) if not isinstance(segment[k - 1], str)), 0)
    head = "".join(t for t in segment[:first] if isinstance(t, str))
    tail = "".join(t for t in segment[last:] if isinstance(t, str)) if last > first else ""
    return (("regex", (head, tail, compile_alternatives([segment], lazy=True))),)


class _Shape(NamedTuple):
    """How one alternative of a line is tested on the entries of a directory (see :class:`_Chain`).

    ``kind`` is ``everywhere`` (any directory), ``fixed`` (the directory ``directory`` below the file's),
    ``pattern`` (directories whose path below the file's, with a final ``/``, matches ``regex``) or ``rest``
    (every entry of the directories ``regex`` matches); ``tests`` then decide on the entry's name.
    """

    kind: str
    tests: tuple[_Test, ...] = ()
    directory: str = ""
    regex: PathMatcher | None = None


class _Line(NamedTuple):
    """One usable ignore line."""

    ignore: bool  # False for a '!' line
    dir_only: bool
    on_name: bool  # no '/': matched against the last component; else against the path below the file's directory
    regex: PathMatcher  # the whole pattern, on the name or the path
    shapes: tuple[_Shape, ...]  # the pattern's alternatives, cut for the tiered tests

    def matches(self, rel: str, name: str) -> bool:
        return self.regex.match(name if self.on_name else rel)


def _shape(tokens: list[Token], on_name: bool) -> _Shape:
    """Cut an alternative at its last ``/``: a test of the directory, then tests of the name."""
    if on_name:
        return _Shape("everywhere", _segment_tests(tokens))
    if tokens and tokens[-1] is REST:
        return _Shape("rest", regex=compile_alternatives([tokens], lazy=True))
    cut = max((k + 1 for k, t in enumerate(tokens) if t is SLASH or t is DEEP), default=0)
    head, tests = tokens[:cut], _segment_tests(tokens[cut:])
    if head == [DEEP]:
        return _Shape("everywhere", tests)
    if all(isinstance(t, str) or t is SLASH for t in head):
        return _Shape("fixed", tests, directory="".join(t if isinstance(t, str) else "/" for t in head)[:-1])
    return _Shape("pattern", tests, regex=compile_alternatives([head], lazy=True))


@functools.lru_cache(maxsize=8192)
def _parse_line(raw: str) -> _Line | None:
    """One line as git reads it (cached: the same lines recur in many files, and in one file at many bases)."""
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
    alternatives = read_pattern(line, pathname=not on_name)
    if alternatives is None:
        return None
    # compiled on first use (most lines are decided by the tiers without a regex); a line RE2 cannot compile within
    # its budget then matches nothing, as git skips a line it cannot use
    return _Line(ignore=ignore, dir_only=dir_only, on_name=on_name, regex=compile_alternatives(alternatives, lazy=True),
                 shapes=tuple(_shape(tokens, on_name) for tokens in alternatives))


class RuleFile:
    """The usable lines of one ignore file, relative to the directory it applies to."""

    __slots__ = ("base", "lines")

    def __init__(self, *, base: str, lines: tuple[_Line, ...]) -> None:
        self.base = base
        """'/'-separated directory relative to the ignore base ('' for the base itself)."""
        self.lines = lines
        """The usable lines, in file order."""

    def __repr__(self) -> str:
        return f"RuleFile(base={self.base!r}, lines={len(self.lines)})"

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


class _Names:
    """The lines that can apply to the entries of one directory, as tests on an entry's name.

    Each line has an index in the order git tries them (deepest ignore file first, last line first): the smallest
    index that matches decides. Literal names are a dict lookup; suffixes (``*.log``) are grouped by their last
    character and prefixes (``tmp-*``) by their first, so a name meets only the few that can match it; the other
    lines are regexes, tried in index order while they could still win, behind a test of their literal head and
    tail (first by character, as for the prefixes and suffixes).
    """

    __slots__ = ("always", "ends", "ignore", "names", "outer", "regex_firsts", "regex_lasts", "regexes", "starts",
                 "unguarded")

    def __init__(self, entries: Iterable[_Entry], ignore: list[bool], outer: _Names | None = None) -> None:
        """Index ``entries``; ``outer`` holds more lines of the same chain (those that apply everywhere)."""
        self.ignore = ignore
        self.outer = outer
        self.always = _NEVER
        self.names: dict[str, int] = {}
        suffixes: dict[str, int] = {}
        prefixes: dict[str, int] = {}
        regexes: list[tuple[int, str, str, PathMatcher]] = []
        for index, (kind, data) in entries:
            if kind == "always":
                self.always = min(self.always, index)
            elif isinstance(data, tuple):
                regexes.append((index, *data))
            else:
                table = self.names if kind == "name" else suffixes if kind == "suffix" else prefixes
                table[data] = min(table.get(data, _NEVER), index)
        ends: dict[str, list[tuple[str, int]]] = {}
        for suffix, index in suffixes.items():
            ends.setdefault(suffix[-1], []).append((suffix, index))
        starts: dict[str, list[tuple[str, int]]] = {}
        for prefix, index in prefixes.items():
            starts.setdefault(prefix[0], []).append((prefix, index))
        self.ends = {char: tuple(tests) for char, tests in ends.items()}
        self.starts = {char: tuple(tests) for char, tests in starts.items()}
        self.regexes = tuple(sorted(regexes, key=lambda r: r[0]))
        # one test before the regexes: the first character of a literal head, or (for the headless) the last of a
        # literal tail, or a regex with neither
        self.regex_firsts = frozenset(head[0] for _, head, _, _ in regexes if head)
        self.regex_lasts = frozenset(tail[-1] for _, head, tail, _ in regexes if tail and not head)
        self.unguarded = any(not head and not tail for _, head, tail, _ in regexes)

    def decide(self, name: str) -> bool | None:
        """True (ignored), False (re-included) or None (no line matches) for the entry called ``name``."""
        best = self.best(name, _NEVER)
        if self.outer is not None:
            best = self.outer.best(name, best)
        return None if best == _NEVER else self.ignore[best]

    def best(self, name: str, best: int) -> int:
        """The smallest index of a line here that matches ``name`` if below ``best``, else ``best``."""
        if self.always < best:
            best = self.always
        hit = self.names.get(name)
        if hit is not None and hit < best:
            best = hit
        first, last = name[:1], name[-1:]
        tests = self.ends.get(last)
        if tests is not None:
            for suffix, index in tests:
                if index < best and name.endswith(suffix):
                    best = index
        tests = self.starts.get(first)
        if tests is not None:
            for prefix, index in tests:
                if index < best and name.startswith(prefix):
                    best = index
        if self.regexes and (self.unguarded or first in self.regex_firsts or last in self.regex_lasts):
            for index, head, tail, regex in self.regexes:
                if index >= best:
                    break
                if name.startswith(head) and name.endswith(tail) and regex.match(name):
                    return index
        return best


def _below(rel_dir: str, base: str) -> str:
    """``rel_dir`` relative to ``base`` (one of its ancestors or itself), with a trailing ``/`` unless empty."""
    if not base:
        return rel_dir + "/" if rel_dir else ""
    return "" if rel_dir == base else rel_dir[len(base) + 1:] + "/"


class _Chain:
    """The lines of a rule chain (deepest file first) for the files, or the directories, of a directory.

    A line naming one component applies in every directory. A line with a ``/`` splits at its last one: its head
    must match the directory, its last segment the name. A literal head names one directory (looked up in a
    dict), ``**/`` names all of them, any other head is a regex tried once per directory; a line ending in
    ``/**`` matches every entry of the directories its head matches.
    """

    __slots__ = ("built", "everywhere", "fixed_dirs", "ignore", "pattern_dirs", "rest")

    def __init__(self, chain: tuple[RuleFile, ...], dirs: bool) -> None:
        self.built: dict[str, _Names] = {}  # the directories with lines of their own, kept for the next search
        self.ignore: list[bool] = []
        everywhere: list[_Entry] = []
        self.fixed_dirs: dict[str, list[_Entry]] = {}
        self.pattern_dirs: list[tuple[str, PathMatcher, list[_Entry]]] = []
        self.rest: list[tuple[str, PathMatcher, int]] = []
        for rule in chain:
            for line in reversed(rule.lines):
                if line.dir_only and not dirs:
                    continue
                index = len(self.ignore)
                self.ignore.append(line.ignore)
                for shape in line.shapes:
                    entries = [(index, test) for test in shape.tests]
                    if shape.kind == "everywhere":
                        everywhere.extend(entries)
                    elif shape.kind == "fixed":
                        key = "/".join(part for part in (rule.base, shape.directory) if part)
                        self.fixed_dirs.setdefault(key, []).extend(entries)
                    elif shape.regex is not None:
                        if shape.kind == "rest":
                            self.rest.append((rule.base, shape.regex, index))
                        else:
                            self.pattern_dirs.append((rule.base, shape.regex, entries))
        self.everywhere = _Names(everywhere, self.ignore)

    def names(self, rel_dir: str) -> _Names:
        """The tests for the entries of ``rel_dir`` (relative to the ignore base)."""
        built = self.built.get(rel_dir)
        if built is not None:
            return built
        extra = list(self.fixed_dirs.get(rel_dir, ()))
        for base, regex, entries in self.pattern_dirs:
            if regex.match(_below(rel_dir, base)):
                extra.extend(entries)
        for base, regex, index in self.rest:
            if regex.match(_below(rel_dir, base)):
                extra.append((index, ("always", "")))
        if not extra:
            return self.everywhere
        if len(self.built) >= _MAX_BUILT:
            self.built.clear()
        built = self.built[rel_dir] = _Names(extra, self.ignore, self.everywhere)
        return built


@functools.lru_cache(maxsize=512)
def _chain_index(chain: tuple[RuleFile, ...], dirs: bool) -> _Chain:
    """Built once per process for a chain of parsed files (they are cached by text, and hash by identity)."""
    return _Chain(chain, dirs)


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
        self._chains: dict[str, tuple[RuleFile, ...]] = {}
        self._dirs: dict[str, bool] = {}
        self._file_checks: dict[str, _Names | bool] = {}  # with the directory's own state: True if it is ignored
        self._tests: tuple[dict[str, _Names | None], dict[str, _Names | None]] = ({}, {})  # for files, for dirs
        exclude = _read(os.path.join(base, ".git", "info", "exclude"))
        self._exclude = _parse_cached("", exclude) if exclude else None

    def no_ignore_file(self, rel_dir: str) -> None:
        """Record that ``rel_dir`` has no ``.gitignore`` (a walker saw its listing), unless it was read already."""
        self._files.setdefault(rel_dir, None)

    def _file(self, rel_dir: str) -> RuleFile | None:
        if rel_dir not in self._files:
            path = os.path.join(self.base, rel_dir, ".gitignore")
            # most directories have none: access() says so without the cost of a failed open() and its exception
            text = _read(path) if os.access(path, os.F_OK, follow_symlinks=False) else None
            self._files[rel_dir] = _parse_cached(rel_dir, text) if text else None
        return self._files[rel_dir]

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether the entry at ``rel`` (relative to base) is ignored by its own rules (parents not checked)."""
        parent, _, name = rel.rpartition("/")
        names = self._names(parent, is_dir)
        return names is not None and names.decide(name) is True

    def _names(self, rel_dir: str, dirs: bool) -> _Names | None:
        """The tests for the files (or the directories) of ``rel_dir``; None when no line applies there (cached)."""
        known = self._tests[dirs]
        if rel_dir in known:
            return known[rel_dir]
        chain = self._chain(rel_dir)
        names = _chain_index(chain, dirs).names(rel_dir) if chain else None
        known[rel_dir] = names = names if names is not None and names.ignore else None
        return names

    def file_ignored(self, rel: str) -> bool:
        """Whether the file at ``rel`` (relative to base) is ignored, by its own rules or one of its directories.

        What can apply in a directory is worked out once for it, so most files cost a few string tests.
        """
        parent, _, name = rel.rpartition("/")
        check = self._file_checks.get(parent)
        if check is None:
            check = self._file_checks[parent] = self._file_check(parent)
        if check is True or check is False:
            return check
        best = check.best(name, _NEVER)  # check.decide(name) is True, without two calls on the hot path
        if check.outer is not None:
            best = check.outer.best(name, best)
        return best != _NEVER and check.ignore[best]

    def _file_check(self, rel_dir: str) -> _Names | bool:
        """For the files of ``rel_dir``: a constant answer, or the tests to run on each name."""
        if rel_dir and self.dir_ignored(rel_dir):
            return True
        names = self._names(rel_dir, False)
        return False if names is None else names

    def _chain(self, rel_dir: str) -> tuple[RuleFile, ...]:
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
                inherited = (self._exclude,) if self._exclude is not None else ()
            own = self._file(directory)
            self._chains[directory] = (own, *inherited) if own is not None else inherited
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
                names = self._names(parent, True)
                known = names is not None and names.decide(name) is True
            self._dirs[directory] = known
        return known

    def ancestors_ignored(self, rel_dir: str) -> bool:
        """Whether ``rel_dir`` or one of its parents (below base) is ignored."""
        return bool(rel_dir) and self.dir_ignored(rel_dir)


def walk_files(
    top: str,
    *,
    rules: IgnoreRules | None,
    skip_dirs: frozenset[str] = ALWAYS_SKIPPED,
    on_ignored: bool = False,
    ordered: bool = False,
    wanted: Callable[[str], object] | None = None,
) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    """Yield ``(path relative to top, entry, ignored)`` for every regular file below ``top``.

    Symlinks are not followed (neither to files nor to directories). Ignored directories are pruned, and ignored
    files are skipped, unless ``on_ignored`` asks to see them too (flagged ``ignored=True``; used to count them).
    With ``ordered``, files come in path order (entries sorted by name, depth first), so a consumer can stop early.
    With ``wanted``, only files for which ``wanted(path relative to top)`` is true are yielded, and the ignore
    rules are applied to those only (a glob's match is cheaper than the rules, and rejects most files).
    This is :func:`agenttools._walk.walk` with an ``enter`` that prunes; the rules cache what they decide per
    directory, so the walk needs no state of its own.
    """
    prefix = ""
    if rules is not None:
        base_rel = os.path.relpath(top, rules.base).replace(os.sep, "/")
        prefix = "" if base_rel == "." else base_rel + "/"

    def enter(rel: str, entry: os.DirEntry[str]) -> bool:
        return entry.name not in skip_dirs and (on_ignored or rules is None or not rules.dir_ignored(prefix + rel))

    def listed(rel_dir: str, entries: list[os.DirEntry[str]]) -> None:
        if rules is not None and not any(entry.name == ".gitignore" for entry in entries):
            rules.no_ignore_file((prefix + rel_dir).rstrip("/"))  # the listing says so: no need to try opening one

    for rel, entry, is_dir in walk(top, path_order=ordered, enter=enter, listed=None if rules is None else listed):
        if is_dir:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
        except OSError:
            continue
        if wanted is not None and not wanted(rel):
            continue
        if rules is None:
            yield rel, entry, False
        elif not (ignored := rules.file_ignored(prefix + rel)) or on_ignored:
            yield rel, entry, ignored
