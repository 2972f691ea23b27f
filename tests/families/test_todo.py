"""The todo family: a validated list, replaced whole, saved atomically, unchanged by anything that fails."""

from __future__ import annotations

import json

import pytest

from agenttools.errors import ToolInputError
from agenttools.todo import TodoList


def test_replace_validates_numbers_and_keeps_ids():
    todos = TodoList()
    items = todos.replace([{"content": " write tests ", "status": "in_progress", "priority": "high"},
                           {"id": "own", "Content": "ship", "STATUS": "pending", "priority": "low"}])
    assert [(i.id, i.content, i.status, i.priority, i.active) for i in items] == [
        ("task-1", "write tests", "in_progress", "high", True), ("own", "ship", "pending", "low", True)]
    assert todos.items == items
    assert todos.replace([{"content": "again", "status": "completed", "priority": "medium"}])[0].id == "task-2"
    assert not todos.items[0].active


@pytest.mark.parametrize(("items", "message"), [
    ([{"content": "x", "status": "doing", "priority": "high"}],
     "invalid status 'doing' for todo 1. Must be one of: pending, in_progress, completed, cancelled"),
    ([{"content": "x", "status": "pending", "priority": "urgent"}],
     "invalid priority 'urgent' for todo 1. Must be one of: high, medium, low"),
    ([{"content": "  ", "status": "pending", "priority": "low"}], "todo content cannot be empty for todo 1"),
    ([{"content": "a", "status": "in_progress", "priority": "low"},
      {"content": "b", "status": "in_progress", "priority": "low"}],
     "only one todo can be in_progress at a time, found 2"),
    (["not an object"], "invalid todos JSON: todo 1 is not an object"),
])
def test_invalid_lists_are_refused_and_leave_the_list_unchanged(items, message):
    todos = TodoList()
    kept = todos.replace([{"content": "keep", "status": "pending", "priority": "low"}])
    with pytest.raises(ToolInputError) as info:
        todos.replace(items)
    assert str(info.value) == message
    assert todos.items == kept


def test_saved_as_json_and_lazily_located(tmp_path):
    asked = []

    def where():
        asked.append(1)
        return tmp_path / "deep" / "todos.json"

    todos = TodoList(path=where)
    assert asked == []  # nothing is made before the first change
    todos.replace([{"content": "é", "status": "pending", "priority": "low"}])
    saved = (tmp_path / "deep" / "todos.json").read_text(encoding="utf-8")
    assert json.loads(saved) == {"todos": [{"id": "task-1", "content": "é", "status": "pending",
                                            "priority": "low"}]}
    assert saved.startswith('{\n  "todos"')


def test_a_failing_writer_leaves_the_list_unchanged(tmp_path):
    def refuse(path, data):
        raise PermissionError("not here")

    todos = TodoList(path=tmp_path / "t.json", writer=refuse)
    with pytest.raises(PermissionError):
        todos.replace([{"content": "x", "status": "pending", "priority": "low"}])
    assert todos.items == ()
    assert not (tmp_path / "t.json").exists()
