"""The same hooks through the MCP server (a real client session) and the command line."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import serve_command


def test_serve_logs_every_session_and_serves_only_read_only_tools(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    log = tmp_path / "calls.jsonl"
    command = serve_command("gemini", root, "--audit-log", str(log), "--read-only")

    async def main() -> tuple[list[str], list[str]]:
        params = StdioServerParameters(command=command[0], args=command[1:])
        texts = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            for args in ({"absolute_path": str(root / "a.txt")}, {"absolute_path": "relative.txt"}):
                result = await session.call_tool("read_file", args)
                texts.append(result.content[0].text)
            refused = await session.call_tool("write_file", {"file_path": str(root / "b.txt"), "content": "x"})
            texts.append(refused.content[0].text)
        return names, texts

    names, texts = asyncio.run(asyncio.wait_for(main(), 60))
    assert "read_file" in names and "glob" in names
    assert not {"write_file", "replace", "run_shell_command", "save_memory"} & set(names)
    assert texts[0] == "hello\n" and not (root / "b.txt").exists()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["tool"], line["is_error"]) for line in lines] == [
        ("read_file", False), ("read_file", True), ("write_file", True)]
    ids = [int(line["call_id"]) for line in lines]  # the MCP request ids: the client numbers its requests
    assert ids == list(range(ids[0], ids[0] + 3))
    assert lines[2]["error"] == "unknown_tool" and lines[0]["arguments"] == {"absolute_path": str(root / "a.txt")}


def test_the_command_line_call_appends_to_an_audit_log(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    log = tmp_path / "logs.jsonl"
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "agenttools", "call", "--toolset", "gemini", "--root",
                               str(tmp_path), "--audit-log", str(log), "read_file",
                               json.dumps({"absolute_path": str(tmp_path / "a.txt")})],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0 and done.stdout == "hello\n\n"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 2 and all(line["tool"] == "read_file" and not line["is_error"] for line in lines)
    assert lines[0]["call_id"] != lines[1]["call_id"]
    bad = subprocess.run([sys.executable, "-m", "agenttools", "call", "--toolset", "gemini", "--root",
                          str(tmp_path), "--audit-log", str(tmp_path / "no" / "dir.jsonl"), "glob", "{}"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("agenttools: error: AuditLog: cannot open")
    assert "Traceback" not in bad.stderr


def test_serve_refuses_a_log_it_cannot_open_before_listening(tmp_path):
    done = subprocess.run(serve_command("gemini", tmp_path, "--audit-log", str(tmp_path / "x" / "y.jsonl")),
                          capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "AuditLog: cannot open" in done.stderr and Path(tmp_path).exists()
