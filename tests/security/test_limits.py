"""Odd sizes and shapes from an untrusted model or workspace: deep trees, huge lines, long patterns, odd numbers."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import agenttools

DEPTH = 1200  # deeper than Python's default recursion limit (1000)


def _make_deep(top: Path, depth: int = DEPTH) -> Path:
    """A chain of ``depth`` directories below ``top`` (os.makedirs recurses per level, so one at a time)."""
    target = top
    for _ in range(depth):
        target /= "d"
        target.mkdir()
    return target


@pytest.fixture
def deep_root(tmp_path) -> Iterator[Path]:
    """A root with a 1,200-deep tree; removed with ``rm -rf`` afterwards (pytest's own cleanup recurses per level)."""
    root = tmp_path / "root"
    (root / "top").mkdir(parents=True)
    bottom = _make_deep(root / "top")
    (bottom / "needle.txt").write_text("needle here\n")
    (root / "shallow.txt").write_text("needle shallow\n")
    yield root
    subprocess.run(["rm", "-rf", str(root)], check=True)


def test_a_deep_content_category_is_walked(deep_root):
    reg = agenttools.toolset("content", docroot=str(deep_root), categories=[
        {"name": "deep", "dir": "top", "patterns": ["**/*.txt"]}])
    out = json.loads(reg.call("get_category_content", {"category": "deep"}).text)
    assert out == {"success": True, "value": "needle here\n"}


@pytest.mark.parametrize(("backend", "git"), [("python", False), ("python", True), ("rg", False), ("rg", True)])
def test_a_deep_tree_is_searched_and_globbed(deep_root, monkeypatch, backend, git):
    if git:
        subprocess.run(["git", "init", "-q", str(deep_root)], check=True)
        (deep_root / ".gitignore").write_text("*.log\n")
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    reg = agenttools.toolset("gemini", root=str(deep_root))
    deep = "top/" + "d/" * DEPTH
    out = reg.call("search_file_content", {"pattern": "needle"})
    assert not out.is_error, out.text
    assert f"File: {deep}needle.txt\nL1: needle here\n" in out.text and "File: shallow.txt\n" in out.text
    out = reg.call("glob", {"pattern": "**/needle.txt"})
    assert not out.is_error, out.text
    assert out.text.endswith(f"\n{deep_root}/{deep}needle.txt")


def test_ripgrep_output_is_read_in_linear_time():
    """A 40 MB record (a matching line that long) is read in one pass: it took ~11 s when each chunk re-scanned it."""
    from agenttools.search import rg as _rg

    start = time.monotonic()
    with _rg._Ripgrep(["head", "-c", str(40_000_000), "/dev/zero"], Path("/"), start + 60, b"\n") as rg:
        blocks = [len(block) for block in rg]
    assert blocks == [40_000_000]
    assert time.monotonic() - start < 4


def test_ripgrep_output_records_are_split_whole_across_chunks():
    import sys

    from agenttools.search import rg as _rg

    script = ("import sys; w = sys.stdout.buffer.write; w(b'a' * 300000 + b'\\n' + b'b' * 10 + b'\\n'); "
              "w(b'\\n' * 3 + b'c' * 700000 + b'\\n' + b'd' * 5)")
    with _rg._Ripgrep([sys.executable, "-c", script], Path("/"), time.monotonic() + 60, b"\n") as rg:
        blocks = list(rg)
    records = [record for block in blocks for record in block.split(b"\n") if record]  # as _Parsed.feed reads them
    assert records == [b"a" * 300000, b"b" * 10, b"c" * 700000, b"d" * 5]


def test_a_20_mb_matching_line_is_searched_and_cut_by_ripgrep(tmp_path):
    (tmp_path / "line.txt").write_bytes(b"needle " + b"x" * 20_000_000 + b"\n")
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    start = time.monotonic()
    out = reg.call("search_file_content", {"pattern": "needle"})
    assert time.monotonic() - start < 10
    assert out.text.startswith('Found 1 match for pattern "needle" in path ".":\n---\nFile: line.txt\nL1: needle xxx')
    assert "... [truncated]" in out.text and len(out.text) < 3000


# --- odd numbers and long patterns ------------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1" + "0" * 400])
@pytest.mark.parametrize("name", ["offset", "limit"])
def test_an_infinite_number_is_a_validation_error(tmp_path, name, number):
    (tmp_path / "a.txt").write_text("hello\n")
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    out = reg.call("read_file", f'{{"absolute_path": "{tmp_path}/a.txt", "{name}": {number}}}')
    assert out.text == f"Error: Invalid parameters provided. Reason: params/{name} must be number"


@pytest.mark.parametrize(("toolset", "tool", "args", "text"), [
    ("editor", "view", '{"path": "a.txt", "view_range": [1, 1e999]}',
     "[INVALID_INPUT] argument 'view_range.1' must be integer, got number"),
    ("editor", "bash", '{"command": "true", "timeout": -1e999}',
     "[INVALID_INPUT] argument 'timeout' must be integer, got number"),
    ("coder", "edit_file", '{"path": "a.txt", "old_str": "a", "new_str": "b", "expected_replacements": 1e999}',
     "Error: invalid input: argument 'expected_replacements' must be integer, got number"),
    ("assistant", "edit", '{"path": "a.txt", "start_line": 1e999, "end_line": -1e999, "new_text": "x"}',
     "ERROR: either old_text or start_line/end_line is required"),
])
def test_infinite_numbers_in_every_toolset(tmp_path, toolset, tool, args, text):
    (tmp_path / "a.txt").write_text("hello\n")
    with agenttools.toolset(toolset, root=str(tmp_path)) as reg:
        out = reg.call(tool, args)
    assert (out.is_error, out.text) == (True, text)


@pytest.mark.parametrize("backend", ["python", "rg"])
def test_long_patterns_are_refused_in_gemini_words(tmp_path, monkeypatch, backend):
    import tracemalloc

    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    (tmp_path / "a.txt").write_text("hello\n")
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    reason = "Error: Invalid parameters provided. Reason: params/{} must NOT have more than 4096 characters"
    tracemalloc.start()
    try:
        for size in (4097, 200_000, 4 << 20):
            assert reg.call("search_file_content", {"pattern": "a" * size}).text == reason.format("pattern")
            assert reg.call("search_file_content", {"pattern": "a", "include": "*" * size}).text == reason.format(
                "include")
            assert reg.call("glob", {"pattern": "a" * size}).text == reason.format("pattern")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20  # the 4 MiB argument itself is held a few times; compiling it cost ~1 GB
    out = reg.call("search_file_content", {"pattern": "hel+o|" + "x" * 4090})
    assert out.text.startswith('Found 1 match for pattern "hel+o|xxx')


def test_a_pattern_too_long_for_one_ripgrep_argument_falls_back_to_python(tmp_path):
    from agenttools import search
    from agenttools.workspace import Workspace

    (tmp_path / "a.txt").write_text("hello\n")
    result = search.grep(Workspace(tmp_path), "hello|" + "x" * 200_000, backend="auto")
    assert [m.line for m in result.matches] == ["hello"] and result.backend == "python"  # not E2BIG


def test_a_catastrophic_regex_does_not_hold_the_gil(tmp_path):
    """The Python backend matches with ``concurrent=True`` and a deadline: other threads keep answering."""
    import threading

    from agenttools import ToolTimeoutError, search
    from agenttools.workspace import Workspace

    (tmp_path / "cat.txt").write_text("a" * 40 + "b\n")
    (tmp_path / "x.txt").write_text("hello\n")
    outcome: list[BaseException | None] = []

    def slow() -> None:
        try:
            search.grep(Workspace(tmp_path), r"(a|aa)+$", backend="python", timeout=4)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - reported below
            outcome.append(exc)

    thread = threading.Thread(target=slow)
    thread.start()
    time.sleep(0.3)
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    for _ in range(3):
        start = time.monotonic()
        assert reg.call("read_file", {"absolute_path": str(tmp_path / "x.txt")}).text == "hello\n"
        assert time.monotonic() - start < 1
    assert thread.is_alive()  # the catastrophic match was still running while the reads answered
    thread.join()
    assert len(outcome) == 1 and isinstance(outcome[0], ToolTimeoutError)
