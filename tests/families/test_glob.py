from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap

import pytest

from agenttools._glob import (
    MAX_ALTERNATIVES,
    MAX_BRACE_DEPTH,
    MAX_PATTERN_CHARS,
    GlobSyntaxError,
    GlobTooComplexError,
    compile_glob,
    glob_match,
    wildcard_match,
)
from agenttools.ignore import MAX_LINE_CHARS, IgnoreRules, RuleFile, walk_files


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "dir/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "x/y/a.py", True),
        ("**/.env", "/w/.env", True),
        ("**/.env", "/w/.envrc", False),
        ("src/**", "src/a/b", True),
        ("src/**", "src", False),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "ab", False),
        ("?.txt", "a.txt", True),
        ("?.txt", "/.txt", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "c.txt", True),
        ("[!ab].txt", "a.txt", False),
        ("[a-c]x", "bx", True),
        ("*.{js,ts}", "x.ts", True),
        ("*.{js,ts}", "x.py", False),
        ("{a,b{c,d}}", "bd", True),
        (r"\*", "*", True),
        (r"\*", "x", False),
        ("a**b", "axxb", True),
        ("a**b", "ax/xb", False),
    ],
)
def test_glob_match(pattern, path, expected):
    assert glob_match(pattern, path) is expected


def test_case_insensitive():
    assert glob_match("*.PY", "a.py", case_sensitive=False)
    assert not glob_match("*.PY", "a.py")


@pytest.mark.parametrize("pattern", ["[abc", "{a,b", "x\\", "[z-a]"])
def test_syntax_errors(pattern):
    with pytest.raises(GlobSyntaxError):
        glob_match(pattern, "x")


# --- issue 15, item 3: linear-time matching, limits, gitignore exactness ------------------------------------------

@pytest.mark.parametrize(("pattern", "message"), [
    ("a" * (MAX_PATTERN_CHARS + 1), f"glob pattern is too long: {MAX_PATTERN_CHARS + 1} characters (at most "
                                    f"{MAX_PATTERN_CHARS})"),
    ("{a,b}" * 9, f"its braces expand to more than {MAX_ALTERNATIVES} alternatives"),
    ("{a,b}" * 6 + "x" * 100, "its braces expand to more than 4096 characters"),
    ("{" * (MAX_BRACE_DEPTH + 1) + "}" * (MAX_BRACE_DEPTH + 1), f"deeper than {MAX_BRACE_DEPTH} levels"),
])
def test_limits_raise_a_clear_error(pattern, message):
    with pytest.raises(GlobTooComplexError, match=re.escape(message)) as caught:
        compile_glob(pattern)
    assert isinstance(caught.value, GlobSyntaxError)  # callers report it as an invalid pattern


def test_patterns_at_the_limits_compile():
    assert glob_match("a" * MAX_PATTERN_CHARS, "a" * MAX_PATTERN_CHARS)
    assert glob_match("{a,b}" * 8, "ab" * 4)  # 256 alternatives
    assert glob_match("{" * MAX_BRACE_DEPTH + "x" + "}" * MAX_BRACE_DEPTH, "x")


_HOSTILE = [  # (pattern, a path it almost matches, a suffix that makes it match)
    ("*a" * 30 + "*b", "a" * 250, "b"),
    ("**/" + "*a" * 30 + "*b", "/".join(["a" * 250] * 8), "b"),
    ("**/" + "a/**/" * 30 + "b", "/".join(["a"] * 200), "/b"),
    ("*a*a*a*a*a*a*a*a*a*a*a*a*{b,c}", "a" * 250, "c"),
    ("**/*{a,aa}*{a,aa}*{a,aa}*{a,aa}*{a,aa}*{a,aa}*b", "a/" * 50 + "a" * 250, "b"),
    ("?*" * 100 + "b", "a" * 250, "b"),
]


