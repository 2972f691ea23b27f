"""The assistant command tools: ``exec`` (a command run to its end) and ``process`` (background processes)."""

from __future__ import annotations

import errno
import os
import re
import shlex
import shutil
import signal
from typing import Any

from agenttools import shell
from agenttools.errors import ProcessLimitError, UnknownProcessError
from agenttools.process import ProcessStatus
from agenttools.toolsets._go import path_error
from agenttools.toolsets.assistant.state import (
    DEFAULT_EXEC_TIMEOUT,
    DEFAULT_TAIL,
    MAX_EXEC_TIMEOUT,
    MAX_STREAM,
    State,
    coerce_float,
    coerce_int,
    coerce_str,
    go_clean,
    guard,
)
from agenttools.toolsets.assistant.texts import dumps, fail, go_duration, go_wait_error, rfc3339

__all__ = ["exec_command", "parse_command", "process"]


def parse_command(value: Any) -> tuple[str | list[str], str]:
    """(a shell string or an argv list, the command as displayed), or upstream's error (``parseCommandArg``).

    Array items are Go strings (numbers and bools printed, anything else empty), trimmed, the empty ones dropped.
    """
    if isinstance(value, str):
        if not value.strip():
            raise fail("command is required")
        return value.strip(), value.strip()
    if isinstance(value, list):
        argv = [text for text in (coerce_str(item).strip() for item in value) if text]
        if not argv:
            raise fail("command is required")
        return argv, " ".join(argv)
    raise fail("command is required and must be string or []string")


def _working_dir(state: State, value: Any) -> tuple[str, str]:
    """(the directory to run in, as reported): the workspace by default, relative paths joined to it.

    Upstream reports an absolute ``working_dir`` as given and a relative one joined and cleaned; one outside the
    workspace is refused here (upstream silently ran in the workspace instead).
    """
    root = str(state.workspace.root)
    if not isinstance(value, str) or not value.strip():
        return root, root
    wanted = value.strip()
    real = guard(state, os.path.join(root, wanted))[2]
    return real, wanted if os.path.isabs(wanted) else go_clean(os.path.join(root, wanted))


_ERRNO = re.compile(r"\[Errno (\d+)\]")


def _start_problem(command: str | list[str], cwd: str, error: str | None = None) -> str | None:
    """Go's text for a command that cannot start in ``cwd`` (``exec.Cmd.Start`` with ``Setpgid``), or None.

    A program not on ``$PATH`` is ``exec: "x": executable file not found in $PATH``; anything the child fails at
    (changing to ``cwd``, executing the program) is ``fork/exec <program path>: <errno text>``. ``error`` is the
    text of an ``OSError`` already met, for the errors no check here foresees.
    """
    program = "bash" if isinstance(command, str) else command[0]
    path = program
    if "/" not in program:
        found = shutil.which(program)
        if found is None:
            return f'exec: "{program}": executable file not found in $PATH'
        path = found
    code = 0
    if not os.path.isdir(cwd):
        code = errno.ENOTDIR if os.path.exists(cwd) else errno.ENOENT
    else:
        target = os.path.join(cwd, path)
        if not os.path.exists(target):
            code = errno.ENOENT
        elif os.path.isdir(target) or not os.access(target, os.X_OK):
            code = errno.EACCES
        elif error is not None:
            found_code = _ERRNO.search(error)
            code = int(found_code.group(1)) if found_code else errno.EIO
    if not code:
        return None
    return path_error("fork/exec", path, OSError(code, os.strerror(code)))


def exec_command(state: State, args: dict[str, Any]) -> str:
    """``exec``: run a command to its end (or its timeout) and report its exit code and output."""
    command, display = parse_command(args.get("command"))
    cwd, shown = _working_dir(state, args.get("working_dir"))
    seconds = coerce_float(args.get("timeout"))
    if not seconds > 0:
        seconds = DEFAULT_EXEC_TIMEOUT
    seconds = min(seconds, MAX_EXEC_TIMEOUT)
    problem = _start_problem(command, cwd)
    if problem is not None:
        raise fail(f"command execution failed: {problem}")
    if isinstance(command, str):
        result = shell.run_shell(command, cwd=cwd, timeout=seconds, max_output=MAX_STREAM,
                                 session=state.processes.session, sandbox=state.processes.sandbox)
    else:
        result = shell.run_command(command, cwd=cwd, timeout=seconds, max_output=MAX_STREAM, display=display,
                                   session=state.processes.session, sandbox=state.processes.sandbox)
    if result.error is not None:
        raise fail(f"command execution failed: {_start_problem(command, cwd, result.error) or result.error}")
    if result.timed_out:
        raise fail(f"command timeout after {go_duration(seconds)}")
    code = -1 if result.exit_code is None else result.exit_code
    reply: dict[str, Any] = {"success": code == 0, "command": display, "exit_code": code, "stdout": result.stdout,
                             "stderr": result.stderr, "working_dir": shown}
    if result.stdout_truncated or result.stderr_truncated:
        reply["truncated"] = True
    return dumps(reply)


