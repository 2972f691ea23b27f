"""Floods: 300 MB of command output, 1 GB files, 100k-match searches and 60,000-character lines come back bounded
(memory measured with tracemalloc) and say they were cut."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import agenttools

MiB = 1 << 20


def _peak(call: Any) -> tuple[Any, float]:
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1] / MiB
    finally:
        tracemalloc.stop()


FLOOD = "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 300000000"


@pytest.mark.parametrize(("toolset", "tool", "marker"), [
    ("gemini", "run_shell_command", "bytes of output omitted"),
    ("editor", "bash", "[Truncated: output was"),
    ("assistant", "exec", "bytes of output omitted"),
])
def test_300_mb_of_output_is_cut_with_bounded_memory(tmp_path, toolset, tool, marker):
    reg = agenttools.toolset(toolset, root=str(tmp_path))
    out, peak = _peak(lambda: reg.call(tool, {"command": FLOOD}))
    reg.close()
    assert not out.is_error, out.text[:300]
    assert marker in out.text
    assert len(out.text) <= 17 * MiB
    assert peak < 160, f"{peak:.0f} MiB"  # 16 MiB kept per stream, and a few copies of it while formatting


@pytest.fixture
def gigabyte(tmp_path: Path) -> Path:
    """A sparse 1 GB file (no disk used) with text at its start: NUL bytes follow, so it is binary."""
    path = tmp_path / "big.log"
    with open(path, "wb") as handle:
        handle.write(b"needle at the start\n")
        handle.truncate(1 << 30)
    return path


@pytest.mark.parametrize(("toolset", "tool", "args"), [
    ("gemini", "read_file", lambda p: {"absolute_path": str(p)}),
    ("editor", "view", lambda p: {"path": p.name}),
    ("assistant", "read", lambda p: {"path": p.name}),
    ("coder", "read_file", lambda p: {"path": p.name}),
    ("coder", "head", lambda p: {"args": p.name}),
    ("coder", "tail", lambda p: {"args": p.name}),
])
def test_a_1_gb_file_is_refused_or_read_in_part(gigabyte, toolset, tool, args):
    reg = agenttools.toolset(toolset, root=str(gigabyte.parent))
    out, peak = _peak(lambda: reg.call(tool, args(gigabyte)))
    reg.close()
    assert peak < 64, f"{peak:.0f} MiB"
    assert len(out.text) < 2 * MiB


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_searching_next_to_a_1_gb_file_stays_small(gigabyte, monkeypatch, backend):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    (gigabyte.parent / "small.txt").write_text("needle here\n")
    reg = agenttools.toolset("gemini", root=str(gigabyte.parent))
    out, peak = _peak(lambda: reg.call("search_file_content", {"pattern": "needle"}))
    reg.close()
    assert peak < 64, f"{peak:.0f} MiB"
    assert "small.txt" in out.text and "big.log" not in out.text  # a file with NUL bytes is binary: skipped


@pytest.fixture
def many_matches(tmp_path: Path) -> Path:
    (tmp_path / "hits.txt").write_text("".join(f"match number {i}\n" for i in range(120_000)))
    return tmp_path


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_a_search_with_100k_matches_is_capped_with_a_note(many_matches, monkeypatch, backend):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    reg = agenttools.toolset("gemini", root=str(many_matches))
    out, peak = _peak(lambda: reg.call("search_file_content", {"pattern": "match"}))
    reg.close()
    assert out.text.startswith('Found 20000 matches for pattern "match"')
    assert out.text.endswith("[Search results truncated: showing the first 20000 matching lines. Use a more "
                             "specific pattern, path or include filter to see the rest.]")
    assert "L20000: match number 19999" in out.text and "L20001:" not in out.text
    assert peak < 64, f"{peak:.0f} MiB"


def test_the_gemini_cap_is_an_option(many_matches):
    reg = agenttools.toolset("gemini", root=str(many_matches), max_matches=10)
    assert reg.call("search_file_content", {"pattern": "match"}).text.startswith("Found 10 matches")
    with pytest.raises(agenttools.ConfigError):
        agenttools.toolset("gemini", root=str(many_matches), max_matches=0)


def test_coder_rg_with_100k_matches_keeps_only_its_head(many_matches):
    reg = agenttools.toolset("coder", root=str(many_matches))
    (many_matches / "hits.txt").write_text("".join(f"match {'x' * 40} {i}\n" for i in range(200_000)))
    out, peak = _peak(lambda: reg.call("rg", {"pattern": "match"}))
    reg.close()
    assert "[output truncated: " in out.text and "showing the first 1048576 characters]" in out.text
    assert peak < 64, f"{peak:.0f} MiB"


@pytest.fixture
def long_lines(tmp_path: Path) -> Path:
    (tmp_path / "long.txt").write_text(("x" * 59_990 + " needle\n") * 3)
    return tmp_path


@pytest.mark.parametrize(("toolset", "tool", "args", "marker"), [
    ("gemini", "read_file", lambda root: {"absolute_path": str(root / "long.txt")}, "... [truncated]"),
    ("gemini", "search_file_content", lambda root: {"pattern": "needle"}, "... [truncated]"),
    ("editor", "view", lambda root: {"path": "long.txt"}, "... [truncated, 59997 chars total]"),
])
def test_60k_character_lines_are_cut(long_lines, toolset, tool, args, marker):
    reg = agenttools.toolset(toolset, root=str(long_lines))
    out = reg.call(tool, args(long_lines))
    reg.close()
    assert not out.is_error, out.text[:200]
    assert marker in out.text
    assert len(out.text) < 3 * 2100 + 1000
    assert max(len(line) for line in out.text.splitlines()) < 2100


def test_sparse_gigabyte_fixture_uses_no_disk(gigabyte):
    assert os.stat(gigabyte).st_blocks * 512 < 16 * MiB


def test_the_editor_keeps_little_but_reports_the_real_size(tmp_path):
    reg = agenttools.toolset("editor", root=str(tmp_path))
    out, peak = _peak(lambda: reg.call("bash", {"command": "python3 -c \"print('x' * 4999999)\""}))
    reg.close()
    assert out.text.endswith("[Truncated: output was 5000000 characters, showing first 30000]")
    assert peak < 16, f"{peak:.0f} MiB"  # 256 KiB kept per stream, not the 16 MiB of the shell family default
