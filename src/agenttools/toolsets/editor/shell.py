"""The editor shell tools: ``bash`` (a persistent session cwd, the real exit status) and ``task_output``."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from agenttools import shell
from agenttools.errors import ProcessLimitError, UnknownProcessError
from agenttools.toolsets.editor.render import sections
from agenttools.toolsets.editor.state import MAX_TIMEOUT_MS, State, arg
from agenttools.toolsets.editor.texts import failure

__all__ = ["SHELL", "bash", "task_output"]

SHELL = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
"""Upstream's shell: ``/bin/bash`` when it exists (so ``$0`` and bash's own messages read ``/bin/bash: ...``)."""
_GO_SPACE = (" \t\n\v\f\r\x85\xa0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B))
             + "\u2028\u2029\u202f\u205f\u3000")
"""What Go's ``strings.TrimSpace`` trims; Python's ``str.strip()`` would also trim ``\\x1c`` to ``\\x1f``."""
KEEP_BYTES = 256 * 1024  # per stream, head and tail: the model sees 30,000 characters; the cwd marker ends the tail


def _wrap(command: str, sentinel: str) -> str:
    """Run the command in the current shell, then print a sentinel and the directory it ended in."""
    return f"{{ {command}\n}}; __agt_status=$?; printf '\\n%s\\n' '{sentinel}'; pwd; exit $__agt_status"


def _as_lines(text: str) -> str:
    """A stream as upstream reads it, line by line (Go's ``bufio.Scanner``).

    Every line ends with ``\n``, the last one too, and the ``\r`` of a CRLF is dropped.
    """
    if not text:
        return ""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return "".join((line[:-1] if line.endswith("\r") else line) + "\n" for line in lines)


def _split_sentinel(stdout: str, sentinel: str) -> tuple[str, str | None]:
    """(output before the sentinel, the cwd printed after it); the output unchanged when there is none."""
    lines = stdout.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        if lines[index] == sentinel:
            cwd = lines[index + 1].strip() if index + 1 < len(lines) else ""
            kept = lines[:index]
            while kept and kept[-1] == "":
                kept.pop()
            return ("\n".join(kept) + "\n" if kept else ""), (cwd or None)
    return stdout, None


def bash(state: State, args: dict[str, Any]) -> str:
    """``bash``: run a command in the session's cwd (which it may change), or start it as a background task."""
    command: str = args["command"]
    if not command.strip(_GO_SPACE):
        raise failure("BASH_EMPTY_COMMAND", "command must not be empty")
    ws = state.workspace
    cwd = str(ws.cwd) if os.path.isdir(ws.cwd) else str(ws.root)
    if arg(args, "run_in_background", False):
        try:
            task = state.tasks.start(command, cwd=cwd, shell=SHELL)
        except ProcessLimitError as exc:
            why = ("session is closed" if state.tasks.closed
                   else f"maximum concurrent background task limit ({exc.limit}) reached")
            raise failure("BASH_TASK_LIMIT", f"could not add background task: {why}") from None
        except OSError as exc:
            raise failure("BASH_START_FAILED", f"could not start background command: {exc}") from None
        return f"task_id: {task.id}\nCommand started in background."
    timeout_ms = int(arg(args, "timeout", 0))
    if timeout_ms <= 0:
        timeout_ms = state.bash_timeout_ms
    timeout_ms = min(timeout_ms, MAX_TIMEOUT_MS)
    result = shell.run_shell(_wrap(command, state.sentinel), cwd=cwd, timeout=timeout_ms / 1000,
                             session=state.tasks.session, max_output=KEEP_BYTES, shell=SHELL,
                             sandbox=state.tasks.sandbox)
    if result.error is not None:
        raise failure("BASH_START_FAILED", f"could not start command: {result.error}")
    scanned = _as_lines(result.stdout)
    stdout, new_cwd = _split_sentinel(scanned, state.sentinel)
    if new_cwd is not None:
        with contextlib.suppress(OSError, ValueError):  # a directory that vanished meanwhile: keep the old cwd
            ws.chdir(new_cwd, contained=False)
    code = -1 if result.exit_code is None else result.exit_code
    text = f"Command timed out after {timeout_ms}ms\n\n" if result.timed_out else ""
    totals = (result.stdout_bytes - (len(scanned.encode()) - len(stdout.encode())) if result.stdout_truncated
              else None,
              result.stderr_bytes if result.stderr_truncated else None)
    return text + f"exit_code: {code}\n" + sections(stdout, _as_lines(result.stderr), totals)


def task_output(state: State, args: dict[str, Any]) -> str:
    """``task_output``: a background task's status and output so far."""
    task_id: str = args["task_id"]
    try:
        if state.tasks.closed:  # upstream's Session.Close forgets every task
            raise UnknownProcessError(task_id)
        status = state.tasks.status(task_id)
    except UnknownProcessError:
        raise failure("BASH_TASK_NOT_FOUND", f"task not found: {task_id}") from None
    if status.running:
        return "status: running\n" + sections(status.stdout, status.stderr)
    state.tasks.remove(task_id)
    code = -1 if status.exit_code is None else status.exit_code
    head = "status: completed (killed by background task timeout)" if status.timed_out else "status: completed"
    return f"{head}\nexit_code: {code}\n" + sections(status.stdout, status.stderr)
