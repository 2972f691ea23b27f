"""Escapes: every path tool of every toolset refuses each way out of the root with the toolset's own error text,
and nothing outside the root is read, listed or written.

The tree: ``root/`` (the workspace), ``root-evil/`` (a sibling whose path has the root as a prefix) and
``outside/``, reached from inside the root by ``root/linkfile`` (a symlink to a file) and ``root/linkdir`` (a
symlink to the directory). Everything outside holds the marker text, so any output carrying it leaked.
"""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools.toolsets import BUILTIN

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

ASSISTANT = r"^ERROR: path not allowed: "
CODER = r"^Error: path not allowed: "
REFUSALS = {
    "anthropic": (r"^The path .* is outside the workspace \({root}\)\. Please provide a path inside it\.$",),
    "gemini": (r"File path must be within the root directory \({root}\): ", r"Path must be within the root directory",
               r"Path validation failed: Attempted path \".*\" resolves outside the allowed root directory",
               r"resolves outside the tool's root directory",
               r"^Command rejected: .*\nReason: Directory (must be within the root directory|cannot be absolute)"),
    "editor": (r"^\[ACCESS_DENIED\] path not allowed: access denied: path \".*\" is outside allowed directories$",),
    "assistant": (r"^ERROR: path not allowed: ",),
    "coder": (r"^Error: (head: |tail: )?path not allowed: ",),
    "openai": (r"^Failed to read file to update .*: path '.*' is outside the allowed directories \({root}\)\n$",),
    "filesystem": (r"^(.*: Error - )?Access denied - (path|symlink target) outside allowed directories: .* not in {root}$",),
}
"""How each toolset refuses a path outside its root; {root} is the workspace root."""

PER_ITEM = {("filesystem", "read_multiple_files")}
"""Tools that answer a refusal for one path inside a successful answer (a failed read stops nothing)."""

FILLERS: dict[str, Any] = {"string": "pwned", "integer": 1, "number": 1, "boolean": False, "array": []}
COMMAND = "cat secret.txt e.txt d/deep.txt; ls"  # what a shell tool would run in a directory that escaped


