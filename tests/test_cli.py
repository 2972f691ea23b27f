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
                           "allow_dirs, deny_dirs, max_file_size, bash_timeout, background_timeout, max_tasks, "
                           "edit_extensions, sandbox, network, memory_limit, max_processes)\n")


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "agenttools"
    assert script.exists()
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    proc = subprocess.run([str(script), "call", "--toolset", TOOLSET, "add", '{"a": 1, "b": 1}'],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert (proc.returncode, proc.stdout) == (0, "2\n")


@pytest.mark.parametrize("toolset", ["gemini", "editor", "assistant", "coder", "content", "filesystem"])
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


def test_tools_of_the_filesystem_toolset_need_no_directory(capsys):
    from agenttools.cli import main

    assert main(["tools", "--toolset", "filesystem", "--format", "mcp"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 14


def test_content_call_with_config(tmp_path):
    (tmp_path / "intro.md").write_text("# Intro\n")
    config = tmp_path / "guide.toml"
    config.write_text('docroot = "."\n[[categories]]\nname = "docs"\ndir = "."\n')
    proc = run("call", "--toolset", "content", "--config", str(config), "get_content",
               '{"category_or_collection": "docs"}')
    assert (proc.returncode, proc.stdout) == (0, '{"success": true, "value": "# Intro\\n"}\n')


# --- the command never prints a traceback; each mistake is one line that says what to do -------------------------

def _one_line(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("agenttools: error: "), proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def test_bad_options_are_one_line_usage_errors(tmp_path):
    root = str(tmp_path)
    _one_line(run("call", "--toolset", "gemini", "--root", root, "--shell-timeout", "abc", "glob",
                  '{"pattern": "*"}'), 2, "'shell_timeout'", "positive number of seconds", "'abc'")
    _one_line(run("call", "--toolset", "editor", "--root", root, "--option", "background_timeout=abc", "bash",
                  '{"command": "true"}'), 2, "'background_timeout'")
    _one_line(run("tools", "--toolset", "editor", "--root", root, "--option", "nonsense"), 2, "KEY=VALUE")
    _one_line(run("call", "--toolset", "coder", "read_file", '{"path": "x"}'), 2, "needs the option 'root'")
    _one_line(run("call", "--toolset", "coder", "--root", str(tmp_path / "missing"), "read_file", "{}"), 2,
              "does not exist")
    _one_line(run("tools", "--toolset", "nope"), 2, "unknown toolset 'nope'")
    _one_line(run("tools", "--toolset", "coder", "--root", root, "--allow-private-network", "--max-file-size",
                  "lots"), 2, "'max_file_size'")
    _one_line(run("call", "--toolset", "coder", "--root", root, "nope"), 2, "has no tool 'nope'")
    proc = run("serve", "--toolset", "coder", "--root", root, "--transport", "http", "--port", "99999")
    assert proc.returncode == 2 and "port must be between 1 and 65535" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_port_in_use_is_one_line(tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = run("serve", "--toolset", "coder", "--root", str(tmp_path), "--transport", "http", "--port",
                   str(port))
    _one_line(proc, 1, f"cannot listen on 127.0.0.1:{port}: it is already in use")


def test_definitions_need_no_root():
    proc = run("tools", "--toolset", "gemini", "--format", "openai")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["function"]["name"] == "list_directory"


def test_flags_are_the_toolsets_own_options():
    gemini = run("call", "--toolset", "gemini", "--help").stdout
    assert "--shell-timeout" in gemini and "--deny" in gemini and "--max-matches" in gemini
    assert "--bash-timeout" not in gemini and "--deny-dirs" not in gemini
    editor = run("call", "--toolset", "editor", "--help").stdout
    assert "--deny-dirs" in editor and "--bash-timeout" in editor and "--shell-timeout" not in editor
    content = run("call", "--toolset", "content", "--help").stdout
    assert "--config" in content and "--max-total-size" in content and "--allow-dirs" not in content


def test_typed_flags_reach_the_toolset(tmp_path):
    (tmp_path / ".env").write_text("TOKEN=x\n")
    proc = run("call", "--toolset", "coder", "--root", str(tmp_path), "--deny", "**/.env", "read_file",
               '{"path": ".env"}')
    assert (proc.returncode, proc.stdout) == (1, "Error: path not allowed: .env\n")
    proc = run("call", "--toolset", "gemini", "--root", str(tmp_path), "--shell-timeout", "0.5",
               "run_shell_command", '{"command": "sleep 5"}')
    assert "Command timed out after 0.5 seconds." in proc.stdout


def test_a_custom_toolset_is_found_from_the_current_directory(tmp_path):
    (tmp_path / "my_tools.py").write_text(
        "import agenttools\nreg = agenttools.Registry()\n\n@reg.tool\ndef hello() -> str:\n"
        "    \"\"\"Say hello.\"\"\"\n    return 'hello from here'\n")
    script = Path(sys.executable).parent / "agenttools"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([str(script), "call", "--toolset", "my_tools:reg", "hello"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=60, check=False)
    assert (proc.returncode, proc.stdout) == (0, "hello from here\n"), proc.stderr


def test_serve_over_http_says_where_it_listens(tmp_path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "agenttools", "serve", "--toolset", "coder", "--root",
                             str(tmp_path), "--transport", "http", "--port", str(port)],
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        line = proc.stderr.readline()
        assert line == f"agenttools: serving the coder toolset over MCP at http://127.0.0.1:{port}/mcp\n"
    finally:
        proc.terminate()
        proc.wait(20)
        proc.stderr.close()
