"""Escapes: every path tool of every toolset refuses each way out of the root with the toolset's own error text,
and nothing outside the root is read, listed or written.

The tree: ``root/`` (the workspace), ``root-evil/`` (a sibling whose path has the root as a prefix) and
``outside/``, reached from inside the root by ``root/linkfile`` (a symlink to a file) and ``root/linkdir`` (a
symlink to the directory). Everything outside holds the marker text, so any output carrying it leaked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import agenttools

SECRET = "TOPSECRET-7f3a"  # noqa: S105 - a marker text, not a credential


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("inside\n")
    evil = tmp_path / "root-evil"
    evil.mkdir()
    (evil / "e.txt").write_text(SECRET + "\n")
    outside = tmp_path / "outside"
    (outside / "d").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "d" / "deep.txt").write_text(SECRET + "\n")
    (root / "linkfile").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "sub" / "uplink").symlink_to("../../outside", target_is_directory=True)
    return root


def snapshot(tmp_path: Path) -> dict[str, tuple[bytes, int, int]]:
    """Content, mode and mtime of everything outside the root."""
    found = {}
    for top in ("outside", "root-evil"):
        for dirpath, dirnames, filenames in os.walk(tmp_path / top):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                st = os.lstat(path)
                data = b"" if os.path.isdir(path) else Path(path).read_bytes()
                found[path] = (data, st.st_mode, st.st_mtime_ns)
    return found


FORMS = {
    "dotdot": "../outside/secret.txt",
    "absolute": "{tmp}/outside/secret.txt",
    "sibling-prefix": "{tmp}/root-evil/e.txt",
    "symlink-leaf": "linkfile",
    "symlink-parent": "linkdir/secret.txt",
    "new-under-symlinked-parent": "linkdir/new.txt",
    "nested-symlink-parent": "sub/uplink/d/deep.txt",
    "dotdot-inside-then-out": "sub/../../outside/secret.txt",
}
DIR_FORMS = {
    "dotdot-dir": "..",
    "absolute-dir": "{tmp}/outside",
    "sibling-prefix-dir": "{tmp}/root-evil",
    "symlinked-dir": "linkdir",
    "nested-symlinked-dir": "sub/uplink",
}

Args = Callable[[str], dict[str, Any]]
# (toolset, tool, arguments for a path, forms, refusal pattern); {root} is the workspace root
CASES: list[tuple[str, str, Args, dict[str, str], str]] = []


def case(toolset: str, tool: str, args: Args, forms: dict[str, str], refusal: str) -> None:
    CASES.append((toolset, tool, args, forms, refusal))


GEMINI_FILE = r"File path must be within the root directory \({root}\): "
case("gemini", "read_file", lambda p: {"absolute_path": p}, FORMS, GEMINI_FILE)
case("gemini", "write_file", lambda p: {"file_path": p, "content": "pwned"}, FORMS, GEMINI_FILE)
case("gemini", "replace", lambda p: {"file_path": p, "old_string": SECRET, "new_string": "pwned"}, FORMS,
     GEMINI_FILE)
case("gemini", "list_directory", lambda p: {"path": p}, DIR_FORMS, r"Path must be within the root directory")
case("gemini", "search_file_content", lambda p: {"pattern": SECRET, "path": p}, DIR_FORMS,
     r"Path validation failed: Attempted path \".*\" resolves outside the allowed root directory")
case("gemini", "glob", lambda p: {"pattern": "**/*", "path": p}, DIR_FORMS,
     r"resolves outside the tool's root directory")
EDITOR = r"^\[ACCESS_DENIED\] path not allowed: access denied: path \".*\" is outside allowed directories$"
case("editor", "view", lambda p: {"path": p}, FORMS | DIR_FORMS, EDITOR)
case("editor", "str_replace", lambda p: {"path": p, "old_str": SECRET, "new_str": "pwned"}, FORMS, EDITOR)
case("editor", "create_file", lambda p: {"path": p, "content": "pwned"}, FORMS, EDITOR)
ASSISTANT = r"^ERROR: path not allowed: "
case("assistant", "read", lambda p: {"path": p}, FORMS, ASSISTANT)
case("assistant", "write", lambda p: {"path": p, "content": "pwned"}, FORMS, ASSISTANT)
case("assistant", "edit", lambda p: {"path": p, "old_text": SECRET, "new_text": "pwned"}, FORMS, ASSISTANT)
case("assistant", "list", lambda p: {"path": p}, DIR_FORMS, ASSISTANT)
case("assistant", "delete", lambda p: {"path": p}, FORMS | DIR_FORMS, ASSISTANT)
CODER = r"^Error: path not allowed: "
case("coder", "read_file", lambda p: {"path": p}, FORMS, CODER)
case("coder", "edit_file", lambda p: {"path": p, "old_str": SECRET, "new_str": "pwned"}, FORMS, CODER)
case("coder", "delete_file", lambda p: {"path": p}, FORMS, CODER)
case("coder", "list_files", lambda p: {"path": p}, DIR_FORMS, CODER)
case("coder", "html_to_markdown", lambda p: {"path": p}, FORMS, CODER)

PARAMS = [(toolset, tool, args, form, forms[form], refusal)
          for toolset, tool, args, forms, refusal in CASES for form in forms
          # deleting a symlink removes the link inside the root, never its target: not an escape
          if not (tool in {"delete", "delete_file"} and form in {"symlink-leaf", "symlinked-dir",
                                                                 "nested-symlinked-dir"})]


@pytest.mark.parametrize(("toolset", "tool", "args", "form", "path", "refusal"), PARAMS,
                         ids=[f"{p[0]}.{p[1]}-{p[3]}" for p in PARAMS])
def test_escape_is_refused(tree, toolset, tool, args, form, path, refusal):
    tmp = tree.parent
    before = snapshot(tmp)
    reg = agenttools.toolset(toolset, root=str(tree))
    given = path.format(tmp=tmp)
    if toolset == "gemini" and not os.path.isabs(given):
        given = os.path.join(str(tree), given)  # gemini takes absolute paths; the escape is in what follows
    out = reg.call(tool, args(given))
    reg.close()
    assert out.is_error, out.text
    assert re.search(refusal.format(root=re.escape(str(tree))), out.text), out.text
    assert SECRET not in out.text
    assert snapshot(tmp) == before


WALKS = [
    ("gemini", "search_file_content", {"pattern": "TOPSECRET|inside"}),
    ("gemini", "glob", {"pattern": "**/*"}),
    ("gemini", "list_directory", {"path": "{root}"}),
    ("gemini", "run_shell_command", {"command": "ls"}),
    ("editor", "view", {"path": "."}),
    ("assistant", "list", {"path": "."}),
    ("coder", "rg", {"pattern": "TOPSECRET|inside"}),
    ("coder", "glob", {"pattern": "**/*"}),
    ("coder", "list_files", {"path": "."}),
    ("coder", "cloc", {"args": "."}),
    ("coder", "head", {"args": "-n 1 linkdir/secret.txt"}),
]


@pytest.mark.parametrize(("toolset", "tool", "arguments"), WALKS, ids=[f"{t}.{n}" for t, n, _ in WALKS])
@pytest.mark.parametrize("backend", ["rg", "python"])
def test_walks_never_follow_symlinked_directories_out(tree, monkeypatch, toolset, tool, arguments, backend):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    reg = agenttools.toolset(toolset, root=str(tree))
    args = {k: v.format(root=tree) if isinstance(v, str) else v for k, v in arguments.items()}
    out = reg.call(tool, args)
    reg.close()
    assert SECRET not in out.text
    assert "deep.txt" not in out.text, out.text  # a link's own target text may show; what is behind it may not


HARDLINK_WRITES = [
    ("gemini", "write_file", lambda p: {"file_path": p, "content": "pwned"}, r"it has 2 hard links"),
    ("gemini", "replace", lambda p: {"file_path": p, "old_string": SECRET, "new_string": "pwned"},
     r"it has 2 hard links"),
    ("editor", "str_replace", lambda p: {"path": p, "old_str": SECRET, "new_str": "pwned"},
     r"^\[ACCESS_DENIED\] path not allowed: access denied: path \".*\" has 2 hard links"),
    ("editor", "create_file", lambda p: {"path": p, "content": "pwned"},
     r"^\[ACCESS_DENIED\] path not allowed: access denied: path \".*\" has 2 hard links"),
    ("assistant", "write", lambda p: {"path": p, "content": "pwned"}, ASSISTANT),
    ("assistant", "edit", lambda p: {"path": p, "old_text": SECRET, "new_text": "pwned"}, ASSISTANT),
    ("coder", "edit_file", lambda p: {"path": p, "old_str": SECRET, "new_str": "pwned"}, CODER),
]


@pytest.mark.parametrize(("toolset", "tool", "args", "refusal"), HARDLINK_WRITES,
                         ids=[f"{t}.{n}" for t, n, _, _ in HARDLINK_WRITES])
def test_writes_to_a_hard_link_are_refused(tree, toolset, tool, args, refusal):
    outside = tree.parent / "outside" / "secret.txt"
    os.link(outside, tree / "hard.txt")
    before = snapshot(tree.parent)
    reg = agenttools.toolset(toolset, root=str(tree))
    out = reg.call(tool, args(str(tree / "hard.txt") if toolset == "gemini" else "hard.txt"))
    reg.close()
    assert out.is_error and re.search(refusal, out.text), out.text
    assert snapshot(tree.parent) == before
    assert os.stat(tree / "hard.txt").st_nlink == 2  # the link is neither written through nor broken
    assert os.path.samefile(tree / "hard.txt", outside)


def test_the_families_refuse_hard_link_writes_with_a_typed_error(tree):
    os.link(tree.parent / "outside" / "secret.txt", tree / "hard.txt")
    ws = agenttools.Workspace(tree)
    with pytest.raises(agenttools.HardLinkError) as info:
        agenttools.files.write_file(ws, "hard.txt", "pwned")
    assert (info.value.code, info.value.links) == ("hard_link", 2)
    with pytest.raises(agenttools.HardLinkError):
        agenttools.edit.replace_text(ws, "hard.txt", SECRET, "pwned")
    assert (tree.parent / "outside" / "secret.txt").read_text() == SECRET + "\n"


@pytest.mark.parametrize(("toolset", "tool"), [("assistant", "delete"), ("coder", "delete_file")])
def test_deleting_a_symlink_removes_the_link_not_its_target(tree, toolset, tool):
    before = snapshot(tree.parent)
    reg = agenttools.toolset(toolset, root=str(tree))
    out = reg.call(tool, {"path": "linkfile"})
    reg.close()
    assert not out.is_error, out.text
    assert not os.path.lexists(tree / "linkfile")
    assert snapshot(tree.parent) == before
