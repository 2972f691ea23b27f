"""Hostile globs and ignore lines never freeze the process (issue 15, item 3).

A glob such as ``*a*a*a…b`` used to compile to a backtracking regex that held the GIL for minutes on a long file
name, stopping every other thread and MCP session. Each entry point runs here with such a pattern against a tree of
long names; the call runs in a child process so that a freeze fails the test at the bound instead of hanging it.
The last test runs the hostile call in one real MCP session and shows a second session answering within a second.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import http_mcp_server

BOUND = 60.0  # seconds a hostile call may take on a loaded machine; the old matcher took hours
HOSTILE = "*a" * 16 + "*b"  # 16 stars that all match the same run of "a": O(n^16) for a backtracking regex
NAME = "a" * 200  # a long file name that almost matches
DEPTH = 60
DEEP_HOSTILE = "**/" + "a/**/" * 20 + "[b]"  # 20 globstars on a chain of 60 directories "a": O(60^20); "[b]": no rg pre-filter
CASES = [
    pytest.param("gemini", "glob", {"pattern": "**/" + HOSTILE}, "No files found matching pattern", id="gemini-glob"),
    pytest.param("gemini", "glob", {"pattern": DEEP_HOSTILE}, "No files found matching pattern", id="gemini-glob-deep"),
    pytest.param("gemini", "search_file_content", {"pattern": "needle", "include": HOSTILE},
                 "No matches found for pattern", id="gemini-include"),
    pytest.param("gemini", "search_file_content", {"pattern": "needle", "include": "sub/**/" + HOSTILE},
                 "No matches found for pattern", id="gemini-include-anchored"),
    pytest.param("gemini", "list_directory", {"path": "{root}/sub", "ignore": [HOSTILE]}, "\nkeep.txt",
                 id="gemini-list-ignore"),
    pytest.param("coder", "glob", {"pattern": "**/" + HOSTILE}, "No matches found", id="coder-glob"),
    pytest.param("content", "get_category_content", {"category": "docs", "pattern": "**/" + HOSTILE},
                 "No files matched pattern '**/" + HOSTILE + "' in category 'docs'", id="content-pattern"),
    pytest.param("gitignore", "glob", {"pattern": "**/*"}, "/sub/keep.txt", id="gitignore-line"),
    pytest.param("deny", "view", {"path": "{root}/sub/" + NAME}, "needle", id="deny-rule"),
]

SEARCHES = {"glob", "search_file_content"}  # the tools with a ripgrep and a Python backend
SUBSTANTIVE = [pytest.param(*case.values, backend, id=f"{case.id}-{backend}", marks=case.marks)
               for case in CASES for backend in (("python", "rg") if case.values[1] in SEARCHES and
                                                 case.values[0] != "coder" else ("python",))]

_CHILD = textwrap.dedent("""
    import json, os, subprocess, sys
    import agenttools

    kind, tool, args, root = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
    hostile = sys.argv[5]
    if kind == "gitignore":
        subprocess.run(["git", "init", "-q", root], check=True)
        with open(os.path.join(root, ".gitignore"), "w") as handle:
            handle.write("*.log\\n" + hostile + "\\n" + sys.argv[6] + "\\n")
    if kind == "content":
        reg = agenttools.toolset("content", docroot=root, categories=[
            {"name": "docs", "dir": "sub", "patterns": ["*.md"]}])
    elif kind == "coder":
        reg = agenttools.toolset("coder", root=root)
    elif kind == "deny":
        reg = agenttools.toolset("editor", root=root, deny_dirs=["**/" + hostile])
    else:
        reg = agenttools.toolset("gemini", root=root)
    args = {k: v.replace("{root}", root) if isinstance(v, str) else v for k, v in args.items()}
    print(reg.call(tool, args).text)
""")


def _tree(root: Path) -> Path:
    """A tree of long names that almost match the hostile patterns: many runs of ``a``, never a ``b``."""
    deep = root / "sub" / "/".join(["a" * 60] * 6)
    deep.mkdir(parents=True)
    chain = root / "sub"
    for _ in range(DEPTH):
        chain /= "a"
        chain.mkdir()
    for directory in (root / "sub", deep, chain):
        for i in range(5):
            (directory / (NAME[: 200 - i])).write_text("needle\n")
    (root / "sub" / "keep.txt").write_text("needle\n")
    return root


@pytest.mark.parametrize(("kind", "tool", "args", "expected", "backend"), SUBSTANTIVE)
def test_a_hostile_pattern_returns_within_the_bound(tmp_path, kind, tool, args, expected, backend):
    root = _tree(tmp_path / "root")
    env = {**os.environ, "AGENTTOOLS_SEARCH_BACKEND": backend}
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, kind, tool, json.dumps(args), str(root), HOSTILE,
                               DEEP_HOSTILE],
                              capture_output=True, text=True, timeout=BOUND, env=env, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{kind} {tool} was still matching after {BOUND:g} s")
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout, done.stdout


# --- THE concurrency test: a hostile call in one MCP session, a second session still answers ---------------------

@pytest.fixture
def gemini_server(tmp_path) -> Iterator[tuple[str, Path]]:
    root = _tree(tmp_path / "root")
    with http_mcp_server("gemini", root) as url:
        yield url, root


def _text(result: object) -> str:
    return "".join(getattr(c, "text", "") for c in getattr(result, "content", []))


def test_a_hostile_glob_in_one_session_does_not_stop_another(gemini_server):
    url, root = gemini_server

    async def main() -> tuple[float, str]:
        async with streamable_http_client(url) as a_streams, ClientSession(*a_streams[:2]) as a, \
                streamable_http_client(url) as b_streams, ClientSession(*b_streams[:2]) as b:
            await a.initialize()
            await b.initialize()
            await b.call_tool("list_directory", {"path": str(root)})  # b's toolset exists before a starts
            hostile = asyncio.create_task(a.call_tool("glob", {"pattern": "**/" + HOSTILE}))
            await asyncio.sleep(0.5)  # a's call is matching by now (or, linear, already done)
            started = time.monotonic()
            try:
                answer = await asyncio.wait_for(b.call_tool("list_directory", {"path": str(root)}), 10)
            except TimeoutError:
                hostile.cancel()
                pytest.fail("session B got no answer within 10 s while session A matched a hostile glob")
            elapsed = time.monotonic() - started
            assert "[DIR] sub" in _text(answer)
            finished = await asyncio.wait_for(hostile, BOUND)
            assert "No files found matching pattern" in _text(finished)
            return elapsed, _text(finished)

    elapsed, _ = asyncio.run(asyncio.wait_for(main(), BOUND + 60))
    assert elapsed < 1.0, f"session B waited {elapsed:.2f} s behind session A's hostile glob"