def test_hostile_patterns_match_in_linear_time():
    """Each would take hours to fail with a backtracking translation; a child process bounds the wait."""
    code = textwrap.dedent(f"""
        from agenttools._glob import glob_match, wildcard_match
        from agenttools.ignore import RuleFile

        for pattern, path, suffix in {_HOSTILE!r}:
            assert not glob_match(pattern, path)
            assert not glob_match(pattern, path, case_sensitive=False)
            assert glob_match(pattern, path + suffix), pattern
        assert not wildcard_match("*a" * 30 + "*b", "a" * 250)  # gemini list_directory's ignore
        rules = RuleFile.parse("", "*a" * 200 + "*b\\n" + "**/" + "a/**/" * 100 + "b\\n")
        assert rules.decide("a" * 250) is None and rules.decide("a" * 250 + "b") is True
        assert rules.decide("a/" * 150 + "c") is None and rules.decide("a/" * 150 + "b") is True
    """)
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("a hostile glob was still matching after 60 s")
    assert done.returncode == 0, done.stderr


def _reference(pattern: str, path: str) -> bool:
    """A memoised matcher on characters, for patterns of literals, ``?``, ``[ab]``, ``*``, ``**`` and ``{x,y}``."""
    if "{" in pattern:
        head, _, rest = pattern.partition("{")
        body, _, tail = rest.partition("}")
        return any(_reference(head + choice + tail, path) for choice in body.split(","))
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/") and \
                (i + 2 == len(pattern) or pattern[i + 2] == "/"):
            parts.append("REST" if i + 2 == len(pattern) else "DEEP")
            i += 3
        elif pattern[i] == "*":
            while i < len(pattern) and pattern[i] == "*":
                i += 1
            parts.append("STAR")
        elif pattern[i] == "[":
            end = pattern.index("]", i + 2)
            parts.append(pattern[i:end + 1])
            i = end + 1
        else:
            parts.append(pattern[i])
            i += 1

    cache: dict[tuple[int, int], bool] = {}

    def match(t: int, p: int) -> bool:
        if (t, p) not in cache:
            cache[t, p] = step(t, p)
        return cache[t, p]

    def step(t: int, p: int) -> bool:
        if t == len(parts):
            return p == len(path)
        part = parts[t]
        if part == "REST":
            return True
        if part == "DEEP":
            return match(t + 1, p) or any(match(t + 1, q + 1) for q in range(p, len(path)) if path[q] == "/")
        if part == "STAR":
            return any(match(t + 1, q) for q in range(p, len(path) + 1) if "/" not in path[p:q])
        if p == len(path) or (path[p] == "/" and part != "/"):
            return False
        if part == "?" or (part.startswith("[") and path[p] in part[1:-1]) or part == path[p]:
            return match(t + 1, p + 1)
        return False

    return match(0, 0)


def test_matches_agree_with_a_reference_matcher():
    rng = random.Random(15)  # noqa: S311 - test data, not secrets
    pieces = ["a", "b", "/", "*", "**", "**/", "/**", "?", "[ab]", "{a,b}", "{ab,a,}", "*a*", "."]
    for _ in range(3000):
        pattern = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))
        if "{" in pattern.replace("{", "", 1) or "*{" in pattern or "}*" in pattern:
            continue  # the reference expands one group, as text (a "**" next to braces is decided before expansion)
        compiled = compile_glob(pattern)
        for _ in range(10):
            path = "/".join("".join(rng.choice("ab.") for _ in range(rng.randint(1, 3)))
                            for _ in range(rng.randint(1, 4)))  # a path has no empty segment
            assert compiled.match(path) is _reference(pattern, path), (pattern, path)


@pytest.mark.parametrize(("pattern", "name", "expected"), [
    ("*.log", "a.log", True), ("*.log", "a.log.1", False), ("a?c", "abc", True), ("a?c", "ac", False),
    ("[ab]", "[ab]", True), ("[ab]", "a", False), ("a.c", "abc", False), ("*", ".x", True), ("\\*", "\\x", True),
    ("?" * 5000, "a" * 5000, False), ("x" * 100_000, "x", False),
])
def test_wildcard_match(pattern, name, expected):
    """gemini list_directory's ``ignore``: ``*`` and ``?`` are wildcards, everything else is literal."""
    assert wildcard_match(pattern, name) is expected


