from __future__ import annotations

from typing import Literal

import pytest

import agenttools


def search_files(query: str, paths: list[str], max_results: int = 10,
                 mode: Literal["glob", "regex"] = "glob", since: str | None = None) -> list[str]:
    """Search files for a text query.

    Args:
        query: Text to search for.
        paths: Directories to search.
        max_results: Maximum number of hits to return.
        mode: Matching mode.
        since: Only files modified after this ISO date.
    """
    return [f"{query}|{paths}|{max_results}|{mode}|{since}"]


def ping() -> str:
    """Check that the tools respond."""
    return "pong"


@pytest.fixture
def reg() -> agenttools.Registry:
    registry = agenttools.Registry()
    registry.tool(search_files)
    return registry


def process_alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie (a killed child nobody reaped yet counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before or while /proc was read
        return False


def _marked_processes(marker: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries the marker, i.e. started by this test session."""
    from agenttools.shell import _marked

    return _marked(f"AGENTTOOLS_TEST_SESSION={marker}".encode())


@pytest.fixture(scope="session", autouse=True)
def no_process_left_behind():
    """Every process the tests start inherits a marker; none may still run when the session ends."""
    import contextlib
    import os
    import signal
    import time
    import uuid

    marker = uuid.uuid4().hex
    os.environ["AGENTTOOLS_TEST_SESSION"] = marker
    yield
    deadline = time.monotonic() + 10  # e.g. a `sleep 2 &` a test left to finish on its own
    left = _marked_processes(marker)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _marked_processes(marker)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes started by the tests were still running: {left}"
