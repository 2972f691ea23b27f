"""The process family: background commands in their own process groups, read while they run, killed on close.

A :class:`ProcessTable` is owned by whoever creates it (a toolset, a server session); there is no global table.
Every process it starts is killed — the whole process group, SIGTERM then SIGKILL — when the table is closed,
garbage-collected, or the interpreter exits.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from agenttools.errors import ProcessLimitError, UnknownProcessError
from agenttools.shell import DEFAULT_MAX_OUTPUT, _Capped, kill_group

__all__ = ["ProcessStatus", "ProcessTable"]


@attrs.frozen(kw_only=True)
class ProcessStatus:
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
    """Whether :meth:`ProcessTable.kill` or ``close`` ended it."""


class _Process:
    def __init__(self, pid_id: str, command: str, cwd: Path, proc: subprocess.Popen[bytes], max_output: int,
                 timeout: float | None) -> None:
        self.id = pid_id
        self.command = command
        self.cwd = cwd
        self.proc = proc
        self.out = _Capped(max_output)
        self.err = _Capped(max_output)
        self.lock = threading.Lock()
        self.started = time.time()
        self.finished: float | None = None
        self.timed_out = False
        self.killed = False
        self.done = threading.Event()
        self.readers = [self._reader(proc.stdout, self.out), self._reader(proc.stderr, self.err)]
        threading.Thread(target=self._watch, args=(timeout,), name=f"agenttools-{pid_id}", daemon=True).start()

    def _reader(self, stream: object, sink: _Capped) -> threading.Thread:
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
            kill_group(self.proc.pid)
            self.proc.wait()
        for reader in self.readers:
            reader.join(timeout=0.2)  # children that keep the pipes open are not waited for
        self.finished = time.time()
        self.done.set()

    def status(self) -> ProcessStatus:
        with self.lock:
            stdout, _ = self.out.text()
            stderr, _ = self.err.text()
        code = self.proc.returncode if self.done.is_set() else None
        return ProcessStatus(
            id=self.id, command=self.command, cwd=self.cwd, pid=self.proc.pid, running=not self.done.is_set(),
            exit_code=code if code is not None and code >= 0 else None,
            signal=-code if code is not None and code < 0 else None, stdout=stdout, stderr=stderr,
            started=self.started, finished=self.finished, timed_out=self.timed_out, killed=self.killed,
        )


def _kill_all(pids: set[int]) -> None:
    for pid in list(pids):
        kill_group(pid)
    pids.clear()


class ProcessTable:
    """Background processes started by one owner.

    Args:
        max_processes: The most records held at once (running, and finished but not yet removed).
        max_output: Bytes kept per stream per process (head and tail; the middle is elided).
        timeout: Seconds before a process's group is killed (None: never).
        id_factory: Makes ids; default: 16 random hex characters.
        env: Extra environment variables for every process.
    """

    def __init__(self, *, max_processes: int = 16, max_output: int = DEFAULT_MAX_OUTPUT,
                 timeout: float | None = None, id_factory: Callable[[], str] | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.max_processes = max_processes
        self.max_output = max_output
        self.timeout = timeout
        self._ids = id_factory or (lambda: secrets.token_hex(8))
        self._env = dict(env or {})
        self._processes: dict[str, _Process] = {}
        self._pgids: set[int] = set()
        self._closed = False
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _kill_all, self._pgids)

    def __len__(self) -> int:
        return len(self._processes)

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
            OSError: The shell could not be started.
        """
        with self._lock:
            if self._closed:
                raise ProcessLimitError("the process table is closed", limit=self.max_processes)
            if len(self._processes) >= self.max_processes:
                raise ProcessLimitError(f"maximum concurrent background process limit ({self.max_processes}) "
                                        "reached", limit=self.max_processes)
            env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "PAGER": "cat", "GIT_PAGER": "cat", **self._env}
            proc = subprocess.Popen([shell, "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            process_id = self._ids()
            while process_id in self._processes:
                process_id = self._ids()
            record = _Process(process_id, command, Path(cwd), proc, self.max_output, self.timeout)
            self._processes[process_id] = record
            self._pgids.add(proc.pid)
        return record.status()

    def _get(self, process_id: str) -> _Process:
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
            kill_group(record.proc.pid)
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
        return tuple(record.status() for record in list(self._processes.values()))

    def close(self) -> None:
        """Kill every running process group and refuse new ones. Safe to call more than once."""
        with self._lock:
            self._closed = True
            running = [r for r in self._processes.values() if not r.done.is_set()]
        for record in running:
            record.killed = True
            kill_group(record.proc.pid)
        for record in running:
            record.done.wait(5)
        self._pgids.clear()
