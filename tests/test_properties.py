"""Property tests: the Workspace never hands out a path outside its roots; call() never raises."""

from __future__ import annotations

import os
from pathlib import Path

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
