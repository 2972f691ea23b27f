"""The shell family: run ``bash -c`` in its own process group, with bounded output and a timeout that kills the group.

stdin is ``/dev/null``; the environment is the caller's plus ``GIT_TERMINAL_PROMPT=0``, ``PAGER=cat`` and
``GIT_PAGER=cat`` so nothing waits for a human. Output is collected until bash exits (what background children
print later is not waited for), each stream capped in memory with the middle elided. Given a
:class:`~agenttools.sandbox.Sandbox` (``sandbox=``), the command runs inside it; the result reads the same.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import attrs

from agenttools._calls import CallScope, current_progress, current_scope
from agenttools._display import MarkdownRepr
from agenttools.errors import SandboxError
from agenttools.sandbox import Sandbox, is_namespace_init, spawn

__all__ = ["DEFAULT_MAX_OUTPUT", "DEFAULT_TIMEOUT", "SESSION_VARIABLE", "ShellResult", "kill_group", "kill_session",
           "new_session", "non_interactive_env", "run_command", "run_shell", "signal_group", "strip_ansi"]

DEFAULT_TIMEOUT = 600.0
"""Seconds before a command's process group is killed."""
DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024
"""Bytes kept per stream; beyond it the middle is replaced by a marker."""
SESSION_VARIABLE = "AGENTTOOLS_SESSION"
"""The environment variable that marks every process a session started (see :func:`kill_session`)."""
_KILL_GRACE = 0.2
_DRAIN_AFTER_EXIT = 0.05
_GIVE_UP_AFTER_KILL = 10.0
_ANSI = re.compile(
    r"[\u001B\u009B][\[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?"
    r"\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]))"
)


def strip_ansi(text: str) -> str:
    """Remove ANSI escape sequences (colours, cursor moves), as the npm ``strip-ansi`` package does."""
    return _ANSI.sub("", text)


@attrs.frozen(kw_only=True)
class ShellResult(MarkdownRepr):
    """What a command did. A non-zero exit is a result, not an error."""

    command: str
    """The command as given."""
    cwd: Path
    """The directory it ran in."""
    stdout: str
    """Standard output (ANSI codes removed), capped."""
    stderr: str
    """Standard error (ANSI codes removed), capped."""
    exit_code: int | None
    """bash's exit status; None when it was killed by a signal."""
    signal: int | None
    """The signal number that killed bash, or None."""
    pgid: int | None
    """The process group bash led (its pid), or None if it never started."""
    background_pids: tuple[int, ...] = ()
    """Members of the group still alive when bash exited (``cmd &`` children)."""
    timed_out: bool = False
    """Whether the timeout killed the process group."""
    cancelled: bool = False
    """Whether the tool call running the command was cancelled, which killed the process group."""
    stdout_truncated: bool = False
    """Whether the middle of stdout was elided."""
    stderr_truncated: bool = False
    """Whether the middle of stderr was elided."""
    stdout_bytes: int = 0
    """How many bytes stdout carried in all, kept or elided."""
    stderr_bytes: int = 0
    """How many bytes stderr carried in all, kept or elided."""
    error: str | None = None
    """Why the command could not run (bash missing, ...), or None."""
    duration: float = 0.0
    """Wall-clock seconds."""

    @property
    def signal_name(self) -> str | None:
        """``SIGTERM`` style name of :attr:`signal`."""
        if self.signal is None:
            return None
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return str(self.signal)


class _Capped:
    """Keeps the first and last ``limit // 2`` bytes of a stream."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        half = self.limit // 2
        room = half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.limit - half:
                cut = len(self.tail) - (self.limit - half)
                del self.tail[:cut]
                self.dropped += cut

    def last(self, count: int) -> bytes:
        """The stream's last ``count`` bytes as they came, or as many as are held past the dropped middle."""
        if count <= 0:
            return b""
        return bytes(self.tail[-count:] if self.dropped else (self.head + self.tail)[-count:])

    def text(self) -> tuple[str, bool]:
        """The kept output, with a marker where the middle was dropped; never more than ``limit`` bytes in all."""
        if not self.dropped:
            return strip_ansi((self.head + self.tail).decode("utf-8", errors="replace")), False
        head, tail, dropped = bytes(self.head), bytes(self.tail), self.dropped
        while True:  # the marker takes room too: drop as much more output as it needs (its digits may grow)
            marker = f"\n[... {dropped} bytes of output omitted ...]\n".encode()
            excess = len(head) + len(marker) + len(tail) - self.limit
            if excess <= 0 or not (head or tail):
                break
            from_tail = min(len(tail), (excess + 1) // 2)
            from_head = min(len(head), excess - from_tail)
            tail, head = tail[from_tail:], head[:len(head) - from_head]
            dropped += from_tail + from_head
        text = (head + marker + tail).decode("utf-8", errors="replace")
        return strip_ansi(text), True


def _group_members(pgid: int) -> list[int]:
    """Live processes of a process group (Linux: /proc; elsewhere: ps)."""
    pids: list[int] = []
    if os.path.isdir("/proc/self"):
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
                if int(fields[2]) == pgid and fields[0] != b"Z":
                    pids.append(int(entry))
        return sorted(pids)
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["ps", "-A", "-o", "pid=,pgid=,stat="], capture_output=True, text=True, timeout=5,
                             stdin=subprocess.DEVNULL, check=False).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 3 and int(parts[1]) == pgid and not parts[2].startswith("Z"):
                pids.append(int(parts[0]))
    return sorted(pids)


