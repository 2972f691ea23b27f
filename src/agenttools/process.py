"""The process family: background commands in their own process groups, read while they run, killed on close.

A :class:`ProcessTable` is owned by whoever creates it (a toolset, a server session); there is no global table.
Every process it starts is killed — the whole process group, SIGTERM then SIGKILL, then everything carrying the
table's session marker — when the table is closed, garbage-collected, or the interpreter exits. Finished records
can be bounded by count and by retained output bytes; a running process is never evicted.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from agenttools._display import MarkdownRepr
from agenttools.errors import ProcessLimitError, UnknownProcessError
from agenttools.sandbox import Sandbox, spawn
from agenttools.shell import (
    DEFAULT_MAX_OUTPUT,
    SESSION_VARIABLE,
    _Capped,
    kill_group,
    kill_session,
    new_session,
    non_interactive_env,
    signal_group,
    strip_ansi,
)

__all__ = ["ProcessManager", "ProcessStatus", "ProcessTable"]


@attrs.frozen(kw_only=True)
class ProcessStatus(MarkdownRepr):
    """A background process as it is now."""

    id: str
    """The table's id for it."""
    command: str
    """The command as given."""
    cwd: Path
    """Where it runs."""
    pid: int
    """Its pid (also its process group id)."""
    running: bool
    """Whether it is still running."""
    exit_code: int | None
    """Exit status once finished (None while running or when killed by a signal)."""
    signal: int | None
    """The signal that ended it, if any."""
    stdout: str
    """Output so far (ANSI codes removed, capped with the middle elided)."""
    stderr: str
    """Error output so far (same rules)."""
    started: float
    """Start time, seconds since the epoch."""
    finished: float | None
    """End time, or None while running."""
    timed_out: bool = False
    """Whether the table's timeout killed it."""
    killed: bool = False
    """Whether :meth:`ProcessTable.kill`, ``close`` or a ``SIGKILL`` sent by :meth:`ProcessTable.signal` ended it."""


