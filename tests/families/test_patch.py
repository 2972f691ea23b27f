"""The patch family: V4A parsing, matching, all-or-nothing application and the Workspace's limits.

The texts compared here are Codex 0.169.0's (openai/codex, codex-rs/apply-patch: src/parser.rs, src/lib.rs,
tests/suite/tool.rs); tests/fidelity/test_patch_upstream.py checks them against the real binary.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttools.patch import (
    AddFile,
    Chunk,
    DeleteFile,
    PatchError,
    PatchParseError,
    UpdateFile,
    apply_patch,
    operation_patch,
    parse_patch,
    seek_sequence,
)
from agenttools.workspace import Workspace


def P(*lines: str) -> str:  # noqa: N802 - reads as a literal
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "root"
    root.mkdir()
    return Workspace(root)


def test_parse_every_kind_of_hunk() -> None:  # parser.rs test_parse_patch
    hunks = parse_patch(P("*** Add File: path/add.py", "+abc", "+def", "*** Delete File: path/delete.py",
                          "*** Update File: path/update.py", "*** Move to: path/update2.py", "@@ def f():",
                          "-    pass", "+    return 123"))
    assert hunks == (
        AddFile(path="path/add.py", contents="abc\ndef\n"),
        DeleteFile(path="path/delete.py"),
        UpdateFile(path="path/update.py", move_to="path/update2.py",
                   chunks=(Chunk(context="def f():", lines=(("-", "    pass"), ("+", "    return 123"))),)),
    )
    assert hunks[2].chunks[0].old_lines == ["    pass"]  # type: ignore[union-attr]
    assert hunks[2].chunks[0].new_lines == ["    return 123"]  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "message"), [
    ("bad", "Invalid patch: The first line of the patch must be '*** Begin Patch'"),
    ("*** Begin Patch\nbad", "Invalid patch: The last line of the patch must be '*** End Patch'"),
    ("", "Invalid patch: The last line of the patch must be '*** End Patch'"),
    (P("*** Update File: test.py"), "Invalid patch hunk on line 2: Update file hunk for path 'test.py' is empty"),
    (P("*** Frobnicate File: foo"), "Invalid patch hunk on line 2: '*** Frobnicate File: foo' is not a valid hunk "
                                    "header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', "
                                    "'*** Update File: {path}'"),
    (P("*** Update File: f", "@@"), "Invalid patch hunk on line 4: Update hunk does not contain any lines"),
    (P("*** Update File: f", "@@", "bad"), "Invalid patch hunk on line 4: Unexpected line found in update hunk: "
                                           "'bad'. Every line should start with ' ' (context line), '+' (added line), "
                                           "or '-' (removed line)"),
    (P("*** Update File: f", "@@", "-a", "*** End of File", "-b"),
     "Invalid patch hunk on line 6: Expected update hunk to start with a @@ context marker, got: '-b'"),
])
def test_parse_errors_are_the_reference_texts(text: str, message: str) -> None:
    with pytest.raises(PatchParseError) as caught:
        parse_patch(text)
    assert caught.value.message == message


def test_heredoc_wrapped_patch_is_unwrapped() -> None:  # parser.rs test_parse_patch_lenient
    body = P("*** Update File: file2.py", " import foo", "+bar")
    assert parse_patch(f"<<'EOF'\n{body}\nEOF\n") == parse_patch(body)
    with pytest.raises(PatchParseError, match="first line"):
        parse_patch(f"<<\"EOF'\n{body}\nEOF\n")


def test_seek_sequence_passes() -> None:  # seek_sequence.rs tests
    assert seek_sequence(["foo", "bar", "baz"], ["bar", "baz"], 0, False) == 1
    assert seek_sequence(["foo   ", "bar\t\t"], ["foo", "bar"], 0, False) == 0
    assert seek_sequence(["    foo   ", "   bar\t"], ["foo", "bar"], 0, False) == 0
    assert seek_sequence(["just one line"], ["too", "many", "lines"], 0, False) is None
    assert seek_sequence(["x \u2014 \u201cy\u201d"], ['x - "y"'], 0, False) == 0
    assert seek_sequence(["a", "b", "a"], ["a"], 0, True) == 2
    assert seek_sequence(["a\x1c"], ["a"], 0, False) is None  # Python strips U+001C, Rust's trim does not


def test_multiple_operations_and_the_summary(ws: Workspace) -> None:  # tool.rs applies_multiple_operations
    root = ws.root
    (root / "modify.txt").write_text("line1\nline2\n")
    (root / "delete.txt").write_text("obsolete\n")
    result = apply_patch(ws, P("*** Add File: nested/new.txt", "+created", "*** Delete File: delete.txt",
                               "*** Update File: modify.txt", "@@", "-line2", "+changed"))
    assert result.text == "Success. Updated the following files:\nA nested/new.txt\nM modify.txt\nD delete.txt\n"
    assert (root / "nested/new.txt").read_text() == "created\n"
    assert (root / "modify.txt").read_text() == "line1\nchanged\n"
    assert not (root / "delete.txt").exists()


def test_a_failing_hunk_changes_nothing(ws: Workspace) -> None:
    root = ws.root
    (root / "a.txt").write_text("a\n")
    (root / "gone.txt").write_text("x\n")
    with pytest.raises(PatchError) as caught:
        apply_patch(ws, P("*** Add File: created.txt", "+hello", "*** Delete File: gone.txt",
                          "*** Update File: a.txt", "@@", "-a", "+b", "*** Update File: missing.txt", "@@", "-old",
                          "+new"))
    assert caught.value.message == (f"Failed to read file to update {root}/missing.txt: "
                                    "No such file or directory (os error 2)")
    assert sorted(os.listdir(root)) == ["a.txt", "gone.txt"]
    assert (root / "a.txt").read_text() == "a\n"


def test_later_hunks_see_earlier_ones(ws: Workspace) -> None:
    root = ws.root
    apply_patch(ws, P("*** Add File: a.txt", "+one", "*** Update File: a.txt", "@@", "-one", "+two"))
    assert (root / "a.txt").read_text() == "two\n"
    with pytest.raises(PatchError, match=r"^Failed to read file to update .*a\.txt: No such file"):
        apply_patch(ws, P("*** Delete File: a.txt", "*** Update File: a.txt", "@@", "-two", "+three"))
    assert (root / "a.txt").read_text() == "two\n"


def test_move_onto_its_own_path_keeps_the_file(ws: Workspace) -> None:
    (ws.root / "a.txt").write_text("x\n")
    result = apply_patch(ws, P("*** Update File: a.txt", "*** Move to: a.txt", "@@", "-x", "+y"))
    assert result.text == "Success. Updated the following files:\nM a.txt\n"
    assert (ws.root / "a.txt").read_text() == "y\n"


def test_move_writes_the_destination_and_removes_the_source(ws: Workspace) -> None:
    (ws.root / "old").mkdir()
    (ws.root / "old/name.txt").write_text("old content\n")
    apply_patch(ws, P("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-old content",
                      "+new content"))
    assert not (ws.root / "old/name.txt").exists()
    assert (ws.root / "renamed/dir/name.txt").read_text() == "new content\n"


def test_crlf_files_stay_crlf(ws: Workspace) -> None:  # tool.rs preserves_crlf_from_target_file
    (ws.root / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    apply_patch(ws, P("*** Update File: crlf.txt", "@@", "-one", "+uno", "@@", " two", "+", "+between", " three"))
    assert (ws.root / "crlf.txt").read_bytes() == b"uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n"


def test_kept_lines_keep_their_text_and_ending(ws: Workspace) -> None:
    (ws.root / "a.txt").write_bytes(b"  a  \r\nb\n")
    apply_patch(ws, P("*** Update File: a.txt", "@@", " a", "-b", "+c"))
    assert (ws.root / "a.txt").read_bytes() == b"  a  \r\nc\r\n"


def test_dry_run_writes_nothing_and_shows_the_diff(ws: Workspace) -> None:
    (ws.root / "a.txt").write_text("a\n")
    result = apply_patch(ws, P("*** Update File: a.txt", "@@", "-a", "+b", "*** Add File: n.txt", "+n"),
                         dry_run=True)
    assert result.dry_run
    assert (ws.root / "a.txt").read_text() == "a\n"
    assert not (ws.root / "n.txt").exists()
    assert "-a\n+b\n" in result.diff
    assert "+++ b/n.txt" in result.diff


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


@pytest.mark.parametrize("tool", [["patch", "-p1", "--quiet", "--binary"], ["git", "apply", "-"]])
def test_the_dry_run_diff_applies_with_patch_and_git_apply(ws: Workspace, tmp_path: Path, tool: list[str]) -> None:
    """The diff is the edit family's: a form feed or a lone CR stays on its line, moves are git renames."""
    import subprocess

    files = {"ff.py": "def a():\n    pass\n\x0c\ndef b():\n    return 1\n", "cr.txt": "one\rstill one\ntwo\n",
             "old name.txt": "keep\nme\n", "plain.txt": "x\n", "gone.txt": "bye\n", "moved.txt": "m\n"}
    for name, text in files.items():
        (ws.root / name).write_bytes(text.encode())
    patch = P("*** Update File: ff.py", "@@ def b():", "-    return 1", "+    return 2",
              "*** Update File: cr.txt", "@@", "-two", "+2",
              "*** Update File: old name.txt", "*** Move to: sub/new name.txt", "@@", " keep", "-me", "+you",
              "*** Update File: moved.txt", "*** Move to: there.txt", "@@", "-m", "+m",
              "*** Delete File: gone.txt", "*** Add File: added.txt", "+new")
    copy = tmp_path / "copy"
    copy.mkdir()
    for name, text in files.items():
        (copy / name).write_bytes(text.encode())
    diff = apply_patch(ws, patch, dry_run=True).diff
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    subprocess.run(tool, input=diff.encode(), cwd=copy, check=True, capture_output=True)
    apply_patch(ws, patch)
    assert _tree(copy) == _tree(ws.root)
    assert "there.txt" in _tree(copy)
    assert "diff --git a/moved.txt b/there.txt\nrename from moved.txt\nrename to there.txt\ndiff --git" in diff


