"""The V4A patch family side by side with Codex's own ``apply_patch`` (npm ``@openai/codex`` 0.169.0).

Each case builds the same tree at the same absolute path twice: once for the real binary (invoked under the name
``apply_patch``, the patch as its one argument, the tree as its cwd), once for ours — the family function and the
``openai`` toolset's ``apply_patch`` tool. The texts (the binary's stdout on success, its stderr on failure) and the
resulting files must be equal byte for byte. Where we differ on purpose (docs/toolsets/openai.md, "Deviations"),
the case is in ``DELIBERATE`` with what we do instead, and that is asserted.

Cases marked ``# upstream: <file>`` are ported from codex-rs/apply-patch at openai/codex (tests/suite/tool.rs,
tests/suite/cli.rs, tests/fixtures/scenarios/*, src/parser.rs and src/seek_sequence.rs unit tests).

The binary comes from ``$AGENTTOOLS_CODEX_APPLY_PATCH`` (``.ci/run`` installs the package and sets it), else from
an ``npm install`` into a temporary directory. Without node/npm it is skipped locally; with ``AGENTTOOLS_REQUIRE_UPSTREAM`` set (CI) it fails.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools.patch import PatchError, apply_patch
from agenttools.workspace import Workspace
from conftest import upstream_unavailable

PACKAGE = "@openai/codex@0.169.0"


def _find_binary(home: Path) -> str | None:
    found = sorted(glob.glob(str(home / "node_modules" / "@openai" / "codex-*" / "vendor" / "*" / "bin" / "codex")))
    return found[0] if found else None



@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A path named ``apply_patch`` that runs Codex's binary."""
    binary = os.environ.get("AGENTTOOLS_CODEX_APPLY_PATCH")
    if not binary:
        if shutil.which("npm") is None:
            upstream_unavailable("npm is needed to install Codex's apply_patch")
        home = tmp_path_factory.mktemp("codex")
        (home / "package.json").write_text('{"name": "codex-upstream", "private": true}')
        done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", PACKAGE], cwd=home, capture_output=True,
                              text=True, timeout=900, check=False)
        binary = _find_binary(home) if done.returncode == 0 else None
        if binary is None:
            upstream_unavailable(f"cannot install {PACKAGE}: {done.stderr.strip()[-300:]}")
    assert binary is not None
    link_dir = tmp_path_factory.mktemp("bin")
    link = link_dir / "apply_patch"
    link.symlink_to(os.path.realpath(binary))
    return str(link)


Files = dict[str, "str | bytes | None"]  # None: a directory


def build(root: Path, files: Files) -> None:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for rel, data in files.items():
        path = root / rel
        if data is None:
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())