class _Tail:
    """Keeps the last ``limit`` bytes of a stream (a ring buffer)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 1)
        self.data = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        self.data += data
        excess = len(self.data) - self.limit
        if excess > 0:
            del self.data[:excess]
            self.dropped += excess

    def text(self) -> tuple[str, bool]:
        return strip_ansi(self.data.decode("utf-8", errors="replace")), bool(self.dropped)

    def last(self, count: int) -> bytes:
        return bytes(self.data[-count:]) if count > 0 else b""


def _retained(sink: _Capped | _Tail) -> int:
    return len(sink.data) if isinstance(sink, _Tail) else len(sink.head) + len(sink.tail)


class _Process:
    def __init__(self, pid_id: str, command: str, cwd: Path, proc: subprocess.Popen[bytes], max_output: int,
                 timeout: float | None, ring: bool,
                 on_done: Callable[[Callable[[], None]], object] | None = None,
                 sandbox: Sandbox | None = None) -> None:
        self.id = pid_id
        self.returncode: int | None = None
        """The return code once it ended (as unsandboxed)."""
        self.sandbox = sandbox if sandbox is not None and sandbox.active else None
        """The sandbox it runs in (its process group's leader is bubblewrap), or None."""
        self.command = command
        self.cwd = cwd
        self.proc = proc
        self.out: _Capped | _Tail = _Tail(max_output) if ring else _Capped(max_output)
        self.err: _Capped | _Tail = _Tail(max_output) if ring else _Capped(max_output)
        self.lock = threading.Lock()
        self.started = time.time()
        self.finished: float | None = None
        self.timed_out = False
        self.killed = False
        self.done = threading.Event()
        self.on_done = on_done
        self.readers = [self._reader(proc.stdout, self.out), self._reader(proc.stderr, self.err)]
        threading.Thread(target=self._watch, args=(timeout,), name=f"agenttools-{pid_id}", daemon=True).start()

    def _reader(self, stream: object, sink: _Capped | _Tail) -> threading.Thread:
        def pump() -> None:
            fd = stream.fileno()  # type: ignore[attr-defined]
            try:
                while True:
                    try:
                        data = os.read(fd, 65536)
                    except OSError:
                        return
                    if not data:
                        return
                    with self.lock:
                        sink.add(data)
            finally:
                stream.close()  # type: ignore[attr-defined]

        thread = threading.Thread(target=pump, daemon=True)
        thread.start()
        return thread

    def _watch(self, timeout: float | None) -> None:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.timed_out = True
            kill_group(self.proc.pid, sandboxed=self.sandbox is not None)
            self.proc.wait()
        for reader in self.readers:
            reader.join(timeout=0.2)  # children that keep the pipes open are not waited for
        if self.sandbox is not None:  # it started (popen waited for that): the program's own status, as unsandboxed
            self.returncode = self.sandbox.ended(self.proc)
        else:
            self.returncode = self.proc.returncode
        self.finished = time.time()
        if self.on_done is None:
            self.done.set()
        else:
            self.on_done(self.done.set)  # the owner marks it done and trims in one step

    @property
    def retained(self) -> int:
        """Bytes of output held."""
        with self.lock:
            return _retained(self.out) + _retained(self.err)

    def status(self) -> ProcessStatus:
        with self.lock:
            stdout, _ = self.out.text()
            stderr, _ = self.err.text()
        code = self.returncode if self.done.is_set() else None
        return ProcessStatus(
            id=self.id, command=self.command, cwd=self.cwd, pid=self.proc.pid, running=not self.done.is_set(),
            exit_code=code if code is not None and code >= 0 else None,
            signal=-code if code is not None and code < 0 else None, stdout=stdout, stderr=stderr,
            started=self.started, finished=self.finished, timed_out=self.timed_out, killed=self.killed,
        )


def _kill_all(pids: set[int], session: str) -> None:
    """The finalizer of a table nobody closed: its process groups, then whatever carries its marker."""
    for pid in list(pids):
        kill_group(pid)
    pids.clear()
    kill_session(session)


def _trim_later(table: weakref.ref[ProcessTable]) -> Callable[[Callable[[], None]], None]:
    def finish(mark_done: Callable[[], None]) -> None:  # from a watcher thread: must not keep the table alive
        owner = table()
        if owner is None:
            mark_done()
            return
        with owner._lock:  # nobody counting under the lock sees the record done but the table not yet trimmed
            mark_done()
            owner._trim_locked()

    return finish


class ProcessTable:
    """Background processes started by one owner.

    Args:
        max_processes: The most records held at once (running, and finished but not yet removed).
        max_running: The most processes running at once (None: only ``max_processes`` applies).
        max_output: Bytes kept per stream per process.
        ring: Keep the *last* ``max_output`` bytes of each stream (True), or its head and tail (False).
        timeout: Seconds before a process's group is killed (None: never).
        expire_after: Seconds after which finished records are forgotten (None: kept until removed).
        max_finished: The most finished records kept; beyond it the oldest finished are forgotten (None: no cap).
        max_finished_bytes: The most output bytes finished records keep in all; beyond it the oldest finished are
            forgotten, though never the newest one (None: no cap).
        id_factory: Makes ids; default: 16 random hex characters.
        env: Extra environment variables for every process.
        sandbox: Where the processes run (None: unsandboxed). The table does not close it.
    """

    def __init__(self, *, max_processes: int = 16, max_running: int | None = None,
                 max_output: int = DEFAULT_MAX_OUTPUT, ring: bool = False, timeout: float | None = None,
                 expire_after: float | None = None, max_finished: int | None = None,
                 max_finished_bytes: int | None = None, id_factory: Callable[[], str] | None = None,
                 env: Mapping[str, str] | None = None, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox
        """Where the processes run, or None."""
        self.max_processes = max_processes
        self.max_finished = max_finished
        self.max_finished_bytes = max_finished_bytes
        self.max_running = max_running
        self.max_output = max_output
        self.ring = ring
        self.timeout = timeout
        self.expire_after = expire_after
        self._ids = id_factory or (lambda: os.urandom(8).hex())
        self._env = dict(env or {})
        self.session: str = self._env.get(SESSION_VARIABLE) or new_session()
        """The marker every process of this table (and all it starts) carries; :meth:`close` kills by it."""
        self._env[SESSION_VARIABLE] = self.session
        self._processes: dict[str, _Process] = {}
        self._pgids: set[int] = set()
        self._closed = False
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _kill_all, self._pgids, self.session)

    def __len__(self) -> int:
        return len(self._processes)

    def __contains__(self, process_id: object) -> bool:
        return process_id in self._processes

    def __enter__(self) -> ProcessTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def start(self, command: str, *, cwd: str | os.PathLike[str], shell: str = "bash") -> ProcessStatus:
        """Start ``shell -c command`` in a new process group (stdin /dev/null) and return its first status.

        Raises:
            ProcessLimitError: The table is closed or already holds ``max_processes`` records.
            SandboxError: The sandbox could not start (an ``OSError`` too).
            OSError: The shell could not be started.
        """
        self._expire()
        with self._lock:
            if self._closed:
                raise ProcessLimitError("the process table is closed", limit=self.max_processes)
            if len(self._processes) >= self.max_processes:
                raise ProcessLimitError(f"the process table already holds its maximum of {self.max_processes} "
                                        "processes", limit=self.max_processes)
            running = self.running_count()
            if self.max_running is not None and running >= self.max_running:
                raise ProcessLimitError(f"{running} processes are running, the most allowed at once",
                                        limit=self.max_running)
            env = {**non_interactive_env(), **self._env}
            proc = spawn([shell, "-c", command], cwd=cwd, env=env, sandbox=self.sandbox, wait_ready=True)
            process_id = self._ids()
            while process_id in self._processes:
                process_id = self._ids()
            record = _Process(process_id, command, Path(cwd), proc, self.max_output, self.timeout, self.ring,
                              on_done=_trim_later(weakref.ref(self)), sandbox=self.sandbox)
            self._processes[process_id] = record
            self._pgids.add(proc.pid)
        return record.status()

    def running_count(self) -> int:
        """How many held processes are still running."""
        return sum(1 for record in list(self._processes.values()) if not record.done.is_set())

    def finished_bytes(self) -> int:
        """Output bytes the finished records hold (never more than ``max_finished_bytes``, but for the newest)."""
        with self._lock:
            return sum(record.retained for record in self._processes.values() if record.done.is_set())

    def _expire(self) -> None:
        if self.expire_after is not None:
            cutoff = time.time() - self.expire_after
            with self._lock:
                for key, record in list(self._processes.items()):
                    if record.finished is not None and record.finished < cutoff:
                        del self._processes[key]
                        self._pgids.discard(record.proc.pid)
        self._trim()

    def _trim(self) -> None:
        """Forget the oldest finished records beyond ``max_finished`` / ``max_finished_bytes``."""
        if self.max_finished is None and self.max_finished_bytes is None:
            return
        with self._lock:
            self._trim_locked()

    def _trim_locked(self) -> None:
        """:meth:`_trim` with the table's lock already held."""
        if self.max_finished is None and self.max_finished_bytes is None:
            return
        finished = sorted(((record.finished or 0.0, key, record) for key, record in self._processes.items()
                           if record.done.is_set()), key=lambda item: item[0])
        sizes = [record.retained for _, _, record in finished]
        total = sum(sizes)
        count_cap = len(finished) if self.max_finished is None else self.max_finished
        bytes_cap = total if self.max_finished_bytes is None else self.max_finished_bytes
        for index, (_, key, record) in enumerate(finished):
            remaining = len(finished) - index
            if remaining <= count_cap and (total <= bytes_cap or remaining == 1):
                break
            del self._processes[key]
            self._pgids.discard(record.proc.pid)
            total -= sizes[index]

    def tail(self, process_id: str, count: int) -> tuple[bytes, bytes]:
        """The last ``count`` bytes of stdout and of stderr, as the process wrote them.

        The same in both modes: raw bytes (ANSI codes kept, cut without regard to UTF-8 boundaries), never the
        omission marker; when the middle of a stream was dropped, at most the bytes held after it.

        Raises:
            UnknownProcessError: No such id.
        """
        record = self._get(process_id)
        with record.lock:
            return record.out.last(count), record.err.last(count)

    def signal(self, process_id: str, signum: int) -> bool:
        """Send ``signum`` to the process's whole group without waiting; whether it was still running.

        Only ``SIGKILL`` marks the process ``killed``: another signal may be caught, ignored or only pause it.
        """
        record = self._get(process_id)
        if record.done.is_set():
            return False
        if signum == signal.SIGKILL:
            record.killed = True
        signal_group(record.proc.pid, signum, sandboxed=record.sandbox is not None)
        return True

    def _get(self, process_id: str) -> _Process:
        self._expire()
        try:
            return self._processes[process_id]
        except KeyError:
            raise UnknownProcessError(process_id) from None

    def status(self, process_id: str) -> ProcessStatus:
        """The process's current status and output so far.

        Raises:
            UnknownProcessError: No such id.
        """
        return self._get(process_id).status()

    def wait(self, process_id: str, timeout: float | None = None) -> ProcessStatus:
        """Wait up to ``timeout`` seconds for the process to finish; return its status either way."""
        record = self._get(process_id)
        record.done.wait(timeout)
        return record.status()

    def kill(self, process_id: str) -> ProcessStatus:
        """Kill the process's whole group (SIGTERM, then SIGKILL) and return its final status."""
        record = self._get(process_id)
        if not record.done.is_set():
            record.killed = True
            kill_group(record.proc.pid, sandboxed=record.sandbox is not None)
            record.done.wait(5)
        return record.status()

    def remove(self, process_id: str) -> ProcessStatus:
        """Forget a finished process (a running one is killed first) and return its last status."""
        status = self.kill(process_id)
        with self._lock:
            record = self._processes.pop(process_id, None)
            if record is not None:
                self._pgids.discard(record.proc.pid)
        return status

    def list(self) -> tuple[ProcessStatus, ...]:
        """Every held process, oldest first."""
        self._expire()
        return tuple(record.status() for record in list(self._processes.values()))

    def close(self) -> None:
        """Kill every running process group, then every process carrying the session; refuse new ones.

        Safe to call more than once.
        """
        with self._lock:
            self._closed = True
            running = [r for r in self._processes.values() if not r.done.is_set()]
        for record in running:
            record.killed = True
            kill_group(record.proc.pid, sandboxed=record.sandbox is not None)
        for record in running:
            record.done.wait(5)
        kill_session(self.session)  # daemons that left their process group, and commands run with this session
        self._pgids.clear()
        self._finalizer.detach()


class ProcessManager(ProcessTable):
    """A :class:`ProcessTable` for many short-lived background processes (the assistant toolset uses one).

    Ids are ``proc-1``, ``proc-2``, ...; at most ``max_running`` (16) processes run at once; each stream keeps its
    last ``max_output`` bytes (1 MiB); finished records are forgotten after ``expire_after`` seconds (30 minutes),
    and sooner beyond ``max_finished`` (64) records or ``max_finished_bytes`` (16 MiB) of their output, oldest
    first; closing the manager (or interpreter exit, or garbage collection) kills every process group it started.
    """

    def __init__(self, *, max_running: int = 16, max_output: int = 1024 * 1024, expire_after: float = 1800.0,
                 max_finished: int = 64, max_finished_bytes: int = 16 * 1024 * 1024, timeout: float | None = None,
                 env: Mapping[str, str] | None = None, sandbox: Sandbox | None = None) -> None:
        counter = itertools.count(1)
        super().__init__(max_processes=1_000_000, max_running=max_running, max_output=max_output, ring=True,
                         timeout=timeout, expire_after=expire_after, max_finished=max_finished,
                         max_finished_bytes=max_finished_bytes, id_factory=lambda: f"proc-{next(counter)}",
                         env=env, sandbox=sandbox)