@pytest.mark.parametrize("hunk", ["*** Add File: ../out.txt\n+x", "*** Delete File: ../outside/secret.txt",
                                  "*** Update File: ../outside/secret.txt\n@@\n-s\n+x",
                                  "*** Update File: a.txt\n*** Move to: ../out.txt\n@@\n-a\n+x",
                                  "*** Update File: link.txt\n@@\n-s\n+x",
                                  "*** Add File: linkdir/new.txt\n+x"])
def test_paths_outside_the_workspace_are_refused(ws: Workspace, hunk: str) -> None:
    outside = ws.root.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    (ws.root / "a.txt").write_text("a\n")
    (ws.root / "link.txt").symlink_to(outside / "secret.txt")
    (ws.root / "linkdir").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PatchError, match="is outside the allowed directories"):
        apply_patch(ws, f"*** Begin Patch\n{hunk}\n*** End Patch")
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "s\n"
    assert (ws.root / "a.txt").read_text() == "a\n"


def test_git_metadata_is_never_written(ws: Workspace) -> None:
    (ws.root / ".git").mkdir()
    with pytest.raises(PatchError, match=r"^Failed to write file .*\.git/config: "):
        apply_patch(ws, P("*** Add File: .git/config", "+[core]"))
    assert not (ws.root / ".git/config").exists()


