"""The coder todo tools: ``todowrite`` and ``todoread``, on the todo family's list (saved in the session dir)."""

from __future__ import annotations

import json
from typing import Any

from agenttools.errors import ToolInputError
from agenttools.toolsets.coder.state import State
from agenttools.toolsets.coder.texts import fail

__all__ = ["todoread", "todowrite"]


def todowrite(state: State, args: dict[str, Any]) -> str:
    """``todowrite``: replace the session's todo list with a JSON array of todos."""
    raw = args["todos_json"]
    try:
        items = json.loads(raw) if raw.strip() else []
    except ValueError as exc:
        raise fail(f"invalid todos JSON: {exc}") from None
    if not isinstance(items, list):
        raise fail("invalid todos JSON: the value must be an array of todo objects")
    try:
        stored = state.todos.replace(items)
    except ToolInputError as exc:
        raise fail(str(exc)) from None
    active = sum(1 for item in stored if item.active)
    return json.dumps({"output": f"Successfully updated {len(stored)} todos",
                       "title": f"Updated todo list with {active} active todos"}, separators=(",", ":"),
                      sort_keys=True)


def todoread(state: State, args: dict[str, Any]) -> str:
    """``todoread``: the session's todo list as a JSON string."""
    items = state.todos.items
    output = json.dumps([item.to_json() for item in items], separators=(",", ":"), ensure_ascii=False)
    active = sum(1 for item in items if item.active)
    return json.dumps({"output": output, "title": f"{active} todos"}, separators=(",", ":"), sort_keys=True)
