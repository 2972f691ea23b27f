"""The `agenttools` command, run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
TOOLSET = "cli_fixture_tools:build"


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "agenttools", *args], capture_output=True, text=True, env=env,
                          input=stdin, cwd=cwd, timeout=60, check=False)


def test_tools_prints_definitions_in_each_format(tmp_path):
    for fmt in ("openai", "openai-responses", "anthropic", "gemini", "mcp", "json-schema"):
        proc = run("tools", "--toolset", TOOLSET, "--root", str(tmp_path), "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        definitions = json.loads(proc.stdout)
        assert len(definitions) == 2
    proc = run("tools", "--toolset", TOOLSET, "--root", str(tmp_path), "--format", "openai", "--strict")
    assert [d["function"]["strict"] for d in json.loads(proc.stdout)] == [True, True]
    mcp = json.loads(run("tools", "--toolset", TOOLSET, "--root", str(tmp_path), "--format", "mcp").stdout)
    assert mcp[0]["annotations"]["readOnlyHint"] is True


def test_call_success_and_tool_error(tmp_path):
    (tmp_path / "hello.txt").write_text("hi there\n")
    proc = run("call", "--toolset", TOOLSET, "--root", str(tmp_path), "read_text", '{"path": "hello.txt"}')
    assert (proc.returncode, proc.stdout) == (0, "hi there\n\n")
    proc = run("call", "--toolset", TOOLSET, "--root", str(tmp_path), "read_text", '{"path": "../x"}')
    assert proc.returncode == 1
    assert proc.stdout.startswith("Error: path ")
    assert "is outside the allowed directories" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr
    proc = run("call", "--toolset", TOOLSET, "add", '{"a": "x"}')
    assert proc.returncode == 1
    assert proc.stdout == "Error: invalid arguments for add: argument 'a' must be integer, got string\n"


def test_call_reads_arguments_from_stdin():
    proc = run("call", "--toolset", TOOLSET, "add", "-", stdin='{"a": 40}')
    assert (proc.returncode, proc.stdout) == (0, "42\n")


def test_call_default_arguments_and_invalid_json():
    assert run("call", "--toolset", TOOLSET, "add").returncode == 1  # 'a' is required
    proc = run("call", "--toolset", TOOLSET, "add", "{not json")
    assert proc.returncode == 1
    assert proc.stdout.startswith("Error: invalid arguments for add: arguments are not valid JSON")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tools", "--toolset", "nope"], "unknown toolset 'nope'"),
        (["tools", "--toolset", "no_such_module:x"], "cannot import toolset"),
        (["tools", "--toolset", TOOLSET, "--format", "bedrock"], "invalid choice: 'bedrock'"),
        (["call", "--toolset", TOOLSET, "nope", "{}"], "has no tool 'nope'"),
        (["call", "--toolset", "cli_fixture_tools:READY", "--root", ".", "x"], "takes no options"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_usage_errors_exit_2(args, message):
    proc = run(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_help_everywhere():
    for args in ([], ["tools"], ["call"], ["serve"]):
        proc = run(*args, "--help")
        assert proc.returncode == 0
        assert "usage: agenttools" in proc.stdout
    call_help = " ".join(run("call", "--help").stdout.split())
    assert "Exit 0 on success, 1 when the tool reports an error, 2 on usage errors." in call_help


def test_toolset_options_from_the_command_line(tmp_path):
    (tmp_path / "big.txt").write_text("x" * 2048)
    (tmp_path / ".env").write_text("SECRET=1")
    proc = run("call", "--toolset", "editor", "--root", str(tmp_path), "--max-file-size", "1KB", "view",
               '{"path": "big.txt"}')
    assert (proc.returncode, proc.stdout) == (1, f"[FILE_TOO_LARGE] file {tmp_path}/big.txt is 2048 bytes, exceeds "
                                                 "maximum 1024 bytes\n")
    proc = run("call", "--toolset", "editor", "--root", str(tmp_path), "--deny-dir", "**/.env", "view",
               '{"path": ".env"}')
    assert proc.stdout.startswith("[ACCESS_DENIED]")
    proc = run("call", "--toolset", "editor", "--root", str(tmp_path), "--allow-dir", "/", "view",
               '{"path": "/etc/hostname"}')
    assert proc.returncode == 0
    proc = run("call", "--toolset", "editor", "--root", str(tmp_path), "--option", "bash_timeout=0.3", "bash",
               '{"command": "sleep 5"}')
    assert proc.stdout.startswith("Command timed out after 300ms")
    assert run("tools", "--toolset", "editor", "--root", str(tmp_path), "--option", "nonsense").returncode == 2
    proc = run("tools", "--toolset", "editor", "--root", str(tmp_path), "--option", "bogus=1")
    assert proc.returncode == 2
    assert proc.stderr == ("agenttools: error: toolset 'editor' has no option 'bogus' (its options: root, "
                           "allow_dirs, deny_dirs, max_file_size, bash_timeout, background_timeout, max_tasks)\n")


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "agenttools"
    assert script.exists()
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    proc = subprocess.run([str(script), "call", "--toolset", TOOLSET, "add", '{"a": 1, "b": 1}'],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert (proc.returncode, proc.stdout) == (0, "2\n")


@pytest.mark.parametrize("toolset", ["gemini", "editor", "assistant", "coder", "content"])
def test_tools_for_every_toolset_and_format(toolset, tmp_path, capsys):
    from agenttools.cli import main

    options = ["--root", str(tmp_path)]
    if toolset == "content":
        config = tmp_path / "guide.json"
        config.write_text(json.dumps({"docroot": ".", "categories": [{"name": "docs", "dir": "."}]}))
        options = ["--config", str(config)]
    for fmt in ("openai", "openai-responses", "anthropic", "gemini", "mcp", "json-schema"):
        assert main(["tools", "--toolset", toolset, *options, "--format", fmt]) == 0
        definitions = json.loads(capsys.readouterr().out)
        assert len(definitions) >= 3


def test_content_call_with_config(tmp_path):
    (tmp_path / "intro.md").write_text("# Intro\n")
    config = tmp_path / "guide.toml"
    config.write_text('docroot = "."\n[[categories]]\nname = "docs"\ndir = "."\n')
    proc = run("call", "--toolset", "content", "--config", str(config), "get_content",
               '{"category_or_collection": "docs"}')
    assert (proc.returncode, proc.stdout) == (0, '{"success": true, "value": "# Intro\\n"}\n')