def _snapshot(state: State, status: ProcessStatus) -> dict[str, Any]:
    snap: dict[str, Any] = {"process_id": status.id, "command": state.displays.get(status.id, status.command),
                            "working_dir": state.cwds.get(status.id, str(status.cwd)), "running": status.running,
                            "started_at": rfc3339(status.started)}
    if not status.running:
        snap["ended_at"] = rfc3339(status.finished or status.started)
        snap["exit_code"] = -1 if status.exit_code is None else status.exit_code
        error = go_wait_error(status.exit_code, status.signal)
        if error is not None:
            snap["error"] = error
    return snap


def _process_id(args: dict[str, Any]) -> str:
    """``process_id``, else ``pid``, as trimmed Go strings (upstream's ``getProcessByArgs``)."""
    value = coerce_str(args.get("process_id")).strip() or coerce_str(args.get("pid")).strip()
    if not value:
        raise fail("process_id is required")
    return value


def _start(state: State, args: dict[str, Any]) -> str:
    manager = state.processes
    limit = manager.max_running
    if limit is not None and manager.running_count() >= limit:  # upstream checks this before the command
        raise fail(f"too many active processes ({manager.running_count()}/{limit}), kill some before starting new "
                   "ones")
    command, display = parse_command(args.get("command"))
    cwd, shown = _working_dir(state, args.get("working_dir"))
    problem = _start_problem(command, cwd)
    if problem is not None:
        raise fail(f"start process failed: {problem}")
    line = command if isinstance(command, str) else shlex.join(command)
    try:
        status = manager.start(line, cwd=cwd)
    except ProcessLimitError:
        raise fail(f"too many active processes ({manager.running_count()}/{limit or 0}), kill some before "
                   "starting new ones") from None
    except OSError as exc:
        raise fail(f"start process failed: {_start_problem(command, cwd, str(exc)) or exc}") from None
    for known in [key for key in state.displays if key not in manager]:  # forgotten records: forget their texts
        del state.displays[known]
        state.cwds.pop(known, None)
    state.displays[status.id] = display
    state.cwds[status.id] = shown
    return dumps({"success": True, "process_id": status.id, "running": True, "command": display,
                  "working_dir": shown, "started_at": rfc3339(status.started)})


def process(state: State, args: dict[str, Any]) -> str:
    """``process``: start, inspect, read, kill and list background processes."""
    action = coerce_str(args.get("action")).strip().lower()
    if not action:
        raise fail("action is required")
    manager = state.processes
    if action == "list":
        statuses = sorted(manager.list(), key=lambda s: (len(s.id), s.id))
        return dumps([_snapshot(state, s) for s in statuses])
    if action == "start":
        return _start(state, args)
    if action not in ("status", "log", "kill"):
        raise fail(f"unsupported action: {action}")
    process_id = _process_id(args)
    try:
        if action == "kill":
            killed = manager.signal(process_id, signal.SIGKILL)
            return dumps({**_snapshot(state, manager.status(process_id)), "killed": killed})
        status = manager.status(process_id)
        if action == "status":
            return dumps(_snapshot(state, status))
        tail = coerce_int(args.get("tail"))
        tail = DEFAULT_TAIL if tail <= 0 else min(tail, MAX_STREAM)
        out, err = manager.tail(process_id, tail)
        return dumps({**_snapshot(state, status), "stdout": out.decode("utf-8", errors="replace"),
                      "stderr": err.decode("utf-8", errors="replace"), "tail": tail})
    except UnknownProcessError:
        raise fail(f"process not found: {process_id}") from None
