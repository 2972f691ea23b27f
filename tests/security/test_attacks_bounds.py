"""Attacks on the bounds of the file, search and server tools that once succeeded, and the most creative that did not.

Each test states the attack and asserts a generous bound, so a loaded two-core machine does not make it flaky.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import agenttools


def _child(code: str, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_a_long_model_path_against_deny_rules_is_linear(tmp_path: Path) -> None:
    """A path of 30,000 components checked against ``deny_dirs``: every parent was built and matched (1 GB, a minute)."""
    result = _child("""
        import sys, time
        import agenttools
        root = sys.argv[1]
        reg = agenttools.toolset("editor", root=root, deny_dirs=["**/secret/**"])
        start = time.monotonic()
        text = reg.call("view", {"path": root + "/" + "a/" * 30_000 + "x"}).text
        # VmHWM: this process's own peak (ru_maxrss also counts the parent's, which a vfork'd child inherits)
        peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
        print(time.monotonic() - start, peak // 1024, text[:40])
    """, str(tmp_path))
    assert result.returncode == 0, result.stderr
    seconds, rss_mib, *_ = result.stdout.split()
    assert float(seconds) < 15 and int(rss_mib) < 300, result.stdout


def test_deny_rules_still_cover_parents(tmp_path: Path) -> None:
    (tmp_path / "secret" / "deep").mkdir(parents=True)
    (tmp_path / "secret" / "deep" / "f.txt").write_text("hidden\n")
    (tmp_path / "open.txt").write_text("shown\n")
    reg = agenttools.toolset("editor", root=str(tmp_path), deny_dirs=["**/secret/**", "secret"])
    assert "ACCESS_DENIED" in reg.call("view", {"path": str(tmp_path / "secret" / "deep" / "f.txt")}).text
    assert "shown" in reg.call("view", {"path": str(tmp_path / "open.txt")}).text
    assert "secret" not in reg.call("view", {"path": str(tmp_path)}).text
    assert os.path.isdir(tmp_path / "secret")


def test_a_counted_repeat_bomb_is_refused_before_compiling(tmp_path: Path) -> None:
    """``regex`` unrolls counted repeats when it compiles: ``(?:(?:(?:a{1000}){1000}){1000})`` took gigabytes."""
    (tmp_path / "f.txt").write_text("a" * 100 + "\n")
    result = _child("""
        import os, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # the old code died here instead of the machine
        import agenttools
        for backend in ("python", "rg"):
            os.environ["AGENTTOOLS_SEARCH_BACKEND"] = backend
            reg = agenttools.toolset("gemini", root=sys.argv[1])
            for pattern in ("(?:(?:(?:a{1000}){1000}){1000})", "a{100000000}", "(?x)(?:a{1000}) # )\\n{1000}",
                            "a{1,100000000}"):
                print(reg.call("search_file_content", {"pattern": pattern}).text.splitlines()[0])
    """, str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 8, result.stdout
    for index, line in enumerate(lines):
        if index % 4 == 3:  # a range is not unrolled: a real search
            assert "Found 1 match" in line, line
        else:
            assert "repeats multiply out" in line or "Invalid regular expression" in line, line


def test_a_gitignore_of_globstar_chains_on_a_deep_tree_does_not_freeze(tmp_path: Path) -> None:
    """900 ignore lines of 480 ``*/`` segments and no literal to pre-filter on, against a 400-deep tree."""
    import threading
    import time

    deep = tmp_path / "/".join(["a"] * 400)
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("x\n")
    line = "**/" + "*/" * 480 + "[!a]"
    (tmp_path / ".gitignore").write_text("\n".join(line + "*" * (i % 7) + "/" * (i % 2) for i in range(900)) + "\n")
    os.environ["AGENTTOOLS_SEARCH_BACKEND"] = "python"
    stalls: list[float] = []
    stop = threading.Event()

    def probe() -> None:
        while not stop.is_set():
            start = time.monotonic()
            time.sleep(0.01)
            stalls.append(time.monotonic() - start)

    try:
        reg = agenttools.toolset("gemini", root=str(tmp_path))
        thread = threading.Thread(target=probe, daemon=True)
        thread.start()
        assert "Found 1 file" in reg.call("glob", {"pattern": "**/f.txt"}).text
        assert "Found 1 match" in reg.call("search_file_content", {"pattern": "^x$"}).text
        stop.set()
        thread.join()
        assert max(stalls) < 1.0
    finally:
        del os.environ["AGENTTOOLS_SEARCH_BACKEND"]
        stop.set()
        for depth in range(400, 0, -1):  # bottom-up: pytest's cleanup recurses
            path = tmp_path / "/".join(["a"] * depth)
            for child in path.iterdir():
                child.unlink()
            path.rmdir()
