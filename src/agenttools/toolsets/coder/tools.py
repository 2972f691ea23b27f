"""The coder toolset as data: its fourteen tools, from read_file to todoread, in the spec's order."""

from __future__ import annotations

from typing import Any

from agenttools.toolsets._spec import READ, Hints, PathKind, ToolSpec
from agenttools.toolsets.coder import files, project, search, todos, web
from agenttools.toolsets.coder.state import State
from agenttools.toolsets.coder.texts import DESCRIPTIONS, PARAMETERS

__all__ = ["TOOLS"]

_CHANGE = Hints(open_world=False)
_TITLES = {"read_file": "Read file", "list_files": "List files", "edit_file": "Edit file",
           "delete_file": "Delete file", "rg": "Search (ripgrep)", "glob": "Find files", "git_diff": "Git diff",
           "web_fetch": "Fetch web page", "html_to_markdown": "HTML to Markdown", "head": "Head", "tail": "Tail",
           "cloc": "Count lines of code", "todowrite": "Write todos", "todoread": "Read todos"}
"""Display names (MCP ``title``)."""


def _spec(name: str, handler: Any, hints: Hints, paths: dict[str, PathKind] | None = None) -> ToolSpec[State]:
    return ToolSpec(name=name, description=DESCRIPTIONS[name], parameters=PARAMETERS[name], handler=handler,
                    hints=hints._replace(title=_TITLES[name]), paths=paths or {})


TOOLS: list[ToolSpec[State]] = [
    _spec("read_file", files.read_file, READ, {"path": "path"}),
    _spec("list_files", files.list_files, READ, {"path": "path"}),
    _spec("edit_file", files.edit_file, _CHANGE, {"path": "path"}),
    _spec("delete_file", files.delete_file, _CHANGE, {"path": "path"}),
    _spec("rg", search.rg, READ, {"args": "args"}),
    _spec("glob", files.glob, READ),
    _spec("git_diff", project.git_diff, READ),
    _spec("web_fetch", web.web_fetch, Hints(open_world=True)),
    _spec("html_to_markdown", web.html_to_markdown, _CHANGE, {"path": "path"}),
    _spec("head", files.head, READ, {"args": "args"}),
    _spec("tail", files.tail, READ, {"args": "args"}),
    _spec("cloc", project.cloc, READ, {"args": "args"}),
    _spec("todowrite", todos.todowrite, _CHANGE),
    _spec("todoread", todos.todoread, READ),
]
"""Each tool of the contract, in the spec's order."""
