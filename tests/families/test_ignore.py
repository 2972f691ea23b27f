"""The tiered gitignore matcher and the shared walker: same answers as a plain line scan, as git, in path order."""

from __future__ import annotations

import os
import random
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agenttools import Workspace
from agenttools._glob import compile_glob
from agenttools._walk import walk
from agenttools.ignore import IgnoreRules, RuleFile, walk_files
from agenttools.search import glob_files
from agenttools.search.results import path_key

# --- the tiers against a plain scan of the lines -----------------------------------------------------------------

_ATOMS = ["a", "b", "ab", ".", "x", "1", "-", "*", "?", "[ab]", "[!a]", "[a-c]", "[[:digit:]]", "\\*", "[x/]",
          "[z-a]", "[]]", "[a-b1-2x-z]"]
_NAMES = ["a", "b", "ab", "a.b", "x", "ba", "1", "abc", "-", "]", "a1", "*", "xa", "bb", "c"]


@st.composite
def _line(draw: st.DrawFn) -> str:
    segment = st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=3).map("".join)
    parts = draw(st.lists(st.one_of(segment, st.just("**")), min_size=1, max_size=3))
    text = "/".join(parts)
    for affix in ("/", "**/"):  # anchored, or any depth
        if draw(st.booleans()):
            text = affix + text
    for suffix in ("/**", "/"):  # everything below, directories only
        if draw(st.integers(0, 4)) == 0:
            text += suffix
    return ("!" if draw(st.integers(0, 3)) == 0 else "") + text


_DIRS = st.lists(st.sampled_from(_NAMES), min_size=1, max_size=3).map("/".join)
_TREE = st.dictionaries(st.one_of(st.just(""), _DIRS), st.lists(_line(), min_size=1, max_size=8), max_size=5)
_PATHS = st.lists(st.lists(st.sampled_from(_NAMES), min_size=1, max_size=5).map("/".join), min_size=1, max_size=30)


def _scan(files: dict[str, RuleFile | None], rel: str, is_dir: bool) -> bool:
    """The reference: the rule files from the entry's directory up, each scanned last line first; then parents."""
    parts = rel.split("/")
    for depth in range(1, len(parts) + 1):
        entry, own_dir = "/".join(parts[:depth]), depth < len(parts) or is_dir
        decision = None
        for up in range(depth - 1, -1, -1):
            rule = files.get("/".join(parts[:up]))
            if rule is not None and decision is None:
                decision = rule.match(entry[len(rule.base) + 1:] if rule.base else entry, own_dir)
        if decision:
            return True
    return False


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=_TREE, paths=_PATHS)
def test_tiered_decisions_agree_with_a_scan_of_the_lines(tree, paths):
    with tempfile.TemporaryDirectory() as base:
        for rel_dir, lines in tree.items():
            os.makedirs(os.path.join(base, rel_dir), exist_ok=True)
            Path(base, rel_dir, ".gitignore").write_text("\n".join(lines) + "\n")
        rules = IgnoreRules(base)
        files = {rel_dir: RuleFile.parse(rel_dir, "\n".join(lines)) for rel_dir, lines in tree.items()}
        for rel in paths:
            assert rules.file_ignored(rel) == _scan(files, rel, False), (rel, tree)
            assert rules.dir_ignored(rel) == _scan(files, rel, True), (rel, tree)


# --- real-world rules against git ---------------------------------------------------------------------------------

