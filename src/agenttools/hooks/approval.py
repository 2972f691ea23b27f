"""Ask before a call runs: a person, a policy, another model."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from agenttools._calls import run_coroutine, run_sync
from agenttools.errors import ConfigError, ToolFailure
from agenttools.output import ToolOutput
from agenttools.tool import ToolCall

__all__ = ["WHEN", "Approval"]

WHEN = ("always", "destructive", "not_read_only")
"""The named conditions of :class:`Approval`'s ``when``."""

DENIED = "denied"
"""The error code of a denied call (in ``output.data.code``, and in an audit log's ``error``)."""


class Approval:
    """Run a call only when ``decide(call)`` approves it.

    Args:
        decide: Called with the :class:`~agenttools.ToolCall`; returns ``True`` to run it, or a reason (a string)
            or anything else to deny it. May be async (awaited by ``acall``; run to completion by ``call``). A sync
            ``decide`` called from ``acall`` runs in a worker thread, so it may block (``input()``).
        when: Which calls to ask about: ``"always"``, ``"destructive"`` (the tool's effective destructive hint:
            ``destructive``, or else not ``read_only``), ``"not_read_only"``, or a predicate on the call.

    A denied call never runs: it answers ``is_error=True`` with one line, ``The call to <tool> was denied: <reason>``
    (``not approved`` when ``decide`` gave none), and ``output.data`` is a :class:`~agenttools.ToolFailure` with
    code ``"denied"``. Anything but ``True`` denies: an approval fails closed.

    Raises:
        ConfigError: ``decide`` is not callable, or ``when`` is neither one of :data:`WHEN` nor callable.
    """

    def __init__(self, decide: Callable[[ToolCall], Any],
                 when: str | Callable[[ToolCall], Any] = "destructive") -> None:
        if not callable(decide):
            raise ConfigError(f"Approval: decide must be callable, got {type(decide).__name__}")
        if not callable(when) and when not in WHEN:
            raise ConfigError(f"Approval: when must be one of {', '.join(WHEN)} or a predicate, got {when!r}")
        self._decide = decide
        self._when = when
        self._async = inspect.iscoroutinefunction(decide) or inspect.iscoroutinefunction(
            getattr(decide, "__call__", None))  # noqa: B004 - an object whose __call__ is async

    def __repr__(self) -> str:
        return f"Approval(when={self._when!r})"

    def applies(self, call: ToolCall) -> bool:
        """Whether ``call`` needs a decision."""
        when, tool = self._when, call.tool
        if not isinstance(when, str):
            return bool(when(call))
        if when == "always" or tool is None:
            return True
        return tool.is_destructive if when == "destructive" else not tool.read_only

    def before(self, call: ToolCall) -> ToolOutput | None:
        """Ask, and answer with the denial unless approved."""
        if not self.applies(call):
            return None
        verdict = self._decide(call)
        if inspect.isawaitable(verdict):
            verdict = run_coroutine(verdict)
        return denial(call, verdict)

    async def abefore(self, call: ToolCall) -> ToolOutput | None:
        """As :meth:`before`, awaiting an async ``decide`` or running a sync one in a worker thread."""
        if not self.applies(call):
            return None
        if self._async:
            verdict = await self._decide(call)
        else:
            verdict = await run_sync(self._decide, call)
            if inspect.isawaitable(verdict):
                verdict = await verdict
        return denial(call, verdict)


def denial(call: ToolCall, verdict: Any) -> ToolOutput | None:
    """None when ``verdict`` is ``True``; else the denied call's answer."""
    if verdict is True:
        return None
    reason = " ".join(verdict.split()) if isinstance(verdict, str) else ""
    text = f"The call to {call.name} was denied: {reason or 'not approved'}"
    return ToolOutput(text=text, is_error=True, data=ToolFailure(text, code=DENIED))
