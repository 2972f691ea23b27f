"""The MCP server end to end, with the official client: over stdio and over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
import socket
import sys
import time
from pathlib import Path

import mcp.types as mcp_types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import host_pid, http_mcp_server, process_alive, serve_command

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(20)


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    for name in ("one", "two"):
        (root / name).mkdir(parents=True)
    (root / "a.txt").write_text("hello\n")
    (root / "img.png").write_bytes(PNG)
    return root


def _server_command(project: Path, *extra: str) -> list[str]:
    return serve_command("editor", project, *extra)


def _get(obj, snake: str, camel: str):
    """Field access that works with mcp 2.x (snake_case) and 1.x (camelCase) models."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


async def _exercise(session: ClientSession, project: Path) -> None:
    await session.initialize()
    listed = await session.list_tools()
    assert [t.name for t in listed.tools] == ["view", "str_replace", "create_file", "bash", "task_output"]
    view = listed.tools[0]
    assert _get(view, "input_schema", "inputSchema")["required"] == ["path"]
    assert view.annotations is not None
    assert _get(view.annotations, "read_only_hint", "readOnlyHint") is True
    text = await session.call_tool("view", {"path": "a.txt"})
    assert _get(text, "is_error", "isError") is False
    assert [c.text for c in text.content] == ["1\thello\n"]
    image = await session.call_tool("view", {"path": "img.png"})
    assert image.content[0].type == "image"
    assert _get(image.content[0], "mime_type", "mimeType") == "image/png"
    assert base64.b64decode(image.content[0].data) == PNG
    missing = await session.call_tool("view", {"path": "missing.txt"})
    assert _get(missing, "is_error", "isError") is True
    assert missing.content[0].text == f"[PATH_NOT_FOUND] {project}/missing.txt does not exist"
    bad = await session.call_tool("view", {"path": 3})
    assert _get(bad, "is_error", "isError") is True
    assert bad.content[0].text == "[INVALID_INPUT] argument 'path' must be string, got integer"


def test_stdio(project):
    async def main() -> None:
        params = StdioServerParameters(command=_server_command(project)[0], args=_server_command(project)[1:])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await _exercise(session, project)

    asyncio.run(asyncio.wait_for(main(), 60))


@pytest.fixture
def http_server(project):
    with http_mcp_server("editor", project) as url:
        yield url


def test_http_tools(http_server, project):
    async def main() -> None:
        async with streamable_http_client(http_server) as streams, ClientSession(streams[0], streams[1]) as session:
            await _exercise(session, project)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_http_binds_loopback_only(http_server):
    port = int(http_server.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as probe:
        probe.settimeout(0.5)
        addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
        outside = next((a for a in addresses if not a.startswith("127.")), None)
        if outside is None:
            return  # no non-loopback address on this machine: nothing else to check
        assert probe.connect_ex((outside, port)) != 0


def test_http_sessions_are_independent_and_cleaned_up(http_server, project):
    async def client(directory: str) -> tuple[str, int]:
        async with streamable_http_client(http_server) as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            await session.call_tool("bash", {"command": f"cd {directory}"})
            await asyncio.sleep(0.1)
            pwd = await session.call_tool("bash", {"command": "pwd"})
            started = await session.call_tool("bash", {"command": f"echo $$ > {project}/{directory}.pid; sleep 60",
                                                       "run_in_background": True})
            assert started.content[0].text.startswith("task_id: ")
            for _ in range(100):
                pid_file = project / f"{directory}.pid"
                if pid_file.exists() and pid_file.read_text().strip():
                    break
                await asyncio.sleep(0.05)
            return pwd.content[0].text, host_pid(int((project / f"{directory}.pid").read_text()))

    async def main() -> list[tuple[str, int]]:
        return list(await asyncio.gather(client("one"), client("two")))

    results = asyncio.run(asyncio.wait_for(main(), 60))
    assert [text for text, _ in results] == [f"exit_code: 0\n\nstdout:\n{project}/one\n",
                                             f"exit_code: 0\n\nstdout:\n{project}/two\n"]
    deadline = time.monotonic() + 15
    alive = [pid for _, pid in results]
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if process_alive(pid)]
        time.sleep(0.1)
    assert alive == [], "background tasks outlived their MCP session"




