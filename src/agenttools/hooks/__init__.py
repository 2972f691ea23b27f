"""Hooks: what runs around every call of a registry — approval, an audit log, an output budget, tracing.

``reg.with_hooks(hook, ...)`` gives a new registry over the same tools whose calls pass through the hooks, through
every entry point (``call``, ``acall``, ``run``, ``arun``, the MCP server, the CLI, the LangChain tools). A hook is
any object with one or more of these methods:

* ``before(call) -> None | ToolCall | ToolOutput``: runs for a call whose arguments are valid, in the order the
  hooks were given. ``None`` goes on; ``attrs.evolve(call, arguments={...})`` changes the arguments (they are
  validated again); a :class:`~agenttools.ToolOutput` answers the call without running the tool, and the hooks
  after this one are not asked.
* ``after(call, output) -> ToolOutput``: runs for every call — run, answered by a ``before``, or refused by
  validation (``call.arguments`` is then what could be read, and ``call.tool`` is None for an unknown name) — in
  the reverse order, each given the previous one's output.
* ``abefore`` and ``aafter``: their async twins, awaited by ``acall`` and ``arun`` when present (otherwise the
  plain method runs on the event loop: give a hook that blocks an async twin).

A hook that raises, or returns something else, makes the call fail with the tool's usual error text; nothing
escapes ``call``. Hooks are not closed with the registry (one may serve several): close an :class:`AuditLog`
yourself when you are done with it.
"""

from __future__ import annotations

from agenttools.hooks.approval import Approval
from agenttools.hooks.audit import AuditLog
from agenttools.hooks.budget import OutputBudget
from agenttools.hooks.tracing import Tracing
from agenttools.tool import ToolCall

__all__ = ["Approval", "AuditLog", "Hook", "OutputBudget", "ToolCall", "Tracing"]

Hook = object
"""Any object with one or more of ``before``, ``after``, ``abefore`` and ``aafter`` (see above)."""
