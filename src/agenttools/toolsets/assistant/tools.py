"""The assistant toolset as data: its nine tools in the spec's order (handlers read arguments loosely, as upstream)."""

from __future__ import annotations

from typing import Any

from agenttools.toolsets._spec import READ, Hints, PathKind, ToolSpec
from agenttools.toolsets.assistant import commands, files, messages
from agenttools.toolsets.assistant.state import State
from agenttools.toolsets.assistant.texts import DESCRIPTIONS, PARAMETERS

__all__ = ["TOOLS"]

_CHANGE = Hints(destructive=True, open_world=False)
_TITLES = {"read": "Read", "write": "Write", "edit": "Edit", "list": "List", "delete": "Delete", "file": "File",
           "exec": "Exec", "process": "Process", "message": "Message"}
"""Display names (MCP ``title``)."""


def _spec(name: str, handler: Any, hints: Hints, paths: dict[str, PathKind]) -> ToolSpec[State]:
    return ToolSpec(name=name, description=DESCRIPTIONS[name], parameters=PARAMETERS[name], handler=handler,
                    hints=hints._replace(title=_TITLES[name]), paths=paths, validate=False)


TOOLS: list[ToolSpec[State]] = [
    _spec("read", files.read, READ, {"path": "path"}),
    _spec("write", files.write, Hints(destructive=True, idempotent=True, open_world=False), {"path": "path"}),
    _spec("edit", files.edit_file, _CHANGE, {"path": "path"}),
    _spec("list", files.list_dir, READ, {"path": "path"}),
    _spec("delete", files.delete, _CHANGE, {"path": "path"}),
    _spec("file", files.file_tool, _CHANGE, {"path": "path"}),
    _spec("exec", commands.exec_command, Hints(destructive=True, open_world=True), {"working_dir": "path"}),
    _spec("process", commands.process, Hints(destructive=True, open_world=True), {"working_dir": "path"}),
    _spec("message", messages.message, Hints(destructive=False, open_world=True), {}),
]
"""Each tool of the contract, in the spec's order."""