def test_server_info_carries_the_package_version(project):
    import agenttools

    async def main() -> None:
        params = StdioServerParameters(command=_server_command(project)[0], args=_server_command(project)[1:])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            initialized = await session.initialize()
            info = _get(initialized, "server_info", "serverInfo")
            assert (info.name, info.version) == ("agenttools", agenttools.__version__)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_long_call_that_asks_for_progress_gets_it_once_a_second(project):
    command = serve_command("gemini", project)

    async def main() -> tuple[list[tuple[float, str | None]], str, list[tuple[float, str | None]]]:
        seen: list[tuple[float, str | None]] = []
        quick: list[tuple[float, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, message))

        async def on_quick(progress: float, total: float | None, message: str | None) -> None:
            quick.append((progress, message))

        params = StdioServerParameters(command=command[0], args=command[1:])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("run_shell_command", {"command": "head -c 3000 /dev/zero; sleep 2.6; "
                                                                              "echo done"},
                                             progress_callback=on_progress)
            await session.call_tool("read_file", {"absolute_path": str(project / "a.txt")},
                                    progress_callback=on_quick)
        return seen, result.content[0].text, quick

    seen, text, quick = asyncio.run(asyncio.wait_for(main(), 60))
    assert "done" in text
    assert 2 <= len(seen) <= 3, seen  # at most once a second, the first after one
    assert [progress for progress, _ in seen] == sorted(progress for progress, _ in seen)
    assert seen[0][0] >= 1.0 and seen[0][1] is not None and seen[0][1].startswith("running for ")
    assert seen[-1][1] is not None and seen[-1][1].endswith(", 3,000 bytes of output")  # what the command printed
    assert quick == []  # a call shorter than a second reports nothing


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_clients_hear_when_the_tool_list_changes(transport):
    tests_dir = Path(__file__).parent
    heard: list[str] = []

    async def on_message(message: object) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, mcp_types.ToolListChangedNotification):
            heard.append("tools/list_changed")

    async def exercise(session: ClientSession) -> tuple[bool, list[str], list[str], str]:
        init = await session.initialize()
        capability = bool(init.capabilities.tools and
                          (getattr(init.capabilities.tools, "list_changed", None) or
                           getattr(init.capabilities.tools, "listChanged", None)))
        before = [tool.name for tool in (await session.list_tools()).tools]
        await session.call_tool("grow", {"name": "fresh"})
        for _ in range(50):
            if heard:
                break
            await asyncio.sleep(0.05)
        grown = [tool.name for tool in (await session.list_tools()).tools]
        text = (await session.call_tool("fresh", {})).content[0].text
        await session.call_tool("shrink", {"name": "fresh"})
        for _ in range(50):
            if len(heard) >= 2:
                break
            await asyncio.sleep(0.05)
        after = [tool.name for tool in (await session.list_tools()).tools]
        return capability, [*before, "|", *grown, "|", *after], heard, text

    async def main() -> tuple[bool, list[str], list[str], str]:
        if transport == "stdio":
            params = StdioServerParameters(command=sys.executable, cwd=str(tests_dir),
                                           args=["-m", "agenttools", "serve", "--toolset", "mcp_fixture_growing:build"])
            async with stdio_client(params) as (read, write), \
                    ClientSession(read, write, message_handler=on_message) as session:
                return await exercise(session)
        with http_mcp_server("mcp_fixture_growing:build", None, cwd=tests_dir) as url:
            async with streamable_http_client(url) as streams, \
                    ClientSession(streams[0], streams[1], message_handler=on_message) as session:
                return await exercise(session)

    capability, names, notes, text = asyncio.run(asyncio.wait_for(main(), 60))
    assert capability
    assert names == ["grow", "shrink", "|", "grow", "shrink", "fresh", "|", "grow", "shrink"]
    assert notes == ["tools/list_changed", "tools/list_changed"] and text == "I am fresh"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_sdks_own_client_negotiates_a_session_and_keeps_its_state(project, transport):
    """``mcp.client.Client`` (mode "auto") probes the stateless 2026-07-28 era first: it must land in a session."""
    from mcp.client import Client
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    async def exercise(target: object) -> tuple[str, str]:
        async with Client(target, mode="auto") as client:
            await client.call_tool("bash", {"command": f"cd {project / 'one'}"})
            result = await client.call_tool("bash", {"command": "pwd"})
            return client.protocol_version, result.content[0].text

    if transport == "stdio":
        command = _server_command(project)
        version, text = asyncio.run(asyncio.wait_for(exercise(StdioServerParameters(command=command[0],
                                                                                        args=command[1:])), 60))
    else:
        with http_mcp_server("editor", project) as url:
            version, text = asyncio.run(asyncio.wait_for(exercise(url), 60))
    assert version == LATEST_HANDSHAKE_VERSION
    assert f"{project / 'one'}\n" in text  # the cd of the call before: one toolset for the session


def test_a_stateless_era_request_is_refused_with_the_versions_served(http_server):
    import httpx
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    answer = httpx.post(http_server, headers={"MCP-Protocol-Version": "2026-07-28", "Accept":
                                              "application/json, text/event-stream"},
                        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, timeout=10)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == -32022
    assert error["data"] == {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": "2026-07-28"}
