"""The HTTP MCP server against clients that misbehave: each gets a JSON-RPC answer, and nobody else notices.

A real ``agenttools serve --transport http`` on loopback, driven with raw HTTP (httpx) and raw sockets.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import SERVER_PIDS, http_mcp_server

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def server(root: Path, *flags: str) -> contextlib.AbstractContextManager[str]:
    """``agenttools serve --toolset gemini --transport http`` with ``flags``, on a free loopback port."""
    return http_mcp_server("gemini", root, *flags)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("hello\n")
    return tmp_path


def _json(text: str) -> dict[str, Any]:
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            return json.loads(line[5:])  # type: ignore[no-any-return]
    return json.loads(text)  # type: ignore[no-any-return]


def _reply(raw: socket.socket) -> str:
    """Everything the server sends on a raw connection until it closes it."""
    parts = []
    while chunk := raw.recv(65536):
        parts.append(chunk)
    return b"".join(parts).decode()


def _open(client: httpx.Client, url: str) -> dict[str, str]:
    """Initialize a session; the headers its requests carry."""
    opened = client.post(url, headers=ACCEPT, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
    assert opened.status_code == 200, opened.text
    headers = {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    return headers


def _slow_call(client: httpx.Client, url: str, headers: dict[str, str], request_id: Any, command: str,
               answer: dict[str, Any]) -> threading.Thread:
    """Start a ``run_shell_command`` call in a thread (its answer lands in ``answer``); return once it runs."""
    def call() -> None:
        done = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                                       "params": {"name": "run_shell_command",
                                                                  "arguments": {"command": command}}})
        answer.update(_json(done.text))

    thread = threading.Thread(target=call)
    thread.start()
    time.sleep(0.7)
    return thread


def _read(client: httpx.Client, url: str, headers: dict[str, str], request_id: Any = 99) -> dict[str, Any]:
    answer = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                                     "params": {"name": "list_directory",
                                                                "arguments": {"path": str(Path(url).parent)}}})
    return _json(answer.text)


def test_a_body_over_the_limit_is_refused_unread(root: Path):
    with server(root) as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)
        host, port = url.split("//")[1].split("/")[0].split(":")
        with socket.create_connection((host, int(port)), timeout=10) as raw:  # claims 100 MB, sends 10 bytes
            raw.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        b"Accept: application/json, text/event-stream\r\nContent-Length: 100000000\r\n\r\n{\"jsonrpc\"")
            reply = _reply(raw)
        assert reply.startswith("HTTP/1.1 413")
        assert json.loads(reply.split("\r\n\r\n", 1)[1])["error"]["code"] == -32600

        def chunks() -> Iterator[bytes]:  # no Content-Length: refused once it grows past the limit
            yield b'{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"x": "'
            for _ in range(6):
                yield b"a" * (1024 * 1024)
            yield b'"}}'

        big = client.post(url, headers=headers, content=chunks())
        assert big.status_code == 413 and big.json()["error"]["code"] == -32600
        assert not _read(client, url, headers).get("error")  # the session goes on


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], True, None, 1.5])
def test_a_request_id_no_answer_can_carry_gets_an_error(root: Path, bad_id: Any):
    with server(root) as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)
        answer = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": bad_id, "method": "tools/list"})
        assert answer.status_code == 400
        assert answer.json() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "Invalid Request: a request id must be a string or an integer"}}


def test_batches_and_malformed_frames_get_json_rpc_errors(root: Path):
    with server(root) as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)
        for body in (b'[{"jsonrpc": "2.0", "id": 5, "method": "tools/list"}]', b"garbage", b'{"jsonrpc": "2.0"}',
                     b'{"jsonrpc": "2.0", "id": 7}', b"[" * 100_000):
            answer = client.post(url, headers=headers, content=body)
            assert answer.status_code == 400, body[:40]
            assert answer.json()["error"]["code"] in (-32700, -32600, -32602), body[:40]
        assert not _read(client, url, headers).get("error")


def test_a_request_id_reused_while_in_flight_is_refused_and_the_first_answered(root: Path):
    with server(root) as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)
        first: dict[str, Any] = {}
        thread = _slow_call(client, url, headers, 5, "sleep 1.5; echo first", first)
        again = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        thread.join(30)
        assert again.status_code == 409
        assert again.json()["error"]["code"] == -32600 and again.json()["id"] == 5
        assert "first" in first["result"]["content"][0]["text"]
        assert not _read(client, url, headers, request_id=5).get("error")  # free again once answered


def test_a_request_cancelled_twice_changes_nothing_else(root: Path):
    with server(root) as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)

        def slow() -> None:
            client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
                "name": "run_shell_command", "arguments": {"command": "sleep 20"}}})

        thread = threading.Thread(target=slow, daemon=True)
        thread.start()
        time.sleep(0.7)
        for _ in range(2):
            notice = client.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/cancelled",
                                                             "params": {"requestId": 8}})
            assert notice.status_code == 202
        thread.join(15)
        assert not thread.is_alive()  # the cancelled call ended
        assert not _read(client, url, headers).get("error")


def test_past_the_session_cap_a_new_session_gets_a_clear_error(root: Path):
    with server(root, "--max-sessions", "2") as url, httpx.Client(timeout=30) as client:
        first, _ = _open(client, url), _open(client, url)
        refused = client.post(url, headers=ACCEPT, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert refused.status_code == 503
        assert refused.json()["error"]["message"] == "Too many open sessions"
        client.delete(url, headers=first)
        _open(client, url)  # a place again


def test_slowloris_connections_are_closed_and_others_served(root: Path):
    with server(root, "--request-timeout", "1") as url, httpx.Client(timeout=30) as client:
        host, port = url.split("//")[1].split("/")[0].split(":")
        slow = []
        for _ in range(60):
            raw = socket.create_connection((host, int(port)), timeout=10)
            raw.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest of the headers
            slow.append(raw)
        headers = _open(client, url)  # served meanwhile
        assert not _read(client, url, headers).get("error")
        time.sleep(2.5)
        for raw in slow:
            raw.settimeout(5)
            assert raw.recv(1024) == b""  # closed by the server
            raw.close()
        trickle = socket.create_connection((host, int(port)), timeout=10)  # headers in time, the body never
        trickle.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        f"Accept: application/json, text/event-stream\r\nmcp-session-id: {headers['mcp-session-id']}\r\n"
                        f"Content-Length: 100\r\n\r\n{{".encode())
        reply = _reply(trickle)
        trickle.close()
        assert reply.startswith("HTTP/1.1 408")


def test_a_client_that_never_reads_its_answers_is_dropped_and_others_unaffected(root: Path):
    with server(root, "--max-unanswered", "3") as url, httpx.Client(timeout=30) as client:
        greedy, other = _open(client, url), _open(client, url)
        host, port = url.split("//")[1].split("/")[0].split(":")
        sockets = []
        for request_id in range(10, 13):  # three calls whose answers nobody will read
            body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
                "name": "run_shell_command", "arguments": {"command": "sleep 5"}}}).encode()
            raw = socket.create_connection((host, int(port)), timeout=10)
            head = "".join(f"{k}: {v}\r\n" for k, v in greedy.items())
            raw.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode()
                        + body)
            sockets.append(raw)
        time.sleep(0.5)
        fourth = client.post(url, headers=greedy, json={"jsonrpc": "2.0", "id": 20, "method": "tools/list"})
        assert fourth.status_code == 429 and fourth.json()["error"]["message"].startswith("the session was dropped")
        gone = client.post(url, headers=greedy, json={"jsonrpc": "2.0", "id": 21, "method": "tools/list"})
        assert gone.status_code == 404
        assert not _read(client, url, other).get("error")  # another session: unaffected
        for raw in sockets:
            raw.close()


def test_sessions_opened_and_closed_leave_no_descriptors_behind(root: Path):
    with server(root) as url:
        pid = SERVER_PIDS[url]

        def descriptors() -> int:
            return len(os.listdir(f"/proc/{pid}/fd"))

        with httpx.Client(timeout=30) as client:  # one connection: the count is the server's own
            client.delete(url, headers=_open(client, url))
            before = descriptors()
            for _ in range(200):
                client.delete(url, headers=_open(client, url))
        deadline = time.monotonic() + 10
        while descriptors() > before and time.monotonic() < deadline:  # sessions end in threads
            time.sleep(0.1)
        assert descriptors() <= before


def test_an_integer_and_a_string_id_are_one_id_and_the_get_streams_key_is_reserved(root: Path):
    with server(root) as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)
        first: dict[str, Any] = {}
        thread = _slow_call(client, url, headers, 1, "sleep 1.5; echo one", first)
        again = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": "1", "method": "tools/list"})
        thread.join(30)
        assert again.status_code == 409
        assert "one" in first["result"]["content"][0]["text"]  # the first is answered
        reserved = client.post(url, headers=headers, json={"jsonrpc": "2.0", "id": "_GET_stream",
                                                           "method": "tools/list"})
        assert reserved.status_code == 400 and "reserved" in reserved.json()["error"]["message"]


def test_pipelined_requests_are_not_cut_off_by_the_header_timer(root: Path):
    with server(root, "--request-timeout", "1") as url, httpx.Client(timeout=30) as client:
        headers = _open(client, url)
        host, port = url.split("//")[1].split("/")[0].split(":")
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())

        def request(request_id: int, params: dict[str, Any], method: str = "tools/call") -> bytes:
            body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()
            return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode()
                    + body)

        with socket.create_connection((host, int(port)), timeout=15) as raw:
            raw.sendall(request(30, {}, "tools/list") + request(31, {"name": "run_shell_command", "arguments": {
                "command": "sleep 2.5; echo LATE"}}))
            received = b""
            deadline = time.monotonic() + 15
            while b"LATE" not in received and time.monotonic() < deadline:
                chunk = raw.recv(65536)
                if not chunk:
                    break
                received += chunk
        assert b"LATE" in received  # the second request ran past the header timeout and was answered
