"""gitignore semantics and a walker that prunes ignored directories instead of filtering after.

Rules come from ``.gitignore`` in every directory from the *ignore base* down (the git top-level above the search
directory, or the directory itself outside a repository) and from ``<base>/.git/info/exclude``. As in git, a
deeper file overrides a shallower one, the last matching line of a file wins, ``!`` re-includes, a trailing ``/``
matches directories only, and nothing below an ignored directory can be re-included (it is never walked).
Each ``.gitignore`` is compiled once into one combined regex (a cheap "could anything match?" check) plus its
lines, via pathspec's gitignore patterns for exactness.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

__all__ = ["IgnoreRules", "RuleFile", "find_ignore_base", "walk_files"]

ALWAYS_SKIPPED = frozenset({".git"})


@dataclass(frozen=True)
class RuleFile:
    """The compiled lines of one ignore file, relative to the directory it applies to."""

    base: str  # '/'-separated directory relative to the ignore base ('' for the base itself)
    rules: tuple[tuple[re.Pattern[str], bool], ...]  # (regex, include) in file order
    combined: re.Pattern[str] | None = field(default=None)

    @classmethod
    def parse(cls, base: str, text: str) -> RuleFile | None:
        rules = []
        for line in text.splitlines():
            try:
                pattern = GitIgnoreBasicPattern(line)
            except Exception:  # noqa: BLE001, S112 - git skips lines it cannot parse, so do we
                continue
            if pattern.include is None or pattern.regex is None:
                continue
            rules.append((re.compile(pattern.regex.pattern), bool(pattern.include)))
        if not rules:
            return None
        combined = re.compile("|".join(f"(?:{r.pattern})" for r, _ in rules))
        return cls(base=base, rules=tuple(rules), combined=combined)

    def decide(self, rel: str) -> bool | None:
        """True (ignored), False (re-included) or None (no line matches) for a path relative to ``base``."""
        if self.combined is not None and not self.combined.match(rel):
            return None
        for regex, include in reversed(self.rules):
            if regex.match(rel):
                return include
        return None


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
        exclude = _read(os.path.join(base, ".git", "info", "exclude"))
        self._exclude = RuleFile.parse("", exclude) if exclude else None

    def _file(self, rel_dir: str) -> RuleFile | None:
        if rel_dir not in self._files:
            text = _read(os.path.join(self.base, rel_dir, ".gitignore"))
            self._files[rel_dir] = RuleFile.parse(rel_dir, text) if text else None
        return self._files[rel_dir]

    def chain(self, rel_dir: str) -> list[RuleFile]:
        """Rule files that apply to entries of ``rel_dir``, deepest first (the exclude file last)."""
        parts = rel_dir.split("/") if rel_dir else []
        files = []
        for depth in range(len(parts), -1, -1):
            rule = self._file("/".join(parts[:depth]))
            if rule is not None:
                files.append(rule)
        if self._exclude is not None:
            files.append(self._exclude)
        return files

    def ignored(self, rel: str, is_dir: bool, chain: list[RuleFile] | None = None) -> bool:
        """Whether the entry at ``rel`` (relative to base) is ignored by its own rules (parents not checked)."""
        if chain is None:
            chain = self.chain(rel.rpartition("/")[0])
        for rule in chain:
            local = rel[len(rule.base) + 1:] if rule.base else rel
            decision = rule.decide(local + "/" if is_dir else local)
            if decision is not None:
                return decision
        return False

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
    chain = rules.chain(full_rel_dir) if rules is not None and not inherited else []
    for entry in entries:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if not (is_dir or is_file):
            continue
        full_rel = f"{full_rel_dir}/{entry.name}" if full_rel_dir else entry.name
        ignored = inherited or (rules is not None and rules.ignored(full_rel, is_dir, chain))
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

