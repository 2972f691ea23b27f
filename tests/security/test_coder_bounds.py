"""The coder toolset's own files stay inside the root, a web fetch's timeout bounds the whole call, cloc does not
load files over ``max_file_size``, and walks survive trees deeper than Python's recursion limit."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import agenttools
from agenttools import web
from agenttools.errors import ToolTimeoutError


@pytest.fixture
def root(tmp_path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    return work


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


TODOS = json.dumps([{"content": "a", "status": "pending", "priority": "low"}])


# --- .agent/: the toolset's own files go through the Workspace -------------------------------------------------

def test_todos_through_a_symlinked_agent_directory_out_of_the_root_are_refused(root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".agent").symlink_to(outside)
    reg = agenttools.toolset("coder", root=str(root))
    assert reg.call("todowrite", {"todos_json": TODOS}).text == (
        "Error: path not allowed: .agent (the toolset's own files must stay inside the project)")
    assert list(outside.iterdir()) == []
    assert reg.call("todoread", {}).text == '{"output":"[]","title":"0 todos"}'  # the list is unchanged


def test_a_symlinked_todo_file_out_of_the_root_is_refused(root, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me\n")
    reg = agenttools.toolset("coder", root=str(root))
    assert reg.call("todowrite", {"todos_json": TODOS}).text.startswith('{"output":"Successfully updated 1')
    (saved,) = (root / ".agent" / "sessions").glob("*/todos.json")
    saved.unlink()
    saved.symlink_to(secret)
    rel = saved.relative_to(root).as_posix()
    assert reg.call("todowrite", {"todos_json": "[]"}).text == (
        f"Error: path not allowed: {rel} (the toolset's own files must stay inside the project)")
    assert secret.read_text() == "keep me\n"


def test_a_fifo_todo_file_is_never_opened(root):
    reg = agenttools.toolset("coder", root=str(root))
    reg.call("todowrite", {"todos_json": TODOS})
    (saved,) = (root / ".agent" / "sessions").glob("*/todos.json")
    saved.unlink()
    os.mkfifo(saved)
    assert reg.call("todowrite", {"todos_json": "[]"}).text == (
        f"Error: cannot write {saved.relative_to(root).as_posix()}: not a regular file")


def test_a_symlinked_agent_directory_inside_the_root_is_followed(root):
    (root / "state").mkdir()
    (root / ".agent").symlink_to(root / "state")
    reg = agenttools.toolset("coder", root=str(root))
    assert reg.call("todowrite", {"todos_json": TODOS}).text.startswith('{"output":"Successfully updated 1')
    assert len(list((root / "state" / "sessions").glob("*/todos.json"))) == 1


class _Page(threading.Thread):
    """A one-connection HTTP server on 127.0.0.1 (answers every request with ``reply``)."""

    def __init__(self, reply: bytes, trickle: float = 0.0, slow: bytes = b"") -> None:
        super().__init__(daemon=True)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.reply, self.trickle, self.slow = reply, trickle, slow
        self.stop = threading.Event()

    def run(self) -> None:
        self.server.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                try:
                    conn.sendall(self.reply)
                    if not self.trickle:
                        continue
                    for byte in self.slow:  # one byte at a time, then keep trickling a body
                        if self.stop.wait(self.trickle):
                            break
                        conn.sendall(bytes([byte]))
                    while not self.stop.wait(self.trickle):
                        conn.sendall(b"x")
                except OSError:
                    continue

    def close(self) -> None:
        self.stop.set()
        self.join(5)
        self.server.close()


@pytest.fixture
def page():
    servers: list[_Page] = []

    def start(reply: bytes, trickle: float = 0.0, slow: bytes = b"") -> int:
        server = _Page(reply, trickle, slow)
        server.start()
        servers.append(server)
        return server.port

    yield start
    for server in servers:
        server.close()


def test_web_fetch_through_a_symlinked_cache_out_of_the_root_is_refused(root, tmp_path, page):
    port = page(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / ".agent").mkdir()
    (root / ".agent" / "cache").symlink_to(outside)
    reg = agenttools.toolset("coder", root=str(root), allow_private_network=True)
    assert reg.call("web_fetch", {"url": f"http://127.0.0.1:{port}/x"}).text == (
        "Error: path not allowed: .agent/cache (the toolset's own files must stay inside the project)")
    assert snapshot(outside) == {}


# --- web: one deadline for the whole call ------------------------------------------------------------------------

@pytest.mark.parametrize("what", ["headers", "body"])
def test_a_trickling_server_cannot_hold_a_fetch_past_its_timeout(page, what):
    """One byte every 0.1 s never trips a per-read timeout of 1 s; the call must still end at about 1 s."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n"
    port = page(b"", trickle=0.1, slow=head) if what == "headers" else page(head, trickle=0.1)
    outcome: list[object] = []

    def fetch() -> None:
        try:
            outcome.append(web.fetch(f"http://127.0.0.1:{port}/slow", timeout=1.0, allow_private=True))
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    started = time.monotonic()
    worker = threading.Thread(target=fetch, daemon=True)
    worker.start()
    worker.join(4.0)
    elapsed = time.monotonic() - started
    assert not worker.is_alive(), "the fetch was still running 4 s into a 1 s timeout"
    assert elapsed < 2.5
    (error,) = outcome
    assert isinstance(error, ToolTimeoutError), error
    assert str(error) == f"fetching http://127.0.0.1:{port}/slow timed out after 1 seconds"