# gitignore lines that are easy to get wrong, checked against the real git on one tree
_TRICKY_LINES = [
    "*.log", "!keep.log", "/build", "docs/_out/", "a/**/b", "**/deep", "nest/**", "!nest/in/", "x/**/y/",
    "\\!bang", "\\#hash", "# a comment", "trail   ", "esc\\ ", "[abc]z", "[!abc]q", "[a-c]r?", "lit[[:digit:]]",
    "/pre**/suf", "/fo**", "*.tmp/", "sub/*.c", "**/mid/*.h", "[]]br", "odd\\", "[unclosed", "ws\\ x",
    "crlf\r", "foo/bar/", "x" * (MAX_LINE_CHARS + 1),
]
_TRICKY_FILES = [
    "a.log", "keep.log", "build/x", "src/build/y", "docs/_out/z", "src/docs/_out/z", "a/b", "a/q/r/b", "ab",
    "z/deep", "deep/k", "nest/in/k", "nest/out/k", "x/y/k", "x/1/2/y/k", "x/yy", "!bang", "#hash", "trail",
    "trail   ", "esc ", "esc", "az", "dz", "bq", "aq", "br9", "cr", "lit5", "litx", "pre/suf", "prefoo/suf",
    "presuf", "pre/a/b/suf", "fox/k", "foo/k", "f.tmp/k", "g.tmp", "sub/a.c", "sub/d/a.c", "m/mid/a.h",
    "m/mid/n/a.h", "]br", "odd", "odd\\", "ws x", "crlf", "foo/bar/k", "foo/barx", "x" * 120,
]


def test_gitignore_lines_agree_with_git(tmp_path):
    root = tmp_path / "repo"
    for rel in _TRICKY_FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    (root / ".gitignore").write_bytes(("\ufeff" + "\n".join(_TRICKY_LINES) + "\n").encode())
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / ".gitignore").write_text("!y\n/docs\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode()
    walked = sorted(rel for rel, _, _ in walk_files(str(root), rules=IgnoreRules(str(root))))
    assert walked == sorted(name for name in listed.split("\0") if name)
    assert "keep.log" in walked and "a.log" not in walked  # the tree exercises both sides


def test_an_overlong_ignore_line_is_skipped_and_the_rest_applies():
    rules = RuleFile.parse("", "*.log\n" + "x" * (MAX_LINE_CHARS + 1) + "\n" + "y" * MAX_LINE_CHARS + "\n")
    assert rules is not None and len(rules.lines) == 2  # the overlong line is gone
    assert rules.decide("x.log") is True
    assert rules.decide("x" * (MAX_LINE_CHARS + 1)) is None
    assert rules.decide("y" * MAX_LINE_CHARS) is True


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    # minimatch 10.2.6's answers for minimatch(path, pattern, {dot: true})
    ("a/**", "a", False), ("a/**", "a/b", True), ("*", ".x", True), ("**/*.txt", "c.txt", True),
    ("*.txt", "a/c.txt", False), ("!foo", "x", True), ("!foo", "foo", False), ("!!foo", "foo", True),
    ("#x", "x", False), ("a[b", "a[b", True), ("a{b,c}", "ab", True), ("**/sub/**", "sub", False),
    ("*.txt", "A.TXT", False), ("\\!a", "!a", True),
])
def test_minimatch(pattern, path, expected):
    from agenttools._glob import minimatch

    assert minimatch(pattern, path) is expected


# --- where pathspec 1.1.1, which translates our patterns, reads them differently: each case is ours ---------------

