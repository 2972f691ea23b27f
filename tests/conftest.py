from __future__ import annotations

import asyncio
import contextlib
import http.server
import importlib.util
import os
import socket
import struct
import subprocess
import sys
import threading
import time
import types
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

import agenttools


def upstream_unavailable(reason: str) -> None:
    """Skip a differential test whose upstream cannot run here; fail instead where one is required.

    ``.ci/run`` sets ``AGENTTOOLS_REQUIRE_UPSTREAM``: there a missing node, npm, package or virtualenv is a failure,
    so CI can never pass by skipping the comparisons with the upstreams.
    """
    if os.environ.get("AGENTTOOLS_REQUIRE_UPSTREAM"):
        pytest.fail(f"this differential test must run here (AGENTTOOLS_REQUIRE_UPSTREAM is set): {reason}")
    pytest.skip(reason)


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


GONE_WITHIN = 15.0
"""Seconds a killed process may take to disappear: a loaded 2-core machine is slow, a leak is forever."""


def read_pid(path: Path, timeout: float = 30.0) -> int:
    """The pid a command wrote to ``path``, as this process sees it, waiting up to ``timeout`` seconds for it.

    A sandboxed command runs in a PID namespace of its own, so its ``$$`` is a number only that namespace knows:
    it is turned into the host's pid (see :func:`host_pid`).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            return host_pid(int(path.read_text().strip()))
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def processes_running(*argv: str) -> list[int]:
    """Live processes of this test session whose command line is exactly ``argv`` (sandboxed ones included)."""
    marker = f"AGENTTOOLS_TEST_SESSION={os.environ.get('AGENTTOOLS_TEST_SESSION', '')}".encode()
    wanted = b"\0".join(arg.encode() for arg in argv) + b"\0"
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if handle.read() != wanted:
                        continue
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if marker in handle.read().split(b"\0") and process_alive(int(entry)):
                        found.append(int(entry))
    return found


def _nspids(pid: int) -> list[int]:
    with open(f"/proc/{pid}/status", "rb") as handle:
        for line in handle:
            if line.startswith(b"NSpid:"):
                return [int(field) for field in line.split()[1:]]
    return [pid]


def host_pid(pid: int) -> int:
    """The host's pid of the process the tests started that calls itself ``pid`` in its own PID namespace.

    A pid of this namespace that belongs to a process of this test session is itself; otherwise the newest live
    process of the session whose innermost namespace pid is ``pid`` (one sandbox at a time runs such a check). A
    pid that matches nothing is returned as a number no process has (the process is gone).
    """
    marker = f"AGENTTOOLS_TEST_SESSION={os.environ.get('AGENTTOOLS_TEST_SESSION', '')}".encode()
    found: list[tuple[int, int]] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if marker not in handle.read().split(b"\0"):
                    continue
            levels = _nspids(int(entry))
            if len(levels) == 1 and levels[0] == pid:
                return pid
            if len(levels) > 1 and levels[-1] == pid:
                with open(f"/proc/{entry}/stat") as handle:
                    started = int(handle.read().rsplit(")", 1)[1].split()[19])
                found.append((started, int(entry)))
    return max(found)[1] if found else 2**22 + 1


def gone(pid: int, within: float = GONE_WITHIN) -> bool:
    """Whether process ``pid`` is gone (or a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while process_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


async def cancel_and_wait_gone(task: asyncio.Future[Any], pid: int) -> None:
    """Cancel ``task`` (it must end cancelled) and wait, :data:`GONE_WITHIN` at most, for process ``pid`` to go."""
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    deadline = time.monotonic() + GONE_WITHIN
    while process_alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


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


# --- a content docroot (the content family and toolset) ------------------------------------------------------

@pytest.fixture
def docroot(tmp_path) -> Path:
    root = tmp_path / "docs"
    files = {
        "guides/intro.md": "# Intro\n",
        "guides/intro.txt": "h\u00e9llo \u2713\n",
        "guides/tutorial.md": "# Tutorial\n",
        "guides/tmpl.md.mustache": "# T {{x}}\n",
        "guides/both.md": "plain wins\n",
        "guides/both.md.mustache": "template loses\n",
        "guides/sub/deep.md": "# Deep\n",
        "guides/sub/code.py": "print(1)\n",
        "guides/.hidden.md": "hidden\n",
        "guides/__pycache__/x.md": "cache\n",
        "guides/meta_.json": "{}\n",
        "examples/ex.md": "# Ex\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


CONTENT_CATEGORIES = [
    {"name": "guides", "dir": "guides", "patterns": ["*.md"], "description": "How-to guides"},
    {"name": "examples", "dir": "examples"},
]
"""The categories of the ``docroot`` fixture: guides with a default pattern, examples without."""


# --- an MCP server in a subprocess (the real `agenttools serve` command) -------------------------------------------

def serve_command(toolset: str, root: Path | None, *extra: str) -> list[str]:
    """``python -m agenttools serve --toolset T --root R ...`` (no ``--root`` when ``root`` is None)."""
    rooted = ["--root", str(root)] if root is not None else []
    return [sys.executable, "-m", "agenttools", "serve", "--toolset", toolset, *rooted, *extra]


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Wait (30 s at most) until something listens on loopback ``port``; fail early if ``proc`` exits."""
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline or (proc is not None and proc.poll() is not None):
                raise RuntimeError("the MCP HTTP server did not start") from None
            time.sleep(0.1)


SERVER_PIDS: dict[str, int] = {}
"""URL of a server :func:`http_mcp_server` runs -> its process id (for tests that look at its descriptors)."""


@contextlib.contextmanager
def http_mcp_server(toolset: str, root: Path | None, *extra: str, cwd: Path | None = None) -> Iterator[str]:
    """Serve a toolset over streamable HTTP on a free loopback port; yield its URL; stop it after."""
    port = free_port()
    proc = subprocess.Popen(serve_command(toolset, root, "--transport", "http", "--port", str(port), *extra),
                            stdin=subprocess.DEVNULL, cwd=cwd)
    try:
        wait_port(port, proc)
        SERVER_PIDS[f"http://127.0.0.1:{port}/mcp"] = proc.pid
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class StaticSite:
    """Loopback HTTP servers answering GET from ``routes`` (path -> (status, headers, body); 404 otherwise),
    recording each request's headers in ``seen``."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.seen: list[dict[str, str]] = []
        self._servers: list[http.server.ThreadingHTTPServer] = []
        self.port = 0
        """The port of the first server started."""

    def start(self, host: str = "127.0.0.1") -> int:
        """Serve on ``host`` (any loopback address); the port."""
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.seen.append(dict(self.headers.items()))
                status, headers, body = site.routes.get(self.path.split("?")[0],
                                                        (404, {"Content-Type": "text/plain"}, b"no"))
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = http.server.ThreadingHTTPServer((host, 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._servers.append(server)
        port = int(server.server_address[1])
        self.port = self.port or port
        return port

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()


@pytest.fixture
def static_site() -> Iterator[StaticSite]:
    """A :class:`StaticSite`; call ``start()`` for a server and fill ``routes``."""
    site = StaticSite()
    yield site
    site.close()


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
"""The runnable examples the docs link to."""


def load_example(name: str) -> types.ModuleType:
    """Import ``examples/<name>.py`` (not a package: loaded from its file) and return the module."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tiny_png() -> bytes:
    """A real 1x1 PNG (frameworks that decode images accept it)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
            + chunk(b"IEND", b""))


@pytest.fixture
def agent_workspace(tmp_path: Path) -> Path:
    """Where the framework tests' agents work: ``a.txt`` reads, ``missing.txt`` fails, ``img.png`` is an image."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    (root / "img.png").write_bytes(tiny_png())
    return root


@pytest.fixture
def agent_registry(agent_workspace: Path) -> Iterator[agenttools.Registry]:
    """The gemini toolset over :func:`agent_workspace`."""
    with agenttools.toolset("gemini", root=str(agent_workspace)) as reg:
        yield reg
