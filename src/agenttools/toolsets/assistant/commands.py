"""The assistant command tools: ``exec`` (a command run to its end) and ``process`` (background processes)."""

from __future__ import annotations

import os
import shlex
import signal
from typing import Any

from agenttools import shell
from agenttools.errors import ProcessLimitError, UnknownProcessError
from agenttools.process import ProcessStatus
from agenttools.toolsets.assistant.state import (
    DEFAULT_EXEC_TIMEOUT,
    DEFAULT_TAIL,
    MAX_EXEC_TIMEOUT,
    MAX_STREAM,
    State,
    coerce_int,
    guard,
)
from agenttools.toolsets.assistant.texts import dumps, fail, go_duration, go_wait_error, rfc3339

__all__ = ["exec_command", "parse_command", "process"]


def parse_command(value: Any) -> tuple[str | list[str], str]:
    """(a shell string or an argv list, the command as displayed), or upstream's error."""
    if value is None:
        raise fail("command is required")
    if isinstance(value, str):
        if not value.strip():
            raise fail("command is required")
        return value.strip(), value.strip()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        argv = [item.strip() for item in value if item.strip()]
        if not argv:
            raise fail("command program is required")
        return argv, " ".join(argv)
    raise fail("command is required and must be string or []string")


def _working_dir(state: State, value: Any) -> str:
    root = str(state.workspace.root)
    if not isinstance(value, str) or not value.strip():
        return root
    return guard(state, os.path.join(root, value.strip()))[2]


def exec_command(state: State, args: dict[str, Any]) -> str:
    """``exec``: run a command to its end (or its timeout) and report its exit code and output."""
    command, display = parse_command(args.get("command"))
    cwd = _working_dir(state, args.get("working_dir"))
    timeout = args.get("timeout")
    seconds = float(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) else 0.0
    if seconds <= 0:
        seconds = DEFAULT_EXEC_TIMEOUT
    seconds = min(seconds, MAX_EXEC_TIMEOUT)
    if not os.path.isdir(cwd):
        raise fail(f"command execution failed: chdir {cwd}: no such file or directory")
    if isinstance(command, str):
        result = shell.run_shell(command, cwd=cwd, timeout=seconds, max_output=MAX_STREAM,
                                 session=state.processes.session)
    else:
        result = shell.run_command(command, cwd=cwd, timeout=seconds, max_output=MAX_STREAM, display=display,
                                   session=state.processes.session)
    if result.error is not None:
        program = command[0] if isinstance(command, list) else "bash"
        if "/" not in program and "FileNotFoundError" in result.error:
            raise fail(f'command execution failed: exec: "{program}": executable file not found in $PATH')
        raise fail(f"command execution failed: fork/exec {program}: {result.error.split(': ', 1)[-1]}")
    if result.timed_out:
        raise fail(f"command timeout after {go_duration(seconds)}")
    code = -1 if result.exit_code is None else result.exit_code
    reply: dict[str, Any] = {"success": code == 0, "command": display, "exit_code": code, "stdout": result.stdout,
                             "stderr": result.stderr, "working_dir": cwd}
    if result.stdout_truncated or result.stderr_truncated:
        reply["truncated"] = True
    return dumps(reply)


def _snapshot(state: State, status: ProcessStatus) -> dict[str, Any]:
    snap: dict[str, Any] = {"process_id": status.id, "command": state.displays.get(status.id, status.command),
                            "working_dir": str(status.cwd), "running": status.running,
                            "started_at": rfc3339(status.started)}
    if not status.running:
        snap["ended_at"] = rfc3339(status.finished or status.started)
        snap["exit_code"] = -1 if status.exit_code is None else status.exit_code
        error = go_wait_error(status.exit_code, status.signal)
        if error is not None:
            snap["error"] = error
    return snap


def _process_id(args: dict[str, Any]) -> str:
    value = args.get("process_id", args.get("pid"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(int(value))
    if not isinstance(value, str) or not value.strip():
        raise fail("process_id is required")
    return value.strip()


def process(state: State, args: dict[str, Any]) -> str:
    """``process``: start, inspect, read, kill and list background processes."""
    action = args.get("action")
    action = action.strip().lower() if isinstance(action, str) else ""
    if not action:
        raise fail("action is required")
    manager = state.processes
    if action == "list":
        statuses = sorted(manager.list(), key=lambda s: (len(s.id), s.id))
        return dumps([_snapshot(state, s) for s in statuses])
    if action == "start":
        command, display = parse_command(args.get("command"))
        cwd = _working_dir(state, args.get("working_dir"))
        line = command if isinstance(command, str) else shlex.join(command)
        try:
            status = manager.start(line, cwd=cwd)
        except ProcessLimitError:
            limit = manager.max_running or 0
            raise fail(f"too many active processes ({manager.running_count()}/{limit}), kill some before starting "
                       "new ones") from None
        except OSError as exc:
            raise fail(f"failed to start process: {exc}") from None
        for known in [key for key in state.displays if key not in manager]:  # forgotten records: forget their text
            del state.displays[known]
        state.displays[status.id] = display
        return dumps({"success": True, "process_id": status.id, "running": True, "command": display,
                      "working_dir": cwd, "started_at": rfc3339(status.started)})
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
