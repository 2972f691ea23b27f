"""gemini edge cases pinned to Gemini CLI v0.1.13's texts: trailing slashes, symlink loops, fractional offsets, and
``search_file_content``'s git-pathspec includes, git's binary rule and upstream's file order (both backends)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import agenttools
from agenttools.search.gitpathspec import compile_pathspec

INVALID = "Error: Invalid parameters provided. Reason: "
ELOOP = "ELOOP: too many symbolic links encountered"


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a.txt").write_text("hi\n")
    (root / "realdir").mkdir()
    os.symlink("realdir", root / "dirlink")
    os.symlink("loop2", root / "loop1")
    os.symlink("loop1", root / "loop2")
    (root / "e.txt").write_text("".join(f"l{i}\n" for i in range(1, 12)))
    return root


@pytest.fixture
def reg(root) -> agenttools.Registry:
    return agenttools.toolset("gemini", root=str(root))


def test_write_file_to_a_path_ending_in_a_slash_writes_nothing(reg, root):
    out = reg.call("write_file", {"file_path": f"{root}/newdir/", "content": "x"})
    assert out.is_error
    assert out.text == (f"Error writing to file {root}/newdir/: Error writing to file: EISDIR: illegal operation on a "
                        f"directory, open '{root}/newdir/'")
    assert not os.path.lexists(root / "newdir")
    out = reg.call("write_file", {"file_path": f"{root}/a.txt/", "content": "x"})
    assert out.text == f"Error checking existing file {root}/a.txt/: ENOTDIR: not a directory, open '{root}/a.txt/'"
    assert (root / "a.txt").read_text() == "hi\n"
    out = reg.call("replace", {"file_path": f"{root}/a.txt/", "old_string": "hi", "new_string": "ho"})
    assert out.text == f"Error preparing edit: ENOTDIR: not a directory, open '{root}/a.txt/'"
    assert (root / "a.txt").read_text() == "hi\n"


def test_write_file_onto_a_symlink_to_a_directory(reg, root):
    out = reg.call("write_file", {"file_path": f"{root}/dirlink", "content": "x"})
    assert out.text == f"Error checking existing file {root}/dirlink: EISDIR: illegal operation on a directory, read"
    assert os.path.islink(root / "dirlink") and os.listdir(root / "realdir") == []


def test_symlink_loops_in_each_tools_words(reg, root):
    loop = f"{root}/loop1"
    assert reg.call("read_file", {"absolute_path": loop}).text == f"File not found: {loop}"
    assert reg.call("write_file", {"file_path": loop, "content": "x"}).text == \
        f"Error checking existing file {loop}: {ELOOP}, open '{loop}'"
    assert reg.call("replace", {"file_path": loop, "old_string": "a", "new_string": "b"}).text == \
        f"Error preparing edit: {ELOOP}, open '{loop}'"
    assert reg.call("list_directory", {"path": loop}).text == f"Error listing directory: {ELOOP}, stat '{loop}'"
    assert reg.call("glob", {"pattern": "*", "path": loop}).text == f"{INVALID}Search path does not exist {loop}"
    assert reg.call("search_file_content", {"pattern": "x", "path": "loop1"}).text == \
        f"{INVALID}Path does not exist: {loop}"


@pytest.mark.parametrize(("offset", "limit", "header", "lines"), [
    (1.5, 2, "2.5-3.5", ["l2", "l3"]),
    (1, 2.5, "2-3.5", ["l2", "l3"]),
    (0.5, 2.5, "1.5-3", ["l1", "l2", "l3"]),
    (9.5, 1, "10.5-10.5", ["l10"]),
    (1e-7, 2, "1.0000001-2.0000001", ["l1", "l2"]),
])
def test_fractional_offsets_read_and_print_as_javascript_does(reg, root, offset, limit, header, lines):
    out = reg.call("read_file", {"absolute_path": f"{root}/e.txt", "offset": offset, "limit": limit})
    assert out.text == (f"[File content truncated: showing lines {header} of 12 total lines. Use offset/limit "
                        "parameters to view more.]\n" + "\n".join(lines))


@pytest.fixture
def tree(tmp_path) -> Path:
    root = tmp_path / "tree"
    for rel in ("a-b/x.txt", "a.b", "a/x.txt", "2", "10", "01", "a.txt", "src/util/helpers.py", "src/m.py",
                "srcx/n.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("hit\n")
    (root / "late.bin").write_bytes(b"hit\n" + b"x" * 9000 + b"\x00\n")  # NUL past git's 8,000 bytes: text
    (root / "edge.bin").write_bytes(b"hit\n" + b"x" * 7995 + b"\x00\n")  # NUL at byte 7,999: binary
    (root / "edge2.bin").write_bytes(b"hit\n" + b"x" * 7996 + b"\x00\n")  # NUL at byte 8,000: text
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _files(text: str) -> list[str]:
    return [line[len("File: "):] for line in text.splitlines() if line.startswith("File: ")]


@pytest.mark.parametrize("backend", ["python", "rg"])
def test_grep_lists_files_in_upstreams_order_with_gits_binary_rule(tree, monkeypatch, backend):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    with agenttools.toolset("gemini", root=str(tree)) as reg:
        out = reg.call("search_file_content", {"pattern": "hit"})
    assert _files(out.text) == ["2", "10", "01", "a-b/x.txt", "a.b", "a.txt", "a/x.txt", "edge2.bin", "late.bin",
                                "src/m.py", "src/util/helpers.py", "srcx/n.py"]


@pytest.mark.parametrize("backend", ["python", "rg"])
@pytest.mark.parametrize(("include", "files"), [
    ("src/*.py", ["src/m.py", "src/util/helpers.py"]),
    ("src", ["src/m.py", "src/util/helpers.py"]),
    ("src/", ["src/m.py", "src/util/helpers.py"]),
    ("a", ["a/x.txt"]),
    ("*/x.txt", ["a-b/x.txt", "a/x.txt"]),
    ("src/**/*.py", ["src/util/helpers.py"]),
    ("s?c/m.py", ["src/m.py"]),
    ("helpers.py", ["src/util/helpers.py"]),
    ("*.{py,b}", ["a.b", "src/m.py", "src/util/helpers.py", "srcx/n.py"]),
    ("SRC", []),
])
def test_include_is_a_git_pathspec(tree, monkeypatch, backend, include, files):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    with agenttools.toolset("gemini", root=str(tree)) as reg:
        out = reg.call("search_file_content", {"pattern": "hit", "include": include})
    assert _files(out.text) == files


@pytest.mark.parametrize(("include", "name", "expected"), [
    ("a?b", "aéb", False),  # git's wildmatch reads bytes: é is two of them
    ("a??b", "aéb", True),
    ("a[é][é]b", "aéb", True),
    ("[[:alpha:]]*", "éa", False),  # POSIX classes are ASCII
    ("x[!/]y", "x/y", False),
    ("x[!a]y", "x/y", True),  # without WM_PATHNAME a negated class takes '/'
    ("x?y", "x/y", True),
])
def test_include_matches_bytes_as_git_does(include, name, expected):
    """The pathspec reader is the gitignore one (git's bracket rules), on bytes and without WM_PATHNAME."""
    assert compile_pathspec(include).match(name) is expected
