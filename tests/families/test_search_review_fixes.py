"""Bugs found in review of the grep backends, each reproduced; every test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttools import Workspace
from agenttools.search import grep


def _rows(result):
    return [(m.rel, m.line_number, m.line) for m in result.matches], result.truncated


# Found in review, now fixed: a capped ripgrep search (max_matches < 999, the sorted run) stops once it has read ``limit``
# lines, counting the lines of a file that then turns out binary (a NUL past ripgrep's first 64 KiB buffer);
# that file is dropped afterwards and the lines of the files after it are never read: the result is empty where
# the Python backend finds z.txt. rg.py _collect (parsed.count >= limit) / _grep.
def test_capped_rg_search_does_not_lose_lines_behind_a_late_binary_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"hello 1\n" * 5000 + b"filler\n" * 20000 + b"\x00\n")
    (tmp_path / "z.txt").write_bytes(b"hello z\n")
    ws = Workspace(tmp_path)
    expected = ([("z.txt", 1, "hello z")], False)
    assert _rows(grep(ws, "hello", backend="python", max_matches=1)) == expected
    assert _rows(grep(ws, "hello", backend="rg", max_matches=1)) == expected


# Found in review, now fixed: with ``--heading`` output, _Parsed._lines takes any line holding ripgrep's binary-warning text as
# a warning, so a *matching line* "x: WARNING: stopped searching binary file after match" (line 1) marks a file
# named "1:x" as binary and its matches vanish (the Python backend and the code at ce5fa7d show them).
# rg.py _Parsed._lines (and _count_lines, which also subtracts such lines from the count).
def test_warning_text_in_a_matching_line_does_not_drop_another_file(tmp_path: Path) -> None:
    (tmp_path / "1:x").write_text("hello from 1:x\n")
    (tmp_path / "note.txt").write_text("x: WARNING: stopped searching binary file after match hello\n")
    ws = Workspace(tmp_path)
    expected = ([("1:x", 1, "hello from 1:x"),
                 ("note.txt", 1, "x: WARNING: stopped searching binary file after match hello")], False)
    assert _rows(grep(ws, "hello", backend="python")) == expected
    assert _rows(grep(ws, "hello", backend="rg")) == expected


# Found in review, now fixed: a UTF-8-BOM file holding a NUL byte is binary (docs/families.md: files with a NUL are skipped
# unless they start with a UTF-16/32 BOM; ripgrep skips it), but the Python backend searched it, and since the
# raw-bytes prefilter (which does treat it as binary) the answer depends on the pattern: "hello" skips the file,
# "hel+o" (no required literal) finds its lines. python.py decode_for_search / _search_blocks, and
# rg.py _is_binary_late (a NUL past 64 KiB in a UTF-8-BOM file).
@pytest.mark.parametrize("pattern", ["hello", "hel+o"])
@pytest.mark.parametrize("backend", ["python", "rg"])
def test_utf8_bom_file_with_a_nul_is_binary_whatever_the_pattern(tmp_path: Path, pattern: str, backend: str) -> None:
    (tmp_path / "bomnul.txt").write_bytes(b"\xef\xbb\xbfhello world\n\x00\nhello again\n")
    (tmp_path / "late.txt").write_bytes(b"\xef\xbb\xbfhello first\n" + b"filler line\n" * 10000 + b"\x00\nhello\n")
    (tmp_path / "plain.txt").write_bytes(b"hello plain\n")
    result = grep(Workspace(tmp_path), pattern, backend=backend)  # type: ignore[arg-type]
    assert _rows(result) == ([("plain.txt", 1, "hello plain")], False)


# Found in review, now fixed: ripgrep (parallel) writes the empty line between files as its own 1-byte write(2) (seen with
# strace). When the reader gets that "\n" alone, _Ripgrep.__iter__ yields nothing for the empty record, so
# _Parsed._check_names does not check that the next block starts with a name, and a file name holding line feeds
# ("e\n7:fake\n5:evil") injects a line 7 "fake" into the previous file and a phantom file "5:evil" instead of
# sending the query to the Python backend (_Unparsable). The timing is forced here with a stand-in printing what
# ripgrep prints, with pauses between its writes. rg.py _Ripgrep.__iter__ / _Parsed._check_names.
def test_a_lone_separator_read_still_guards_names_with_line_feeds(tmp_path: Path) -> None:
    import sys
    import time

    from agenttools.search import rg

    script = tmp_path / "fake_rg.py"
    script.write_text("import os, time\n"
                      "for piece in (b'./a.txt\\x001:hello a\\n', b'\\n', b'./e\\n7:fake\\n5:evil\\x001:hello\\n'):\n"
                      "    os.write(1, piece)\n"
                      "    time.sleep(0.1)\n")
    parsed = rg._Parsed(tmp_path, None, None, None, None)
    with pytest.raises(rg._Unparsable):
        rg._collect([sys.executable, str(script)], tmp_path, parsed, time.monotonic() + 10, batched=True)