def test_a_write_failure_puts_back_what_was_written(ws: Workspace) -> None:
    (ws.root / "a.txt").write_text("a\n")
    (ws.root / "hard.txt").write_text("h\n")
    os.link(ws.root / "hard.txt", ws.root / "hard2.txt")  # a write to a hard-linked file is refused
    with pytest.raises(PatchError, match=r"hard\.txt"):
        apply_patch(ws, P("*** Update File: a.txt", "@@", "-a", "+b", "*** Add File: new.txt", "+n",
                          "*** Update File: hard.txt", "@@", "-h", "+x"))
    assert (ws.root / "a.txt").read_text() == "a\n"
    assert not (ws.root / "new.txt").exists()
    assert (ws.root / "hard.txt").read_text() == "h\n"


def test_files_larger_than_the_limit_are_refused(ws: Workspace) -> None:
    (ws.root / "big.txt").write_text("x\n" * 100)
    with pytest.raises(PatchError, match=r"^Failed to read file to update"):
        apply_patch(ws, P("*** Update File: big.txt", "@@", "-x", "+y"), max_size=50)


def test_not_utf8_is_worded_as_rust_does(ws: Workspace) -> None:
    (ws.root / "a.txt").write_bytes(b"ok\n\xe2\x82")
    with pytest.raises(PatchError) as caught:
        apply_patch(ws, P("*** Update File: a.txt", "@@", "-ok", "+y"))
    assert caught.value.message.endswith(": incomplete utf-8 byte sequence from index 3")


