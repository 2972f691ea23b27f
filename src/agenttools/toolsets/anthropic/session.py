"""A persistent bash session, as the reference's ``_BashSession`` keeps one, ending every command reliably.

The reference writes ``<command>; echo '<<exit>>'`` to bash's stdin and reads until the sentinel shows up. That
never ends after a trailing comment (the echo is commented out), a heredoc (the echo becomes part of it), ``cmd &``
(``&;`` is a syntax error) or a command that prints the sentinel. Here each command is handed to ``eval`` as one
ANSI-C-quoted word, so it is parsed alone and whatever it holds, a sentinel is printed after it. The sentinel is
fresh for every command and printed from two pieces, so nothing the command can see (``$_``, which is the
reference's ``<<exit>>``; ``BASH_COMMAND`` in a ``DEBUG`` trap; ``set -x``/``set -v`` traces sent to stdout) holds
it whole: output can never end a command early or push its end into the next command's output. It goes to a copy
of bash's stdout made when the session starts (closed while the command runs), so a command that redirects the
shell's stdout for good (``exec >log``) still ends. ``eval`` and ``printf`` are called through ``\\builtin``, so
aliases and functions of those names do not change them. The command's stdin is ``/dev/null`` (a command reading
stdin would otherwise wait forever, or eat the commands after it), and blank lines keep bash's line counter where
the reference's would be, so error messages (``/bin/bash: line 3: ...``) carry the same line numbers. Once bash is
gone or a command outlives the timeout, everything the session started is killed: it can only be restarted.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import selectors
import subprocess
import threading
import time

import attrs

from agenttools._calls import current_scope
from agenttools.sandbox import Sandbox, spawn
from agenttools.shell import SESSION_VARIABLE, kill_group, kill_session, new_session, non_interactive_env

__all__ = ["BashSession", "Finished", "quote"]

_SAFE = frozenset(range(0x20, 0x7F)) - {ord("\\"), ord("'")}
_ESCAPES = {ord("\\"): "\\\\", ord("'"): "\\'", ord("\n"): "\\n", ord("\t"): "\\t"}


def quote(command: str) -> str:
    """``command`` as one bash ``$'...'`` word: printable ASCII as is, every other byte escaped.

    NUL bytes are left out, as bash leaves them out of the commands it reads (in ``$'...'`` a ``\\x00`` would end
    the word there and silently drop the rest of the command).
    """
    data = command.encode("utf-8", errors="surrogateescape").replace(b"\0", b"")
    return "$'" + "".join(chr(b) if b in _SAFE else _ESCAPES.get(b, f"\\x{b:02x}") for b in data) + "'"


@attrs.frozen(kw_only=True)
class Finished:
    """How one command ended: its stdout and stderr (the reference's ``CLIResult``), or why there are none."""

    output: str = ""
    """Standard output up to the sentinel, less one final newline."""
    error: str = ""
    """Standard error, less one final newline."""
    exited: int | None = None
    """bash's exit status when bash itself is gone (``exit``, killed): the session must be restarted."""
    timed_out: bool = False
    """The command did not finish within the timeout: the session must be restarted."""
    cancelled: bool = False
    """The call was cancelled: the session was ended."""


class _Stream:
    """One pipe's bytes: the first and last ``limit // 2`` kept, the middle counted."""

    def __init__(self, limit: int) -> None:
        self.half = max(limit // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.half:
                cut = len(self.tail) - self.half
                del self.tail[:cut]
                self.dropped += cut

    def take(self) -> str:
        """The text so far (a marker where the middle was dropped), and start again."""
        if self.dropped:
            middle = f"\n[... {self.dropped} bytes of output omitted ...]\n".encode()
            data = bytes(self.head) + middle + bytes(self.tail)
        else:
            data = bytes(self.head + self.tail)
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0
        return data.decode("utf-8", errors="replace")


_STDOUT_COPY = 19
"""The descriptor holding a copy of bash's stdout, where sentinels go (closed while a command runs)."""
_DRAIN = 0.5
"""Seconds spent at most reading what bash printed while exiting (a job it left may write on and on)."""


class BashSession:
    """One ``/bin/bash`` reading commands from a pipe, in its own session, started in ``cwd``.

    Calls of :meth:`run` are serialised; :meth:`close` may come from any thread, also while a command runs.

    Args:
        cwd: Where bash starts.
        max_output: Bytes of stdout and of stderr kept per command.
        sandbox: Where bash runs (None: unsandboxed); started once, so later commands pay nothing for it.

    Raises:
        SandboxError: The sandbox could not start.
    """

    def __init__(self, cwd: str, *, max_output: int, sandbox: Sandbox | None = None) -> None:
        self.marker = new_session()
        self._sandbox = sandbox if sandbox is not None and sandbox.active else None
        self._code: int | None = None
        self.sentinel = b""
        """What ends the command running now (a fresh one for each command)."""
        self._lock = threading.RLock()
        self._timed_out = False
        self._copied = False
        self._max_output = max_output
        environment = non_interactive_env()
        environment[SESSION_VARIABLE] = self.marker
        self._process = spawn(["/bin/bash"], cwd=cwd, env=environment, sandbox=self._sandbox, stdin=subprocess.PIPE,
                              wait_ready=True)
        assert self._process.stdout is not None  # noqa: S101 - PIPE
        assert self._process.stderr is not None  # noqa: S101 - PIPE
        self._out = _Stream(max_output)
        self._err = _Stream(max_output)
        self._pending = b""
        self._selector = selectors.DefaultSelector()
        for stream, sink in ((self._process.stdout, self._out), (self._process.stderr, self._err)):
            os.set_blocking(stream.fileno(), False)
            self._selector.register(stream, selectors.EVENT_READ, sink)

    @property
    def returncode(self) -> int | None:
        """The exit status of bash once it is gone (negative: the signal that killed it), else None."""
        code = self._process.poll()
        return code if code is None else self._ended()

    def _ended(self) -> int:
        """The return code of bash once it is gone (as unsandboxed: see :meth:`Sandbox.ended`), asked for once."""
        if self._code is None:
            code: int | None = self._process.wait()
            if self._sandbox is not None:
                code = self._sandbox.ended(self._process)
            self._code = -9 if code is None else code  # None: never, popen waited until bash ran
        return self._code

    @property
    def timed_out(self) -> bool:
        """A command outlived the timeout: everything was killed and the session must be restarted."""
        return self._timed_out

    def _read(self, timeout: float) -> bool:
        """Read what is there (waiting up to ``timeout``); False once both pipes are closed."""
        if not self._selector.get_map():
            return False
        for key, _ in self._selector.select(timeout=timeout):
            try:
                data = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                self._selector.unregister(key.fileobj)
            elif key.data is self._out:
                self._stdout(data)
            else:
                self._err.add(data)
        return True

    def _stdout(self, data: bytes) -> None:
        """Add stdout, holding back a tail that may be the start of the sentinel (and all of it once it is in)."""
        pending = self._pending + data
        keep = len(self.sentinel) - 1
        if self.sentinel in pending or len(pending) <= keep:
            self._pending = pending
            return
        self._out.add(pending[:-keep])
        self._pending = pending[-keep:]

    def run(self, command: str, timeout: float) -> Finished:
        """Run ``command`` and wait for it to finish (at most ``timeout`` seconds)."""
        with self._lock:
            return self._run(command, timeout)

    def _line(self, command: str) -> bytes:
        """What bash is sent for ``command``, with a fresh sentinel."""
        token = secrets.token_hex(8)
        self.sentinel = f"<<exit-{token}>>".encode()
        copy = "" if self._copied else f"exec {_STDOUT_COPY}>&1; "  # the first line: nothing redefined yet
        self._copied = True
        line = (f"{copy}\\builtin eval {quote(command)} < /dev/null {_STDOUT_COPY}>&-; "
                f"\\builtin printf '%s%s\\n%.0s' '<<exit-{token[:8]}' '{token[8:]}>>' '<<exit>>' >&{_STDOUT_COPY}\n")
        return (line + "\n" * command.count("\n")).encode()

    def _run(self, command: str, timeout: float) -> Finished:
        line = self._line(command)
        assert self._process.stdin is not None  # noqa: S101 - PIPE
        try:
            self._process.stdin.write(line)
            self._process.stdin.flush()
        except (OSError, ValueError):  # bash is gone, or the session was closed
            return self._exited()
        deadline = time.monotonic() + timeout
        scope = current_scope()
        while True:
            split = self._split()
            if split is not None:
                return split
            now = time.monotonic()
            if scope is not None and scope.cancelled:
                self.close()
                return Finished(cancelled=True)
            if now >= deadline:
                self._timed_out = True
                self._kill()
                return Finished(timed_out=True)
            if not self._read(min(0.05, deadline - now)) or self._process.poll() is not None:
                drain = time.monotonic() + _DRAIN
                while self._read(0.02) and self.sentinel not in self._pending:  # what it printed while exiting
                    if not self._selector.select(timeout=0) or time.monotonic() > drain:
                        break
                split = self._split()
                return split if split is not None else self._exited()

    def _split(self) -> Finished | None:
        """The command's output once the sentinel is in: what came before it (what came after is dropped)."""
        if self.sentinel not in self._pending:
            return None
        self._out.add(self._pending[: self._pending.index(self.sentinel)])
        self._pending = b""
        assert self._process.stderr is not None  # noqa: S101 - PIPE
        while True:  # stderr written before the sentinel is in the pipe by now
            try:
                data = os.read(self._process.stderr.fileno(), 65536)
            except (OSError, ValueError):  # BlockingIOError: nothing more
                break
            if not data:
                break
            self._err.add(data)
        output = self._out.take()
        error = self._err.take()
        return Finished(output=output.removesuffix("\n"), error=error.removesuffix("\n"))

    def _exited(self) -> Finished:
        try:
            self._process.wait(timeout=1)
            code = self._ended()
        except subprocess.TimeoutExpired:  # pragma: no cover - bash closed its pipes but lives on
            code = -9
        self._kill()  # the jobs bash left behind: the session can only be restarted
        self._out.take()
        self._err.take()
        self._pending = b""
        return Finished(exited=code)

    def _kill(self) -> None:
        """Kill bash and everything it started (background jobs and daemons included)."""
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill_group(self._process.pid, grace=0.1, sandboxed=self._sandbox is not None)
        kill_session(self.marker)

    def close(self) -> None:
        """Kill bash and everything it started, and release its pipes (a command running now ends at once)."""
        self._kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)
        if self._process.returncode is not None:
            self._ended()  # frees what the sandbox kept of bash, and tidies
        if not self._lock.acquire(timeout=5):  # pragma: no cover - the running command returns once bash is dead
            return
        try:
            self._selector.close()
            for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        finally:
            self._lock.release()
