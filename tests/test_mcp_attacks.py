"""The MCP server against a hostile workspace and a misbehaving client, through real servers and real clients.

A file name that is not UTF-8, a request the SDK cannot parse, a signal or a closed pipe, a foreign ``Host`` header,
a toolset that cannot start: each gets a clean answer (or a clean exit that takes the session's processes along),
never a dead server or a client left waiting forever. ``agenttools serve`` subprocesses on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import GONE_WITHIN, free_port, gone, http_mcp_server, read_pid, serve_command, wait_port

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.txt").write_text("hello\n")
    return project


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


# --- raw JSON-RPC over a stdio server's pipes ---------------------------------------------------------------------

class RawStdio:
    """A stdio server driven line by line, with every wait bounded (a missing answer fails, it does not hang)."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self._pending = b""

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.proc.stdin.write(data.rstrip(b"\n") + b"\n")
        self.proc.stdin.flush()

    def answer(self, request_id: Any, timeout: float = 10.0) -> dict[str, Any] | None:
        """The message answering ``request_id``, or None if none came within ``timeout`` seconds."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._pending:
                line, self._pending = self._pending.split(b"\n", 1)
                message = json.loads(line)
                if message.get("id") == request_id and ("result" in message or "error" in message):
                    return message  # type: ignore[no-any-return]
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self._pending += chunk

    def initialize(self) -> None:
        self.send(INIT)
        assert self.answer(0, 30) is not None, "the server did not answer initialize"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


@pytest.fixture
def raw(root: Path) -> Iterator[RawStdio]:
    server = RawStdio(serve_command("editor", root))
    try:
        server.initialize()
        yield server
    finally:
        server.close()


def _text(message: dict[str, Any] | None) -> str:
    assert message is not None, "no answer"
    return "".join(block.get("text", "") for block in message["result"]["content"])


def _still_serving(server: RawStdio, request_id: int = 999) -> None:
    server.call(request_id, "bash", {"command": "echo still serving"})
    assert "still serving" in _text(server.answer(request_id, 30)), "the server stopped answering"


# --- a workspace file whose name is not UTF-8 ---------------------------------------------------------------------

@pytest.fixture
def undecodable(root: Path) -> Path:
    """A file named with bytes that are not UTF-8 (any Linux file system holds such names)."""
    (root / "d").mkdir()
    os.close(os.open(os.fsencode(root / "d") + b"/bad\xff\xfe.txt", os.O_CREAT | os.O_WRONLY, 0o644))
    return root


def test_a_listing_with_an_undecodable_name_does_not_kill_the_stdio_server(raw, undecodable):
    # the name reached the answer as lone surrogates, which JSON cannot carry: the SDK's writer raised and the
    # whole server died ("unhandled errors in a TaskGroup")
    raw.call(1, "view", {"path": "d"})
    text = _text(raw.answer(1))
    assert "bad\ufffd\ufffd.txt" in text
    _still_serving(raw)


def test_a_listing_with_an_undecodable_name_is_answered_over_http(undecodable):
    async def main() -> None:
        with http_mcp_server("editor", undecodable) as url:
            async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                listed = await asyncio.wait_for(session.call_tool("view", {"path": "d"}), 30)
                assert "bad\ufffd\ufffd.txt" in listed.content[0].text  # was: "SSE stream ended without a response"

    asyncio.run(asyncio.wait_for(main(), 60))


# --- requests the SDK cannot parse --------------------------------------------------------------------------------

def _request(request_id: int, arguments: bytes) -> bytes:
    return (b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"view","arguments":%s}}'
            % (request_id, arguments))


UNPARSEABLE = {
    "lone surrogate": (_request(1, b'{"path":"\\ud83d.txt"}'), -32700),  # half an emoji, as a model may write it
    "too deep": (_request(2, b'{"path":' + b"[" * 3000 + b"]" * 3000 + b"}"), -32700),
    "number out of range": (_request(3, b'{"path":"a.txt","view_range":[1,' + b"9" * 5000 + b"]}"), -32700),
    "params not an object": (b'{"jsonrpc":"2.0","id":"four","method":"tools/list","params":[1]}', -32600),
}


@pytest.mark.parametrize("case", list(UNPARSEABLE))
def test_an_unparseable_stdio_request_gets_an_error_not_silence(raw, case):
    # the SDK dropped these without a word: the client waited for its answer forever
    line, code = UNPARSEABLE[case]
    request_id = json.loads(line[:line.index(b',"method"')] + b"}")["id"]
    raw.send(line)
    answer = raw.answer(request_id, 10)
    assert answer is not None, "no answer to a request the SDK could not parse"
    assert answer["error"]["code"] == code
    assert "/site-packages/" not in json.dumps(answer) and "Traceback" not in json.dumps(answer)
    _still_serving(raw)


def test_lines_without_a_request_id_are_ignored(raw):
    raw.send(b"not json at all")
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized","params":' + b"[" * 3000 + b"]" * 3000 + b"}")
    raw.send(b'{"jsonrpc":"2.0","result":{"x":"\\ud800"}}')
    _still_serving(raw)


def test_malformed_calls_get_clean_answers(raw):
    raw.call(1, "no_such_tool", {})
    assert raw.answer(1)["result"]["isError"] is True
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "view", "arguments": [1, 2]}})
    assert raw.answer(2)["error"]["code"] == -32602
    raw.send(_request(3, b'{"path":NaN}'))
    assert _text(raw.answer(3)) == "[INVALID_INPUT] argument 'path' must be string, got number"
    raw.send(_request(4, b'{"path":"a.txt","view_range":[1,Infinity]}'))
    assert _text(raw.answer(4)) == "[INVALID_INPUT] argument 'view_range.1' must be integer, got number"
    raw.call(5, "view", {"path": "a.txt", "extra": 1})
    assert _text(raw.answer(5)) == "[INVALID_INPUT] unknown argument 'extra'"
    raw.call(6, "view", {"path": "x" * 3_000_000})  # a 3 MB argument
    assert _text(raw.answer(6, 30)).startswith("[PATH_NOT_FOUND]")
    _still_serving(raw)


# --- the stdio server stops (and takes its processes along) however it is told to --------------------------------

def _start_work(server: RawStdio, root: Path) -> tuple[int, int]:
    """A background task and a running call in the session; their pids."""
    server.call(1, "bash", {"command": f"echo $$ > {root}/bg.pid; exec sleep 300", "run_in_background": True})
    assert _text(server.answer(1, 30)).startswith("task_id: ")
    server.call(2, "bash", {"command": f"sleep 300 & echo $! > {root}/fg.pid; wait"})
    return read_pid(root / "bg.pid"), read_pid(root / "fg.pid")


def _stops_with_its_processes(server: RawStdio, pids: tuple[int, int], how: str) -> None:
    try:
        server.proc.wait(GONE_WITHIN)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the stdio server kept running after {how}") from None
    assert all(gone(pid) for pid in pids), f"the session's processes outlived the server stopped by {how}"


def test_sigint_stops_the_stdio_server_and_its_processes(raw, root):
    # SIGINT cancelled the calls, then the server waited for the client's next line forever, its background
    # task still running
    pids = _start_work(raw, root)
    raw.proc.send_signal(signal.SIGINT)
    _stops_with_its_processes(raw, pids, "SIGINT")


def test_a_closed_stdout_stops_the_stdio_server_and_its_processes(raw, root):
    pids = _start_work(raw, root)
    assert raw.proc.stdout is not None
    raw.proc.stdout.close()  # the client stops reading, but keeps the server's stdin open
    raw.call(3, "bash", {"command": "echo nobody reads this"})
    _stops_with_its_processes(raw, pids, "its output closing")


def test_closed_stdin_stops_the_stdio_server_and_its_processes(raw, root):
    pids = _start_work(raw, root)
    assert raw.proc.stdin is not None
    raw.proc.stdin.close()
    _stops_with_its_processes(raw, pids, "its input closing")


def test_a_piped_script_gets_its_quick_answers(root):
    # end of input means the client is gone and the SDK cancels what still runs; what answers at once still does
    lines = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "view",
                                                                         "arguments": {"path": "a.txt"}}}]
    done = subprocess.run(serve_command("editor", root), input="".join(json.dumps(m) + "\n" for m in lines).encode(),
                          capture_output=True, timeout=60, check=False)
    answers = {m["id"]: m for m in map(json.loads, done.stdout.decode().splitlines())}
    assert done.returncode == 0
    assert answers[1]["result"]["tools"][0]["name"] == "view"
    assert 2 in answers  # its text (within the quarter second the server still answers) or "Connection closed"


# --- concurrency from one client ----------------------------------------------------------------------------------

def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        return int(status.read().split("Threads:")[1].split()[0])


def test_many_concurrent_calls_run_on_a_bounded_number_of_threads(root):
    command = serve_command("editor", root, "--max-calls", "4", "--sandbox", "none")  # $PPID: the server
    counts: list[int] = []

    async def main() -> None:
        params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("bash", {"command": f"echo $PPID > {root}/server.pid"})
            server = int((root / "server.pid").read_text())

            async def watch() -> None:
                while True:
                    counts.append(_threads(server))
                    await asyncio.sleep(0.02)

            counts.append(_threads(server))  # before the flood
            watcher = asyncio.create_task(watch())
            calls = [session.call_tool("bash", {"command": f"sleep 0.05; echo {n}"}) for n in range(120)]
            results = await asyncio.gather(*calls)
            watcher.cancel()
            assert [r.content[0].text.split("stdout:\n")[1].strip() for r in results] == [str(n) for n in range(120)]

    asyncio.run(asyncio.wait_for(main(), 90))
    baseline = counts[0]
    assert max(counts) <= baseline + 4 + 2, f"threads grew from {baseline} to {max(counts)} with --max-calls 4"


# --- a toolset that cannot start ----------------------------------------------------------------------------------

def test_a_toolset_that_cannot_start_is_an_error_result(raw, root):
    # the session's toolset is built on its first call; its root is gone by then. The SDK turned the exception
    # into a JSON-RPC error (and logged a traceback); the model should read why, like any tool error
    root.rename(root.with_name("moved"))
    raw.call(1, "view", {"path": "a.txt"})
    answer = raw.answer(1, 30)
    assert answer is not None and "result" in answer, answer
    assert answer["result"]["isError"] is True
    assert "root" in _text(answer) and "does not exist" in _text(answer)


# --- HTTP: Host and Origin checks ---------------------------------------------------------------------------------

def _post_initialize(port: int, **headers: str) -> int:
    with httpx.Client(timeout=30) as client:
        return client.post(f"http://127.0.0.1:{port}/mcp", json=INIT, headers={**ACCEPT, **headers}).status_code


def test_http_refuses_foreign_host_and_origin_headers(root):
    with http_mcp_server("editor", root) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert _post_initialize(port) == 200
        assert _post_initialize(port, Host=f"localhost:{port}") == 200
        assert _post_initialize(port, Host=f"rebound.example:{port}") == 421  # DNS rebinding
        assert _post_initialize(port, Origin="http://evil.example") == 403


WILDCARD = "0.0.0.0"  # noqa: S104 - handed to the app builder and the CLI; the tests bind 127.0.0.1 only


def test_a_wildcard_host_keeps_checking_host_headers(root):
    # serve(host="0.0.0.0") silently switched the SDK's DNS-rebinding protection off: a web page on a rebound
    # domain could drive the shell. The app serve() builds for that host, served here on 127.0.0.1
    import uvicorn

    from agenttools import toolset
    from agenttools.mcp_server import _http_app, build_server

    server, sessions = build_server(lambda: toolset("editor", root=str(root)))
    port = free_port()
    web = uvicorn.Server(uvicorn.Config(_http_app(server, WILDCARD, sessions, ["devbox.internal"]),
                                        host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        assert _post_initialize(port) == 200
        assert _post_initialize(port, Host=f"localhost:{port}") == 200
        assert _post_initialize(port, Host=f"devbox.internal:{port}") == 200
        assert _post_initialize(port, Host=f"devbox.internal:{port}", Origin=f"http://devbox.internal:{port}") == 200
        assert _post_initialize(port, Host=f"rebound.example:{port}") == 421
        assert _post_initialize(port, Origin="http://evil.example") == 403
    finally:
        web.should_exit = True
        thread.join(30)
        sessions.close_all()


def test_serving_beyond_loopback_warns(root):
    # nothing is bound: the port is taken on 127.0.0.1, so the server refuses to start after its warning
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(serve_command("editor", root, "--transport", "http", "--host", WILDCARD, "--port",
                                            str(port), "--allow-host", "devbox.internal"),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False)
        quiet = subprocess.run(serve_command("editor", root, "--transport", "http", "--host", "localhost", "--port",
                                             str(port)), stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                               check=False)
    err = done.stderr.decode()
    assert done.returncode == 1 and "already in use" in err
    assert f"warning: listening on {WILDCARD}" in err and "no authentication" in err
    assert "127.0.0.1, localhost, [::1], devbox.internal in their Host header" in err
    assert quiet.returncode == 1 and "already in use" in quiet.stderr.decode()
    assert "warning" not in quiet.stderr.decode()