def snapshot(root: Path) -> dict[str, bytes | None]:
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            found[os.path.relpath(os.path.join(dirpath, name), root)] = None
        for name in filenames:
            path = os.path.join(dirpath, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


def run_upstream(binary: str, root: Path, patch: str) -> tuple[bool, str]:
    done = subprocess.run([binary, patch], cwd=root, capture_output=True, timeout=60, check=False)
    ok = done.returncode == 0
    return ok, (done.stdout if ok else done.stderr).decode()


def run_family(root: Path, patch: str) -> tuple[bool, str]:
    try:
        return True, apply_patch(Workspace(root), patch).text
    except PatchError as exc:
        return False, exc.message + "\n"


def run_toolset(root: Path, patch: str) -> tuple[bool, str]:
    with agenttools.toolset("openai", root=str(root)) as reg:
        out = reg.call("apply_patch", {"input": patch})
    return not out.is_error, out.text


def P(*lines: str) -> str:  # noqa: N802 - reads as a literal
    """A patch from its body lines, between the begin and end markers."""
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def U(path: str, *lines: str) -> str:  # noqa: N802
    """A patch updating one file."""
    return P(f"*** Update File: {path}", *lines)


CASES: list[tuple[str, Files, str]] = [
    # --- ported from upstream's tests
    ("cli-add", {}, P("*** Add File: cli_test.txt", "+hello")),  # upstream: tests/suite/cli.rs
    ("cli-update", {"cli_test.txt": "hello\n"}, U("cli_test.txt", "@@", "-hello", "+world")),  # cli.rs
    ("multiple-operations", {"modify.txt": "line1\nline2\n", "delete.txt": "obsolete\n"},  # tool.rs, scenario 002
     P("*** Add File: nested/new.txt", "+created", "*** Delete File: delete.txt", "*** Update File: modify.txt",
       "@@", "-line2", "+changed")),
    ("multiple-chunks", {"multi.txt": "line1\nline2\nline3\nline4\n"},  # tool.rs, scenario 003
     U("multi.txt", "@@", "-line2", "+changed2", "@@", "-line4", "+changed4")),
    ("crlf-kept", {"crlf.txt": b"one\r\ntwo\r\nthree\r\n"},  # tool.rs preserves_crlf_from_target_file
     U("crlf.txt", "@@", "-one", "+uno", "@@", " two", "+", "+between", " three")),
    ("repeated-lines-order", {"repeated.txt": "a\nb\n"},  # tool.rs preserves_change_order_with_repeated_lines
     U("repeated.txt", "@@", "-a", "-b", "+b", "+b", "+a")),
    ("repeated-context-ending", {"repeated_context.txt": b"same\r\nsame\n"},  # tool.rs
     U("repeated_context.txt", "@@", "-same", " same")),
    ("mixed-endings", {"mixed.txt": b"one\r\ntwo\nthree\r\nfour\n"},  # tool.rs untouched_mixed_line_endings
     U("mixed.txt", "@@", " one", " two", "-three", "+THREE", " four")),
    ("crlf-new-final-newline", {"no_trailing_newline.txt": b"one\r\ntwo"},  # tool.rs
     U("no_trailing_newline.txt", "@@", "-one", "+ONE")),
    ("move-new-directory", {"old/name.txt": "old content\n", "old/other.txt": "x\n"},  # tool.rs, scenario 004
     P("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-old content", "+new content")),
    ("empty-patch", {"foo.txt": "x\n"}, P()),  # tool.rs rejects_empty_patch, scenario 005
    ("missing-context", {"modify.txt": "line1\nline2\n"},  # tool.rs reports_missing_context, scenario 006
     U("modify.txt", "@@", "-missing", "+changed")),
    ("delete-missing", {"foo.txt": "x\n"}, P("*** Delete File: missing.txt")),  # tool.rs, scenario 007
    ("empty-update-hunk", {"foo.txt": "x\n"}, P("*** Update File: foo.txt")),  # tool.rs, scenario 008
    ("update-missing", {"foo.txt": "x\n"}, U("missing.txt", "@@", "-old", "+new")),  # tool.rs, scenario 009
    ("move-overwrites", {"old/name.txt": "from\n", "renamed/dir/name.txt": "existing\n"},  # tool.rs, scenario 010
     P("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-from", "+new")),
    ("add-overwrites", {"duplicate.txt": "old content\n"},  # tool.rs, scenario 011
     P("*** Add File: duplicate.txt", "+new content")),
    ("delete-directory", {"dir/foo.txt": "x\n"}, P("*** Delete File: dir")),  # tool.rs, scenario 012
    ("invalid-hunk-header", {"foo.txt": "x\n"}, P("*** Frobnicate File: foo")),  # tool.rs, scenario 013
    ("appends-final-newline", {"no_newline.txt": "no newline at end"},  # tool.rs, scenario 014
     U("no_newline.txt", "@@", "-no newline at end", "+first line", "+second line")),
    ("partial-failure", {},  # tool.rs failure_after_partial_success_leaves_changes, scenario 015
     P("*** Add File: created.txt", "+hello", "*** Update File: missing.txt", "@@", "-old", "+new")),
    ("pure-addition", {"input.txt": "line1\nline2\n"},  # scenario 016
     U("input.txt", "@@", "+added line 1", "+added line 2")),
    ("padded-hunk-header", {"foo.txt": "old\n"},  # scenario 017
     "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n"),
    ("padded-markers", {"file.txt": "one\n"},  # scenario 018
     " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n"),
    ("unicode", {"foo.txt": "line1\nnaïve café\nline3\n"},  # scenario 019
     "*** Begin Patch\n*** Update File: foo.txt\n@@\n line1\n-naïve café\n+naïve café ✅\n*** End Patch \n"),
    ("delete-success", {"keep.txt": "keep\n", "obsolete.txt": "obsolete\n"},  # scenario 020
     P("*** Delete File: obsolete.txt")),
    ("padded-marker-lines", {"file.txt": "one\n"},  # scenario 020_whitespace_padded_patch_marker_lines
     "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n"),
    ("deletion-only", {"lines.txt": "line1\nline2\nline3\n"},  # scenario 021
     U("lines.txt", "@@", " line1", "-line2", " line3")),
    ("end-of-file-marker", {"tail.txt": "first\nsecond\n"},  # scenario 022
     U("tail.txt", "@@", " first", "-second", "+second updated", "*** End of File")),
    ("parse-bad-first-line", {}, "bad"),  # parser.rs test_parse_patch
    ("parse-no-end", {}, "*** Begin Patch\nbad"),  # parser.rs
    ("parse-padded-add", {}, "*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch"),  # parser.rs
    ("parse-all-kinds", {"path/delete.py": "x\n", "path/update.py": "def f():\n    pass\n"},  # parser.rs
     P("*** Add File: path/add.py", "+abc", "+def", "*** Delete File: path/delete.py",
       "*** Update File: path/update.py", "*** Move to: path/update2.py", "@@ def f():", "-    pass",
       "+    return 123")),
    ("parse-update-then-add", {"file.py": "x\n"},  # parser.rs
     P("*** Update File: file.py", "@@", "+line", "*** Add File: other.py", "+content")),
    ("parse-no-at-at", {"file2.py": "import foo\n"},  # parser.rs: first chunk without @@
     P("*** Update File: file2.py", " import foo", "+bar")),
    ("heredoc", {"file2.py": "import foo\n"},  # parser.rs test_parse_patch_lenient
     "<<EOF\n" + P("*** Update File: file2.py", " import foo", "+bar") + "\nEOF\n"),
    ("heredoc-single-quoted", {"file2.py": "import foo\n"},
     "<<'EOF'\n" + P("*** Update File: file2.py", " import foo", "+bar") + "\nEOF\n"),
    ("heredoc-double-quoted", {"file2.py": "import foo\n"},
     '<<"EOF"\n' + P("*** Update File: file2.py", " import foo", "+bar") + "\nEOF\n"),
    ("heredoc-mismatched-quotes", {"file2.py": "import foo\n"},
     "<<\"EOF'\n" + P("*** Update File: file2.py", " import foo", "+bar") + "\nEOF\n"),
    ("heredoc-missing-end", {}, "<<EOF\n*** Begin Patch\n*** Update File: file2.py\nEOF\n"),
    ("chunk-bad-first-line", {"f.txt": "x\n"},  # parser.rs test_update_file_chunk
     U("f.txt", "@@", "-x", "+y", "bad")),
    ("chunk-only-at-at", {"f.txt": "x\n"}, U("f.txt", "@@")),
    ("chunk-unexpected-line", {"f.txt": "x\n"}, U("f.txt", "@@", "bad")),
    ("chunk-eof-only", {"f.txt": "x\n"}, U("f.txt", "@@", "*** End of File")),
    ("chunk-blank-context", {"f.txt": "change_context\n\ncontext\nremove\ncontext2\n"},
     U("f.txt", "@@ change_context", "", " context", "-remove", "+add", " context2")),
    ("chunk-add-at-eof", {"f.txt": "x\n"}, U("f.txt", "@@", "+line", "*** End of File")),
    ("second-chunk-needs-at-at", {"f.txt": "a\nb\n"}, U("f.txt", "@@", "-a", "+A", "*** End of File", "-b")),
    ("seek-rstrip", {"f.txt": "foo   \nbar\t\t\n"}, U("f.txt", "@@", "-foo", "-bar", "+baz")),  # seek_sequence.rs
    ("seek-trim", {"f.txt": "    foo   \n   bar\t\n"}, U("f.txt", "@@", "-foo", "-bar", "+baz")),
    ("seek-pattern-longer", {"f.txt": "just one line\n"}, U("f.txt", "@@", "-too", "-many", "-lines")),
    # --- context and matching
    ("seek-unicode-dash", {"f.txt": "x \u2014 y\nz\n"}, U("f.txt", "@@", " x - y", "-z", "+w")),
    ("seek-unicode-quotes", {"f.txt": "say \u201chi\u201d \u2018x\u2019\n"}, U("f.txt", "@@", "-say \"hi\" 'x'", "+ok")),
    ("seek-nbsp", {"f.txt": "a\u00a0b\n"}, U("f.txt", "@@", "-a b", "+c")),
    ("fuzzy-context-keeps-file-text", {"a.txt": "  a  \nb\n"}, U("a.txt", "@@", " a", "-b", "+c")),
    ("context-header", {"f.py": "def f():\n    return 1\ndef g():\n    return 1\n"},
     U("f.py", "@@ def g():", "-    return 1", "+    return 2")),
    ("context-header-missing", {"f.py": "def f():\n    return 1\n"}, U("f.py", "@@ def h():", "-    return 1")),
    ("context-then-pure-addition", {"f.txt": "a\nb\nc\n"}, U("f.txt", "@@ a", "+x")),
    ("pure-addition-blank-last-line", {"f.txt": "a\n\n"}, U("f.txt", "@@", "+x")),
    ("pure-addition-empty-file", {"f.txt": ""}, U("f.txt", "@@", "+x")),
    ("eof-marker-first-match-not-at-end", {"f.txt": "a\nb\na\nc\n"}, U("f.txt", "@@", "-a", "+X", "*** End of File")),
    ("eof-marker-at-end", {"f.txt": "a\nb\na\n"}, U("f.txt", "@@", "-a", "+X", "*** End of File")),
    ("chunks-in-order", {"f.txt": "a\nb\na\nb\n"}, U("f.txt", "@@", "-a", "+A", "@@", "-a", "+AA")),
    ("chunks-out-of-order", {"f.txt": "a\nb\nc\n"}, U("f.txt", "@@", "-c", "+C", "@@", "-a", "+A")),
    ("trailing-blank-context-retry", {"a.txt": b"a\r\nb\r\n"}, U("a.txt", "@@", " a", "-b", "+c", " ", "+d")),
    ("trailing-blank-context-unterminated", {"a.txt": "a\nb"}, U("a.txt", "@@", " a", "-b", "+c", " ")),
    ("blank-line-between-chunks", {"f.txt": "a\n\nb\n"}, U("f.txt", "@@", "-a", "+A", "", "@@", "-b", "+B")),
    ("whitespace-only-line-in-chunk", {"f.txt": "a\n  \nb\n"}, U("f.txt", "@@", " a", "   ", "-b", "+B")),
    # --- line endings
    ("crlf-context-keeps-ending", {"a.txt": b"x\r\nx\n"}, U("a.txt", "@@", " x", "-x")),
    ("crlf-removed-first", {"a.txt": b"x\r\nx\n"}, U("a.txt", "@@", "-x", " x")),
    ("crlf-first-ending-wins", {"a.txt": b"a\r\nb\nc\r\n"}, U("a.txt", "@@", " a", "-b", "+B", " c")),
    ("lf-first-ending-wins", {"a.txt": b"a\nb\r\nc\r\n"}, U("a.txt", "@@", " a", "-b", "+B", " c")),
    ("crlf-replaced-same-text", {"a.txt": b"a\r\nb\n"}, U("a.txt", "@@", " a", "-b", "+b")),
    ("crlf-unterminated-insert", {"a.txt": b"a\r\nb"}, U("a.txt", "@@", " a", "+x")),
    ("crlf-pure-addition", {"a.txt": b"a\r\nb"}, U("a.txt", "@@", "+x")),
    ("crlf-patch-text", {"a.txt": "a\nb\n"}, "*** Begin Patch\r\n*** Update File: a.txt\r\n@@\r\n-a\r\n+A\r\n*** End Patch\r\n"),
    ("bom-kept", {"a.txt": "\ufeffa\nb\n"}, U("a.txt", "@@", "-b", "+B")),
    # --- files and paths
    ("add-empty-file", {}, P("*** Add File: e.txt")),
    ("add-nested-dirs", {}, P("*** Add File: a/b/c/d.txt", "+deep")),
    ("add-onto-directory", {"d/x.txt": "1\n"}, P("*** Add File: d", "+hi")),
    ("add-under-a-file", {"d/x.txt": "1\n"}, P("*** Add File: d/x.txt/y", "+hi")),
    ("add-padded-path", {}, P("*** Add File:   sp.txt  ", "+hi")),
    ("add-empty-path", {}, P("*** Add File: ", "+x")),
    ("add-dot-path", {"d/x.txt": "1\n"}, P("*** Add File: ./d/../n.txt", "+hi")),
    ("add-then-update", {}, P("*** Add File: a.txt", "+one", "*** Update File: a.txt", "@@", "-one", "+two")),
    ("update-twice", {"d/x.txt": "1\n"}, P("*** Update File: d/x.txt", "@@", "-1", "+2", "*** Update File: d/x.txt",
                                           "@@", "-2", "+3")),
    ("delete-then-add", {"d/x.txt": "1\n"}, P("*** Delete File: d/x.txt", "*** Add File: d/x.txt", "+n")),
    ("delete-twice", {"d/x.txt": "1\n"}, P("*** Delete File: d/x.txt", "*** Delete File: d/x.txt")),
    ("delete-then-update", {"a.txt": "1\n"}, P("*** Delete File: a.txt", "*** Update File: a.txt", "@@", "-1", "+2")),
    ("delete-trailing-slash", {"d/x.txt": "1\n"}, P("*** Delete File: d//./x.txt/")),
    ("update-directory", {"d/x.txt": "1\n"}, U("d", "@@", "-1", "+2")),
    ("update-dotdot-missing", {"d/x.txt": "1\n"}, U("./d/../missing.txt", "@@", "-1", "+2")),
    ("update-not-utf8", {"a.txt": b"\xff\xfe\n"}, U("a.txt", "@@", "-x", "+y")),
    ("update-bad-continuation", {"a.txt": b"ok\n\xe2\x82x\n"}, U("a.txt", "@@", "-ok", "+y")),
    ("update-incomplete-utf8", {"a.txt": b"ok\n\xe2\x82"}, U("a.txt", "@@", "-ok", "+y")),
    ("update-surrogate-bytes", {"a.txt": b"\xed\xa0\x80\n"}, U("a.txt", "@@", "-x", "+y")),
    ("move-onto-directory", {"d/x.txt": "1\n"}, P("*** Update File: d/x.txt", "*** Move to: d", "@@", "-1", "+2")),
    ("move-under-a-file", {"d/x.txt": "1\n"},
     P("*** Update File: d/x.txt", "*** Move to: d/x.txt/z", "@@", "-1", "+2")),
    ("move-onto-itself", {"a.txt": "x\n"}, P("*** Update File: a.txt", "*** Move to: a.txt", "@@", "-x", "+y")),
    ("move-missing-source", {}, P("*** Update File: nope.txt", "*** Move to: b.txt", "@@", "-x", "+y")),
    ("hunk-after-failure-not-run", {"a.txt": "a\n"},
     P("*** Update File: a.txt", "@@", "-a", "+b", "*** Delete File: gone.txt", "*** Add File: later.txt", "+x")),
    ("summary-groups-kinds", {"a.txt": "a\n", "b.txt": "b\n"},
     P("*** Delete File: a.txt", "*** Update File: b.txt", "@@", "-b", "+B", "*** Add File: c.txt", "+c")),
    # --- patch text shapes
    ("empty-text", {}, ""),
    ("only-begin", {}, "*** Begin Patch"),
    ("leading-blank-lines", {}, "\n\n  *** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch\n\n"),
    ("move-line-padded", {"a.txt": "x\n"}, P("*** Update File: a.txt", " *** Move to: b.txt", "@@", "-x", "+y")),
    ("end-patch-inside", {"a.txt": "x\n"}, P("*** Update File: a.txt", "@@", "-x", "+y", "*** End Patch", "junk")),
    ("add-line-without-plus", {}, P("*** Add File: a.txt", "+one", "two")),
    ("context-line-at-at-at", {"a.txt": "x\n"}, U("a.txt", "@@@", "-x", "+y")),
    ("end-patch-twice", {"a.txt": "x\n"}, P("*** Update File: a.txt", "@@", "-x", "+y", "*** End Patch", "")),
    ("end-patch-then-hunk", {}, P("*** Add File: b.txt", "+y", " *** End Patch ", "*** Add File: c.txt", "+z")),
    ("begin-patch-inside", {}, P("*** Add File: b.txt", "+y", "*** Begin Patch")),
    ("pure-addition-blank-lines", {"f.txt": "a\n\n\n"}, U("f.txt", "@@ a", "+x")),
    ("eof-marker-fuzzy", {"f.txt": "a\nb  \n"}, U("f.txt", "@@", "-b", "+B", "*** End of File")),
]

DELIBERATE: dict[str, str] = {
    "partial-failure": "all or nothing: the added file is not left behind",
    "move-onto-itself": "a move onto its own path keeps the file (upstream writes it, then deletes it)",
    "hunk-after-failure-not-run": "all or nothing: a.txt is not left updated",
    "delete-then-update": "all or nothing: a.txt is not left deleted",
    "delete-twice": "all or nothing: d/x.txt is not left deleted",
    "move-missing-source": "same text and files either way (listed to show nothing is written)",
}


@pytest.mark.parametrize(("name", "files", "patch"), CASES, ids=[c[0] for c in CASES])
def test_same_result_as_codex(upstream: str, tmp_path: Path, name: str, files: Files, patch: str) -> None:
    root = tmp_path / "tree"
    build(root, files)
    want_ok, want_text = run_upstream(upstream, root, patch)
    want_files = snapshot(root)
    results: dict[str, Any] = {}
    for label, runner in (("family", run_family), ("toolset", run_toolset)):
        build(root, files)
        ok, text = runner(root, patch)
        results[label] = (ok, text, snapshot(root))
    for ok, text, got_files in results.values():
        assert (ok, text) == (want_ok, want_text)
        if name not in DELIBERATE:
            assert got_files == want_files
        elif not want_ok:
            assert got_files == snapshot_of(files, tmp_path), "a failed patch must change nothing"


def snapshot_of(files: Files, tmp_path: Path) -> dict[str, bytes | None]:
    fresh = tmp_path / "fresh"
    build(fresh, files)
    return snapshot(fresh)


def test_move_onto_itself_keeps_the_file(upstream: str, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    patch = P("*** Update File: a.txt", "*** Move to: a.txt", "@@", "-x", "+y")
    build(root, {"a.txt": "x\n"})
    run_upstream(upstream, root, patch)
    assert snapshot(root) == {}  # upstream loses the file
    build(root, {"a.txt": "x\n"})
    assert run_family(root, patch) == (True, "Success. Updated the following files:\nM a.txt\n")
    assert snapshot(root) == {"a.txt": b"y\n"}


def test_the_case_list_is_large_enough() -> None:
    assert len(CASES) >= 60
    assert len({c[0] for c in CASES}) == len(CASES)
