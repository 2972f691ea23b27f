"""Hangs: FIFOs, devices, commands that read stdin, sleep past their timeout or leave daemons behind — every call
returns within its bound, and closing a toolset leaves no process of its behind.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import pytest

import agenttools

BOUND = 15.0  # seconds: far above what any of these calls needs, far below a hang


def _pids_with(token: str) -> list[int]:
    """Live processes whose command line holds ``token``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if token.encode() in cmdline and state != b"Z":
            found.append(int(entry))
    return found


def _call(reg: agenttools.Registry, tool: str, args: dict[str, object]) -> agenttools.ToolOutput:
    started = time.monotonic()
    out = reg.call(tool, args)
    assert time.monotonic() - started < BOUND, f"{tool} took {time.monotonic() - started:.1f}s"
    return out


@pytest.fixture
def fifo_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("needle\n")
    os.mkfifo(root / "pipe")
    (root / "zero").symlink_to("/dev/zero")
    return root


READS = [
    ("gemini", "read_file", lambda r, p: {"absolute_path": str(r / p)}),
    ("gemini", "write_file", lambda r, p: {"file_path": str(r / p), "content": "x"}),
    ("gemini", "replace", lambda r, p: {"file_path": str(r / p), "old_string": "a", "new_string": "b"}),
    ("editor", "view", lambda r, p: {"path": p}),
    ("editor", "str_replace", lambda r, p: {"path": p, "old_str": "a", "new_str": "b"}),
    ("editor", "create_file", lambda r, p: {"path": p, "content": "x"}),
    ("assistant", "read", lambda r, p: {"path": p}),
    ("assistant", "write", lambda r, p: {"path": p, "content": "x"}),
    ("assistant", "edit", lambda r, p: {"path": p, "old_text": "a", "new_text": "b"}),
    ("coder", "read_file", lambda r, p: {"path": p}),
    ("coder", "edit_file", lambda r, p: {"path": p, "old_str": "a", "new_str": "b"}),
    ("coder", "head", lambda r, p: {"args": p}),
    ("coder", "tail", lambda r, p: {"args": p}),
    ("coder", "cloc", lambda r, p: {"args": p}),
    ("coder", "html_to_markdown", lambda r, p: {"path": p}),
]


@pytest.mark.parametrize(("toolset", "tool", "args"), READS, ids=[f"{t}.{n}" for t, n, _ in READS])
@pytest.mark.parametrize("target", ["pipe", "zero"])
def test_fifos_and_devices_are_refused_at_once(fifo_root, toolset, tool, args, target):
    reg = agenttools.toolset(toolset, root=str(fifo_root))
    out = _call(reg, tool, args(fifo_root, target))
    reg.close()
    assert out.is_error or tool in {"cloc"}, out.text
    assert os.path.exists(fifo_root / "pipe") and not os.path.isfile(fifo_root / "pipe")  # never replaced


WALKS = [
    ("gemini", "search_file_content", {"pattern": "needle"}),
    ("gemini", "glob", {"pattern": "**/*"}),
    ("gemini", "list_directory", {"path": "{root}"}),
    ("editor", "view", {"path": "."}),
    ("assistant", "list", {"path": "."}),
    ("coder", "rg", {"pattern": "needle"}),
    ("coder", "glob", {"pattern": "**/*"}),
    ("coder", "list_files", {"path": "."}),
    ("coder", "cloc", {"args": "."}),
]


@pytest.mark.parametrize(("toolset", "tool", "arguments"), WALKS, ids=[f"{t}.{n}" for t, n, _ in WALKS])
@pytest.mark.parametrize("backend", ["rg", "python"])
def test_walks_pass_fifos_by(fifo_root, monkeypatch, toolset, tool, arguments, backend):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    reg = agenttools.toolset(toolset, root=str(fifo_root))
    args = {k: v.format(root=fifo_root) if isinstance(v, str) else v for k, v in arguments.items()}
    out = _call(reg, tool, args)
    reg.close()
    assert not out.is_error, out.text


def test_the_families_refuse_devices_even_inside_allowed_directories(tmp_path):
    ws = agenttools.Workspace(tmp_path, allow_dirs=[tmp_path, "/dev"])
    for device in ("/dev/zero", "/dev/urandom", "/dev/null"):
        with pytest.raises(agenttools.SpecialFileError):
            agenttools.files.read_text(ws, device)


SHELLS = [
    ("gemini", "run_shell_command", lambda c: {"command": c}),
    ("editor", "bash", lambda c: {"command": c}),
    ("assistant", "exec", lambda c: {"command": c}),
]


@pytest.mark.parametrize(("toolset", "tool", "args"), SHELLS, ids=[f"{t}.{n}" for t, n, _ in SHELLS])
@pytest.mark.parametrize("command", ["cat", "read line; echo got:$line", "python3 -c 'input()'", "head -c 10"])
def test_commands_reading_stdin_get_end_of_file(tmp_path, toolset, tool, args, command):
    reg = agenttools.toolset(toolset, root=str(tmp_path))
    _call(reg, tool, args(command))
    reg.close()


