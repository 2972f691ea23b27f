"""``bash`` (``bash_20250124``): a persistent bash session, ``restart`` to start a fresh one.

Answers are the reference's ``ToolResult`` as its sampling loop hands it to the model (``_make_api_tool_result``):
the error alone when bash wrote to stderr, else the output; a ``system`` note is prepended as
``<system>...</system>``. The whole result (output, error, system) is the output's ``data``.
"""

from __future__ import annotations

from typing import Any

import attrs

from agenttools.output import ToolOutput
from agenttools.toolsets.anthropic.session import BashSession
from agenttools.toolsets.anthropic.state import State
from agenttools.toolsets.anthropic.texts import fail

__all__ = ["BashResult", "bash", "to_output"]


@attrs.frozen(kw_only=True)
class BashResult:
    """The reference's ``ToolResult`` of a bash call."""

    output: str | None = None
    """What the command printed on stdout."""
    error: str | None = None
    """What it printed on stderr, or why the session cannot run it."""
    system: str | None = None
    """A note for the model about the tool itself (``tool has been restarted.``)."""


def to_output(result: BashResult) -> ToolOutput:
    """The text the reference's loop sends: the error (an error result) or the output, after the system note.

    A result with a system note alone (a restart) is that note: the loop would send no text at all.
    """
    def note(text: str) -> str:
        return f"<system>{result.system}</system>\n{text}" if result.system else text

    if result.error:
        return ToolOutput(text=note(result.error), is_error=True, data=result)
    if result.output:
        return ToolOutput(text=note(result.output), data=result)
    return ToolOutput(text=result.system or "", data=result)


def _seconds(value: float) -> str:
    return str(float(value))


def _start(state: State) -> BashSession:
    state.session = BashSession(str(state.workspace.root), max_output=state.max_output, sandbox=state.sandbox)
    return state.session


def _exited(code: int) -> ToolOutput:
    return to_output(BashResult(system="tool must be restarted", error=f"bash has exited with returncode {code}"))


def bash(state: State, args: dict[str, Any]) -> ToolOutput:
    """Run a command in the session (started on first use), or restart it."""
    command = args.get("command")
    with state.lock:
        if args.get("restart"):
            state.close_session()
            _start(state)
            return to_output(BashResult(system="tool has been restarted."))
        session = state.session if state.session is not None else _start(state)
    if command is None:
        raise fail("no command provided.")
    if not isinstance(command, str):
        raise fail(f"Invalid `command` parameter: {command!r}. It should be a string.")
    timed_out = f"timed out: bash has not returned in {_seconds(state.timeout)} seconds and must be restarted"
    if session.timed_out:  # before the exit status: the timeout killed bash
        raise fail(timed_out)
    code = session.returncode
    if code is not None:
        return _exited(code)
    finished = session.run(command, state.timeout)
    if finished.timed_out:
        raise fail(timed_out)
    if finished.cancelled:
        with state.lock:
            if state.session is session:  # not a session a restart started meanwhile
                state.session = None
        raise fail("the tool call was cancelled; the bash session was ended")
    if finished.exited is not None:
        return _exited(finished.exited)
    return to_output(BashResult(output=finished.output, error=finished.error))