def signal_group(pgid: int, signum: int, *, sandboxed: bool = False) -> None:
    """Send ``signum`` to a process group.

    ``sandboxed``: the group's leader is bubblewrap, which would die of the signal (and report the command ended)
    while the command traps it and runs on; so every member but bubblewrap's own processes gets it instead.
    ``SIGKILL`` always goes to the whole group.
    """
    if not sandboxed or signum == signal.SIGKILL:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)
        return
    for pid in _group_members(pgid):
        if pid != pgid and not is_namespace_init(pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signum)


def kill_group(pgid: int, *, grace: float = _KILL_GRACE, sandboxed: bool = False) -> None:
    """SIGTERM the whole process group, then SIGKILL whatever is left after ``grace`` seconds.

    ``sandboxed``: the leader is bubblewrap (see :func:`signal_group`).
    """
    signal_group(pgid, signal.SIGTERM, sandboxed=sandboxed)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _group_members(pgid):
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


_LIVE_SESSIONS: set[str] = set()
"""Markers handed out by :func:`new_session` and not yet killed; whatever still carries one dies at exit."""
_LIVE_LOCK = threading.Lock()


def new_session() -> str:
    """A fresh session marker: pass it as ``session=`` to every command, then :func:`kill_session` on close.

    A marker nobody killed is killed at interpreter exit, so a toolset that is never closed leaves nothing running.
    """
    session = os.urandom(8).hex()
    with _LIVE_LOCK:
        _LIVE_SESSIONS.add(session)
    return session


@atexit.register
def _kill_live_sessions() -> None:
    """Kill the processes of every live marker, in one scan of ``/proc`` per round however many markers live."""
    with _LIVE_LOCK:
        needles = {f"{SESSION_VARIABLE}={session}".encode() for session in _LIVE_SESSIONS}
        _LIVE_SESSIONS.clear()
    if needles:
        _kill_marked(needles)


def kill_session(session: str, *, rounds: int = 5) -> list[int]:
    """SIGKILL every process whose environment carries ``session``, daemons that left their group included.

    Reads ``/proc`` (Linux); elsewhere nothing is found and only process groups are killed by their owners. A
    process that cleared its environment (``env -i``) escapes. Scans again until a round finds nothing, so a
    parent forking while it dies is caught. Returns the pids killed.
    """
    with _LIVE_LOCK:
        _LIVE_SESSIONS.discard(session)
    return _kill_marked({f"{SESSION_VARIABLE}={session}".encode()}, rounds=rounds)


def _kill_marked(needles: set[bytes], *, rounds: int = 5) -> list[int]:
    killed: list[int] = []
    for _ in range(rounds):
        found = [pid for pid in _marked(needles) if pid not in killed]
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed += found
    return killed


def _marked(needle: bytes | set[bytes]) -> list[int]:
    """Live processes (not this one) whose environment holds ``needle`` (or any of a set) as an entry."""
    needles = {needle} if isinstance(needle, bytes) else needle
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    own = os.getpid()
    found = []
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needles.isdisjoint(handle.read().split(b"\0")):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue  # already dead, waiting for its parent
        except (OSError, IndexError):
            continue
        found.append(int(entry))
    return found


def _pump(proc: subprocess.Popen[bytes], out: _Capped, err: _Capped, deadline: float,
          scope: CallScope | None = None, sandboxed: bool = False) -> tuple[bool, bool]:
    """Read both pipes until bash exits, the deadline passes or ``scope`` is cancelled: (timed out, cancelled)."""
    selector = selectors.DefaultSelector()
    assert proc.stdout is not None  # noqa: S101 - PIPE
    assert proc.stderr is not None  # noqa: S101 - PIPE
    for stream, sink in ((proc.stdout, out), (proc.stderr, err)):
        os.set_blocking(stream.fileno(), False)
        selector.register(stream, selectors.EVENT_READ, sink)
    timed_out = cancelled = False
    exited_at: float | None = None
    killed_at: float | None = None
    progress = current_progress()  # someone (the MCP server) reports how much the command has printed
    try:
        while selector.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > _DRAIN_AFTER_EXIT:
                break
            if killed_at is not None and now > killed_at + _GIVE_UP_AFTER_KILL:
                break  # a process that survives SIGKILL (uninterruptible I/O): stop waiting for it
            stop = now >= deadline or (scope is not None and scope.cancelled)
            if exited_at is None and killed_at is None and stop:
                timed_out, cancelled = now >= deadline, now < deadline
                killed_at = now  # kill the group, then keep reading what it prints while it dies (traps)
                kill_group(proc.pid, sandboxed=sandboxed)
                continue
            for key, _ in selector.select(timeout=0.02):
                try:
                    data = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if data:
                    key.data.add(data)
                    if progress is not None:
                        progress.output_bytes += len(data)
                else:
                    selector.unregister(key.fileobj)
    finally:
        selector.close()
    return timed_out, cancelled


