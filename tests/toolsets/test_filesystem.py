"""The filesystem toolset: every tool, its exact texts, its errors, its limits and its safe deviations.

Expected texts were copied from ``@modelcontextprotocol/server-filesystem`` 2026.8.31 (npm) answering the same calls
(tests/fidelity/test_filesystem_upstream.py compares the two live); cases marked "ported" come from the server's
own tests, src/filesystem/__tests__/lib.test.ts and directory-tree.test.ts of modelcontextprotocol/servers at
76d64c82.
"""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools.blocks import DataBlock, ImageBlock
from agenttools.errors import ConfigError
from agenttools.toolsets.filesystem import TOOLS
from agenttools.toolsets.filesystem.editing import line_diff, unified_diff
from agenttools.toolsets.filesystem.texts import PARAMETERS, format_size, js_date, to_fixed


@pytest.fixture
def base(tmp_path: Path) -> Path:
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "sub" / "deep").mkdir(parents=True)
    b.mkdir()
    (tmp_path / "outside").mkdir()
    (a / "x.txt").write_text("l1\nl2\nl3\n")
    (a / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (a / "nonl.txt").write_text("first\nlast without newline")
    (a / "bad.txt").write_bytes(b"ok line\nbad \xff byte\ncut \xe2\x82 seq\nlast\n")
    (a / "code.py").write_text("def f():\n    if x:\n        return 1\n    return 2\n\n\ndef g():\n    pass\n")
    (a / "sub" / "b.py").write_text("print('b')\n")
    (a / "sub" / "deep" / "c.py").write_text("import os\n")
    (b / "y.txt").write_text("why\n")
    (tmp_path / "outside" / "secret.txt").write_text("SECRET\n")
    os.symlink(tmp_path / "outside" / "secret.txt", a / "escape.txt")
    os.symlink("x.txt", a / "link.txt")
    return tmp_path


def reg_for(base: Path, **options: Any) -> agenttools.Registry:
    return agenttools.toolset("filesystem", allow_dirs=[str(base / "a"), str(base / "b")], **options)


def call(base: Path, name: str, args: dict[str, Any], **options: Any) -> tuple[bool, str]:
    out = reg_for(base, **options).call(name, args)
    return out.is_error, out.text


# --- the contract ---------------------------------------------------------------------------------------------------

def test_the_fourteen_tools_in_upstream_order_with_upstream_schemas():
    names = [spec.name for spec in TOOLS]
    assert names == ["read_file", "read_text_file", "read_media_file", "read_multiple_files", "write_file",
                     "edit_file", "create_directory", "list_directory", "list_directory_with_sizes",
                     "directory_tree", "move_file", "search_files", "get_file_info", "list_allowed_directories"]
    # as upstream's tools/list reports them (less "$schema")
    assert PARAMETERS["edit_file"] == {"type": "object", "properties": {
        "path": {"type": "string"},
        "edits": {"type": "array", "items": {"type": "object", "properties": {
            "oldText": {"type": "string", "description": "Text to search for - must match exactly"},
            "newText": {"type": "string", "description": "Text to replace with"}}, "required": ["oldText", "newText"]}},
        "dryRun": {"default": False, "description": "Preview changes using git-style diff format", "type": "boolean"}},
        "required": ["path", "edits"]}
    assert PARAMETERS["list_allowed_directories"] == {"type": "object", "properties": {}}
    spec = {s.name: s for s in TOOLS}
    assert spec["read_file"].description == ("Read the complete contents of a file as text. DEPRECATED: Use "
                                             "read_text_file instead.")
    assert spec["read_file"].hints.title == "Read File (Deprecated)"
    assert spec["write_file"].hints.idempotent and spec["write_file"].hints.destructive
    assert spec["create_directory"].hints.destructive is False
    assert all(s.paths for s in TOOLS if s.name != "list_allowed_directories")
    assert spec["move_file"].paths == {"source": "path", "destination": "path"}
    assert spec["read_multiple_files"].paths == {"paths": "paths"}


def test_definitions_carry_the_schemas(base):
    defs = {d["name"]: d for d in reg_for(base).definitions("mcp")}
    assert defs["read_text_file"]["inputSchema"]["properties"]["head"] == {
        "description": "If provided, returns only the first N lines of the file", "type": "number"}
    assert defs["search_files"]["inputSchema"]["required"] == ["path", "pattern"]


def test_options(base, tmp_path):
    reg = agenttools.toolset("filesystem", root=str(base / "a"))
    assert reg.call("list_allowed_directories", {}).text == f"Allowed directories:\n{base / 'a'}"
    with pytest.raises(ConfigError, match="allow_dirs"):
        agenttools.toolset("filesystem")
    with pytest.raises(ConfigError, match="max_file_size"):
        agenttools.toolset("filesystem", allow_dirs=[str(base / "a")], max_file_size=-1)


def test_list_allowed_directories_names_a_symlinked_directory_and_its_target(base):
    os.symlink(base / "b", base / "blink")
    reg = agenttools.toolset("filesystem", allow_dirs=[str(base / "a"), str(base / "blink")])
    assert reg.call("list_allowed_directories", {}).text == (
        f"Allowed directories:\n{base / 'a'}\n{base / 'blink'}\n{base / 'b'}")
    assert reg.call("read_text_file", {"path": f"{base}/blink/y.txt"}).text == "why\n"


# --- argument errors, worded as the MCP SDK and zod word them ----------------------------------------------------

@pytest.mark.parametrize(("name", "args", "message"), [
    ("read_text_file", {}, "Invalid input: expected string, received undefined at path"),
    ("read_text_file", {"path": 7}, "Invalid input: expected string, received number at path"),
    ("read_text_file", {"path": "x", "head": "2"}, "Invalid input: expected number, received string at head"),
    ("read_text_file", {"path": "x", "head": True, "tail": "x"},
     "Invalid input: expected number, received string at tail\nInvalid input: expected number, received boolean at head"),
    ("read_multiple_files", {"paths": []}, "Too small: expected array to have >=1 items at paths"),
    ("read_multiple_files", {"paths": ["x", 3]}, "Invalid input: expected string, received number at paths[1]"),
    ("read_multiple_files", {"paths": "x"}, "Invalid input: expected array, received string at paths"),
    ("edit_file", {"path": "x", "edits": [{"oldText": "l2"}]},
     "Invalid input: expected string, received undefined at edits[0].newText"),
    ("edit_file", {"path": "x", "edits": ["s"]}, "Invalid input: expected object, received string at edits[0]"),
    ("list_directory_with_sizes", {"path": "x", "sortBy": "date"},
     'Invalid option: expected one of "name"|"size" at sortBy'),
    ("directory_tree", {"path": "x", "excludePatterns": "x"},
     "Invalid input: expected array, received string at excludePatterns"),
    ("write_file", {"path": "x"}, "Invalid input: expected string, received undefined at content"),
])
def test_argument_errors(base, name, args, message):
    assert call(base, name, args) == (
        True, f"MCP error -32602: Input validation error: Invalid arguments for tool {name}: {message}")


def test_unknown_tool_and_unknown_keys(base):
    assert call(base, "no_such_tool", {}) == (True, "MCP error -32602: Tool no_such_tool not found")
    assert call(base, "read_text_file", {"path": f"{base}/a/x.txt", "unknown": 1}) == (False, "l1\nl2\nl3\n")


# --- reading ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("args", "text"), [
    ({}, "l1\nl2\nl3\n"),
    ({"head": 2}, "l1\nl2"),
    ({"head": 100}, "l1\nl2\nl3"),
    ({"head": 2.5}, "l1\nl2\nl3"),
    ({"head": -1}, ""),
    ({"head": 0}, "l1\nl2\nl3\n"),  # 0 is "not given"
    ({"tail": 1}, ""),  # the last "line" is the empty one after the final line break
    ({"tail": 2}, "l3\n"),
    ({"tail": 2.5}, "l3\n"),
    ({"tail": 100}, "l1\nl2\nl3\n"),
    ({"tail": -1}, ""),
    ({"head": 0, "tail": 2}, "l3\n"),
])
def test_read_text_file_head_and_tail(base, args, text):
    assert call(base, "read_text_file", {"path": f"{base}/a/x.txt", **args}) == (False, text)


