"""The editor's opt-in edit extensions: multi-edits, dry runs, a version check and tolerant matching."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import agenttools
from agenttools.toolsets.editor.texts import DESCRIPTIONS, PARAMETERS


@pytest.fixture
def root(tmp_path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    return work


@pytest.fixture
def reg(root):
    with agenttools.toolset("editor", root=str(root), edit_extensions=True) as registry:
        yield registry


def _version(text: str) -> str:
    head, _, tail = text.rpartition("\n[version: ")
    assert head and tail.endswith("]"), text
    return tail[:-1]


def test_off_by_default_the_schemas_are_upstreams(root):
    with agenttools.toolset("editor", root=str(root)) as plain:
        tool = plain["str_replace"]
        assert tool.parameters["properties"].keys() == PARAMETERS["str_replace"]["properties"].keys()
        assert tool.description == DESCRIPTIONS["str_replace"]
        (root / "a.txt").write_text("x\n")
        out = plain.call("str_replace", {"path": "a.txt", "old_str": "x", "dry_run": True})
        assert out.is_error and "dry_run" in out.text
        assert "[version:" not in plain.call("view", {"path": "a.txt"}).text


def test_extended_schema_and_descriptions(reg):
    schema = reg["str_replace"].parameters
    assert schema["required"] == ["path"]
    assert {"edits", "dry_run", "expected_version", "tolerant"} <= schema["properties"].keys()
    assert reg["str_replace"].description.startswith(DESCRIPTIONS["str_replace"] + " Or give edits")
    assert reg["view"].description.startswith(DESCRIPTIONS["view"])
    assert reg.names() == ("view", "str_replace", "create_file", "bash", "task_output")


def test_view_ends_with_the_version_that_an_edit_checks(reg, root):
    f = root / "a.py"
    f.write_text("a = 1\nb = 2\n")
    seen = reg.call("view", {"path": "a.py"}).text
    token = _version(seen)
    assert token == agenttools.edit.file_version(agenttools.Workspace(str(root)), str(f)).token
    assert seen.startswith("1\ta = 1\n2\tb = 2\n")
    f.write_text("a = 1\nb = 3\n")  # someone else changes it after the view
    out = reg.call("str_replace", {"path": "a.py", "old_str": "a = 1", "new_str": "a = 9", "expected_version": token})
    assert out.is_error and out.text.startswith(f"[STALE_FILE] {f} has changed since it was read")
    assert f.read_text() == "a = 1\nb = 3\n"
    fresh = _version(reg.call("view", {"path": "a.py", "view_range": [1, 1]}).text)
    done = reg.call("str_replace", {"path": "a.py", "old_str": "a = 1", "new_str": "a = 9", "expected_version": fresh})
    assert not done.is_error and done.text.startswith(f"Replaced in {f}\n\n")
    again = reg.call("str_replace", {"path": "a.py", "old_str": "a = 9", "new_str": "a = 8",
                                     "expected_version": _version(done.text)})  # chained without a new view
    assert not again.is_error, again.text
    assert f.read_text() == "a = 8\nb = 3\n"


def test_directories_images_and_binary_files_get_no_version(reg, root):
    (root / "d").mkdir()
    (root / "b.bin").write_bytes(b"\x00\x01\x02")
    assert "[version:" not in reg.call("view", {"path": "d"}).text
    assert reg.call("view", {"path": "b.bin"}).text.startswith("Binary file (")


def test_a_bad_version_token_is_refused_before_anything_is_read(reg, root):
    (root / "a.txt").write_text("x\n")
    out = reg.call("str_replace", {"path": "a.txt", "old_str": "x", "new_str": "y", "expected_version": "v1"})
    assert out.text.startswith("[INVALID_INPUT] expected_version: not a file version: 'v1'")
    assert (root / "a.txt").read_text() == "x\n"


def test_dry_run_writes_nothing_and_its_diff_applies_with_patch(reg, root):
    f = root / "m.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    out = reg.call("str_replace", {"path": "m.txt", "old_str": "two", "new_str": "2", "dry_run": True})
    assert out.text.startswith(f"Dry run: nothing written to {f}\n\n--- a/m.txt\n+++ b/m.txt\n@@ ")
    assert f.read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    diff = out.text.split("\n\n", 1)[1]
    subprocess.run(["patch", "-p1", "--quiet", "--binary"], input=diff.encode(), cwd=root, check=True)
    assert f.read_bytes() == b"one\r\n2\r\nthree\r\n"
    same = reg.call("str_replace", {"path": "m.txt", "old_str": "2", "new_str": "2", "dry_run": True})
    assert same.text == f"Dry run: the edit would not change {f}"


def test_edits_apply_all_or_none(reg, root):
    f = root / "s.py"
    f.write_text("x = 1\ny = 2\nz = 3\n")
    out = reg.call("str_replace", {"path": "s.py", "edits": [{"old_str": "x = 1", "new_str": "x = 10"},
                                                              {"old_str": "nope", "new_str": "-"}]})
    assert out.text == f"[STR_REPLACE_NOT_FOUND] edits[1].old_str not found in {f}"
    assert f.read_text() == "x = 1\ny = 2\nz = 3\n"
    out = reg.call("str_replace", {"path": "s.py", "edits": [{"old_str": "x = 1", "new_str": "y = 2"},
                                                              {"old_str": "y = 2", "new_str": "x = 1"}]})
    assert out.text.startswith(f"Applied 2 edits in {f} (at lines 1, 2)\n[version: sha256:")  # found in the original
    assert f.read_text() == "y = 2\nx = 1\nz = 3\n"
    out = reg.call("str_replace", {"path": "s.py", "edits": [{"old_str": "x = 1\nz", "new_str": "-"},
                                                              {"old_str": "1\nz = 3", "new_str": "-"}]})
    assert out.text.startswith("[INVALID_INPUT] edits 0 and 1 overlap at line 2")
    f.write_text("k\nk\n")
    out = reg.call("str_replace", {"path": "s.py", "edits": [{"old_str": "k", "new_str": "j"}]})
    assert out.text.startswith(f"[STR_REPLACE_AMBIGUOUS] edits[0]: found 2 occurrences in {f}")
    out = reg.call("str_replace", {"path": "s.py", "edits": [{"old_str": "k", "new_str": "j", "replace_all": True}]})
    assert not out.is_error and f.read_text() == "j\nj\n"


def test_edits_and_old_str_exclude_each_other(reg, root):
    (root / "a.txt").write_text("x\n")
    both = reg.call("str_replace", {"path": "a.txt", "old_str": "x", "edits": [{"old_str": "x"}]})
    assert both.text == "[INVALID_INPUT] give either edits or old_str, not both"
    assert reg.call("str_replace", {"path": "a.txt"}).text == "[INVALID_INPUT] give old_str, or edits"
    empty = reg.call("str_replace", {"path": "a.txt", "edits": [{"old_str": ""}]})
    assert empty.text == "[INVALID_INPUT] old_str must not be empty in any of edits"
    assert reg.call("str_replace", {"path": "a.txt", "edits": []}).is_error


def test_tolerant_matching_says_what_it_ignored(reg, root):
    f = root / "t.py"
    f.write_text("def f():\n\tif x:\n\t\treturn 'a'\n")
    plain = reg.call("str_replace", {"path": "t.py", "old_str": "if x:\n    return 'a'", "new_str": "pass"})
    assert plain.text.startswith("[STR_REPLACE_NOT_FOUND]")
    out = reg.call("str_replace", {"path": "t.py", "old_str": "if x:\n    return \u2018a\u2019",
                                   "new_str": "if y:\n    return 'b'", "tolerant": True})
    assert not out.is_error, out.text
    assert "\n[matched ignoring " in out.text
    assert f.read_text().startswith("def f():\n\tif y:\n")


def test_extended_edits_stay_inside_the_workspace(reg, root, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    out = reg.call("str_replace", {"path": str(outside), "edits": [{"old_str": "secret", "new_str": "x"}]})
    assert out.text.startswith("[ACCESS_DENIED] path not allowed")
    assert "[version:" not in reg.call("view", {"path": str(outside)}).text
    assert outside.read_text() == "secret\n"