def run_shell(
    command: str,
    *,
    cwd: str | os.PathLike[str],
    timeout: float | None = DEFAULT_TIMEOUT,
    max_output: int = DEFAULT_MAX_OUTPUT,
    env: Mapping[str, str] | None = None,
    shell: str = "bash",
    session: str | None = None,
    sandbox: Sandbox | None = None,
) -> ShellResult:
    """Run ``shell -c command`` as the leader of a new process group and collect what it did.

    Args:
        command: The command line.
        cwd: Directory to run in (already checked by the caller's Workspace).
        timeout: Seconds before the whole group is killed (SIGTERM, then SIGKILL); None waits forever.
        max_output: Bytes kept per stream.
        env: Environment (default: this process's), to which the non-interactive variables are added.
        shell: The shell executable.
        session: A marker from :func:`new_session` carried by every process the command starts, so
            :func:`kill_session` finds them later (background jobs and daemons included).
        sandbox: Run inside this sandbox (None: unsandboxed). A sandbox that cannot start gives a result with
            ``error`` set; the command did not run.
    """
    return run_command([shell, "-c", command], cwd=cwd, timeout=timeout, max_output=max_output, env=env,
                       display=command, session=session, sandbox=sandbox)


def non_interactive_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) plus the variables that stop tools from waiting for a human."""
    return {**(os.environ if env is None else env), "GIT_TERMINAL_PROMPT": "0", "PAGER": "cat", "GIT_PAGER": "cat"}


def run_command(
    argv: list[str],
    *,
    cwd: str | os.PathLike[str],
    timeout: float | None = DEFAULT_TIMEOUT,
    max_output: int = DEFAULT_MAX_OUTPUT,
    env: Mapping[str, str] | None = None,
    display: str | None = None,
    session: str | None = None,
    sandbox: Sandbox | None = None,
) -> ShellResult:
    """Run ``argv`` directly (no shell) as the leader of a new process group; the same rules as :func:`run_shell`.

    A program that cannot be started gives a result with ``error`` set (``FileNotFoundError: ...``), not an
    exception. ``display`` is the ``command`` reported (default: ``argv`` joined with spaces); ``session`` marks
    the process and everything it starts (see :func:`kill_session`); ``sandbox`` runs it inside a sandbox.
    """
    started = time.monotonic()
    environment = non_interactive_env(env)
    if session is not None:
        environment[SESSION_VARIABLE] = session
    where = Path(cwd)
    command = display if display is not None else " ".join(argv)
    scope = current_scope()
    if scope is not None and scope.cancelled:
        return ShellResult(command=command, cwd=where, stdout="", stderr="", exit_code=None, signal=None, pgid=None,
                           cancelled=True, error="the tool call was cancelled", duration=time.monotonic() - started)
    sandboxed = sandbox is not None and sandbox.active
    try:
        proc = spawn(argv, cwd=cwd, env=environment, sandbox=sandbox)
    except OSError as exc:
        error = str(exc) if isinstance(exc, SandboxError) else f"{type(exc).__name__}: {exc}"
        return ShellResult(command=command, cwd=where, stdout="", stderr="", exit_code=None, signal=None, pgid=None,
                           error=error, duration=time.monotonic() - started)
    out, err = _Capped(max_output), _Capped(max_output)
    deadline = float("inf") if timeout is None else started + timeout
    try:
        timed_out, cancelled = _pump(proc, out, err, deadline, scope, sandboxed)
        background: list[int] = []
        if not (timed_out or cancelled):
            proc.wait()
            background = [pid for pid in _group_members(proc.pid)
                          if pid != proc.pid and not (sandboxed and is_namespace_init(pid))]
        try:
            code: int | None = proc.wait(timeout=_GIVE_UP_AFTER_KILL)
        except subprocess.TimeoutExpired:
            code = -signal.SIGKILL
        if sandbox is not None and proc.returncode is not None:
            code = sandbox.ended(proc)  # the program's own status; None: the sandbox failed, it never ran
    finally:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    stdout, stdout_cut = out.text()
    stderr, stderr_cut = err.text()
    if code is None:
        assert sandbox is not None  # noqa: S101 - only ended() says None
        return ShellResult(command=command, cwd=where, stdout="", stderr="", exit_code=None, signal=None, pgid=None,
                           error=sandbox.failure(stderr), duration=time.monotonic() - started)
    return ShellResult(
        command=command, cwd=where, stdout=stdout, stderr=stderr,
        exit_code=code if code >= 0 else None, signal=-code if code < 0 else None, pgid=proc.pid,
        background_pids=tuple(background), timed_out=timed_out, cancelled=cancelled, stdout_truncated=stdout_cut,
        stderr_truncated=stderr_cut, duration=time.monotonic() - started, stdout_bytes=out.total,
        stderr_bytes=err.total,
    )
