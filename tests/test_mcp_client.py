"""``Registry.from_mcp``: a registry whose tools live in an MCP server, over stdio and streamable HTTP.

Over our own server every built-in toolset answers byte for byte what the local toolset answers (texts, content
blocks, errors, structured results, definitions in every format); against the npm reference filesystem server
the registry works as it does with any server we did not write.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools.mcp_client import RemoteError
from agenttools.sdk import FORMATS
from conftest import (
    cancel_and_wait_gone,
    free_port,
    http_mcp_server,
    process_alive,
    read_pid,
    serve_command,
    tiny_png,
    upstream_unavailable,
    wait_port,
)

FS_ENTRY = Path("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("hello\nworld\n")
    (root / "sub" / "b.py").write_text("print('b')\n")
    (root / "img.png").write_bytes(tiny_png())
    (root / "index.md").write_text("# Title\n\nSome docs.\n")
    return root


def _calls(root: Path) -> dict[str, tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]]:
    """Per toolset: its options, and calls that succeed, fail, are malformed, and return images."""
    a, img, missing = str(root / "a.txt"), str(root / "img.png"), str(root / "missing.txt")
    return {
        "gemini": ({}, [("read_file", {"absolute_path": a}), ("read_file", {"absolute_path": img}),
                        ("read_file", {"absolute_path": missing}), ("read_file", {"absolute_path": 5}),
                        ("glob", {"pattern": "**/*.py"}), ("list_directory", {"path": str(root)}),
                        ("search_file_content", {"pattern": "wor"}), ("read_file", {})]),
        "editor": ({}, [("view", {"path": "a.txt"}), ("view", {"path": "img.png"}), ("view", {"path": "missing.txt"}),
                        ("str_replace", {"path": "a.txt", "old_str": "nope", "new_str": "x"}),
                        ("view", {"path": 3})]),
        "assistant": ({}, [("read", {"path": "a.txt"}), ("read", {"path": "img.png"}), ("read", {"path": missing}),
                           ("list", {"path": "."}), ("read", {})]),
        "coder": ({}, [("read_file", {"path": "a.txt"}), ("read_file", {"path": "missing.txt"}),
                       ("glob", {"pattern": "**/*.py"}), ("rg", {"args": "-n world"}), ("list_files", {"path": 7})]),
        "filesystem": ({}, [("read_text_file", {"path": a}), ("read_media_file", {"path": img}),
                            ("read_text_file", {"path": missing}), ("list_allowed_directories", {}),
                            ("directory_tree", {"path": str(root)}), ("read_text_file", {"path": 1})]),
        "openai": ({}, [("apply_patch", {"input": "*** Begin Patch\n*** End Patch"}),
                        ("apply_patch", {"input": "nonsense"}), ("shell", {"command": ["cat", "a.txt"]})]),
        "anthropic": ({}, [("str_replace_based_edit_tool", {"command": "view", "path": a}),
                           ("str_replace_based_edit_tool", {"command": "view", "path": missing}),
                           ("str_replace_based_edit_tool", {"command": "view", "path": img})]),
        "content": ({"docroot": str(root)}, [("get_content", {}), ("get_category_content", {"category": "nope"})]),
    }


def _flags(options: dict[str, Any], root: Path) -> list[str]:
    if "docroot" in options:
        return ["--docroot", options["docroot"]]
    return ["--root", str(root)]


def _same(local: agenttools.ToolOutput, remote: agenttools.ToolOutput) -> tuple[Any, ...]:
    return (local.text, local.is_error, local.content, local.structured), \
        (remote.text, remote.is_error, remote.content, remote.structured)


@pytest.mark.parametrize("name", sorted(_calls(Path("/")).keys()))
def test_every_toolset_answers_over_mcp_what_it_answers_here(name: str, project: Path):
    options, calls = _calls(project)[name]
    command = [sys.executable, "-m", "agenttools", "serve", "--toolset", name, *_flags(options, project)]
    local_options = options or {"root": str(project)}
    with agenttools.toolset(name, **local_options) as local, agenttools.Registry.from_mcp(command) as remote:
        assert remote.names() == local.names()
        for fmt in FORMATS:
            assert remote.definitions(fmt) == local.definitions(fmt), fmt
        for tool in local:
            theirs = remote[tool.name]
            hints = (tool.read_only, tool.is_destructive, tool.idempotent, tool.open_world, tool.title)
            assert (theirs.read_only, theirs.is_destructive, theirs.idempotent, theirs.open_world,
                    theirs.title) == hints
        for tool_name, arguments in calls:
            here, there = _same(local.call(tool_name, arguments), remote.call(tool_name, arguments))
            assert there == here, (tool_name, arguments)


def test_structured_results_and_output_schemas_come_back_as_they_are(tmp_path: Path):
    tests_dir = Path(__file__).parent
    from schema.typed_results_fixture import build

    command = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
               "from agenttools.cli import main; sys.exit(main(['serve', '--toolset', "
               "'schema.typed_results_fixture:build']))", str(tests_dir)]
    with build() as local, agenttools.Registry.from_mcp(command) as remote:
        for tool in local:
            assert remote[tool.name].output_schema == tool.output_schema, tool.name
        for name, arguments in (("report", {"n": 2}), ("numbers", {"n": 3}), ("maybe", {"n": 0}), ("plain", {}),
                                ("stats", {"values": [1.0, 2.0]}), ("report", {"n": "x"})):
            here, there = _same(local.call(name, arguments), remote.call(name, arguments))
            assert there == here, name
        assert remote.call("numbers", {"n": 2}).structured == [0, 1]  # unwrapped from {"result": [0, 1]}


def test_over_http_cancelling_a_call_kills_its_command(project: Path):
    pid_file = project / "pid"
    with http_mcp_server("gemini", project) as url, agenttools.Registry.from_mcp(url) as remote:
        assert remote.call("read_file", {"absolute_path": str(project / "a.txt")}).text == "hello\nworld\n"

        async def main() -> int:
            task = asyncio.ensure_future(remote.acall("run_shell_command",
                                                      {"command": f"echo $$ > {pid_file}; exec sleep 30"}))
            pid = await asyncio.to_thread(read_pid, pid_file)
            await cancel_and_wait_gone(task, pid)  # the client sends notifications/cancelled
            return pid

        assert not process_alive(asyncio.run(asyncio.wait_for(main(), 60)))
        assert remote.call("read_file", {"absolute_path": str(project / "a.txt")}).text == "hello\nworld\n"


def test_hooks_composition_and_adapters_work_on_a_remote_registry(project: Path):
    seen: list[str] = []

    class Recorder:
        def before(self, call: agenttools.ToolCall) -> None:
            seen.append(call.name)

    with agenttools.Registry.from_mcp(serve_command("gemini", project)) as remote:
        hooked = remote.with_hooks(Recorder()).select(["read_file"]).prefixed("ws_")
        assert hooked.names() == ("ws_read_file",)
        assert hooked.call("ws_read_file", {"absolute_path": str(project / "a.txt")}).text == "hello\nworld\n"
        (tool,) = hooked.to_langchain()
        assert tool.invoke({"absolute_path": str(project / "a.txt")}) == "hello\nworld\n"
    assert seen == ["ws_read_file", "ws_read_file"]  # as the model called it; the server got read_file


def test_close_ends_the_server_process(project: Path):
    remote = agenttools.Registry.from_mcp(serve_command("gemini", project, "--sandbox", "none"))
    out = remote.call("run_shell_command", {"command": "echo $PPID"})
    server_pid = int(out.text.split("Stdout: ")[1].split()[0])  # the shell's parent: the server
    assert process_alive(server_pid)
    remote.close()
    deadline = time.monotonic() + 15
    while process_alive(server_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(server_pid)


def test_a_dropped_http_session_is_opened_again_once(project: Path):
    port = free_port()
    command = serve_command("gemini", project, "--transport", "http", "--port", str(port))

    def start() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(port, proc)
        return proc

    def stop(proc: subprocess.Popen[bytes]) -> None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)

    proc = start()
    remote = agenttools.Registry.from_mcp(f"http://127.0.0.1:{port}/mcp")
    try:
        read = {"absolute_path": str(project / "a.txt")}
        assert remote.call("read_file", read).text == "hello\nworld\n"
        stop(proc)
        proc = start()  # a new server: the old session id means nothing to it
        assert remote.call("read_file", read).text == "hello\nworld\n"
        stop(proc)
        gone = remote.call("read_file", read)  # nobody listens: one try to open a session, then the error
        assert gone.is_error
        assert gone.text.startswith(f"the MCP session with http://127.0.0.1:{port}/mcp was lost (")
        assert gone.text.endswith(") and could not be opened again")
    finally:
        remote.close()
        if proc.poll() is None:
            stop(proc)


def test_targets_that_cannot_be_opened_say_why(tmp_path: Path):
    with pytest.raises(RemoteError, match=r"^cannot open an MCP session with .*nonexistent-command-xyz"):
        agenttools.Registry.from_mcp(["nonexistent-command-xyz"])
    with pytest.raises(TypeError, match="takes a URL, a command"):
        agenttools.Registry.from_mcp(42)


def test_an_open_client_session_is_used_on_its_own_loop(project: Path):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = serve_command("editor", project)

    async def main() -> tuple[str, str, str]:
        params = StdioServerParameters(command=command[0], args=command[1:])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            with pytest.raises(TypeError, match=r"await agenttools\.Registry\.afrom_mcp\(session\)"):
                agenttools.Registry.from_mcp(session)
            elsewhere = await asyncio.to_thread(agenttools.Registry.from_mcp, session)  # from another thread
            assert elsewhere.names() == ("view", "str_replace", "create_file", "bash", "task_output")
            remote = await agenttools.Registry.afrom_mcp(session)
            first = (await remote.acall("bash", {"command": f"cd {project / 'sub'}"})).text
            second = (await remote.acall("bash", {"command": "pwd"})).text
            third = await asyncio.to_thread(remote.call, "view", {"path": "b.py"})  # from another thread
            return first, second, third.text

    _, pwd, view = asyncio.run(asyncio.wait_for(main(), 60))
    assert f"{project / 'sub'}\n" in pwd  # one session: the shell kept its cwd
    assert view == "1\tprint('b')\n"


@pytest.fixture(scope="module")
def fs_server() -> Path:
    for home in (os.environ.get("AGENTTOOLS_FS_SERVER"), str(Path.home() / ".cache/agenttools/fs-upstream")):
        if home and (Path(home) / FS_ENTRY).is_file():
            return Path(home) / FS_ENTRY
    upstream_unavailable("the npm filesystem server is not installed (.ci/run installs it)")
    raise AssertionError("unreachable")


def test_a_server_we_did_not_write(fs_server: Path, project: Path):
    if subprocess.run(["node", "--version"], capture_output=True, check=False).returncode != 0:
        upstream_unavailable("node is needed to run the MCP filesystem server")
    with agenttools.Registry.from_mcp(["node", str(fs_server), str(project)]) as remote:
        assert "read_text_file" in remote.names() and remote["read_text_file"].read_only
        assert remote.call("read_text_file", {"path": str(project / "a.txt")}).text == "hello\nworld\n"
        assert remote.call("list_allowed_directories", {}).text == f"Allowed directories:\n{project}"
        image = remote.call("read_media_file", {"path": str(project / "img.png")})
        assert [type(b).__name__ for b in image.content] == ["ImageBlock"]
        assert image.content[0].to_bytes() == tiny_png()
        outside = remote.call("read_text_file", {"path": "/etc/hostname"})
        assert outside.is_error and "Access denied" in outside.text
        # validated here, against the server's schema, before anything is sent
        refused = remote.call("read_text_file", {"path": 5})
        assert refused.text == "Error: invalid arguments for read_text_file: argument 'path' must be string, got integer"


def test_the_tool_list_follows_the_servers_changes():
    tests_dir = Path(__file__).parent
    command = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
               "from agenttools.cli import main; sys.exit(main(['serve', '--toolset', 'mcp_fixture_growing:build']))",
               str(tests_dir)]

    def settle(remote: agenttools.Registry, present: bool) -> None:
        deadline = time.monotonic() + 10
        while ("fresh" in remote) != present and time.monotonic() < deadline:
            time.sleep(0.05)

    with agenttools.Registry.from_mcp(command) as remote:
        assert remote.names() == ("grow", "shrink")
        assert remote.call("grow", {"name": "fresh"}).text == "added fresh"
        settle(remote, True)  # notifications/tools/list_changed, then tools/list
        assert remote.names() == ("grow", "shrink", "fresh")
        assert remote.call("fresh", {}).text == "I am fresh"
        remote.call("shrink", {"name": "fresh"})
        settle(remote, False)
        assert remote.names() == ("grow", "shrink")


def test_closing_during_a_call_ends_it_and_later_calls_say_closed(project: Path):
    remote = agenttools.Registry.from_mcp(serve_command("gemini", project))
    answers: list[agenttools.ToolOutput] = []
    thread = __import__("threading").Thread(
        target=lambda: answers.append(remote.call("run_shell_command", {"command": "sleep 20"})))
    thread.start()
    time.sleep(1.0)
    started = time.monotonic()
    remote.close()
    thread.join(30)
    assert not thread.is_alive() and time.monotonic() - started < 15
    assert answers[0].is_error and answers[0].text.endswith("was closed during the call")
    after = remote.call("read_file", {"absolute_path": str(project / "a.txt")})
    assert after.is_error and after.text.endswith("is closed")


def test_text_json_cannot_carry_is_refused_here_and_the_session_lives_on(project: Path):
    with agenttools.Registry.from_mcp(serve_command("editor", project)) as remote:
        remote.call("bash", {"command": f"cd {project / 'sub'}"})
        refused = remote.call("view", {"path": "x\udcff"})
        assert refused.is_error and "not valid Unicode" in refused.text
        assert f"{project / 'sub'}\n" in remote.call("bash", {"command": "pwd"}).text  # the same session


def test_odd_tools_of_other_servers_are_skipped_with_a_warning_not_fatal():
    from agenttools.mcp_client import usable_tools

    async def run(name: str, arguments: dict[str, Any]) -> agenttools.ToolOutput:
        return agenttools.ToolOutput(text=name)

    schema = {"type": "object", "properties": {}}
    definitions = [{"name": "plain", "inputSchema": schema},  # no description: described by its name
                   {"name": "has space", "description": "x", "inputSchema": schema},
                   {"name": "plain", "description": "again", "inputSchema": schema},
                   {"name": "broken", "description": "x", "inputSchema": {"type": "object", "properties": 5}}]
    with pytest.warns(UserWarning, match="^MCP tool .* skipped: ") as caught:
        tools = usable_tools(definitions, run)
    assert [t.name for t in tools] == ["plain"] and tools[0].description == "plain"
    assert sorted(str(w.message).split(" skipped")[0] for w in caught) == [
        "MCP tool 'broken'", "MCP tool 'has space'", "MCP tool 'plain'"]
