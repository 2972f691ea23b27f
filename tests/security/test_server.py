"""The MCP server under pressure: one saturated session never delays another; a cancelled request, a dropped HTTP
client, an ended session or a signal to the server kills what the calls started.

Real servers (``agenttools serve`` subprocesses, or uvicorn in a thread where the session table is inspected), the
official client or raw JSON-RPC, real process groups. Every "gone" is polled with a generous bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import (
    GONE_WITHIN,
    free_port,
    gone,
    host_pid,
    http_mcp_server,
    process_alive,
    read_pid,
    serve_command,
    wait_port,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    return project


@pytest.fixture
def http_url(root: Path) -> Iterator[str]:
    with http_mcp_server("editor", root) as url:
        yield url



async def _aread_pid(path: Path, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            return host_pid(int(path.read_text().strip()))
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def _sleeper(pid_file: Path) -> str:
    """A command that runs until killed: a background sleep (its pid in ``pid_file``) the shell waits for."""
    return f"sleep 300 & echo $! > {pid_file}; wait"


def _is_error(result: object) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


# --- item 5: one session's slow calls never delay another session ---------------------------------------------

def test_a_saturated_session_does_not_delay_another(http_url, root):
    pool = min(32, (os.cpu_count() or 1) + 4)  # what asyncio's shared default executor holds
    flood = pool + 2

    async def main() -> float:
        async with streamable_http_client(http_url) as a_streams, ClientSession(*a_streams[:2]) as a, \
                streamable_http_client(http_url) as b_streams, ClientSession(*b_streams[:2]) as b:
            await a.initialize()
            await b.initialize()
            await b.call_tool("bash", {"command": "true"})  # b's toolset exists before a floods
            slow = [asyncio.create_task(a.call_tool("bash", {"command": f"mktemp {root}/started.XXXXXX; sleep 20"}))
                    for _ in range(flood)]
            deadline = time.monotonic() + 30
            while len(list(root.glob("started.*"))) < min(flood, 8) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # the rest are queued by now
            started = time.monotonic()
            answer = await b.call_tool("bash", {"command": "echo hi"})
            elapsed = time.monotonic() - started
            assert "hi" in answer.content[0].text
            assert not any(task.done() for task in slow), "the slow calls finished early"
            for task in slow:
                task.cancel()
            await asyncio.gather(*slow, return_exceptions=True)
            return elapsed

    elapsed = asyncio.run(asyncio.wait_for(main(), 120))
    # behind A's calls B would wait their 20 s; a bound far below that, not a speed goal (each sandbox start on a
    # loaded 2-core machine takes its share of it)
    assert elapsed < 5.0, f"session B waited {elapsed:.2f} s behind session A's calls"


# --- item 5: a cancelled request kills its command --------------------------------------------------------------

@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_cancelled_request_kills_its_command(transport, root, request):
    pid_file = root / "sleep.pid"

    async def exercise(session: ClientSession) -> int:
        await session.initialize()
        call = asyncio.create_task(session.call_tool("bash", {"command": _sleeper(pid_file)}))
        pid = await _aread_pid(pid_file)
        call.cancel()  # the client sends notifications/cancelled for the request
        with contextlib.suppress(asyncio.CancelledError):
            await call
        deadline = time.monotonic() + GONE_WITHIN
        while process_alive(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert not process_alive(pid), "the cancelled call's command was still running"
        after = await session.call_tool("bash", {"command": "echo still here"})  # the session lives on
        assert "still here" in after.content[0].text
        return pid

    async def main() -> int:
        if transport == "stdio":
            command = serve_command("editor", root)
            params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                return await exercise(session)
        url = request.getfixturevalue("http_url")
        async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
            return await exercise(session)

    asyncio.run(asyncio.wait_for(main(), 90))


# --- item 5: a dropped HTTP client kills its command ------------------------------------------------------------

def _sse_result(text: str) -> dict:
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            return json.loads(line[5:])
    return json.loads(text)


def test_a_dropped_http_client_kills_its_command(http_url, root):
    pid_file = root / "dropped.pid"
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    with httpx.Client(timeout=30) as client:
        opened = client.post(http_url, json=init, headers=accept)
        opened.raise_for_status()
        session_id = opened.headers["mcp-session-id"]
        version = _sse_result(opened.text)["result"]["protocolVersion"]
        headers = {**accept, "mcp-session-id": session_id, "mcp-protocol-version": version}
        client.post(http_url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": _sleeper(pid_file)}}}
    with httpx.Client(timeout=30) as dropping, dropping.stream("POST", http_url, json=call, headers=headers):
        pid = read_pid(pid_file)
        assert process_alive(pid)
    # leaving both blocks closed the connection with the answer unread: the client is gone
    assert gone(pid), "the command of a call whose client disconnected was still running"
    with httpx.Client(timeout=30) as client:  # the session itself is still there
        again = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                 "params": {"name": "bash", "arguments": {"command": "echo alive"}}}
        answer = client.post(http_url, json=again, headers=headers)
        assert "alive" in answer.text
        client.delete(http_url, headers=headers)


# --- item 7: SIGTERM / SIGHUP to the stdio server kills the session's processes ----------------------------------

def _rpc(proc: subprocess.Popen[bytes], message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes], request_id: int) -> dict:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed its output"
        message = json.loads(line)
        if message.get("id") == request_id:
            return message


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_stdio_server_and_its_processes(signum, root):
    pid_file = root / "bg.pid"
    with subprocess.Popen(serve_command("gemini", root), stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        _signal_stops(proc, signum, pid_file)


def _signal_stops(proc: subprocess.Popen[bytes], signum: signal.Signals, pid_file: Path) -> None:
    try:
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        _answer(proc, 1)
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "run_shell_command", "arguments": {"command": f"sleep 300 & echo $! > {pid_file}"}}})
        started = _answer(proc, 2)
        assert "Background PIDs" in started["result"]["content"][0]["text"]
        pid = read_pid(pid_file)
        assert process_alive(pid)
        proc.send_signal(signum)
        proc.wait(GONE_WITHIN)
        assert gone(pid), f"the background job outlived the server stopped by {signum.name}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_http_server_and_its_processes(signum, root):
    port = free_port()
    proc = subprocess.Popen(serve_command("editor", root, "--transport", "http", "--port", str(port)),
                            stdin=subprocess.DEVNULL)
    try:
        wait_port(port, proc)
        pid = _open_session_without_end(f"http://127.0.0.1:{port}/mcp", root / "held.pid")
        assert process_alive(pid)
        proc.send_signal(signum)
        proc.wait(30)
        assert gone(pid), "the background job of an open HTTP session outlived the server"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _open_session_without_end(url: str, pid_file: Path) -> int:
    """Open an HTTP session, start a background job in it and leave without ending the session."""
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    with httpx.Client(timeout=30) as client:
        opened = client.post(url, json=init, headers=accept)
        version = _sse_result(opened.text)["result"]["protocolVersion"]
        headers = {**accept, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": version}
        client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "bash", "arguments": {"command": f"sleep 300 & echo $! > {pid_file}"}}})
    return read_pid(pid_file)


# --- item 7: an ended HTTP session is freed -----------------------------------------------------------------------

def test_an_ended_http_session_is_closed_and_freed(root):
    import uvicorn

    from agenttools import toolset
    from agenttools.mcp_server import _http_app, build_server

    made: list[weakref.ref] = []

    def factory():
        registry = toolset("editor", root=str(root))
        made.append(weakref.ref(registry))
        return registry

    server, sessions = build_server(factory)
    port = free_port()
    web = uvicorn.Server(uvicorn.Config(_http_app(server, "127.0.0.1", sessions), host="127.0.0.1", port=port,
                                       log_level="warning"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    pid_file = root / "session.pid"
    try:
        wait_port(port)

        async def main() -> None:
            url = f"http://127.0.0.1:{port}/mcp"
            async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                started = await session.call_tool("bash", {"command": f"echo $$ > {pid_file}; sleep 300",
                                                           "run_in_background": True})
                assert not _is_error(started)
                await _aread_pid(pid_file)
            # leaving the client DELETEs the session

        asyncio.run(asyncio.wait_for(main(), 60))
        pid = read_pid(pid_file)
        assert gone(pid), "the ended session's background task outlived it"
        session_registries = made[1:]  # made[0] is the template build_server reads the definitions from
        assert len(session_registries) == 1
        deadline = time.monotonic() + GONE_WITHIN
        while session_registries[0]() is not None and time.monotonic() < deadline:
            gc.collect()
            time.sleep(0.05)
        assert session_registries[0]() is None, "the ended session's toolset is still held"
        assert len(sessions) == 0
    finally:
        web.should_exit = True
        thread.join(30)
        sessions.close_all()