def test_read_texts(base):
    a = f"{base}/a"
    assert call(base, "read_file", {"path": f"{a}/x.txt"}) == (False, "l1\nl2\nl3\n")
    assert call(base, "read_text_file", {"path": "x.txt"}) == (False, "l1\nl2\nl3\n")  # against the allowed dirs
    assert call(base, "read_text_file", {"path": "y.txt"}) == (
        True, f"ENOENT: no such file or directory, open '{a}/y.txt'")  # the first allowed directory wins
    assert call(base, "read_text_file", {"path": f"{a}/bad.txt"}) == (
        False, "ok line\nbad \ufffd byte\ncut \ufffd seq\nlast\n")
    assert call(base, "read_text_file", {"path": f"{a}/crlf.txt", "tail": 2}) == (False, "three\n")
    assert call(base, "read_text_file", {"path": f"{a}/crlf.txt", "head": 2}) == (False, "one\r\ntwo\r")
    assert call(base, "read_text_file", {"path": f"{a}/nonl.txt", "tail": 1}) == (False, "last without newline")
    assert call(base, "read_text_file", {"path": f"{a}/x.txt", "head": 1, "tail": 1}) == (
        True, "Cannot specify both head and tail parameters simultaneously")
    for extra in ({}, {"head": 1}, {"tail": 1}):
        assert call(base, "read_text_file", {"path": f"{a}/sub", **extra}) == (
            True, "EISDIR: illegal operation on a directory, read")
    assert call(base, "read_text_file", {"path": f"{a}/missing", "tail": 1}) == (
        True, f"ENOENT: no such file or directory, stat '{a}/missing'")
    assert call(base, "read_text_file", {"path": f"{a}/x.txt/inner"}) == (
        True, f"ENOTDIR: not a directory, realpath '{a}/x.txt/inner'")
    assert call(base, "read_text_file", {"path": f"{a}/link.txt"}) == (False, "l1\nl2\nl3\n")


