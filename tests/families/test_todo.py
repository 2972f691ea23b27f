"""The todo family: a validated list, replaced whole, saved as JSON atomically, unchanged by anything that fails."""

from __future__ import annotations

import errno
import json

import pytest

from agenttools._text import atomic_write
from agenttools.errors import ToolInputError
from agenttools.todo import PRIORITIES, STATUSES, TodoItem, TodoList


def _todo(content: str = "x", status: str = "pending", priority: str = "low", **extra: str) -> dict[str, str]:
    return {"content": content, "status": status, "priority": priority, **extra}


def test_the_vocabulary():
    assert STATUSES == ("pending", "in_progress", "completed", "cancelled")
    assert PRIORITIES == ("high", "medium", "low")


def test_replace_validates_numbers_and_keeps_ids():
    todos = TodoList()
    items = todos.replace([_todo(" write tests ", "in_progress", "high"), _todo("ship", id="own")])
    assert items == (TodoItem(id="task-1", content=" write tests ", status="in_progress", priority="high"),
                     TodoItem(id="own", content="ship", status="pending", priority="low"))
    assert todos.items == items
    again = todos.replace([_todo("again", "completed", "medium"), _todo("more", id="")])  # "" asks for a number
    assert [item.id for item in again] == ["task-2", "task-3"]  # numbering continues across replacements
    assert todos.replace([]) == () and todos.items == ()


def test_keys_match_case_insensitively_and_an_exact_key_wins():
    todos = TodoList()
    item, = todos.replace([{"ID": 7, "Content": "ship", "STATUS": "pending", "Priority": "low"}])
    assert (item.id, item.content, item.status, item.priority) == ("7", "ship", "pending", "low")
    item, = todos.replace([{"content": "exact", "CONTENT": "loose", "status": "pending", "priority": "low"}])
    assert item.content == "exact"


@pytest.mark.parametrize(("status", "active"), [("pending", True), ("in_progress", True), ("completed", False),
                                                  ("cancelled", False)])
def test_active_means_not_finished(status, active):
    assert TodoItem(id="a", content="x", status=status, priority="low").active is active


def test_to_json_is_upstreams_shape():
    item = TodoItem(id="a", content="é", status="pending", priority="high")
    assert list(item.to_json().items()) == [("id", "a"), ("content", "é"), ("status", "pending"),
                                            ("priority", "high")]


def test_one_item_in_progress_alongside_finished_ones_is_fine():
    todos = TodoList()
    items = todos.replace([_todo("a", "completed"), _todo("b", "in_progress"), _todo("c", "cancelled")])
    assert [item.status for item in items] == ["completed", "in_progress", "cancelled"]


@pytest.mark.parametrize(("items", "message"), [
    ([_todo(status="doing")],
     "invalid status 'doing' for todo 1. Must be one of: pending, in_progress, completed, cancelled"),
    ([_todo(), {"content": "x", "priority": "low"}],
     "invalid status '' for todo 2. Must be one of: pending, in_progress, completed, cancelled"),
    ([_todo(priority="urgent")], "invalid priority 'urgent' for todo 1. Must be one of: high, medium, low"),
    ([_todo(content="  ")], "todo content cannot be empty for todo 1"),
    ([{"status": "pending", "priority": "low"}], "todo content cannot be empty for todo 1"),
    ([_todo("a", "in_progress"), _todo("b", "in_progress"), _todo("c", "in_progress")],
     "only one todo can be in_progress at a time, found 3"),
    (["not an object"], "invalid todos JSON: todo 1 is not an object"),
    ([_todo(), None], "invalid todos JSON: todo 2 is not an object"),
])
def test_invalid_lists_are_refused_and_change_nothing(tmp_path, items, message):
    path = tmp_path / "todos.json"
    todos = TodoList(path)
    kept = todos.replace([_todo("keep")])
    saved = path.read_bytes()
    with pytest.raises(ToolInputError) as info:
        todos.replace(items)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError) and info.value.code == "invalid_input"
    assert todos.items == kept
    assert path.read_bytes() == saved


def test_every_change_is_saved_as_indented_utf8_json(tmp_path):
    path = tmp_path / "todos.json"
    todos = TodoList(str(path))
    assert not path.exists()  # nothing is written before the first change
    todos.replace([_todo("café ☕", "in_progress", "high")])
    text = path.read_text(encoding="utf-8")
    assert text == ('{\n  "todos": [\n    {\n      "id": "task-1",\n      "content": "café ☕",\n'
                    '      "status": "in_progress",\n      "priority": "high"\n    }\n  ]\n}')
    todos.replace([])
    assert json.loads(path.read_text(encoding="utf-8")) == {"todos": []}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["todos.json"]  # no temporary file left behind


