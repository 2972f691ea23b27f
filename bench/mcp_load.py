"""The HTTP MCP server under load: many clients at once, saturation, and sessions opened and closed by the thousand.

Starts ``agenttools serve --toolset gemini --transport http`` on loopback over a small generated project and
drives it with raw JSON-RPC over HTTP (httpx, one asyncio loop; lighter than the SDK's client, so the load
generator leaves the cores to the server):

1. ``--clients`` (100) clients, each with its own session, calling in a loop for ``--seconds`` (30): a tools
   listing, a file read, a search, or a 1-second command, picked at random, with 0.5 to 1.5 s between calls. Reported:
   calls/s, p50/p99 per kind; the slowest client's calls (no session starved).
2. Saturation: ``--clients`` clients calling back to back (reads and searches) for 10 s: calls/s.
3. ``--sessions`` (1000) sessions opened (initialize) and closed (DELETE), one after another: the server's resident
   memory and open file descriptors before and after.

Usage: ``python bench/mcp_load.py [--clients 100] [--seconds 30] [--sessions 1000]``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _project(root: Path) -> None:
    for i in range(200):
        folder = root / f"pkg{i % 10}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{i}.py").write_text("".join(f"def f{j}(x):\n    return x + {j}  # item {i}\n"
                                                   for j in range(50)))


def _memory_and_fds(pid: int) -> tuple[int, int]:
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


class Client:
    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url
        self.headers: dict[str, str] = {}
        self.next_id = 1

    async def open(self) -> None:
        opened = await self.http.post(self.url, headers=ACCEPT, json=INIT)
        self.headers = {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"],
                        "mcp-protocol-version": "2025-11-25"}
        await self.http.post(self.url, headers=self.headers, json={"jsonrpc": "2.0",
                                                                   "method": "notifications/initialized"})

    async def close(self) -> None:
        await self.http.delete(self.url, headers=self.headers)

    async def request(self, method: str, params: dict[str, Any]) -> float:
        self.next_id += 1
        started = time.perf_counter()
        answer = await self.http.post(self.url, headers=self.headers, json={"jsonrpc": "2.0", "id": self.next_id,
                                                                            "method": method, "params": params})
        answer.raise_for_status()
        return time.perf_counter() - started


def _calls(root: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "list": ("tools/list", {}),
        "read": ("tools/call", {"name": "read_file", "arguments": {"absolute_path": str(root / "pkg3/mod3.py")}}),
        "search": ("tools/call", {"name": "search_file_content", "arguments": {"pattern": "item 17\\b"}}),
        "command": ("tools/call", {"name": "run_shell_command", "arguments": {"command": "sleep 1"}}),
    }


async def mixed(url: str, root: Path, clients: int, seconds: float) -> tuple[dict[str, list[float]], list[int]]:
    calls = _calls(root)
    times: dict[str, list[float]] = {kind: [] for kind in calls}
    per_client: list[int] = [0] * clients
    limits = httpx.Limits(max_connections=clients * 2, max_keepalive_connections=clients * 2)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        sessions = [Client(http, url) for _ in range(clients)]
        await asyncio.gather(*(s.open() for s in sessions))
        deadline = time.monotonic() + seconds

        async def loop(index: int, session: Client) -> None:
            rng = random.Random(index)  # noqa: S311 - a reproducible load, not a secret
            await asyncio.sleep(rng.uniform(0, 1.5))
            while time.monotonic() < deadline:
                kind = rng.choice(list(calls))
                method, params = calls[kind]
                times[kind].append(await session.request(method, params))
                per_client[index] += 1
                await asyncio.sleep(rng.uniform(0.5, 1.5))

        await asyncio.gather(*(loop(i, s) for i, s in enumerate(sessions)))
        await asyncio.gather(*(s.close() for s in sessions))
    return times, per_client


async def saturation(url: str, root: Path, clients: int, seconds: float) -> float:
    calls = _calls(root)
    done = 0
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=clients * 2)) as http:
        sessions = [Client(http, url) for _ in range(clients)]
        await asyncio.gather(*(s.open() for s in sessions))
        deadline = time.monotonic() + seconds
        started = time.monotonic()

        async def loop(index: int, session: Client) -> None:
            nonlocal done
            kinds = ["read", "search"]
            while time.monotonic() < deadline:
                method, params = calls[kinds[(index + done) % 2]]
                await session.request(method, params)
                done += 1

        await asyncio.gather(*(loop(i, s) for i, s in enumerate(sessions)))
        elapsed = time.monotonic() - started
        await asyncio.gather(*(s.close() for s in sessions))
    return done / elapsed


async def churn(url: str, count: int) -> None:
    async with httpx.AsyncClient(timeout=60) as http:
        for _ in range(count):
            session = Client(http, url)
            await session.open()
            await session.close()


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--sessions", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _project(root)
        port = _free_port()
        server = subprocess.Popen([sys.executable, "-m", "agenttools", "serve", "--toolset", "gemini", "--root",
                                   str(root), "--transport", "http", "--port", str(port), "--max-sessions", "5000"],
                                  stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}/mcp"
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            times, per_client = asyncio.run(mixed(url, root, args.clients, args.seconds))
            total = sum(len(v) for v in times.values())
            quick = [t for kind, values in times.items() if kind != "command" for t in values]
            print(f"machine: {os.cpu_count()} cores; server: agenttools serve --transport http (gemini)\n")
            print(f"| mixed load: {args.clients} clients, {args.seconds:g} s, 0.5-1.5 s between calls | value |")
            print("|---|---|")
            print(f"| calls/s | {total / args.seconds:.1f} |")
            for kind, values in times.items():
                print(f"| {kind}: calls, p50, p99 (s) | {len(values)}, {_pct(values, 0.5):.3f}, "
                      f"{_pct(values, 0.99):.3f} |")
            print(f"| calls that do not sleep: p99 (s) | {_pct(quick, 0.99):.3f} |")
            print(f"| calls per client: min, median, max | {min(per_client)}, {statistics.median(per_client):g}, "
                  f"{max(per_client)} |")
            rate = asyncio.run(saturation(url, root, args.clients, 10))
            print(f"| saturation: {args.clients} clients back to back (read, search), calls/s | {rate:.1f} |")
            before = _memory_and_fds(server.pid)
            started = time.monotonic()
            asyncio.run(churn(url, args.sessions))
            time.sleep(2)  # sessions are closed in threads
            after = _memory_and_fds(server.pid)
            print(f"| {args.sessions} sessions opened and closed in {time.monotonic() - started:.1f} s: RSS KiB "
                  f"before, after | {before[0]}, {after[0]} |")
            print(f"| ... open file descriptors before, after | {before[1]}, {after[1]} |")
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
