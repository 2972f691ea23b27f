"""search family: gitignore semantics like git, glob, grep; ripgrep and Python backends agree exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import search_corpus
from agenttools import PatternError, ToolTimeoutError, Workspace
from agenttools.ignore import IgnoreRules, walk_files
from agenttools.search import glob_files, grep
from agenttools.search.rg import _rebase, find_rg


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    return search_corpus.build(tmp_path_factory.mktemp("corpus"))


def test_rg_binary_comes_from_the_ripgrep_wheel():
    found = find_rg()
    assert found is not None
    assert Path(found).parent == Path(sys.executable).parent


def test_walker_agrees_with_git_on_the_corpus(corpus):
    tracked = set(subprocess.run(["git", "-C", str(corpus), "ls-files"], capture_output=True, text=True,
                                 check=True).stdout.split())
    links = {p for p in tracked if (corpus / p).is_symlink()}
    walked = {rel for rel, _, _ in walk_files(str(corpus), rules=IgnoreRules(str(corpus)))}
    assert walked == tracked - links


QUERIES = [
    ("PyErr_SetString", None, "."),
    (r"def \w+_test", "*.py", "."),
    ("caf", None, "odd"),
    ("hello", None, "."),
    ("return", "*.{c,h}", "alpha"),
    ("with bom", None, "."),
    ("keep", None, "."),
    (r"\bimport\b", "alpha/**", "."),
    ("^$", "*.md", "beta"),
    ("var a59999", None, "odd"),
    ("MALLOC", None, "gamma"),
    ("x", None, "odd/link_dir"),
    ("\\t", "*.txt", "."),
]


@pytest.mark.parametrize(("pattern", "include", "path"), QUERIES)
def test_backends_agree_on_the_corpus(corpus, pattern, include, path):
    ws = Workspace(corpus)
    if path == "odd/link_dir":  # a symlinked directory as the search root resolves to its target
        path = "beta"
    rg = grep(ws, pattern, include=include, path=path, backend="rg")
    py = grep(ws, pattern, include=include, path=path, backend="python")
    assert rg.backend == "rg"
    assert py.backend == "python"
    assert [(m.rel, m.line_number, m.line) for m in rg.matches] == [(m.rel, m.line_number, m.line)
                                                                    for m in py.matches]


def test_grep_skips_binaries_and_reads_utf16(corpus):
    ws = Workspace(corpus)
    for backend in ("rg", "python"):
        hits = grep(ws, "ELF|PNG|hello utf-16", path="odd", backend=backend)
        # the corpus repeats "...".encode("utf-16"), so lines 2 and 3 start with a literal U+FEFF
        assert [(m.rel, m.line) for m in hits.matches] == [("utf16.txt", "hello utf-16 world")] + [
            ("utf16.txt", "\ufeffhello utf-16 world")] * 2


def test_grep_never_follows_a_symlink_out_of_the_workspace(corpus):
    ws = Workspace(corpus)
    for backend in ("rg", "python"):
        assert not any(m.rel.startswith("link_outside") for m in grep(ws, "root", path="odd",
                                                                       backend=backend).matches)


def test_lookaround_falls_back_to_python(tmp_path):
    (tmp_path / "a.txt").write_text("foobar\nfoobaz\n")
    result = grep(Workspace(tmp_path), "foo(?=baz)", backend="auto")
    assert result.backend == "python"
    assert [m.line_number for m in result.matches] == [2]


def test_matches_stay_within_lines(tmp_path):
    (tmp_path / "a.txt").write_text("foo\nbar\nfoo bar\n")
    for backend in ("rg", "python"):
        result = grep(Workspace(tmp_path), r"foo\s+bar", backend=backend)
        assert [m.line_number for m in result.matches] == [3]


def test_case_and_unicode(tmp_path):
    (tmp_path / "a.txt").write_text("Straße\nSTRASSE\nÉcole\n")
    for backend in ("rg", "python"):
        assert [m.line for m in grep(Workspace(tmp_path), "école", backend=backend).matches] == ["École"]
        assert grep(Workspace(tmp_path), "école", backend=backend, ignore_case=False).matches == ()


def test_environment_variable_selects_the_backend(tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("x\n")
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", "python")
    assert grep(Workspace(tmp_path), "x").backend == "python"
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", "rg")
    assert grep(Workspace(tmp_path), "x").backend == "rg"


def test_bad_patterns(tmp_path):
    with pytest.raises(PatternError) as info:
        grep(Workspace(tmp_path), "[[")
    assert info.value.kind == "regex"
    with pytest.raises(PatternError):
        grep(Workspace(tmp_path), "x", include="[abc")
    with pytest.raises(PatternError):
        glob_files(Workspace(tmp_path), "{a,b")


def test_max_matches_and_timeout(tmp_path):
    (tmp_path / "a.txt").write_text("x\n" * 50)
    result = grep(Workspace(tmp_path), "x", max_matches=5)
    assert (len(result.matches), result.truncated) == (5, True)
    (tmp_path / "slow.txt").write_text("a" * 30 + "!\n")
    with pytest.raises(ToolTimeoutError):
        grep(Workspace(tmp_path), "(a|aa)+$", backend="python", timeout=0.000001)


# --- gitignore semantics ---------------------------------------------------------------------------------------

@pytest.fixture
def ignored_tree(tmp_path) -> Path:
    files = {
        ".gitignore": "*.log\n/build\ndocs/_out/\n!keep.log\nsecret*\n",
        "a.log": "", "keep.log": "", "build/x.c": "", "src/build/y.c": "", "docs/_out/z.html": "",
        "src/.gitignore": "*.tmp\n!important.tmp\n/local\n", "src/a.tmp": "", "src/important.tmp": "",
        "src/local/l.txt": "", "src/deep/local/d.txt": "", "src/deep/b.tmp": "", "secret.txt": "",
        "src/main.py": "", ".git/config": "",
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / ".git" / "info").mkdir()
    (tmp_path / ".git" / "info" / "exclude").write_text("*.excluded\n")
    (tmp_path / "x.excluded").write_text("")
    return tmp_path


def test_gitignore_semantics(ignored_tree):
    walked = sorted(rel for rel, _, _ in walk_files(str(ignored_tree), rules=IgnoreRules(str(ignored_tree))))
    assert walked == [".gitignore", "keep.log", "src/.gitignore", "src/build/y.c", "src/deep/local/d.txt",
                      "src/important.tmp", "src/main.py"]


def test_gitignore_matches_git_check_ignore(ignored_tree):
    subprocess.run(["git", "init", "-q", str(ignored_tree)], check=True, capture_output=True)
    listed = subprocess.run(["git", "-C", str(ignored_tree), "ls-files", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.split()
    walked = sorted(rel for rel, _, _ in walk_files(str(ignored_tree), rules=IgnoreRules(str(ignored_tree))))
    assert walked == sorted(listed)


def test_search_from_a_subdirectory_applies_ancestor_rules(ignored_tree):
    ws = Workspace(ignored_tree)
    for rel in ("src/deep/b.tmp", "src/deep/c.txt", "src/deep/secret.py"):
        (ignored_tree / rel).write_text("needle\n")
    for backend in ("rg", "python"):
        result = grep(ws, "needle", path="src/deep", backend=backend)
        assert [m.rel for m in result.matches] == ["c.txt"], backend


@pytest.mark.parametrize(
    ("line", "rel", "expected"),
    [
        ("*.log", "a/b", "*.log"),
        ("/build", "a", None),
        ("/a/build", "a", "/build"),
        ("/a/b/", "a", "/b/"),
        ("!/a/keep", "a", "!/keep"),
        ("**/x/", "a", "**/x/"),
        ("/a", "a", None),
        ("# comment", "a", None),
    ],
)
def test_rebase_rules(line, rel, expected):
    assert _rebase(line, rel) == expected


def test_glob(ignored_tree):
    ws = Workspace(ignored_tree)
    result = glob_files(ws, "**/*.tmp")
    assert [m.rel for m in result.matches] == ["src/important.tmp"]
    assert result.ignored_count == 2
    assert [m.rel for m in glob_files(ws, "*.LOG").matches] == ["keep.log"]
    assert glob_files(ws, "*.LOG", case_sensitive=True).matches == ()
    everything = glob_files(ws, "**", respect_gitignore=False)
    assert "build/x.c" in [m.rel for m in everything.matches]
    assert not any(m.rel.startswith(".git/") for m in everything.matches)


def test_searching_inside_an_ignored_directory_on_purpose(ignored_tree):
    ws = Workspace(ignored_tree)
    (ignored_tree / "build" / "x.c").write_text("int needle;\n")
    assert [m.rel for m in glob_files(ws, "*.c", path="build").matches] == ["x.c"]
    for backend in ("rg", "python"):
        assert [m.rel for m in grep(ws, "needle", path="build", backend=backend).matches] == ["x.c"]




@pytest.mark.parametrize("backend", ["rg", "python"])
def test_capped_search_returns_the_first_matches_in_path_order(corpus, backend):
    ws = Workspace(corpus)
    full = grep(ws, "self", backend=backend)
    capped = grep(ws, "self", backend=backend, max_matches=50)
    assert capped.truncated
    assert [(m.rel, m.line_number) for m in capped.matches] == [(m.rel, m.line_number) for m in full.matches[:50]]
    few = grep(ws, "PyErr_SetString", backend=backend, max_matches=10**6)
    assert not few.truncated
    cap = min(1500, len(full.matches) - 1)  # a large cap: ripgrep searches on all threads first
    assert cap >= 1000
    large = grep(ws, "self", backend=backend, max_matches=cap)
    assert large.truncated
    assert [(m.rel, m.line_number) for m in large.matches] == [(m.rel, m.line_number) for m in full.matches[:cap]]


GLOBS = ["**/*.py", "*.py", "**/*.PY", "**/*.{c,h}", "alpha/**", "**/.gitignore", "**/README*", "**/*.txt",
         "**", "beta/*/*.md", "**/*.s", "**/*.K"]


@pytest.mark.parametrize("pattern", GLOBS)
@pytest.mark.parametrize(("case_sensitive", "respect"), [(False, True), (True, True), (False, False)])
def test_glob_backends_agree_on_the_corpus(corpus, pattern, case_sensitive, respect):
    ws = Workspace(corpus)
    results = [glob_files(ws, pattern, case_sensitive=case_sensitive, respect_gitignore=respect, backend=backend)
               for backend in ("rg", "python")]
    rg, py = ([(m.rel, m.mtime) for m in result.matches] for result in results)
    assert rg == py
    assert results[0].ignored_count == results[1].ignored_count


def test_glob_backends_agree_on_nested_rules(ignored_tree):
    ws = Workspace(ignored_tree)
    (ignored_tree / "src" / "deep" / ".gitignore").write_text("!b.tmp\n*.c\n")
    (ignored_tree / "src" / "deep" / "z.c").write_text("")
    (ignored_tree / ".hidden").mkdir()
    (ignored_tree / ".hidden" / "h.tmp").write_text("")
    for pattern, path in [("**/*.tmp", "."), ("**/*.c", "."), ("**/*", "src"), ("**/*.txt", "src/deep"),
                          ("**/*.{tmp,c}", "."), ("**/*.excluded", ".")]:
        rg, py = (glob_files(ws, pattern, path=path, backend=backend) for backend in ("rg", "python"))
        assert [m.rel for m in rg.matches] == [m.rel for m in py.matches], pattern
        assert rg.ignored_count == py.ignored_count, pattern
    assert glob_files(ws, "**/*.tmp", backend="rg").ignored_count == 1  # src/a.tmp; deep/b.tmp re-included


@pytest.mark.parametrize(
    ("pattern", "case_sensitive", "expected"),
    [
        ("**/*.py", True, "*.py"),
        ("src/*.test.ts", True, "*.test.ts"),
        ("**/Makefile", True, "Makefile"),
        ("**/*.py", False, "*.[pP][yY]"),
        ("*.ks", False, "*.[kK\u212a][sS\u017f]"),
        ("**/*.{c,h}", True, None),
        ("src/**", True, None),
        ("**/[ab].py", True, None),
        ("**/*.é", True, None),
        ("*.a:b", True, None),
    ],
)
def test_name_filter_narrows_only_what_it_can_prove(pattern, case_sensitive, expected):
    from agenttools.search.rg import name_filter

    assert name_filter(pattern, case_sensitive=case_sensitive) == expected


def test_a_nul_after_the_first_buffer_drops_the_whole_file(tmp_path):
    # ripgrep prints the early match, then finds the NUL and stops with a warning: the file is binary, as in Python
    (tmp_path / "late.txt").write_bytes(b"needle early\n" + b"x" * 200_000 + b"\n\0 needle\n")
    (tmp_path / "text.txt").write_bytes(b"needle\n")
    for backend in ("rg", "python"):
        assert [m.rel for m in grep(Workspace(tmp_path), "needle", backend=backend).matches] == ["text.txt"]
        capped = grep(Workspace(tmp_path), "needle", backend=backend, max_matches=1)
        assert [m.rel for m in capped.matches] == ["text.txt"], backend


def test_undecodable_bom_file_is_binary_in_both_backends(tmp_path):
    # a UTF-16 BOM followed by a lone surrogate: ripgrep shows U+FFFD, Python cannot decode it and skips the file
    (tmp_path / "bad16.txt").write_bytes(b"\xff\xfe" + "needle ".encode("utf-16-le") + b"\x00\xd8" + b"\n\x00")
    (tmp_path / "replacement.txt").write_text("needle \ufffd kept\n", encoding="utf-8")
    for backend in ("rg", "python"):
        found = grep(Workspace(tmp_path), "needle", backend=backend)
        assert [(m.rel, m.line) for m in found.matches] == [("replacement.txt", "needle \ufffd kept")], backend


@pytest.mark.parametrize(("pattern", "include", "path"), QUERIES)
def test_large_files_searched_in_blocks_agree_with_ripgrep(corpus, monkeypatch, pattern, include, path):
    """Every file takes the bounded-memory block path (odd block size: characters and lines split across reads)."""
    from agenttools.search import python as _pygrep

    monkeypatch.setattr(_pygrep, "_LARGE", 0)
    monkeypatch.setattr(_pygrep, "_BLOCK", 777)
    ws = Workspace(corpus)
    path = "beta" if path == "odd/link_dir" else path
    rg = grep(ws, pattern, include=include, path=path, backend="rg")
    py = grep(ws, pattern, include=include, path=path, backend="python")
    assert [(m.rel, m.line_number, m.line) for m in py.matches] == [(m.rel, m.line_number, m.line)
                                                                    for m in rg.matches]


def test_block_search_drops_a_file_whose_nul_comes_late(tmp_path, monkeypatch):
    from agenttools.search import python as _pygrep

    monkeypatch.setattr(_pygrep, "_LARGE", 10)
    monkeypatch.setattr(_pygrep, "_BLOCK", 64)
    (tmp_path / "late.txt").write_bytes(b"needle\n" * 50 + b"\0")
    (tmp_path / "bad16.txt").write_bytes(b"\xff\xfe" + "needle\n".encode("utf-16-le") * 20 + b"\x00\xd8")
    (tmp_path / "good16.txt").write_bytes(b"\xff\xfe" + "x\nneedle\n".encode("utf-16-le") * 20)
    found = grep(Workspace(tmp_path), "needle", backend="python")
    assert {m.rel for m in found.matches} == {"good16.txt"}
    assert [m.line_number for m in found.matches][:3] == [2, 4, 6]


def test_lookaround_with_a_cap_falls_back_to_python(tmp_path):
    (tmp_path / "a.txt").write_text("foobar\nfoobaz\nfoobaz\n")
    result = grep(Workspace(tmp_path), "foo(?=baz)", backend="auto", max_matches=1)
    assert (result.backend, [m.line_number for m in result.matches], result.truncated) == ("python", [2], True)


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_glob_in_a_dot_directory_keeps_the_rules(tmp_path, backend):
    # the search root ".github" must not be checked as "github" (which the rules ignore)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("github/\n*.tmp\n")
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "a.tmp").write_text("")
    (tmp_path / ".github" / "b.yml").write_text("")
    result = glob_files(Workspace(tmp_path), "**/*", path=".github", backend=backend)
    assert ([m.rel for m in result.matches], result.ignored_count) == (["b.yml"], 1)


def test_git_includes_and_gits_binary_rule_agree_on_both_backends(tmp_path):
    """``include_syntax="git"`` reads a git pathspec (``*`` crosses ``/``); ``binary_window`` is git's NUL rule."""
    for rel in ("src/util/helpers.py", "src/m.py", "srcx/n.py", "top.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("hit\n")
    ws = Workspace(tmp_path)
    results = {backend: grep(ws, "hit", include="src/*.py", include_syntax="git", backend=backend)
               for backend in ("python", "rg")}
    for result in results.values():
        assert [m.rel for m in result.matches] == ["src/m.py", "src/util/helpers.py"]
    assert results["rg"].backend == "rg"
    glob = grep(ws, "hit", include="src/*.py", backend="python")  # other callers: a glob, as before
    assert [m.rel for m in glob.matches] == ["src/m.py"]
    (tmp_path / "late.bin").write_bytes(b"hit\n" + b"x" * 9000 + b"\x00\n")
    (tmp_path / "early.bin").write_bytes(b"hit\n" + b"x" * 100 + b"\x00\n")
    for backend in ("python", "rg"):
        windowed = grep(ws, "hit", binary_window=8000, backend=backend)
        assert "late.bin" in [m.rel for m in windowed.matches] and "early.bin" not in [m.rel for m in windowed.matches]
        anywhere = grep(ws, "hit", backend=backend)
        assert not {"late.bin", "early.bin"} & {m.rel for m in anywhere.matches}
