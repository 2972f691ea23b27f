"""Cancelling a call stops the work it does inside the process (walks, the Python search), not only subprocesses.

Without the checks of the call's cancel scope, a cancelled glob or Python grep over a large tree ran to its end,
holding its worker thread and its session's :class:`CallLimiter` slot all that time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenttools import Workspace, _calls, search, toolset
from agenttools._calls import CallCancelledError, CallScope
from agenttools._walk import walk
from agenttools.registry import CallLimiter, Registry
from agenttools.search import rg as _rg
from agenttools.stats import count_lines

FREED_WITHIN = 10.0
"""Seconds after the cancel by which the thread must have returned (the uncancelled work takes over a minute)."""


@contextlib.contextmanager
def in_scope(scope: CallScope) -> Iterator[None]:
    """Run the body as a tool call would, inside ``scope``."""
    token = _calls._SCOPE.set(scope)
    try:
        yield
    finally:
        _calls._SCOPE.reset(token)


def cancelled_scope() -> CallScope:
    scope = CallScope()
    scope.cancel()
    return scope


def _cancel_while_running(reg: Registry, name: str, arguments: dict[str, object], started: Path | None = None,
                          ) -> tuple[float, int]:
    """Start the call on a one-slot limiter, cancel it once it is under way: (seconds until freed, running after)."""
    async def main() -> tuple[float, int]:
        limiter = CallLimiter(1)
        call = asyncio.create_task(reg.acall(name, arguments, limiter=limiter))
        await asyncio.sleep(1.0)
        while started is not None and not started.exists():
            await asyncio.sleep(0.05)
        assert limiter.running == 1, "the call should still be running when it is cancelled"
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        cancelled_at = time.monotonic()
        freed = await asyncio.to_thread(limiter.join, 60)
        assert freed, "the cancelled call's thread was still running a minute later"
        # the slot is free again: a new call on the same limiter runs at once
        again = await asyncio.wait_for(reg.acall("ping", {}, limiter=limiter), 10)
        assert again.text == "pong"
        return time.monotonic() - cancelled_at, limiter.running

    return asyncio.run(asyncio.wait_for(main(), 120))


def _add_ping(reg: Registry) -> None:
    @reg.tool
    def ping() -> str:
        """Answer pong."""
        return "pong"


# --- through acall and a limiter: the thread and its slot are freed ----------------------------------------------

def test_a_cancelled_walk_frees_its_thread_and_slot(tmp_path):
    """A walk whose consumer takes 50 ms a directory (2,000 directories: 100 s) stops at the next directory."""
    tree = tmp_path / "tree"
    for index in range(2000):
        (tree / f"d{index:04}").mkdir(parents=True)
    started = tmp_path / "started"
    listed: list[str] = []
    reg = Registry()
    _add_ping(reg)

    @reg.tool
    def slow_walk() -> str:
        """Walk the tree slowly."""
        def slow(rel_dir: str, entries: list[os.DirEntry[str]]) -> None:
            listed.append(rel_dir)
            started.touch()
            time.sleep(0.05)

        for _ in walk(str(tree), listed=slow):
            pass
        return "walked"

    took, running = _cancel_while_running(reg, "slow_walk", {}, started)
    assert took < FREED_WITHIN
    assert running == 0
    assert len(listed) < 1000  # it stopped long before the end


def test_a_cancelled_python_grep_frees_its_thread_and_slot(tmp_path, monkeypatch):
    """gemini's search_file_content over 2,000 15 MB files (hard links of one), Python backend: ~2 minutes uncancelled."""
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", "python")
    line = b"abcdefghij" * 9 + b"\n"
    first = tmp_path / "f0000.txt"
    first.write_bytes(line * (15_000_000 // len(line)))
    for index in range(1, 2000):
        os.link(first, tmp_path / f"f{index:04}.txt")
    with toolset("gemini", root=str(tmp_path)) as reg:
        _add_ping(reg)
        took, running = _cancel_while_running(reg, "search_file_content", {"pattern": r"\d{5}x"})
    assert took < FREED_WITHIN
    assert running == 0


# --- each loop checks the scope ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path_order", [False, True], ids=["default", "path-order"])
def test_a_walk_stops_inside_a_large_directory(tmp_path, path_order):
    for index in range(3000):
        (tmp_path / f"f{index:05}").touch()
    scope = CallScope()
    seen = 0

    def consume() -> None:
        nonlocal seen
        for _ in walk(str(tmp_path), path_order=path_order):
            seen += 1
            if seen == 10:
                scope.cancel()

    with in_scope(scope), pytest.raises(CallCancelledError):
        consume()
    assert 10 <= seen <= 512 + 10  # the top directory alone, 3,000 entries: checked every 512 of them


@pytest.mark.parametrize("backend", ["python", "rg"])
def test_a_cancelled_glob_or_grep_stops(tmp_path, backend):
    if backend == "rg" and _rg.find_rg() is None:
        pytest.fail("ripgrep is required by the test suite")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text("needle\n")
    ws = Workspace(str(tmp_path))
    assert [m.rel for m in search.glob_files(ws, "**/*.py", backend=backend).matches] == ["a/x.py"]
    with in_scope(cancelled_scope()):
        with pytest.raises(CallCancelledError):
            search.glob_files(ws, "**/*.py", backend=backend)
        with pytest.raises(CallCancelledError):  # not turned into "search timed out"
            search.grep(ws, "needle", backend=backend)
        with pytest.raises(CallCancelledError):
            search.grep(ws, "needle", backend=backend, max_matches=5)


def test_a_cancelled_line_count_stops(tmp_path):
    (tmp_path / "x.py").write_text("x = 1\n")
    assert count_lines([str(tmp_path / "x.py")]).text_files == 1
    with in_scope(cancelled_scope()), pytest.raises(CallCancelledError):
        count_lines([str(tmp_path / "x.py")])


def test_a_cancelled_directory_tree_stops(tmp_path):
    (tmp_path / "a").mkdir()
    with toolset("filesystem", root=str(tmp_path)) as reg:
        args = {"path": str(tmp_path), "excludePatterns": []}
        assert '"name": "a"' in reg.call("directory_tree", args).text
        with in_scope(cancelled_scope()):
            out = reg.call("directory_tree", args)
        assert out.is_error
        assert isinstance(out.data, CallCancelledError)