def _filler(name: str, schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    if name == "command":
        return COMMAND
    if name == "pattern":
        return "inside|pwned"
    kind = schema.get("type") or (schema.get("anyOf") or [{}])[0].get("type", "string")
    return f"pwned-{name}" if kind == "string" else FILLERS[kind]


def _arguments(spec: Any, param: str, kind: str, path: str) -> dict[str, Any]:
    """The spec's required arguments filled in, the path parameter holding ``path`` (and a command if it takes one)."""
    properties = spec.parameters.get("properties", {})
    names = [*spec.parameters.get("required", ()), *(["command"] if "command" in properties else [])]
    args = {name: _filler(name, properties[name]) for name in names}
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{SECRET}\n+pwned\n*** End Patch"
    args[param] = {"path": path, "paths": [path], "args": path, "patch": patch}[kind]
    return args


def _matrix() -> list[tuple[str, str, str, str, str, str]]:
    """(toolset, tool, parameter, kind, form, path) for every path parameter every ToolSpec marks."""
    cases = []
    for toolset in sorted(REFUSALS):
        module = importlib.import_module(BUILTIN[toolset].partition(":")[0])
        for spec in module.TOOLS:
            for param, kind in spec.paths.items():
                for form, path in (FORMS | DIR_FORMS).items():
                    # deleting a symlink removes the link inside the root, never its target: not an escape
                    if spec.name in {"delete", "delete_file"} and form in {"symlink-leaf", "symlinked-dir",
                                                                          "nested-symlinked-dir"}:
                        continue
                    cases.append((toolset, spec.name, param, kind, form, path))
    return cases


MATRIX = _matrix()


@pytest.mark.parametrize(("toolset", "tool", "param", "kind", "form", "path"), MATRIX,
                         ids=[f"{c[0]}.{c[1]}.{c[2]}-{c[4]}" for c in MATRIX])
def test_escape_is_refused(tree, toolset, tool, param, kind, form, path):
    tmp = tree.parent
    before = snapshot(tmp)
    reg = agenttools.toolset(toolset, root=str(tree))
    given = path.format(tmp=tmp)
    if ((toolset == "gemini" and tool != "run_shell_command") or toolset == "anthropic") and not os.path.isabs(given):
        given = os.path.join(str(tree), given)  # gemini and anthropic take absolute paths; the escape is what follows
    spec = next(s for s in importlib.import_module(BUILTIN[toolset].partition(":")[0]).TOOLS if s.name == tool)
    out = reg.call(tool, _arguments(spec, param, kind, given))
    reg.close()
    assert out.is_error or (toolset, tool) in PER_ITEM, out.text
    root = re.escape(str(tree))
    assert any(re.search(refusal.format(root=root), out.text) for refusal in REFUSALS[toolset]), out.text
    assert SECRET not in out.text
    assert snapshot(tmp) == before


def test_the_matrix_covers_every_path_tool_of_every_toolset():
    covered = {(toolset, tool) for toolset, tool, *_ in MATRIX}
    assert {("gemini", "read_file"), ("gemini", "run_shell_command"), ("editor", "create_file"),
            ("assistant", "exec"), ("assistant", "process"), ("coder", "head"), ("coder", "rg"),
            ("coder", "cloc"), ("coder", "html_to_markdown"), ("openai", "apply_patch"),
            ("filesystem", "read_multiple_files"), ("filesystem", "move_file"), ("filesystem", "directory_tree")} \
        <= covered
    assert len(covered) >= 24


WALKS = [
    ("gemini", "search_file_content", {"pattern": "TOPSECRET|inside"}),
    ("gemini", "glob", {"pattern": "**/*"}),
    ("gemini", "list_directory", {"path": "{root}"}),
    ("gemini", "run_shell_command", {"command": "ls"}),
    ("editor", "view", {"path": "."}),
    ("anthropic", "str_replace_based_edit_tool", {"command": "view", "path": "{root}"}),
    ("assistant", "list", {"path": "."}),
    ("coder", "rg", {"pattern": "TOPSECRET|inside"}),
    ("coder", "glob", {"pattern": "**/*"}),
    ("coder", "list_files", {"path": "."}),
    ("coder", "cloc", {"args": "."}),
    ("coder", "head", {"args": "-n 1 linkdir/secret.txt"}),
    ("filesystem", "directory_tree", {"path": "{root}"}),
    ("filesystem", "search_files", {"path": "{root}", "pattern": "**"}),
    ("filesystem", "list_directory_with_sizes", {"path": "{root}"}),
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
    ("filesystem", "write_file", lambda p: {"path": p, "content": "pwned"}, r"^Access denied - .* has 2 hard links"),
    ("filesystem", "edit_file", lambda p: {"path": p, "edits": [{"oldText": SECRET, "newText": "pwned"}]},
     r"^Access denied - .* has 2 hard links"),
    ("anthropic", "str_replace_based_edit_tool",
     lambda p: {"command": "str_replace", "path": p, "old_str": SECRET, "new_str": "pwned"},
     r"^Ran into refusing to write .* it has 2 hard links.* while trying to write to "),
    ("anthropic", "str_replace_based_edit_tool",
     lambda p: {"command": "insert", "path": p, "insert_line": 0, "insert_text": "pwned"},
     r"^Ran into refusing to write .* it has 2 hard links.* while trying to write to "),
]


@pytest.mark.parametrize(("toolset", "tool", "args", "refusal"), HARDLINK_WRITES,
                         ids=[f"{t}.{n}-{i}" for i, (t, n, _, _) in enumerate(HARDLINK_WRITES)])
def test_writes_to_a_hard_link_are_refused(tree, toolset, tool, args, refusal):
    outside = tree.parent / "outside" / "secret.txt"
    os.link(outside, tree / "hard.txt")
    before = snapshot(tree.parent)
    reg = agenttools.toolset(toolset, root=str(tree))
    out = reg.call(tool, args(str(tree / "hard.txt") if toolset in ("gemini", "anthropic") else "hard.txt"))
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