@pytest.mark.parametrize(("line", "ignored", "kept"), [
    ("a[!x]b", [], ["a/b"]),  # pathspec: [^x], which matches '/'
    ("[x/]", ["x"], []),  # pathspec: the line is dropped
    ("[\\]]x", ["]x"], ["\\x"]),  # pathspec: '\' is a member, the class ends at the first ']'
    ("lit[[:digit:]]", ["lit5"], ["litx"]),  # pathspec: a broken regex
    ("[z-ab]", ["b", "z"], ["a", "y"]),  # git: z, then a reversed range that holds nothing; RE2 refuses [z-a]
    ("**/*/**", ["a/b", "a/b/c"], ["a"]),  # pathspec: a regex that matches nothing
    ("**//x", [], ["a/x", "x"]),  # an empty segment never matches
])
def test_ignore_lines_pathspec_reads_differently(line, ignored, kept):
    rules = RuleFile.parse("", line + "\n")
    assert rules is not None
    for rel in ignored:
        assert rules.decide(rel) is True, rel
    for rel in kept:
        assert rules.decide(rel) is not True, rel


@pytest.mark.parametrize(("pattern", "path", "expected"), [
    ("Icon\r", "Icon\r", True),  # pathspec trims a final CR from a line
    ("Icon\r", "Icon", False),
    ("a[!x]b", "a/b", False),
    ("[a\\-z]", "-", True),
    ("[!/]", "/", False),
    ("**/x/**/", "a/x/b/", True),  # a final '**/' asks for a directory path; pathspec reads '/' as directories only
    ("**/x/**/", "a/x/b", False),
])
def test_globs_pathspec_reads_differently(pattern, path, expected):
    assert glob_match(pattern, path) is expected


def test_matchers_compile_on_first_use_and_load_nothing_before(tmp_path):
    """A listing decided by the tiers never imports pathspec or RE2 (tens of milliseconds); a glob does."""
    (tmp_path / ".gitignore").write_text("*.log\nbuild/\n*.py[cod]\n")
    (tmp_path / "a.pyc").write_text("")
    code = textwrap.dedent(f"""
        import sys
        import agenttools
        reg = agenttools.toolset("gemini", root={str(tmp_path)!r})
        print(reg.call("list_directory", {{"path": {str(tmp_path)!r}}}).text)
        assert "pathspec" not in sys.modules and "re2" not in sys.modules, "loaded by a listing"
        reg.call("glob", {{"pattern": "**/[ab].*"}})
        assert "pathspec" in sys.modules and "re2" in sys.modules
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "a.pyc" in done.stdout  # listed, and marked git-ignored by the tiers


def test_names_that_are_not_utf8_match_like_any_other():
    """os.fsdecode keeps a byte that is not UTF-8 as a lone surrogate; RE2 reads UTF-8: one character either way."""
    assert glob_match("*.py", "x\udcff.py") and glob_match("**/a?b", "d/a\udcffb") and not glob_match("a?b", "a\udcff")
    rules = RuleFile.parse("", "x?y\n*.log\n")
    assert rules is not None and rules.decide("x\udcffy") is True and rules.decide("\udcff.log") is True


@pytest.mark.parametrize("pattern", ["**/*.py", "**/*.{ts,tsx}", "**/*a", "**/*.p[y]", "**/*.py/x", "*.py"])
def test_a_name_suffix_decided_without_regex_agrees_with_the_regex(pattern):
    """``**/*.py`` is decided by the name's ending alone; the answers are the reference matcher's."""
    matcher = compile_glob(pattern)
    for path in ["a.py", ".py", "d/a.py", "d/e/.py", "a.pyc", "a.ts", "d/x.tsx", "a", "d/xa", "a.py/x", "d.py/x",
                 "b/a.py/x", "a/.ts"]:
        assert matcher.match(path) is _reference(pattern, path), (pattern, path)


@pytest.mark.parametrize("pattern", ["**/*.py", "**/*.{ts,TSX}", "**/*a", "*.py", "**/*.é"])
def test_the_suffix_shortcut_folds_case_as_the_regex_does(pattern):
    matcher = compile_glob(pattern, case_sensitive=False)
    for path in ["a.PY", "D/a.Py", "a.py", "x.tsx", "x.Ts", "b/XA", "a.pyc", "d/e.É", "K.py", "\u212a.py"]:
        expected = _reference(pattern.lower(), path.lower()) or (path == "\u212a.py" and matcher.match("k.py"))
        assert matcher.match(path) is expected, (pattern, path)
