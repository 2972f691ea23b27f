"""The gemini shell tool: ``run_shell_command``, checked as upstream checks it and run by the shell family."""

from __future__ import annotations

import os
import re
from typing import Any

from agenttools import shell
from agenttools.errors import AgentToolsError, OutsideWorkspaceError
from agenttools.output import ToolOutput
from agenttools.schema import validate
from agenttools.toolsets.gemini.state import State
from agenttools.toolsets.gemini.texts import PARAMETERS, num, rejected

__all__ = ["run_shell_command"]


def _command_root(command: str) -> str:
    stripped = re.sub(r"[{}()]", "", command.strip())
    first = re.split(r"[\s;&|]+", stripped)[0]
    return first.split("/")[-1].split("\\")[-1]


def run_shell_command(state: State, args: dict[str, Any]) -> ToolOutput | str:
    """``run_shell_command``: ``bash -c`` in its own process group, reported field by field as upstream does."""
    command = args.get("command")
    if isinstance(command, str) and "$(" in command:
        raise rejected(command, "Command substitution using $() is not allowed for security reasons")
    issues = validate(PARAMETERS["run_shell_command"], args, all_errors=False)
    if issues:
        raise rejected(command, issues[0].ajv_text())
    assert isinstance(command, str)  # noqa: S101 - checked by the schema
    if not command.strip():
        raise rejected(command, "Command cannot be empty.")
    if not _command_root(command):
        raise rejected(command, "Could not identify command root to obtain permission from user.")
    directory = args.get("directory")
    cwd = state.root
    if directory:
        if os.path.isabs(directory):
            raise rejected(command, "Directory cannot be absolute. Must be relative to the project "
                                    "root directory.")
        try:
            cwd = str(state.workspace.resolve(os.path.join(state.root, directory), expect="dir"))
        except OutsideWorkspaceError:
            raise rejected(command, f"Directory must be within the root directory ({state.root}): "
                                    f"{directory}") from None
        except AgentToolsError:
            raise rejected(command, "Directory must exist.") from None
    inner = command.strip()
    wrapped = f"{{ {inner if inner.endswith('&') else inner + ';'} }}; __code=$?; exit $__code;"
    result = shell.run_shell(wrapped, cwd=cwd, timeout=state.shell_timeout, max_output=state.max_output,
                             session=state.session, sandbox=state.sandbox)
    error = result.error
    if result.timed_out:
        error = f"Command timed out after {num(state.shell_timeout)} seconds."
    text = "\n".join([
        f"Command: {command}",
        f"Directory: {directory or '(root)'}",
        f"Stdout: {result.stdout or '(empty)'}",
        f"Stderr: {result.stderr or '(empty)'}",
        f"Error: {error or '(none)'}",
        f"Exit Code: {'(none)' if result.exit_code is None else result.exit_code}",
        f"Signal: {result.signal_name or '(none)'}",
        f"Background PIDs: {', '.join(map(str, result.background_pids)) or '(none)'}",
        f"Process Group PGID: {'(none)' if result.pgid is None else result.pgid}",
    ])
    return ToolOutput(text=text, is_error=bool(error), data=result)
