"""The coder todo tools: ``todowrite`` and ``todoread``, on the todo family's list (saved in the session dir)."""

from __future__ import annotations

from typing import Any

from agenttools.errors import ToolInputError
from agenttools.toolsets.coder.gojson import GoJSONError, decode_todos
from agenttools.toolsets.coder.state import State
from agenttools.toolsets.coder.texts import fail, go_json

__all__ = ["todoread", "todowrite"]


def todowrite(state: State, args: dict[str, Any]) -> str:
    """``todowrite``: replace the session's todo list with a JSON array of todos."""
    raw = args["todos_json"]
    try:  # json.Unmarshal into []session.TodoItem, Go's errors and all; "" is an empty list
        items = decode_todos(raw) if raw != "" else []
    except GoJSONError as exc:
        raise fail(f"invalid todos JSON: {exc}") from None
    try:
        stored = state.todos.replace(items)
    except ToolInputError as exc:
        raise fail(str(exc)) from None
    active = sum(1 for item in stored if item.active)
    return go_json({"output": f"Successfully updated {len(stored)} todos",
                    "title": f"Updated todo list with {active} active todos"})


def todoread(state: State, args: dict[str, Any]) -> str:
    """``todoread``: the session's todo list as a JSON string (Go's ``json.Marshal`` twice, keys sorted)."""
    items = state.todos.items
    output = go_json([item.to_json() for item in items])
    active = sum(1 for item in items if item.active)
    return go_json({"output": output, "title": f"{active} todos"})
