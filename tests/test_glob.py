from __future__ import annotations

import pytest

from agenttools._glob import GlobSyntaxError, glob_match


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
