"""Property tests: the Workspace never hands out a path outside its roots; call() never raises."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenttools
from agenttools import AgentToolsError, Workspace

SEGMENTS = st.sampled_from(["..", ".", "a", "b", "link-out", "link-in", "", "root-evil", "x\x00", "~", "/"])
PATHS = st.lists(SEGMENTS, min_size=1, max_size=6).map("/".join)


def _layout(base: Path) -> Path:
    root = base / "root"
    if not root.exists():
        (root / "a" / "b").mkdir(parents=True)
        (base / "root-evil").mkdir()
        (root / "link-out").symlink_to(base / "root-evil", target_is_directory=True)
        (root / "a" / "link-in").symlink_to(root / "a" / "b", target_is_directory=True)
    return root


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(path=PATHS)
def test_resolve_never_escapes(tmp_path, path):
    root = _layout(tmp_path)
    ws = Workspace(root)
    try:
        resolved = ws.resolve(path)
    except AgentToolsError:
        return
    real_root = os.path.realpath(root)
    assert os.path.commonpath([real_root, os.path.realpath(resolved)]) == real_root


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda children: st.lists(children) | st.dictionaries(st.text(), children), max_leaves=10)


@settings(max_examples=200, deadline=None)
@given(arguments=JSON | st.text() | st.binary())
def test_call_never_raises(arguments):
    reg = agenttools.Registry()

    @reg.tool
    def tool(a: int, b: list[str] | None = None, c: tuple[int, str] = (1, "x")) -> str:
        """Take arguments.

        Args:
            a: A.
            b: B.
            c: C.
        """
        return f"{a}{b}{c}"

    out = reg.call("tool", arguments)
    assert isinstance(out, agenttools.ToolOutput)
    assert isinstance(out.text, str)
    assert "Traceback" not in out.text


LINE_TEXT = st.lists(st.sampled_from(["a", "é", "\u4e16", "\n", "\r", "\t", " ", "\U0001f600", "\x0c"]),
                     max_size=80).map("".join)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(text=LINE_TEXT, offset=st.integers(0, 12), limit=st.none() | st.integers(1, 12),
       max_chars=st.none() | st.integers(1, 6), count_all=st.booleans())
def test_fast_line_scanner_equals_the_streaming_one(tmp_path, text, offset, limit, max_chars, count_all):
    from agenttools._lines import _scan, _scan_bytes
    from agenttools._text import TextFormat

    path = tmp_path / "lines.txt"
    path.write_bytes(text.encode("utf-8"))
    fmt = TextFormat(encoding="utf-8")
    fd = os.open(path, os.O_RDONLY)
    try:
        fast = _scan_bytes(str(path), fmt, offset, limit, max_chars, count_all, fd)
        slow = _scan(str(path), fmt, offset, limit, max_chars, count_all, fd)
    finally:
        os.close(fd)
    if count_all or slow[3] is None:
        assert fast[:3] == slow[:3]
    if count_all:
        assert fast[3] == slow[3]


@pytest.mark.parametrize("final_newline", [True, False])
def test_fast_line_skip_across_read_boundaries(tmp_path, final_newline):
    """Skipping to a line counts newlines in growing reads (64 KiB, 128 KiB, ...): lines on every boundary agree."""
    import random

    from agenttools._lines import _scan, _scan_bytes
    from agenttools._text import TextFormat

    rng = random.Random(7)  # noqa: S311 - test data
    lines = ["é" * rng.randrange(0, 300) + str(i) for i in range(6000)]
    text = "\n".join(lines) + ("\n" if final_newline else "")
    path = tmp_path / "long.txt"
    path.write_bytes(text.encode("utf-8"))
    data = text.encode("utf-8")
    boundaries = [1 << 16, 3 << 16, 7 << 16]  # where the 1st, 2nd and 3rd reads end
    offsets = {0, len(lines) - 1, len(lines), len(lines) + 5}
    for boundary in boundaries:
        line = data[:boundary].count(b"\n")
        offsets.update({line - 1, line, line + 1})
    fmt = TextFormat(encoding="utf-8")
    fd = os.open(path, os.O_RDONLY)
    try:
        for offset in sorted(o for o in offsets if o >= 0):
            fast = _scan_bytes(str(path), fmt, offset, 3, None, True, fd)
            slow = _scan(str(path), fmt, offset, 3, None, True, fd)
            assert fast == slow, offset
    finally:
        os.close(fd)