def test_read_text_file_tail_of_a_long_file_reads_from_the_end(base):
    lines = [f"line {i} " + "\u00e9" * (i % 700) for i in range(400)]
    (base / "a" / "long.txt").write_text("\n".join(lines) + "\n")
    assert call(base, "read_text_file", {"path": f"{base}/a/long.txt", "tail": 3}) == (
        False, "\n".join(lines[-2:]) + "\n")
    assert call(base, "read_text_file", {"path": f"{base}/a/long.txt", "head": 3}) == (False, "\n".join(lines[:3]))


def test_read_media_file(base):
    a = base / "a"
    (a / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (a / "sound.MP3").write_bytes(b"ID3")
    (a / "doc.pdf").write_bytes(b"%PDF")
    reg = reg_for(base)
    out = reg.call("read_media_file", {"path": str(a / "img.png")})
    assert not out.is_error and out.content == (ImageBlock.from_bytes(b"\x89PNG\r\n\x1a\n", "image/png"),)
    out = reg.call("read_media_file", {"path": str(a / "sound.MP3")})
    assert out.content == (DataBlock.from_bytes(b"ID3", "audio/mpeg"),) and out.text == "[audio: audio/mpeg]"
    out = reg.call("read_media_file", {"path": str(a / "doc.pdf")})
    assert out.content == (DataBlock.from_bytes(b"%PDF", "application/octet-stream"),)
    assert out.data == (a / "doc.pdf").as_uri()
    assert reg.call("read_media_file", {"path": str(a / "sub")}).text == "EISDIR: illegal operation on a directory, read"


def test_read_multiple_files(base):
    a, b = f"{base}/a", f"{base}/b"
    assert call(base, "read_multiple_files", {"paths": [f"{a}/x.txt", f"{a}/missing.txt", f"{b}/y.txt", "/etc/x"]}) == (
        False, f"{a}/x.txt:\nl1\nl2\nl3\n\n\n---\n{a}/missing.txt: Error - ENOENT: no such file or directory, open "
               f"'{a}/missing.txt'\n---\n{b}/y.txt:\nwhy\n\n\n---\n/etc/x: Error - Access denied - path outside "
               f"allowed directories: /etc/x not in {a}, {b}")


# --- paths ------------------------------------------------------------------------------------------------------------

def test_paths_outside_are_refused_in_upstreams_words(base):
    a, b = f"{base}/a", f"{base}/b"
    dirs = f"{a}, {b}"
    assert call(base, "read_text_file", {"path": f"{a}/../outside/secret.txt"}) == (
        True, f"Access denied - path outside allowed directories: {base}/outside/secret.txt not in {dirs}")
    assert call(base, "read_text_file", {"path": f"{a}/escape.txt"}) == (
        True, f"Access denied - symlink target outside allowed directories: {base}/outside/secret.txt not in {dirs}")
    assert call(base, "read_text_file", {"path": "C:\\Windows\\win.ini"}) == (
        True, "Access denied - Windows-style path received on a POSIX host: C:\\Windows\\win.ini")
    os.symlink("missing-target", base / "a" / "dangling")
    assert call(base, "read_text_file", {"path": f"{a}/dangling"}) == (True, f"Parent directory does not exist: {a}")
    assert call(base, "read_text_file", {"path": f"{a}/x\x00.txt"}) == (
        True, f"Access denied - path outside allowed directories: {a}/x\x00.txt not in {dirs}")


def test_a_path_upstream_trims_is_checked_as_it_is_used(base):
    """Deviation: upstream checked `/abs/a"` trimmed to `/abs/a`, then created the sibling `/abs/a"`."""
    a, b = f"{base}/a", f"{base}/b"
    for name, args in [("create_directory", {"path": f'{a}"'}), ("write_file", {"path": f"{a} ", "content": "x"}),
                       ("write_file", {"path": f"{a}\u00a0", "content": "x"}),
                       ("create_directory", {"path": f"{a}'"})]:
        shown = args["path"]
        assert call(base, name, args) == (
            True, f"Access denied - path outside allowed directories: {shown} not in {a}, {b}")
    assert sorted(os.listdir(base)) == ["a", "b", "outside"]
    # a name inside that ends in a space or a quote is an ordinary name
    assert call(base, "write_file", {"path": f"{a}/x.txt ", "content": "spaced"}) == (
        False, f"Successfully wrote to {a}/x.txt ")
    assert (base / "a" / "x.txt ").read_text() == "spaced"


def test_deny_globs_and_git_metadata(base):
    (base / "a" / ".env").write_text("TOKEN=1\n")
    (base / "a" / ".git").mkdir()
    failed, text = call(base, "read_text_file", {"path": f"{base}/a/.env"}, deny=["**/.env"])
    assert failed and text == f"Access denied - path matches a deny pattern (**/.env): {base}/a/.env"
    assert ".env" not in call(base, "list_directory", {"path": f"{base}/a"}, deny=["**/.env"])[1]
    assert call(base, "write_file", {"path": f"{base}/a/.git/config", "content": "x"}) == (
        True, f"Access denied - path inside git metadata (read-only): {base}/a/.git/config")


def test_a_fifo_is_refused_instead_of_hanging(base):
    """Deviation: upstream's read of a FIFO never returns."""
    os.mkfifo(base / "a" / "fifo")
    results: list[tuple[bool, str]] = []
    worker = threading.Thread(target=lambda: results.extend(
        call(base, name, {"path": f"{base}/a/fifo", **extra}) for name, extra in
        [("read_text_file", {}), ("read_text_file", {"head": 1}), ("read_media_file", {}),
         ("edit_file", {"edits": [{"oldText": "a", "newText": "b"}]})]), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "a read of a FIFO hung"
    refusal = f"Not a regular file (fifo), refusing to open it: {base}/a/fifo"
    assert results == [(True, refusal)] * 4
    assert call(base, "write_file", {"path": f"{base}/a/fifo", "content": "x"}) == (True, refusal)
    assert stat.S_ISFIFO(os.lstat(base / "a" / "fifo").st_mode)
    assert call(base, "read_text_file", {"path": f"{base}/a/fifo", "tail": 1}) == (False, "")  # upstream: size 0


def test_max_file_size(base):
    (base / "a" / "big.txt").write_text("x" * 5000 + "\n")
    failed, text = call(base, "read_text_file", {"path": f"{base}/a/big.txt"}, max_file_size=1000)
    assert failed and text == f"File size (5001) is greater than the limit of 1000 bytes: {base}/a/big.txt"
    assert call(base, "read_text_file", {"path": f"{base}/a/big.txt", "head": 1}, max_file_size=1000)[0]
    assert call(base, "edit_file", {"path": f"{base}/a/big.txt", "edits": []}, max_file_size=1000)[0]
    assert call(base, "read_text_file", {"path": f"{base}/a/x.txt"}, max_file_size=1000) == (False, "l1\nl2\nl3\n")


# --- writing ----------------------------------------------------------------------------------------------------------

def test_write_file(base):
    a = base / "a"
    assert call(base, "write_file", {"path": f"{a}/new.txt", "content": "fresh\n"}) == (
        False, f"Successfully wrote to {a}/new.txt")
    assert (a / "new.txt").read_text() == "fresh\n"
    (a / "x.txt").chmod(0o640)
    assert call(base, "write_file", {"path": "x.txt", "content": "no\ncrlf"}) == (False, "Successfully wrote to x.txt")
    assert (a / "x.txt").read_bytes() == b"no\ncrlf" and stat.S_IMODE((a / "x.txt").stat().st_mode) == 0o640
    call(base, "write_file", {"path": f"{a}/crlf.txt", "content": "lf\n"})
    assert (a / "crlf.txt").read_bytes() == b"lf\n"  # upstream writes the content as given
    call(base, "write_file", {"path": f"{a}/link.txt", "content": "through\n"})
    assert (a / "x.txt").read_text() == "through\n" and (a / "link.txt").is_symlink()
    assert call(base, "write_file", {"path": f"{a}/missing/new.txt", "content": "x"}) == (
        True, f"ENOENT: no such file or directory, open '{a}/missing/new.txt'")
    assert call(base, "write_file", {"path": f"{a}/sub", "content": "x"}) == (
        True, f"EISDIR: illegal operation on a directory, open '{a}/sub'")
    call(base, "write_file", {"path": f"{a}/s.txt", "content": "lone \ud800 surrogate"})
    assert (a / "s.txt").read_bytes() == "lone \ufffd surrogate".encode()


def test_create_directory(base):
    a = f"{base}/a"
    assert call(base, "create_directory", {"path": f"{a}/one/two"}) == (
        False, f"Successfully created directory {a}/one/two")
    assert (base / "a" / "one" / "two").is_dir()
    assert call(base, "create_directory", {"path": "sub"}) == (False, "Successfully created directory sub")
    assert call(base, "create_directory", {"path": f"{a}/x.txt"}) == (
        True, f"EEXIST: file already exists, mkdir '{a}/x.txt'")
    assert call(base, "create_directory", {"path": f"{a}/x.txt/inner"}) == (
        True, f"ENOTDIR: not a directory, realpath '{a}/x.txt/inner'")


def test_move_file(base):
    a, b = f"{base}/a", f"{base}/b"
    assert call(base, "move_file", {"source": f"{a}/x.txt", "destination": f"{a}/sub/b.py"}) == (
        True, f"Destination already exists: {a}/sub/b.py")
    assert call(base, "move_file", {"source": f"{a}/missing", "destination": f"{a}/m2"}) == (
        True, f"ENOENT: no such file or directory, rename '{a}/missing' -> '{a}/m2'")
    assert call(base, "move_file", {"source": f"{a}/sub", "destination": f"{a}/sub/deep/in"}) == (
        True, f"EINVAL: invalid argument, rename '{a}/sub' -> '{a}/sub/deep/in'")
    assert call(base, "move_file", {"source": f"{a}/sub", "destination": f"{b}/sub"}) == (
        False, f"Successfully moved {a}/sub to {b}/sub")
    assert (base / "b" / "sub" / "deep" / "c.py").is_file()
    assert call(base, "move_file", {"source": f"{a}/x.txt", "destination": f"{base}/outside/x.txt"}) == (
        True, f"Access denied - path outside allowed directories: {base}/outside/x.txt not in {a}, {b}")
    assert call(base, "move_file", {"source": a, "destination": f"{b}/moved-root"})[0]  # never an allowed dir itself
    assert (base / "a").is_dir()


# --- edit_file --------------------------------------------------------------------------------------------------------

def diff_text(path: str, body: str) -> str:
    return (f"```diff\nIndex: {path}\n{'=' * 67}\n--- {path}\toriginal\n+++ {path}\tmodified\n{body}```\n\n")


def test_edit_file_answers_upstreams_diff(base):
    path = f"{base}/a/code.py"
    # copied from the npm server's answer to the same call
    assert call(base, "edit_file", {"path": path, "edits": [{"oldText": "if x:\n  return 1",
                                                              "newText": "if y:\n    return 3"}]}) == (
        False, diff_text(path, "@@ -1,7 +1,7 @@\n def f():\n-    if x:\n-        return 1\n+    if y:\n+      return 3\n"
                               "     return 2\n \n \n def g():\n"))
    assert (base / "a" / "code.py").read_text().startswith("def f():\n    if y:\n      return 3\n")
    nonl = f"{base}/a/nonl.txt"
    assert call(base, "edit_file", {"path": nonl, "edits": [{"oldText": "first", "newText": "1st"}],
                                    "dryRun": True}) == (
        False, diff_text(nonl, "@@ -1,2 +1,2 @@\n-first\n+1st\n last without newline\n\\ No newline at end of file\n"))
    assert (base / "a" / "nonl.txt").read_text() == "first\nlast without newline"  # dry run


def test_edit_file_multi_hunk_and_fences(base):
    lines = [f"line {i} " + "x" * (i % 50) for i in range(3000)]
    (base / "a" / "long.txt").write_text("\n".join(lines) + "\n")
    path = f"{base}/a/long.txt"
    failed, text = call(base, "edit_file", {"path": path, "edits": [{"oldText": "line 10 ", "newText": "LINE 10 "},
                                                                     {"oldText": "line 20 ", "newText": "LINE 20 "}]})
    hunk1 = "".join(f" {lines[i]}\n" for i in range(6, 10)) + f"-{lines[10]}\n+LINE 10 {'x' * 10}\n" + "".join(
        f" {lines[i]}\n" for i in range(11, 15))
    hunk2 = "".join(f" {lines[i]}\n" for i in range(16, 20)) + f"-{lines[20]}\n+LINE 20 {'x' * 20}\n" + "".join(
        f" {lines[i]}\n" for i in range(21, 25))
    assert (failed, text) == (False, diff_text(path, f"@@ -7,9 +7,9 @@\n{hunk1}@@ -17,9 +17,9 @@\n{hunk2}"))
    (base / "a" / "ticks.md").write_text("text ``` fence\nmore\n")
    assert call(base, "edit_file", {"path": f"{base}/a/ticks.md", "edits": [{"oldText": "more", "newText": "````more"}],
                                    "dryRun": True})[1].startswith("`````diff\n")
    (base / "a" / "empty.txt").write_text("")
    assert call(base, "edit_file", {"path": f"{base}/a/empty.txt", "edits": [{"oldText": "", "newText": "start\n"}]}) == (
        False, diff_text(f"{base}/a/empty.txt", "@@ -0,0 +1,1 @@\n+start\n"))


def test_edit_file_errors(base):
    a = f"{base}/a"
    assert call(base, "edit_file", {"path": f"{a}/x.txt", "edits": [{"oldText": "l2", "newText": "L2"},
                                                                     {"oldText": "nope", "newText": "x"}]}) == (
        True, "Could not find exact match for edit:\nnope")
    assert (base / "a" / "x.txt").read_text() == "l1\nl2\nl3\n"  # all or nothing
    assert call(base, "edit_file", {"path": f"{a}/missing", "edits": []}) == (
        True, f"ENOENT: no such file or directory, open '{a}/missing'")
    assert call(base, "edit_file", {"path": f"{a}/sub", "edits": []}) == (
        True, "EISDIR: illegal operation on a directory, read")


@pytest.mark.parametrize(("before", "edits", "after"), [
    # ported: lib.test.ts "applyFileEdits"
    ("line1\nline2\nline3\n", [("line2", "modified line2")], "line1\nmodified line2\nline3\n"),
    ("line1\nline2\nline3\n", [("line2", "price=$$; match=$&; before=$`; after=$'")],
     "line1\nprice=$$; match=$&; before=$`; after=$'\nline3\n"),
    ("line1\nline2\nline3\n", [("line1", "first line"), ("line3", "third line")], "first line\nline2\nthird line\n"),
    ("  line1\n    line2\n  line3\n", [("line2", "modified line2")], "  line1\n    modified line2\n  line3\n"),
    ('function test() {\n  console.log("hello");\n  return true;\n}',
     [('  console.log("hello");\n  return true;', '  console.log("world");\n  console.log("test");\n  return false;')],
     'function test() {\n  console.log("world");\n  console.log("test");\n  return false;\n}'),
    ("    if (condition) {\n        doSomething();\n    }",
     [("doSomething();", "doSomethingElse();\n        doAnotherThing();")],
     "    if (condition) {\n        doSomethingElse();\n        doAnotherThing();\n    }"),
    # whitespace-flexible matching: the first line takes the file's indentation, later lines keep relative indent
    ("    if (condition) {\n        doSomething();\n    }",
     [("if (condition) {\n  doSomething();\n}", "if (other) {\n      doThat();\n    }")],
     "    if (other) {\n        doThat();\n    }"),
])
def test_edit_file_ported_cases(base, before, edits, after):
    (base / "a" / "f.txt").write_text(before)
    failed, text = call(base, "edit_file", {"path": f"{base}/a/f.txt",
                                            "edits": [{"oldText": o, "newText": n} for o, n in edits]})
    assert not failed, text
    assert (base / "a" / "f.txt").read_text() == after


def test_edit_file_keeps_crlf_and_bytes_that_are_not_utf8(base):
    """Deviations: upstream rewrote the whole file with LF endings and U+FFFD for every byte that is not UTF-8."""
    a = base / "a"
    path = f"{a}/crlf.txt"
    # the diff is upstream's (LF-normalised); the file keeps CRLF, and the new lines get it too
    assert call(base, "edit_file", {"path": path, "edits": [{"oldText": "two", "newText": "2\nand more"}]}) == (
        False, diff_text(path, "@@ -1,3 +1,4 @@\n one\n-two\n+2\n+and more\n three\n"))
    assert (a / "crlf.txt").read_bytes() == b"one\r\n2\r\nand more\r\nthree\r\n"
    (a / "mixed.txt").write_bytes(b"one\r\ntwo\nthree\r\nfour\n")
    call(base, "edit_file", {"path": f"{a}/mixed.txt", "edits": [{"oldText": "three", "newText": "3"}]})
    assert (a / "mixed.txt").read_bytes() == b"one\r\ntwo\n3\nfour\n"
    call(base, "edit_file", {"path": f"{a}/bad.txt", "edits": [{"oldText": "last", "newText": "LAST"}]})
    assert (a / "bad.txt").read_bytes() == b"ok line\nbad \xff byte\ncut \xe2\x82 seq\nLAST\n"
    # an edit of the line holding the bad byte writes what the model sent (U+FFFD where it saw one)
    call(base, "edit_file", {"path": f"{a}/bad.txt", "edits": [{"oldText": "bad \ufffd byte", "newText": "good"}]})
    assert (a / "bad.txt").read_bytes() == b"ok line\ngood\ncut \xe2\x82 seq\nLAST\n"


def test_line_diff_is_jsdiffs():
    changes = line_diff("a\nb\nc\n", "a\nx\nc\nd")
    assert [(c.count, c.added, c.removed, c.value) for c in changes] == [
        (1, False, False, "a\n"), (1, False, True, "b\n"), (1, True, False, "x\n"), (1, False, False, "c\n"),
        (1, True, False, "d")]
    assert unified_diff("f", "same\n", "same\n") == f"```diff\nIndex: f\n{'=' * 67}\n--- f\toriginal\n+++ f\tmodified\n```\n\n"


# --- listing and searching --------------------------------------------------------------------------------------------

def test_list_directory(base):
    a = f"{base}/a"
    (base / "a" / "Zeta.txt").write_text("Z\n")
    (base / "a" / "_under.txt").write_text("_\n")
    os.symlink("sub", base / "a" / "linkdir")
    os.symlink("missing", base / "a" / "dangling")
    assert call(base, "list_directory", {"path": a}) == (False, "\n".join([
        "[FILE] Zeta.txt", "[FILE] _under.txt", "[FILE] bad.txt", "[FILE] code.py", "[FILE] crlf.txt",
        "[FILE] dangling", "[FILE] escape.txt", "[FILE] link.txt", "[FILE] linkdir", "[FILE] nonl.txt", "[DIR] sub",
        "[FILE] x.txt"]))
    assert call(base, "list_directory", {"path": f"{a}/sub/deep/.."}) == (False, "[FILE] b.py\n[DIR] deep")
    assert call(base, "list_directory", {"path": f"{a}/x.txt"}) == (
        True, f"ENOTDIR: not a directory, scandir '{a}/x.txt'")
    assert call(base, "list_directory", {"path": f"{a}/missing"}) == (
        True, f"ENOENT: no such file or directory, scandir '{a}/missing'")


def test_list_directory_with_sizes(base):
    a = base / "a" / "sub"
    (a / "kb.bin").write_bytes(b"\0" * 1536)
    (a / "Zeta").write_bytes(b"\0" * 1152)
    assert call(base, "list_directory_with_sizes", {"path": str(a)}) == (False, "\n".join([
        "[FILE] b.py                                 11 B", "[DIR] deep                           ",
        "[FILE] kb.bin                            1.50 KB", "[FILE] Zeta                              1.13 KB", "",
        "Total: 3 files, 1 directories", "Combined size: 2.64 KB"]))
    assert call(base, "list_directory_with_sizes", {"path": str(a), "sortBy": "size"})[1].splitlines()[:4] == [
        "[DIR] deep                           ", "[FILE] kb.bin                            1.50 KB",
        "[FILE] Zeta                              1.13 KB", "[FILE] b.py                                 11 B"]
    (base / "b" / "empty").mkdir()
    assert call(base, "list_directory_with_sizes", {"path": f"{base}/b/empty"}) == (
        False, "\nTotal: 0 files, 0 directories\nCombined size: 0 B")


def test_format_size_and_to_fixed():
    # ported: lib.test.ts "formatSize"
    assert [format_size(n) for n in (0, 512, 1024, 1536, 1048576, 1073741824, 1099511627776, 1023, 1025, 1048575,
                                     1024 ** 5)] == [
        "0 B", "512 B", "1.00 KB", "1.50 KB", "1.00 MB", "1.00 GB", "1.00 TB", "1023 B", "1.00 KB", "1024.00 KB",
        "1024.00 TB"]
    assert to_fixed(1.125, 2) == "1.13" and to_fixed(1.005, 2) == "1.00"  # the exact double, half up


def test_directory_tree(base):
    # ported: directory-tree.test.ts "buildTree exclude patterns"
    t = base / "a" / "t"
    for d in ("src", "node_modules", ".git", "nested/node_modules"):
        (t / d).mkdir(parents=True)
    for f, text in ((".env", "SECRET=value"), (".env.local", "L"), ("src/index.js", "x"), ("package.json", "{}"),
                    ("node_modules/module.js", "m"), ("nested/node_modules/deep.js", "d")):
        (t / f).write_text(text)

    def names(patterns: list[str]) -> list[str]:
        failed, text = call(base, "directory_tree", {"path": str(t), "excludePatterns": patterns})
        assert not failed, text
        return [entry["name"] for entry in json.loads(text)]

    assert names([".env"]) == [".env.local", ".git", "nested", "node_modules", "package.json", "src"]
    assert "node_modules" not in names(["node_modules"])
    _, text = call(base, "directory_tree", {"path": str(t), "excludePatterns": ["node_modules"]})
    assert json.loads(text)[3] == {"name": "nested", "type": "directory", "children": []}
    assert names(["*.env"]) == [".env.local", ".git", "nested", "node_modules", "package.json", "src"]
    assert names([".git"]) == [".env", ".env.local", "nested", "node_modules", "package.json", "src"]
    assert names([]) == [".env", ".env.local", ".git", "nested", "node_modules", "package.json", "src"]
    assert call(base, "directory_tree", {"path": f"{base}/a/sub"}) == (False, json.dumps(
        [{"name": "b.py", "type": "file"},
         {"name": "deep", "type": "directory", "children": [{"name": "c.py", "type": "file"}]}], indent=2))
    assert call(base, "directory_tree", {"path": f"{base}/a/x.txt"}) == (
        True, f"ENOTDIR: not a directory, scandir '{base}/a/x.txt'")


def test_search_files(base):
    a = f"{base}/a"
    assert call(base, "search_files", {"path": a, "pattern": "**/*.py"}) == (
        False, f"{a}/code.py\n{a}/sub/b.py\n{a}/sub/deep/c.py")
    assert call(base, "search_files", {"path": a, "pattern": "*.py"}) == (False, f"{a}/code.py")
    assert call(base, "search_files", {"path": a, "pattern": "**/*.py", "excludePatterns": ["sub"]}) == (
        False, f"{a}/code.py")
    assert call(base, "search_files", {"path": a, "pattern": "!*.txt"})[1].split("\n")[:2] == [
        f"{a}/code.py", f"{a}/sub"]
    assert call(base, "search_files", {"path": a, "pattern": "*.TXT"}) == (False, "No matches found")
    assert call(base, "search_files", {"path": a, "pattern": "escape*"}) == (False, "No matches found")  # leads out
    assert call(base, "search_files", {"path": a, "pattern": "link*"}) == (False, f"{a}/link.txt")
    assert call(base, "search_files", {"path": f"{a}/x.txt", "pattern": "*"}) == (
        True, f"ENOTDIR: not a directory, scandir '{a}/x.txt'")


def test_get_file_info(base, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        path = base / "a" / "x.txt"
        path.chmod(0o640)
        os.utime(path, (1_700_000_100, 1_700_000_000))
        failed, text = call(base, "get_file_info", {"path": str(path)})
        lines = text.split("\n")
        assert not failed and lines[0] == "size: 9" and lines[1].startswith("created: ")
        assert lines[2:] == ["modified: Tue Nov 14 2023 22:13:20 GMT+0000 (Coordinated Universal Time)",
                             "accessed: Tue Nov 14 2023 22:15:00 GMT+0000 (Coordinated Universal Time)",
                             "isDirectory: false", "isFile: true", "permissions: 640"]
        assert js_date(0) == "Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)"
        assert call(base, "get_file_info", {"path": f"{base}/a/sub"})[1].split("\n")[4:6] == [
            "isDirectory: true", "isFile: false"]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_names_that_are_not_utf8_read_as_node_reads_them(base):
    d = base / "a" / "sub" / "deep"
    with open(os.path.join(os.fsencode(d), b"bad-\xff.txt"), "w") as handle:
        handle.write("x")
    assert call(base, "list_directory", {"path": str(d)}) == (False, "[FILE] bad-\ufffd.txt\n[FILE] c.py")
    assert json.loads(call(base, "directory_tree", {"path": str(d)})[1])[0]["name"] == "bad-\ufffd.txt"
    # the name read back names nothing: its size is 0, a search passes it by, a tree cannot enter such a directory
    assert call(base, "list_directory_with_sizes", {"path": str(d)})[1].split("\n")[0] == (
        "[FILE] bad-\ufffd.txt" + " " * (30 - 9) + " " + "0 B".rjust(10))  # name padded to 30, size to 10
    assert call(base, "search_files", {"path": str(d), "pattern": "bad*"}) == (False, "No matches found")
    os.mkdir(os.path.join(os.fsencode(d), b"dir-\xfe"))
    assert call(base, "directory_tree", {"path": str(d)}) == (True, f"Parent directory does not exist: {d}")


def test_path_helpers_ported_from_upstream():
    """Ported: path-utils.test.ts ("preserves Unix paths") and path-validation.test.ts (the POSIX cases)."""
    from agenttools.toolsets.filesystem.state import normalize_path, within

    assert [normalize_path(p) for p in ("/usr/local/bin", "/home/user/some path", '"/usr/local/some app/"',
                                        "/usr/local//bin/app///", "/", "///")] == [
        "/usr/local/bin", "/home/user/some path", "/usr/local/some app", "/usr/local/bin/app", "/", "/"]
    project = ["/home/user/project"]
    assert within("/home/user/project", project) and within("/home/user/project/src/index.js", project)
    for outside in ("/home/user/project2", "/home/user/project_backup", "/home/user/project-old",
                    "/home/user/projectile", "/home/user/project.bak", "/home/user/other", "/etc/passwd",
                    "/home/user", "/", "", "/home/user/project/../other", "/home/user/project\x00/x"):
        assert not within(outside, project), outside
    assert within("/home/user/project/", project) and within("/home/user/project", ["/home/user/project/"])
    assert not within("/home/user/project2/", project)
    assert within("/home/user/project/src", ["", "/home/user/project", ""])
    assert not within("/home/user/project", [])
    assert within("/home/user/my-project (v2)/src", ["/home/user/my-project (v2)"])
    assert not within("/home/user/my-project (v2)_backup", ["/home/user/my-project (v2)"])
    assert within("/anything/at/all", ["/"])


def test_a_diff_past_the_step_limit_is_made_the_cheap_way():
    """Deviation: jsdiff's algorithm is quadratic in the edit distance; past MAX_DIFF_STEPS we stop it."""
    old = "keep\n" + "".join(f"old {i}\nsame\n" for i in range(50)) + "end\n"
    new = "keep\n" + "".join(f"new {i}\nsame\n" for i in range(50)) + "end\n"
    exact = line_diff(old, new)
    assert len(exact) > 4  # jsdiff keeps each "same" line
    cheap = line_diff(old, new, max_steps=10)
    assert [(c.count, c.added, c.removed) for c in cheap] == [(1, False, False), (99, False, True),
                                                               (99, True, False), (2, False, False)]
    assert "".join(c.value for c in cheap if not c.added) == old
    assert "".join(c.value for c in cheap if not c.removed) == new


def test_a_symlink_to_a_sibling_named_like_an_allowed_directory_is_a_symlink_target_outside(tmp_path):
    """Upstream trims a space or quote before its check, so ``link -> ../proj `` passed; refused in its words."""
    proj = tmp_path / "proj"
    proj.mkdir()
    for sibling in ("proj ", 'proj"'):
        (tmp_path / sibling).mkdir()
        (tmp_path / sibling / "s.txt").write_text("secret\n")
    os.symlink("../proj ", proj / "space")
    os.symlink('../proj"', proj / "quote")
    reg = agenttools.toolset("filesystem", allow_dirs=[str(proj)])
    for link, target in (("space", f"{tmp_path}/proj "), ("quote", f'{tmp_path}/proj"')):
        out = reg.call("list_directory", {"path": f"{proj}/{link}"})
        assert out.is_error
        assert out.text == f"Access denied - symlink target outside allowed directories: {target} not in {proj}"
        out = reg.call("write_file", {"path": f"{proj}/{link}/n.txt", "content": "x"})
        assert out.text == f"Access denied - symlink target outside allowed directories: {target} not in {proj}"
        assert not (tmp_path / target / "n.txt").exists()
