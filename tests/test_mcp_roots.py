"""``agenttools serve --roots``: a session's allowed directories come from its MCP client's roots, and follow them.

Driven by the official ``mcp`` client, over stdio and streamable HTTP, with a ``list_roots_callback`` whose answer
the test changes before it sends ``notifications/roots/list_changed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp.types as mcp_types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import http_mcp_server, serve_command


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for name in ("a", "b", "with space", "cli"):
        made[name] = tmp_path / name
        made[name].mkdir()
        (made[name] / "note.txt").write_text(f"in {name}\n")
    (tmp_path / "plain.txt").write_text("a file, not a directory\n")
    (tmp_path / "link").symlink_to(made["b"])
    return made


class Client:
    """One client session whose roots the test sets; counts how often the server asked for them."""

    def __init__(self, session: ClientSession, roots: list[str]) -> None:
        self.session = session
        self.roots = roots
        self.asked = 0

    async def set_roots(self, *uris: str) -> None:
        self.roots[:] = uris
        with warnings.catch_warnings():  # roots are deprecated by MCP 2026-07-28; clients still send them
            warnings.simplefilter("ignore")
            await self.session.send_roots_list_changed()

    async def text(self, tool: str, arguments: dict[str, Any]) -> str:
        result = await self.session.call_tool(tool, arguments)
        return "\n".join(block.text for block in result.content if isinstance(block, mcp_types.TextContent))


@contextlib.asynccontextmanager
async def connected(command_or_url: list[str] | str, roots: list[str] | None) -> AsyncIterator[Client]:
    """A client session over stdio (a command) or streamable HTTP (a URL); ``roots=None``: no roots capability."""
    holder: list[Client] = []

    async def list_roots(context: Any) -> mcp_types.ListRootsResult:
        holder[0].asked += 1
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=uri) for uri in holder[0].roots])

    callback = list_roots if roots is not None else None
    async with contextlib.AsyncExitStack() as stack:
        if isinstance(command_or_url, str):
            read, write, *_ = await stack.enter_async_context(streamable_http_client(command_or_url))
        else:
            params = StdioServerParameters(command=command_or_url[0], args=command_or_url[1:])
            read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(ClientSession(read, write, list_roots_callback=callback))
        client = Client(session, roots if roots is not None else [])
        holder.append(client)
        await session.initialize()
        yield client


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 60))


async def follow(client: Client, dirs: dict[str, Path]) -> list[str]:
    """Read inside and outside the roots, change them, read again: the texts the model would see."""
    read = "read_file"
    seen = [await client.text(read, {"absolute_path": str(dirs["a"] / "note.txt")}),
            await client.text(read, {"absolute_path": str(dirs["b"] / "note.txt")})]
    await client.set_roots(dirs["b"].as_uri(), dirs["with space"].as_uri())
    seen += [await client.text(read, {"absolute_path": str(dirs["a"] / "note.txt")}),
             await client.text(read, {"absolute_path": str(dirs["with space"] / "note.txt")}),
             await client.text("glob", {"pattern": "*.txt"})]  # the first root is the new root
    return seen


def expected(dirs: dict[str, Path]) -> list[str]:
    outside = "Error: Invalid parameters provided. Reason: File path must be within the root directory ({root}): {path}"
    return ["in a\n",
            outside.format(root=dirs["a"], path=dirs["b"] / "note.txt"),
            outside.format(root=dirs["b"], path=dirs["a"] / "note.txt"),
            "in with space\n",
            f'Found 1 file(s) matching "*.txt" within {dirs["b"]}, sorted by modification time (newest first):\n'
            f'{dirs["b"] / "note.txt"}']


def test_a_session_takes_and_follows_its_clients_roots_over_stdio(dirs):
    async def main() -> tuple[list[str], int]:
        async with connected(serve_command("gemini", dirs["cli"], "--roots"), [dirs["a"].as_uri()]) as client:
            seen = await follow(client, dirs)
            return seen, client.asked

    seen, asked = run(main())
    assert seen == expected(dirs)
    assert asked == 2  # once for the first request, once after the change: not once a call


def test_a_session_takes_and_follows_its_clients_roots_over_http(dirs):
    with http_mcp_server("gemini", dirs["cli"], "--roots") as url:
        async def main() -> list[str]:
            async with connected(url, [dirs["a"].as_uri()]) as client:
                return await follow(client, dirs)

        assert run(main()) == expected(dirs)


def test_without_the_flag_roots_are_not_even_asked_for(dirs):
    async def main() -> tuple[str, int]:
        async with connected(serve_command("gemini", dirs["cli"]), [dirs["a"].as_uri()]) as client:
            text = await client.text("read_file", {"absolute_path": str(dirs["a"] / "note.txt")})
            return text, client.asked

    text, asked = run(main())
    assert asked == 0
    assert text.startswith("Error: Invalid parameters provided. Reason: File path must be within the root "
                           f"directory ({dirs['cli']})")


def test_roots_that_name_no_directory_here_leave_the_command_lines(dirs, tmp_path):
    unusable = [(tmp_path / "missing").as_uri(), (tmp_path / "plain.txt").as_uri(), "file://elsewhere/tmp",
                f"{tmp_path.as_uri()}/a?x=1"]

    async def main() -> list[str]:
        async with connected(serve_command("gemini", dirs["cli"], "--roots"), unusable) as client:
            first = await client.text("read_file", {"absolute_path": str(dirs["cli"] / "note.txt")})
            await client.set_roots(*unusable, (tmp_path / "link").as_uri())  # a symlink to b: b, resolved
            second = await client.text("read_file", {"absolute_path": str(dirs["b"] / "note.txt")})
            third = await client.text("read_file", {"absolute_path": str(dirs["cli"] / "note.txt")})
            return [first, second, third]

    first, second, third = run(main())
    assert (first, second) == ("in cli\n", "in b\n")
    assert third.endswith(f"within the root directory ({dirs['b']}): {dirs['cli'] / 'note.txt'}")


def test_a_server_with_no_root_needs_its_clients_roots(dirs):
    async def main() -> tuple[list[str], str, str]:
        async with connected(serve_command("gemini", None, "--roots"), None) as rootless:
            names = [tool.name for tool in (await rootless.session.list_tools()).tools]
            refused = await rootless.text("read_file", {"absolute_path": str(dirs["a"] / "note.txt")})
        async with connected(serve_command("gemini", None, "--roots"), [dirs["a"].as_uri()]) as rooted:
            served = await rooted.text("glob", {"pattern": "*.txt"})
        return names, refused, served

    names, refused, served = run(main())
    assert "read_file" in names and "run_shell_command" in names
    assert refused == ("the toolset could not start for this session: the client declared no roots naming a "
                       "directory on this machine, and the server was started without --root")
    assert served.endswith(str(dirs["a"] / "note.txt"))


def test_a_call_running_when_the_roots_change_finishes_on_the_old_toolset(dirs):
    async def main() -> tuple[str, str, str]:
        async with connected(serve_command("gemini", dirs["cli"], "--roots"),
                             [dirs["a"].as_uri()]) as client:
            slow = asyncio.create_task(client.text("run_shell_command",
                                                   {"command": "sleep 1.5; cat note.txt; pwd"}))
            await asyncio.sleep(0.5)
            await client.set_roots(dirs["b"].as_uri())
            now = await client.text("run_shell_command", {"command": "cat note.txt"})
            return await slow, now, await client.text("read_file", {"absolute_path": str(dirs["a"] / "x")})

    slow, now, refused = run(main())
    assert "in a" in slow and str(dirs["a"]) in slow and "in b" in now
    assert f"within the root directory ({dirs['b']})" in refused


def test_roots_need_a_toolset_with_allowed_directories(tmp_path):
    done = subprocess.run([sys.executable, "-m", "agenttools", "serve", "--toolset", "content", "--docroot",
                           str(tmp_path), "--roots"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.strip() == ("agenttools: error: --roots: toolset 'content' takes no allowed directories to take "
                                   "from the roots")