def test_a_prompt_server_is_unaffected(page):
    port = page(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
    result = web.fetch(f"http://127.0.0.1:{port}/", timeout=1.0, allow_private=True)
    assert (result.status, result.body) == (200, b"hello")


# --- cloc: files over max_file_size are not loaded -----------------------------------------------------------

def test_cloc_skips_files_over_max_file_size_unread(root, monkeypatch):
    (root / "small.py").write_text("x = 1\n")
    (root / "big.py").write_text("y = 2\n" * 20_000)  # 120,000 bytes
    read: list[int] = []
    from agenttools import _text

    real_read_fd = _text.read_fd

    def spy(fd: int, size: int) -> bytes:
        read.append(size)
        return real_read_fd(fd, size)

    monkeypatch.setattr(_text, "read_fd", spy)
    monkeypatch.setattr("agenttools.stats.read_fd", spy, raising=False)
    reg = agenttools.toolset("coder", root=str(root), max_file_size=100_000)
    out = reg.call("cloc", {"args": "."}).text
    assert "       1 file ignored. (1 over max_file_size, not read)" in out.splitlines()
    assert "Python                           1              0              0              1" in out.splitlines()
    assert max(read) < 100_000
    data = json.loads(reg.call("cloc", {"args": "--json ."}).text)
    assert data["Python"] == {"nFiles": 1, "blank": 0, "comment": 0, "code": 1}


# --- deep trees ---------------------------------------------------------------------------------------------------

DEPTH = 1200


@pytest.fixture
def deep(root) -> Iterator[Path]:
    """``d/d/d/...`` 1,200 levels deep (2,400 characters of path: below PATH_MAX) with a file at the bottom.

    Removed bottom-up afterwards: pytest's own clean-up (``shutil.rmtree``, recursive in 3.11) could not.
    """
    assert sys.getrecursionlimit() < DEPTH
    levels: list[str] = []
    path = str(root)
    try:
        for _ in range(DEPTH):
            path = os.path.join(path, "d")
            os.mkdir(path)
            levels.append(path)
        Path(path, "bottom.py").write_text("x = 1\n")
        yield root
    finally:
        for level in reversed(levels):
            for name in os.listdir(level):
                full = os.path.join(level, name)
                if not os.path.isdir(full) or os.path.islink(full):
                    os.unlink(full)
            os.rmdir(level)


def test_list_files_survives_a_deep_tree(deep):
    out = json.loads(agenttools.toolset("coder", root=str(deep)).call("list_files", {}).text)
    assert len(out) == DEPTH + 1
    assert out[-1] == "d/" * DEPTH + "bottom.py"


def test_glob_survives_a_deep_tree(deep):
    out = json.loads(agenttools.toolset("coder", root=str(deep)).call("glob", {"pattern": "**/bottom.py"}).text)
    assert out == ["d/" * DEPTH + "bottom.py"]


def test_cloc_survives_a_deep_tree(deep):
    data = json.loads(agenttools.toolset("coder", root=str(deep)).call("cloc", {"args": "--json ."}).text)
    assert data["Python"] == {"nFiles": 1, "blank": 0, "comment": 0, "code": 1}
