"""The todo family: a validated todo list owned by whoever creates it, optionally saved to a JSON file."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from agenttools._text import atomic_write
from agenttools.errors import ToolInputError

__all__ = ["PRIORITIES", "STATUSES", "TodoItem", "TodoList"]

STATUSES = ("pending", "in_progress", "completed", "cancelled")
"""Valid statuses, in the order error messages list them."""
PRIORITIES = ("high", "medium", "low")
"""Valid priorities."""


@attrs.frozen(kw_only=True)
class TodoItem:
    """One todo."""

    id: str
    """Its id (``task-N`` when none was given)."""
    content: str
    """What to do."""
    status: str
    """pending, in_progress, completed or cancelled."""
    priority: str
    """high, medium or low."""

    @property
    def active(self) -> bool:
        """Neither completed nor cancelled."""
        return self.status not in ("completed", "cancelled")

    def to_json(self) -> dict[str, str]:
        """The item as upstream serialises it (``id, content, status, priority``)."""
        return {"id": self.id, "content": self.content, "status": self.status, "priority": self.priority}


def _field(item: Mapping[str, Any], name: str) -> Any:
    """Go's case-insensitive struct-field matching for JSON keys (an exact match wins)."""
    if name in item:
        return item[name]
    for key, value in item.items():
        if isinstance(key, str) and key.lower() == name:
            return value
    return None


class TodoList:
    """A todo list: ``replace`` validates and stores a whole new list; ``items`` reads it.

    Args:
        path: A JSON file the list is saved to (``{"todos": [...]}``, 2-space indent) on every change, or a callable
            returning that path (called on the first save, so nothing is created before it is needed); None keeps
            the list in memory only.
        writer: Writes the file: called as ``writer(path, data)``. By default a symlink is followed to its target,
            missing parent directories are made and the file is written atomically; a toolset passes a writer that
            resolves the path through its :class:`~agenttools.workspace.Workspace`, so the list cannot be written
            through a symlink out of it. Whatever it raises leaves the list unchanged.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | Callable[[], str | os.PathLike[str]] | None = None,
        *,
        writer: Callable[[Path, bytes], object] | None = None,
    ) -> None:
        self._path = path
        self._writer = writer
        self._items: tuple[TodoItem, ...] = ()
        self._next_id = 1

    @property
    def items(self) -> tuple[TodoItem, ...]:
        """The current list."""
        return self._items

    def replace(self, raw_items: Sequence[Any]) -> tuple[TodoItem, ...]:
        """Validate ``raw_items`` (dicts with ``id?, content, status, priority``) and make them the list.

        Raises:
            ToolInputError: Upstream's messages: invalid status or priority, empty content, more than one item
                in progress, an item that is not an object. The list is unchanged when this is raised.
            Exception: Whatever saving raises (``OSError``, or the writer's own error); the list is unchanged.
        """
        items = []
        in_progress = 0
        for index, raw in enumerate(raw_items, start=1):
            if not isinstance(raw, Mapping):
                raise ToolInputError(f"invalid todos JSON: todo {index} is not an object")
            item_id = _field(raw, "id")
            item_id = str(item_id) if item_id not in (None, "") else ""  # numbered once the list is valid
            status = str(_field(raw, "status") or "")
            if status not in STATUSES:
                raise ToolInputError(f"invalid status '{status}' for todo {index}. Must be one of: "
                                     + ", ".join(STATUSES))
            priority = str(_field(raw, "priority") or "")
            if priority not in PRIORITIES:
                raise ToolInputError(f"invalid priority '{priority}' for todo {index}. Must be one of: "
                                     + ", ".join(PRIORITIES))
            if status == "in_progress":
                in_progress += 1
            content = str(_field(raw, "content") or "")
            if not content.strip():  # blank is refused; anything else is kept as given
                raise ToolInputError(f"todo content cannot be empty for todo {index}")
            items.append(TodoItem(id=item_id, content=content, status=status, priority=priority))
        if in_progress > 1:
            raise ToolInputError(f"only one todo can be in_progress at a time, found {in_progress}")
        number = self._next_id  # numbered only once the list is valid and saved: a refused one uses up no task-N
        numbered = []
        for item in items:
            if not item.id:
                item = attrs.evolve(item, id=f"task-{number}")
                number += 1
            numbered.append(item)
        self._save(tuple(numbered))
        self._items = tuple(numbered)
        self._next_id = number
        return self._items

    def _save(self, items: tuple[TodoItem, ...]) -> None:
        if self._path is None:
            return
        target = Path(self._path() if callable(self._path) else self._path)
        data = json.dumps({"todos": [item.to_json() for item in items]}, indent=2, ensure_ascii=False).encode()
        if self._writer is not None:
            self._writer(target, data)
            return
        # The caller chose this path (the model did not), so a symlink is followed to the file it names, as an
        # editor saving a dotfile would; only a toolset's writer confines it.
        target = Path(os.path.realpath(target))
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(str(target), data)
