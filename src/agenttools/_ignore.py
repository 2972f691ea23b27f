"""gitignore semantics and a walker that prunes ignored directories instead of filtering after.

Rules come from ``.gitignore`` in every directory from the *ignore base* down (the git top-level above the search
directory, or the directory itself outside a repository) and from ``<base>/.git/info/exclude``. As in git, a
deeper file overrides a shallower one, the last matching line of a file wins, ``!`` re-includes, a trailing ``/``
matches directories only, and nothing below an ignored directory can be re-included (it is never walked).
Each ``.gitignore`` is compiled once into one combined regex (a cheap "could anything match?" check) plus its
lines, via pathspec's gitignore patterns for exactness.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

__all__ = ["IgnoreRules", "RuleFile", "find_ignore_base", "walk_files"]

ALWAYS_SKIPPED = frozenset({".git"})


_ANY_DEPTH = "^(?:.+/)?"  # how pathspec starts the regex of a pattern without a slash (it matches any component)
_TAILS = ("(?:/|$)", "/")  # ... and ends it: the component ends the path or a directory follows; directory only


@dataclass(frozen=True)
class RuleFile:
    """The compiled lines of one ignore file, relative to the directory it applies to.

    Most lines name one path component (``*.log``, ``build/``, ``tmp-*``): those are also combined into regexes
    over a single component, so a path is checked component by component (its directory's part once, cached)
    and the lines are scanned, last first, only when something can match.
    """

    base: str  # '/'-separated directory relative to the ignore base ('' for the base itself)
    rules: tuple[tuple[re.Pattern[str], bool], ...]  # (regex, include) in file order
    names: re.Pattern[str] | None = None  # component lines that also match a file name
    dirs: re.Pattern[str] | None = None  # every component line (a directory's name matches them all)
    paths: re.Pattern[str] | None = None  # the other lines, on the whole path
    paths_sources: tuple[str, ...] = ()
    _dir_hits: dict[str, bool] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def parse(cls, base: str, text: str) -> RuleFile | None:
        rules = []
        names: list[str] = []
        dirs: list[str] = []
        paths: list[str] = []
        for line in text.splitlines():
            try:
                pattern = GitIgnoreBasicPattern(line)
            except Exception:  # noqa: BLE001, S112 - git skips lines it cannot parse, so do we
                continue
            if pattern.include is None or pattern.regex is None:
                continue
            source = pattern.regex.pattern
            rules.append((re.compile(source), bool(pattern.include)))
            body = source.removeprefix(_ANY_DEPTH)
            tail = next((t for t in _TAILS if body.endswith(t)), None)
            core = body[: len(body) - len(tail)] if tail else ""
            if body != source and tail and core and not set("/[()|") & set(core):
                dirs.append(core)
                if tail == _TAILS[0]:
                    names.append(core)
            else:
                paths.append(source)
        if not rules:
            return None
        return cls(base=base, rules=tuple(rules), names=_alternation(names), dirs=_alternation(dirs),
                   paths=_alternation(paths), paths_sources=tuple(paths))

    def decide(self, rel: str) -> bool | None:
        """True (ignored), False (re-included) or None (no line matches) for a path relative to ``base``.

        A directory's path ends with ``/``.
        """
        is_dir = rel.endswith("/")
        parent, _, name = rel.rstrip("/").rpartition("/")
        if not (self._parent_hit(parent) or (self.paths is not None and self.paths.match(rel))
                or ((self.dirs if is_dir else self.names) or _NEVER).fullmatch(name)):
            return None
        for regex, include in reversed(self.rules):
            if regex.match(rel):
                return include
        return None

    def _parent_hit(self, parent: str) -> bool:
        if not parent or self.dirs is None:
            return False
        hit = self._dir_hits.get(parent)
        if hit is None:
            dirs = self.dirs
            hit = self._dir_hits[parent] = any(dirs.fullmatch(part) for part in parent.split("/"))
        return hit


_NEVER = re.compile(r"(?!)")
_ANYTHING = re.compile(r"(?s:.*)")
_FileCheck = tuple[re.Pattern[str], re.Pattern[str], list[RuleFile]]


def _pre_checks(chain: list[RuleFile]) -> tuple[re.Pattern[str], re.Pattern[str]] | bool:
    """(name pre-check, path pre-check) over a chain of rule files; False when no line can match a file."""
    names: list[str] = []
    paths: list[str] = []
    for rule in chain:
        if rule.names is not None:
            names.append(rule.names.pattern)
        # each line's regex starts with ^: anchor it below the rule file's directory instead
        prefix = re.escape(rule.base + "/") if rule.base else ""
        paths.extend(prefix + source[1:] if source.startswith("^") else ".*" for source in rule.paths_sources)
    if not names and not paths:
        return False
    return _alternation(names) or _NEVER, _alternation(["^" + p for p in paths]) or _NEVER


@functools.lru_cache(maxsize=1024)
def _parse_cached(base: str, text: str) -> RuleFile | None:
    """Rule files are parsed once per process for a given text (a search over a tree re-reads dozens)."""
    return RuleFile.parse(base, text)


def _alternation(sources: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{s})" for s in sources)) if sources else None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


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
        self._file_checks: dict[str, _FileCheck | bool] = {}
        self._chain_checks: dict[tuple[int, ...], tuple[re.Pattern[str], re.Pattern[str]] | bool] = {}
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
            local = rel[len(rule.base) + 1:] if rule.base else rel
            decision = rule.decide(local + "/" if is_dir else local)
            if decision is not None:
                return decision
        return False

    def file_ignored(self, rel: str) -> bool:
        """Whether the file at ``rel`` (relative to base) is ignored, by its own rules or one of its directories.

        What can apply in a directory is worked out once for it, so most files cost one regex on their name.
        """
        parent, _, name = rel.rpartition("/")
        check = self._file_checks.get(parent)
        if check is None:
            check = self._file_checks[parent] = self._file_check(parent)
        if isinstance(check, bool):
            return check
        names, paths, chain = check
        if names.fullmatch(name) or paths.match(rel):
            return self.ignored(rel, False, chain)
        return False

    def _file_check(self, parent: str) -> _FileCheck | bool:
        """For the files of ``parent``: a constant answer, or (name pre-check, path pre-check, rule chain)."""
        if parent and self.dir_ignored(parent):
            return True
        chain = self._chain(parent)
        for rule in chain:
            if rule._parent_hit(parent[len(rule.base) + 1:] if rule.base else parent):
                return _ANYTHING, _NEVER, chain
        key = tuple(map(id, chain))  # directories sharing rule files share the pre-checks
        known = self._chain_checks.get(key)
        if known is None:
            known = self._chain_checks[key] = _pre_checks(chain)
        return known if isinstance(known, bool) else (*known, chain)

    def _chain(self, rel_dir: str) -> list[RuleFile]:
        """Rule files that apply to entries of ``rel_dir``, deepest first (the exclude file last); cached."""
        chain = self._chains.get(rel_dir)
        if chain is None:
            if rel_dir:
                inherited = self._chain(rel_dir.rpartition("/")[0])
            else:
                inherited = [self._exclude] if self._exclude is not None else []
            own = self._file(rel_dir)
            chain = self._chains[rel_dir] = [own, *inherited] if own is not None else inherited
        return chain

    def dir_ignored(self, rel_dir: str) -> bool:
        """Whether the directory at ``rel_dir`` (relative to base) or one of its parents is ignored (cached)."""
        known = self._dirs.get(rel_dir)
        if known is None:
            parent = rel_dir.rpartition("/")[0]
            known = (bool(parent) and self.dir_ignored(parent)) or self.ignored(rel_dir, True, self._chain(parent))
            self._dirs[rel_dir] = known
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

    def visit(directory: str, rel_dir: str, inherited: bool) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        for rel, entry, is_dir, ignored in _classify(entries, base_rel, rel_dir, rules, inherited):
            if is_dir:
                if entry.name not in skip_dirs and (not ignored or on_ignored):
                    yield from visit(entry.path, rel, ignored)
            elif not ignored or on_ignored:
                yield rel, entry, ignored

    yield from visit(top, "", False)