# lines of the kinds numpy's, scipy's and git's .gitignore files carry: names, *.ext with classes, anchored and
# deep paths, negations, directory-only lines, a head with a wildcard, a trailing /**
_ROOT_RULES = """\
*.py[cod]
*.so
*.[oa]
*.sw[nop]
.*.sw[nop]
#*#
*~
Icon?
.*cache
/build-*/
/git-add
/git-am
/cscope*
doc/source/**/generated/
pkg/sub/*.c
!pkg/sub/keep.c
pkg/data/*.npz
git-core-*/?*
**/.ipynb_checkpoints
vendor/**
!vendor/**/
!vendor/**/kept.py
/UpgradeLog*.htm
tmp-*
"""
_NESTED_RULES = {
    "pkg": "/local\n*.tmp\n!important.tmp\ngenerated-*.py\nmid/*.h\n",
    "pkg/sub": "!*.so\n/own/\n",
    "t": "/trash directory*\n!/trash directory.keep/\n",
}
_FILES = [
    "a.py", "a.pyc", "b.pyo", "lib.so", "x.o", "y.a", "z.c", "q.swp", ".q.swn", "#auto#", "back~", "Icon\r", "Iconx",
    ".pytest_cache/v", ".cache", "build-linux/x.py", "src/build-linux/x.py", "git-add", "t/git-add", "cscope.out",
    "doc/source/a/b/generated/x.rst", "doc/source/generated/y.rst", "doc/other/generated/z.rst",
    "pkg/sub/m.c", "pkg/sub/keep.c", "pkg/sub/lib.so", "pkg/sub/own/o.py", "pkg/sub/d/own/o.py", "pkg/data/d.npz",
    "pkg/data/x/d.npz", "git-core-1/bin", "git-core-2/x/y", "nb/.ipynb_checkpoints/c.py", "vendor/v.py",
    "vendor/d/kept.py", "vendor/d/other.py", "UpgradeLog2.htm", "tmp-1.py", "pkg/local/l.py", "pkg/x/local/l.py",
    "pkg/a.tmp", "pkg/important.tmp", "pkg/generated-1.py", "pkg/mid/a.h", "pkg/q/mid/a.h", "t/trash directory.x/f",
    "t/trash directory.keep/f", "t/u/trash directory.y/f", "keep.py",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for rel in _FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    (root / ".gitignore").write_text(_ROOT_RULES)
    for rel_dir, text in _NESTED_RULES.items():
        (root / rel_dir / ".gitignore").write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _git_others(root: Path, *flags: str) -> list[str]:
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard", *flags],
                            capture_output=True, check=True).stdout.decode()
    return sorted(name for name in listed.split("\0") if name)


def test_real_world_rules_agree_with_git(project):
    kept = _git_others(project)
    assert sorted(rel for rel, _, _ in walk_files(str(project), rules=IgnoreRules(str(project)))) == kept
    ordered = [rel for rel, _, _ in walk_files(str(project), rules=IgnoreRules(str(project)), ordered=True)]
    assert ordered == sorted(kept, key=path_key)
    assert {"vendor/d/kept.py", "pkg/sub/lib.so", "t/trash directory.keep/f"} <= set(kept)  # negations
    assert not {"vendor/d/other.py", "pkg/sub/m.c", "git-core-2/x/y"} & set(kept)


@pytest.mark.parametrize("backend", ["rg", "python"])
@pytest.mark.parametrize("pattern", ["**/*.py", "**/*", "pkg/**", "*.py"])
def test_the_ignored_count_is_what_git_ignores_among_the_matches(project, backend, pattern):
    matcher = compile_glob(pattern, case_sensitive=False)
    ignored = [rel for rel in _git_others(project, "--ignored") if matcher.match(rel)]
    kept = [rel for rel in _git_others(project) if matcher.match(rel)]
    result = glob_files(Workspace(project), pattern, backend=backend)
    assert sorted(m.rel for m in result.matches) == kept
    assert result.ignored_count == len(ignored)
    assert ignored  # the tree has ignored files for every pattern


def test_wanted_narrows_the_walk_and_the_flags_stay(project):
    def wanted(rel: str) -> bool:
        return rel.endswith(".py")

    every = [(rel, ignored) for rel, _, ignored in walk_files(str(project), rules=IgnoreRules(str(project)),
                                                             on_ignored=True)]
    narrowed = [(rel, ignored) for rel, _, ignored in walk_files(str(project), rules=IgnoreRules(str(project)),
                                                                 on_ignored=True, wanted=wanted)]
    assert sorted(narrowed) == sorted(item for item in every if wanted(item[0]))
    assert any(ignored for _, ignored in narrowed) and not all(ignored for _, ignored in narrowed)