def test_the_location_is_asked_for_only_when_saving(tmp_path):
    asked = []

    def where():
        asked.append(True)
        return tmp_path / "made" / "on" / "demand.json"

    todos = TodoList(path=where)
    assert not asked
    with pytest.raises(ToolInputError):
        todos.replace([_todo(status="bogus")])
    assert not asked  # a refused list is never saved
    todos.replace([_todo("x")])
    assert asked == [True]
    assert json.loads((tmp_path / "made" / "on" / "demand.json").read_bytes())["todos"][0]["content"] == "x"


def test_a_writer_gets_the_path_and_bytes(tmp_path):
    written: list[tuple[object, bytes]] = []
    todos = TodoList(tmp_path / "t.json", writer=lambda path, data: written.append((path, data)))
    todos.replace([_todo("x")])
    assert written == [(tmp_path / "t.json", json.dumps({"todos": [todos.items[0].to_json()]}, indent=2).encode())]
    assert not (tmp_path / "t.json").exists()  # the writer, not the list, decides what happens to the file


def test_a_failing_writer_leaves_the_list_unchanged(tmp_path):
    def refuse(path, data):
        raise PermissionError("not here")

    todos = TodoList(path=tmp_path / "t.json", writer=refuse)
    with pytest.raises(PermissionError, match="not here"):
        todos.replace([_todo("x")])
    assert todos.items == ()


def test_a_failing_save_leaves_the_list_and_the_file_unchanged(tmp_path):
    (tmp_path / "file").write_text("a file, not a directory")
    todos = TodoList(tmp_path / "file" / "todos.json")
    with pytest.raises(OSError):
        todos.replace([_todo("x")])
    assert todos.items == ()
    assert (tmp_path / "file").read_text() == "a file, not a directory"


def test_a_refused_or_unsaved_list_uses_up_no_task_number(tmp_path):
    todos = TodoList()
    todos.replace([{"content": "a", "status": "pending", "priority": "low"}])
    with pytest.raises(ToolInputError):
        todos.replace([{"content": "b", "status": "pending", "priority": "low"},
                       {"content": "c", "status": "doing", "priority": "low"}])

    attempts = []

    def first_write_fails(path, data):
        attempts.append(path)
        if len(attempts) == 1:
            raise PermissionError("not now")
        path.write_bytes(data)

    flaky = TodoList(path=tmp_path / "t.json", writer=first_write_fails)
    with pytest.raises(PermissionError):
        flaky.replace([{"content": "x", "status": "pending", "priority": "low"}])
    assert [i.id for i in todos.replace([{"content": "d", "status": "pending", "priority": "low"}])] == ["task-2"]
    assert [i.id for i in flaky.replace([{"content": "y", "status": "pending", "priority": "low"}])] == ["task-1"]


def test_the_default_writer_saves_through_a_symlinked_file(tmp_path):
    """A todo file the user keeps as a symlink (dotfiles) is written where it points, and stays a symlink."""
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "todos.json").write_text("{}")
    link = tmp_path / "todos.json"
    link.symlink_to("store/todos.json")
    TodoList(link).replace([{"content": "a", "status": "pending", "priority": "high"}])
    assert link.is_symlink()
    assert json.loads((tmp_path / "store" / "todos.json").read_text())["todos"][0]["content"] == "a"


def test_a_symlink_refused_by_atomic_write_is_named_as_one(tmp_path):
    """Where no check came first, the refusal must not claim the file changed after one."""
    (tmp_path / "link").symlink_to("elsewhere")
    with pytest.raises(OSError, match="is a symbolic link: not written through") as refused:
        atomic_write(str(tmp_path / "link"), b"x")
    assert refused.value.errno == errno.ELOOP
    assert not (tmp_path / "elsewhere").exists()


def test_content_is_kept_as_given_and_only_blank_content_is_refused():
    todos = TodoList()
    (item,) = todos.replace([{"content": "  indented\n", "status": "pending", "priority": "low"}])
    assert item.content == "  indented\n"
    with pytest.raises(ToolInputError, match="todo content cannot be empty for todo 1"):
        todos.replace([{"content": " \t\n", "status": "pending", "priority": "low"}])