def test_no_hunks() -> None:
    with pytest.raises(PatchError, match=r"^No files were modified\.$"):
        apply_patch(Workspace("."), P())


@pytest.mark.parametrize(("operation", "patch"), [
    ({"type": "create_file", "path": "a.txt", "diff": "+hi"}, "*** Begin Patch\n*** Add File: a.txt\n+hi\n"
                                                              "*** End Patch\n"),
    ({"type": "update_file", "path": "a.txt", "diff": "@@\n-hi\n+ho\n"},
     "*** Begin Patch\n*** Update File: a.txt\n@@\n-hi\n+ho\n*** End Patch\n"),
    ({"type": "delete_file", "path": "a.txt"}, "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n"),
])
def test_operation_patch(operation: dict[str, object], patch: str) -> None:
    assert operation_patch(operation) == patch


def test_operation_patch_refuses_unknown_operations() -> None:
    with pytest.raises(PatchParseError, match="unknown operation type"):
        operation_patch({"type": "rename_file", "path": "a", "diff": ""})


def test_a_file_can_be_replaced_by_a_directory_of_the_same_name(ws: Workspace) -> None:
    # Codex applies hunks in order: the file is gone before d/x is written. Writing every file before removing
    # any failed here (d was still a file).
    (ws.root / "d").write_text("was a file\n")
    result = apply_patch(ws, P("*** Delete File: d", "*** Add File: d/x", "+now a directory"))
    assert result.text == "Success. Updated the following files:\nA d/x\nD d\n"
    assert (ws.root / "d/x").read_text() == "now a directory\n"


def test_a_failed_patch_puts_back_deleted_files_as_they_were(ws: Workspace) -> None:
    root = ws.root
    (root / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o751)
    (root / "keep").mkdir()
    os.link(root / "run.sh", root / "keep/run-link.sh")  # a second name: the inode must survive too
    inode = os.stat(root / "run.sh").st_ino
    (root / "hard.txt").write_text("h\n")
    os.link(root / "hard.txt", root / "hard2.txt")  # writing it is refused, after run.sh is gone
    before = {name: (root / name).read_bytes() for name in ("run.sh", "hard.txt")}
    with pytest.raises(PatchError) as caught:
        apply_patch(ws, P("*** Delete File: run.sh", "*** Add File: new/deep/n.txt", "+n",
                          "*** Update File: hard.txt", "@@", "-h", "+x"))
    assert caught.value.message.startswith(f"Failed to write file {root}/hard.txt: ")  # the file that failed
    assert os.stat(root / "run.sh").st_ino == inode
    assert os.stat(root / "run.sh").st_mode & 0o777 == 0o751
    assert {name: (root / name).read_bytes() for name in ("run.sh", "hard.txt")} == before
    assert sorted(os.listdir(root)) == ["hard.txt", "hard2.txt", "keep", "run.sh"]  # no new/, no temp files


def test_a_moved_file_keeps_its_permission_bits(ws: Workspace) -> None:
    (ws.root / "tool.sh").write_text("echo old\n")
    os.chmod(ws.root / "tool.sh", 0o750)
    apply_patch(ws, P("*** Update File: tool.sh", "*** Move to: bin/tool.sh", "@@", "-echo old", "+echo new"))
    assert (ws.root / "bin/tool.sh").read_text() == "echo new\n"
    assert os.stat(ws.root / "bin/tool.sh").st_mode & 0o777 == 0o750
    assert not (ws.root / "tool.sh").exists()


def test_touching_one_file_several_times(ws: Workspace) -> None:
    root = ws.root
    (root / "a.txt").write_text("one\n")
    result = apply_patch(ws, P("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-one", "+two",
                               "*** Update File: b.txt", "@@", "-two", "+three",
                               "*** Add File: c.txt", "+c", "*** Delete File: c.txt"))
    assert result.text == "Success. Updated the following files:\nA c.txt\nM b.txt\nM b.txt\nD c.txt\n"
    assert sorted(os.listdir(root)) == ["b.txt"]
    assert (root / "b.txt").read_text() == "three\n"


def test_line_endings_bom_and_a_missing_final_newline_are_kept_outside_the_change(ws: Workspace) -> None:
    (ws.root / "m.txt").write_bytes(b"\xef\xbb\xbffirst\r\nsecond\nthird\r\nlast")
    apply_patch(ws, P("*** Update File: m.txt", "@@", " second", "-third", "+THIRD"))
    assert (ws.root / "m.txt").read_bytes() == b"\xef\xbb\xbffirst\r\nsecond\nTHIRD\r\nlast\r\n"



