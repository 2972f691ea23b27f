"""The assistant toolset's process tools: exec (synchronous), process (background), and message."""

from __future__ import annotations

import os
import shlex
import signal
from typing import Any

from agenttools import shell
from agenttools.errors import ChannelNotFoundError, ProcessLimitError, SendError, UnknownProcessError
from agenttools.message import send_message
from agenttools.process import ProcessStatus
from agenttools.toolsets._assistant_common import (
    DEFAULT_EXEC_TIMEOUT,
    DEFAULT_TAIL,
    MAX_EXEC_TIMEOUT,
    MAX_STREAM,
    Fail,
    State,
    coerce_int,
    dumps,
    go_duration,
    go_wait_error,
    guard,
    rfc3339,
)


def parse_command(value: Any) -> tuple[str | list[str], str]:
    """(a shell string or an argv list, the command as displayed), or upstream's error."""
    if value is None:
        raise Fail("command is required")
    if isinstance(value, str):
        if not value.strip():
            raise Fail("command is required")
        return value.strip(), value.strip()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        argv = [item.strip() for item in value if item.strip()]
        if not argv:
            raise Fail("command program is required")
        return argv, " ".join(argv)
    raise Fail("command is required and must be string or []string")


def _working_dir(state: State, value: Any) -> str:
    root = str(state.workspace.root)
    if not isinstance(value, str) or not value.strip():
        return root
    return guard(state, os.path.join(root, value.strip()))[2]


def exec_command(state: State, args: dict[str, Any]) -> str:
    command, display = parse_command(args.get("command"))
    cwd = _working_dir(state, args.get("working_dir"))
    timeout = args.get("timeout")
    seconds = float(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) else 0.0
    if seconds <= 0:
        seconds = DEFAULT_EXEC_TIMEOUT
    seconds = min(seconds, MAX_EXEC_TIMEOUT)
    if not os.path.isdir(cwd):
        raise Fail(f"command execution failed: chdir {cwd}: no such file or directory")
    if isinstance(command, str):
        result = shell.run_shell(command, cwd=cwd, timeout=seconds, max_output=MAX_STREAM,
                                 session=state.processes.session)
    else:
        result = shell.run_command(command, cwd=cwd, timeout=seconds, max_output=MAX_STREAM, display=display,
                                   session=state.processes.session)
    if result.error is not None:
        program = command[0] if isinstance(command, list) else "bash"
        if "/" not in program and "FileNotFoundError" in result.error:
            raise Fail(f'command execution failed: exec: "{program}": executable file not found in $PATH')
        raise Fail(f"command execution failed: fork/exec {program}: {result.error.split(': ', 1)[-1]}")
    if result.timed_out:
        raise Fail(f"command timeout after {go_duration(seconds)}")
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
        raise Fail("process_id is required")
    return value.strip()


def process(state: State, args: dict[str, Any]) -> str:
    action = args.get("action")
    action = action.strip().lower() if isinstance(action, str) else ""
    if not action:
        raise Fail("action is required")
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
            raise Fail(f"too many active processes ({manager.running_count()}/{limit}), kill some before starting "
                       "new ones") from None
        except OSError as exc:
            raise Fail(f"failed to start process: {exc}") from None
        for known in [key for key in state.displays if key not in manager]:  # forgotten records: forget their text
            del state.displays[known]
        state.displays[status.id] = display
        return dumps({"success": True, "process_id": status.id, "running": True, "command": display,
                      "working_dir": cwd, "started_at": rfc3339(status.started)})
    if action not in ("status", "log", "kill"):
        raise Fail(f"unsupported action: {action}")
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
        raise Fail(f"process not found: {process_id}") from None


def _id_arg(args: dict[str, Any], *names: str) -> str:
    for name in names:
        value = args.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(int(value)) if float(value).is_integer() else str(value)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def message(state: State, args: dict[str, Any]) -> str:
    channel_id = _id_arg(args, "chanId", "chan_id", "channelId", "channel_id")
    if not channel_id:
        raise Fail("chanId is required")
    chat_id = _id_arg(args, "chatId", "chat_id")
    if not chat_id:
        raise Fail("chatId is required")
    content = args.get("content")
    if not isinstance(content, str) or not content:
        raise Fail("content is required")
    try:
        send_message(state.channels, channel_id, chat_id, content)
    except (ChannelNotFoundError, SendError) as exc:
        raise Fail(str(exc)) from None
    return dumps({"success": True, "chanId": channel_id, "chatId": chat_id, "content": content})