@pytest.mark.parametrize(("toolset", "tool", "args", "options"), [
    ("gemini", "run_shell_command", {}, {"shell_timeout": 1}),
    ("editor", "bash", {"timeout": 1000}, {}),
    ("assistant", "exec", {"timeout": 1}, {}),
])
def test_a_sleep_past_the_timeout_is_killed_with_its_group(tmp_path, toolset, tool, args, options):
    token = f"{secrets.randbelow(10**6) + 10**6}"
    reg = agenttools.toolset(toolset, root=str(tmp_path), **options)
    started = time.monotonic()
    out = reg.call(tool, {"command": f"sleep {token} & sleep {token}", **args})
    assert time.monotonic() - started < 8, out.text
    assert out.is_error or "timed out" in out.text.lower() or "timeout" in out.text.lower(), out.text
    deadline = time.monotonic() + 5
    while _pids_with(f"sleep {token}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pids_with(f"sleep {token}") == []
    reg.close()


DAEMONS = [
    "sleep {t} &",
    "nohup sleep {t} > /dev/null 2>&1 &",
    "setsid sleep {t} > /dev/null 2>&1 &",
    "(setsid sh -c 'sleep {t}' > /dev/null 2>&1 &)",
]


@pytest.mark.parametrize(("toolset", "tool", "args"), SHELLS, ids=[f"{t}.{n}" for t, n, _ in SHELLS])
@pytest.mark.parametrize("daemon", DAEMONS)
def test_no_process_outlives_the_closed_toolset(tmp_path, toolset, tool, args, daemon):
    token = f"{secrets.randbelow(10**6) + 10**6}"
    reg = agenttools.toolset(toolset, root=str(tmp_path))
    _call(reg, tool, args(daemon.format(t=token)))
    deadline = time.monotonic() + 5  # a double-forked daemon may still be starting when the shell has exited
    while not _pids_with(f"sleep {token}") and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        assert _pids_with(f"sleep {token}"), "the daemon should be running until the toolset closes"
    finally:
        reg.close()
    deadline = time.monotonic() + 5
    while _pids_with(f"sleep {token}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pids_with(f"sleep {token}") == []


@pytest.mark.parametrize(("toolset", "tool", "args"), [
    ("editor", "bash", {"command": "setsid sleep {t} > /dev/null 2>&1 & sleep {t}", "run_in_background": True}),
    ("assistant", "process", {"action": "start", "command": "setsid sleep {t} > /dev/null 2>&1 & sleep {t}"}),
])
def test_background_processes_and_their_daemons_die_with_the_toolset(tmp_path, toolset, tool, args):
    token = f"{secrets.randbelow(10**6) + 10**6}"
    reg = agenttools.toolset(toolset, root=str(tmp_path))
    out = _call(reg, tool, {k: v.format(t=token) if isinstance(v, str) else v for k, v in args.items()})
    assert not out.is_error, out.text
    deadline = time.monotonic() + 5
    while len(_pids_with(f"sleep {token}")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_pids_with(f"sleep {token}")) >= 2  # the daemon and the foreground sleep (and their shell)
    reg.close()
    deadline = time.monotonic() + 5
    while _pids_with(f"sleep {token}") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pids_with(f"sleep {token}") == []


IGNORE_FIFOS = [".gitignore", "sub/.gitignore", "sub/.ignore", "sub/.rgignore", ".git/info/exclude",
                ".geminiignore"]
RULE_WALKS = [
    ("gemini", "search_file_content", {"pattern": "needle"}, "needle"),
    ("gemini", "search_file_content", {"pattern": "needle", "path": "sub"}, "needle"),
    ("gemini", "glob", {"pattern": "**/*.txt"}, "a.txt"),
    ("gemini", "list_directory", {"path": "{root}/sub"}, "a.txt"),
    ("coder", "glob", {"pattern": "**/*.txt"}, "a.txt"),
]


@pytest.mark.parametrize("fifo", IGNORE_FIFOS)
@pytest.mark.parametrize(("toolset", "tool", "arguments", "expected"), RULE_WALKS,
                         ids=[f"{t}.{n}-{len(a)}" for t, n, a, _ in RULE_WALKS])
@pytest.mark.parametrize("backend", ["rg", "python"])
def test_an_ignore_file_that_is_a_fifo_blocks_nothing(tmp_path, monkeypatch, fifo, toolset, tool, arguments,
                                                      expected, backend):
    """ripgrep opens every ignore file on its walk and blocks on a FIFO: it is stopped and Python answers."""
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    root = tmp_path / "root"
    (root / ".git" / "info").mkdir(parents=True)
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("needle\n")
    os.mkfifo(root / fifo)
    reg = agenttools.toolset(toolset, root=str(root))
    args = {k: v.format(root=root) if isinstance(v, str) else v for k, v in arguments.items()}
    out = _call(reg, tool, args)
    reg.close()
    assert not out.is_error, out.text
    assert expected in out.text


def test_coder_rg_stops_on_an_ignore_file_that_is_a_fifo(tmp_path):
    os.mkfifo(tmp_path / ".gitignore")
    (tmp_path / "a.txt").write_text("needle\n")
    reg = agenttools.toolset("coder", root=str(tmp_path))
    out = _call(reg, "rg", {"pattern": "needle"})
    reg.close()
    assert out.is_error
    assert "it was opening a FIFO" in out.text


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_an_ignore_file_linked_to_a_device_is_not_read_forever(tmp_path, monkeypatch, backend):
    """ripgrep reads an ignore file linked to /dev/zero as one endless line (2 GB in two seconds): it is stopped."""
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").symlink_to("/dev/zero")
    (tmp_path / "a.txt").write_text("needle\n")
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    out = _call(reg, "search_file_content", {"pattern": "needle"})
    reg.close()
    assert not out.is_error, out.text
    assert "a.txt" in out.text


def test_coder_rg_stops_on_an_ignore_file_linked_to_a_device(tmp_path):
    (tmp_path / ".ignore").symlink_to("/dev/zero")
    (tmp_path / "a.txt").write_text("needle\n")
    reg = agenttools.toolset("coder", root=str(tmp_path))
    out = _call(reg, "rg", {"pattern": "needle"})
    reg.close()
    assert out.is_error
    assert "rg stopped: it took more than 1024 MiB of memory" in out.text