# --- the shared walker --------------------------------------------------------------------------------------------

@pytest.fixture
def small_tree(tmp_path: Path) -> Path:
    for rel in ("a.txt", "a/x", "a/z/y", "a-b", "b", ".h/i", "c/d/e"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "a", target_is_directory=True)
    return tmp_path


def test_walk_in_path_order(small_tree):
    seen = []
    walked = [rel for rel, _, _ in walk(str(small_tree), path_order=True,
                                         listed=lambda rel_dir, entries: seen.append(rel_dir))]
    assert walked == [".h", ".h/i", "a", "a/x", "a/z", "a/z/y", "a-b", "a.txt", "b", "c", "c/d", "c/d/e", "link"]
    assert walked == sorted(walked, key=path_key)
    assert seen == ["", ".h/", "a/", "a/z/", "c/", "c/d/"]  # each listing once, before its entries; no symlink


def test_walk_keeps_a_directorys_entries_before_its_subdirectories(small_tree):
    walked = [rel for rel, _, _ in walk(str(small_tree), sort=True, enter=lambda rel, entry: rel != "c")]
    assert walked == [".h", "a", "a-b", "a.txt", "b", "c", "link", ".h/i", "a/x", "a/z", "a/z/y"]


# --- random ignore files against git, with the lines pathspec alone reads differently -----------------------------

_HARD_ATOMS = ["a", "b", "ab", ".", "x", "1", "-", "*", "?", "[ab]", "[!a]", "[a-c]", "[[:digit:]]", "\\*", "[x/]",
               "[z-a]", "[]]", "[a-b1-2x-z]", "**", "\\", " ", "\\ ", "[", "[^b]", "[[:alpha:]]", "[a-]", "[\\]]",
               "[!/]", "\r"]
_HARD_NAMES = ["a", "b", "ab", "a.b", "x", "ba", "1", "abc", "-", "]", "a1", "*", "xa", "bb", "c", " a", "a ", "[",
               "\\"]


def _random_line(rng: random.Random) -> str:
    parts = ["".join(rng.choice(_HARD_ATOMS) for _ in range(rng.randint(1, 3))) if rng.random() < 0.8 else "**"
             for _ in range(rng.randint(1, 3))]
    text = "/".join(parts)
    for affix in ("/", "**/"):
        if rng.random() < 0.5:
            text = affix + text
    for suffix in ("/**", "/"):
        if rng.random() < 0.2:
            text += suffix
    return ("!" if rng.random() < 0.25 else "") + text


def _random_tree(rng: random.Random, base: Path) -> None:
    for _ in range(25):
        path = base.joinpath(*(rng.choice(_HARD_NAMES) for _ in range(rng.randint(1, 4))))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.is_dir():
                path.touch()
        except (NotADirectoryError, FileExistsError):
            continue
    for _ in range(rng.randint(1, 3)):
        directory = base if rng.random() < 0.5 else base.joinpath(
            *(rng.choice(_HARD_NAMES[:12]) for _ in range(rng.randint(1, 2))))
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except (NotADirectoryError, FileExistsError):
            continue
        lines = [_random_line(rng) for _ in range(rng.randint(1, 6))]
        (directory / ".gitignore").write_text("\n".join(lines) + "\n", newline="")


@pytest.mark.parametrize("seed", range(4))
def test_random_ignore_files_agree_with_git(tmp_path, seed):
    """100 random trees per seed, their ignore files built from the pieces git, pathspec and we could read apart:
    POSIX classes, reversed ranges, '/' and escapes in classes, stray backslashes, '**' in every place, a final CR."""
    rng = random.Random(seed)  # noqa: S311 - test data, not secrets
    for index in range(100):
        base = tmp_path / f"t{index}"
        base.mkdir()
        _random_tree(rng, base)
        subprocess.run(["git", "init", "-q", str(base)], check=True)
        assert sorted(rel for rel, _, _ in walk_files(str(base), rules=IgnoreRules(str(base)))) == \
            _git_others(base), {str(p.relative_to(base)): p.read_text() for p in base.rglob(".gitignore")}
