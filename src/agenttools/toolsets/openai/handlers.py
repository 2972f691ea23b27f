"""The openai handlers: ``apply_patch`` (Codex's texts) and ``shell`` (the Responses shell tool's output shape)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agenttools.errors import AgentToolsError, ToolFailure
from agenttools.output import ToolOutput
from agenttools.patch import PatchError, operation_patch
from agenttools.patch import apply_patch as apply_v4a
from agenttools.shell import run_shell
from agenttools.toolsets.openai.state import State

__all__ = ["apply_patch", "patch_arguments", "render_error", "shell"]


def apply_patch(state: State, args: dict[str, Any]) -> ToolOutput:
    """Apply the patch in ``input``; the text is Codex's stdout (success) or stderr (failure), newline included."""
    try:
        result = apply_v4a(state.workspace, args["input"])
    except PatchError as exc:
        raise ToolFailure(exc.message + "\n", code=exc.code, data=exc) from None
    return ToolOutput(text=result.text, data=result)


def patch_arguments(state: State, operation: Mapping[str, Any]) -> dict[str, Any]:
    """A native ``apply_patch_call``'s operation as ``apply_patch``'s arguments: its V4A patch.

    Refused (the item answers ``failed``, nothing runs) when the diff does not parse, would change more than the
    operation's own path, or is larger than the workspace's ``max_file_size``.
    """
    try:
        return {"input": operation_patch(dict(operation), max_size=state.workspace.max_file_size)}
    except PatchError as exc:
        raise ToolFailure(exc.message + "\n", code=exc.code, data=exc) from None


def _cap(stdout: str, stderr: str, limit: int) -> tuple[str, str]:
    """The streams cut to ``limit`` characters together, stdout first."""
    stdout = stdout[:limit]
    return stdout, stderr[: max(0, limit - len(stdout))]


def shell(state: State, args: dict[str, Any]) -> ToolOutput:
    """Run each command in order (stop after one that times out); the text is the JSON of the output entries."""
    timeout_ms = args.get("timeout_ms") or state.timeout_ms
    limit = args.get("max_output_length")
    # The toolset's max_output_length is also the ceiling: a call cannot make this process hold gigabytes.
    cap = state.max_output_length if limit is None else min(limit, state.max_output_length)
    entries: list[dict[str, Any]] = []
    for command in args["commands"]:
        # Bytes kept per stream: run_shell keeps a head and a tail of half each, with a marker between when it
        # drops the middle; a head of 4 * cap bytes (plus the marker's room) always holds the first cap
        # characters, so what is cut below is the start of the output, never the marker.
        done = run_shell(command, cwd=state.workspace.cwd, timeout=timeout_ms / 1000,
                         max_output=8 * cap + 256, session=state.session, sandbox=state.sandbox)
        stdout, stderr = _cap(done.stdout, done.stderr if done.error is None else done.stderr + done.error, cap)
        if done.timed_out:
            outcome: dict[str, Any] = {"type": "timeout"}
        else:
            code = done.exit_code if done.exit_code is not None else 128 + (done.signal or 0)
            outcome = {"type": "exit", "exit_code": code}
        entries.append({"stdout": stdout, "stderr": stderr, "outcome": outcome})
        if done.timed_out:
            break
    data: dict[str, Any] = {"output": entries}
    if limit is not None:
        data["max_output_length"] = limit
    return ToolOutput(text=json.dumps(entries, ensure_ascii=False), data=data)


def render_error(tool: str, error: BaseException) -> str:
    """Errors that are not a patch failure: the message, one line (argument errors, refused paths)."""
    if isinstance(error, AgentToolsError):
        return f"Error: {error}"
    return f"Error: {type(error).__name__}: {error}"