# ---------------------------------------------------------------------------------------------------- memory bounds

def test_a_patch_larger_than_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    ws = Workspace(root, max_file_size=100)
    patch = P("*** Add File: big.txt", *["+" + "x" * 20] * 5)  # 149 bytes: over the workspace's 100
    with pytest.raises(PatchParseError) as caught:
        apply_patch(ws, patch)
    assert caught.value.message == ("Invalid patch: the patch is larger than 100 bytes (max_patch_size); split it "
                                    "into smaller patches")
    assert not (root / "big.txt").exists()
    # Counted in UTF-8 bytes: 40 characters of 3 bytes each are over 100 bytes
    with pytest.raises(PatchParseError, match="larger than 100 bytes"):
        apply_patch(ws, P("*** Add File: e.txt", "+" + "\u20ac" * 40))
    # max_patch_size moves the limit either way; a patch at the limit applies
    with pytest.raises(PatchParseError, match="larger than 10 bytes"):
        apply_patch(ws, P("*** Add File: s.txt", "+s"), max_patch_size=10)
    apply_patch(ws, patch, max_patch_size=len(patch), max_size=1000)
    assert (root / "big.txt").read_text() == ("x" * 20 + "\n") * 5


def test_many_hunks_on_one_file_make_one_change(ws: Workspace) -> None:
    """Each file's change holds its first text and its last, however many hunks touch it; the files are as before."""
    (ws.root / "a.txt").write_text("1\n2\n3\n")
    (ws.root / "gone.txt").write_text("g\n")
    patch = P("*** Update File: a.txt", "@@", "-1", "+one",
              "*** Add File: n.txt", "+n",
              "*** Update File: a.txt", "@@", "-2", "+two",
              "*** Update File: n.txt", "@@", "-n", "+N",
              "*** Update File: a.txt", "*** Move to: b.txt", "@@", "-3", "+three",
              "*** Update File: b.txt", "@@", " three", "+four",
              "*** Update File: gone.txt", "@@", "-g", "+h",
              "*** Delete File: gone.txt",
              "*** Add File: tmp.txt", "+t",
              "*** Delete File: tmp.txt")
    result = apply_patch(ws, patch)
    assert result.text == ("Success. Updated the following files:\nA n.txt\nA tmp.txt\nM a.txt\nM a.txt\nM n.txt\n"
                           "M b.txt\nM b.txt\nM gone.txt\nD gone.txt\nD tmp.txt\n")
    assert [(c.action, c.path, c.move_to, c.before, c.after) for c in result.changes] == [
        ("update", "a.txt", "b.txt", "1\n2\n3\n", "one\ntwo\nthree\nfour\n"),
        ("add", "n.txt", None, None, "N\n"),
        ("delete", "gone.txt", None, "g\n", None),
        ("delete", "tmp.txt", None, None, None),
    ]
    assert result.changes[0].real_path == ws.root / "b.txt"
    assert result.changes[2].real_path == ws.root / "gone.txt"
    assert _tree(ws.root) == {"b.txt": b"one\ntwo\nthree\nfour\n", "n.txt": b"N\n"}


def test_the_diff_of_many_hunks_on_one_file_applies(ws: Workspace, tmp_path: Path) -> None:
    import subprocess

    (ws.root / "a.txt").write_text("1\n2\n3\n")
    (ws.root / "m.txt").write_text("m\n")
    patch = P("*** Update File: a.txt", "@@", "-1", "+one", "*** Update File: a.txt", "@@", "-3", "+three",
              "*** Update File: m.txt", "*** Move to: x.txt", "@@", "-m", "+M",
              "*** Update File: x.txt", "*** Move to: y.txt", "@@", " M", "+more")
    diff = apply_patch(ws, patch, dry_run=True).diff
    assert diff.count("diff --git") == 2
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "a.txt").write_text("1\n2\n3\n")
    (copy / "m.txt").write_text("m\n")
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    subprocess.run(["git", "apply", "-"], input=diff.encode(), cwd=copy, check=True, capture_output=True)
    apply_patch(ws, patch)
    assert _tree(copy) == _tree(ws.root) == {"a.txt": b"one\n2\nthree\n", "y.txt": b"M\nmore\n"}
