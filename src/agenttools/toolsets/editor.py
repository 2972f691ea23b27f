"""The ``editor`` toolset: view, str_replace, create_file, bash and task_output, as the boris MCP server has them.

``agenttools.toolset("editor", root="/abs/project", allow_dirs=None, deny_dirs=(), max_file_size="10MB")``.
Errors read ``[CODE] message``. Deviations from upstream are listed in docs/toolsets/editor.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from agenttools.errors import ConfigError
from agenttools.process import ProcessTable
from agenttools.registry import Registry, Tool
from agenttools.toolsets import _editor_files, _editor_shell
from agenttools.toolsets._editor_common import State, render_error
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["DESCRIPTIONS", "HANDLERS", "PARAMETERS", "build", "render_error"]

DESCRIPTIONS: dict[str, str] = {
    "view": "Read a file from the filesystem with line numbers, or list a directory (2 levels deep). Supports line "
            "ranges for large files. Returns images as inline content. Lines longer than 2000 characters are "
            "truncated.",
    "str_replace": "Replace a unique string in a file. The old_str must appear exactly once unless replace_all is "
                   "true. Omit new_str or set it to empty string to delete the matched text.",
    "create_file": "Create a new file or overwrite an existing one. Creates parent directories as needed.",
    "bash": "Executes a bash command with optional timeout. The working directory persists between calls. When "
            "run_in_background is true, the command runs asynchronously and returns a task_id for later retrieval "
            "via task_output.",
    "task_output": "Retrieve output from a running or completed background bash command by task_id. Running tasks "
                   "return current output with status: running. Completed tasks return final output, exit code, "
                   "and are cleaned up after retrieval.",
}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


PARAMETERS: dict[str, dict[str, Any]] = {
    "view": _obj({
        "path": {"type": "string", "description": "file or directory path to view"},
        "view_range": {"type": "array", "items": {"type": "integer"},
                       "description": "optional line range [start end] (1-indexed)"},
    }, ["path"]),
    "str_replace": _obj({
        "path": {"type": "string", "description": "file path"},
        "old_str": {"type": "string", "description": "the string to find (must be unique unless replace_all is true)"},
        "new_str": {"type": "string", "description": "replacement string (empty or omitted to delete)"},
        "replace_all": {"type": "boolean",
                        "description": "replace all occurrences instead of requiring a unique match"},
    }, ["path", "old_str"]),
    "create_file": _obj({
        "path": {"type": "string", "description": "file path to create or overwrite"},
        "content": {"type": "string", "description": "file content"},
    }, ["path", "content"]),
    "bash": _obj({
        "command": {"type": "string", "description": "the shell command to execute"},
        "timeout": {"type": "integer", "description": "timeout in milliseconds (default 120000, max 600000)"},
        "run_in_background": {"type": "boolean", "description": "run command in background, returns a task_id"},
        "description": {"type": "string",
                        "description": "optional human-readable description of what this command does"},
    }, ["command"]),
    "task_output": _obj({
        "task_id": {"type": "string", "description": "the task ID returned by a background bash command"},
    }, ["task_id"]),
}

HANDLERS: dict[str, Callable[[State, dict[str, Any]], Any]] = {
    "view": _editor_files.view,
    "str_replace": _editor_files.str_replace,
    "create_file": _editor_files.create_file,
    "bash": _editor_shell.bash,
    "task_output": _editor_shell.task_output,
}
"""Each tool's handler, in the order they are registered."""

_HINTS: dict[str, dict[str, Any]] = {
    "view": {"read_only": True, "idempotent": True, "open_world": False},
    "str_replace": {"destructive": True, "open_world": False},
    "create_file": {"destructive": True, "idempotent": True, "open_world": False},
    "bash": {"destructive": True, "open_world": True},
    "task_output": {"read_only": True, "open_world": False},
}


def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    deny_dirs: Iterable[str] = (),
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
    bash_timeout: float = 120,
    background_timeout: float | None = None,
    max_tasks: int = 10,
) -> Registry:
    """Build the editor toolset; close the registry (or use it as a context manager) to end background tasks.

    Args:
        root: The initial session cwd (required).
        allow_dirs: Directories every path must stay inside (default: ``[root]``; ``["/"]`` opens everything).
        deny_dirs: Doublestar globs refused even inside ``allow_dirs``, e.g. ``**/.env``.
        max_file_size: Largest file ``view`` reads and ``create_file`` writes (bytes or ``"10MB"``).
        bash_timeout: Default seconds a foreground ``bash`` command may run.
        background_timeout: Seconds before a background task's group is killed (None: never).
        max_tasks: Background tasks held at once (running, or finished and not yet read).

    Raises:
        ConfigError: ``root`` is missing, a directory does not exist, or an option is invalid.
    """
    if root is None:
        raise ConfigError("the editor toolset needs root=<the initial working directory>")
    workspace = Workspace(root, allow_dirs=allow_dirs, deny=deny_dirs, max_file_size=max_file_size)
    state = State(workspace=workspace, tasks=ProcessTable(max_processes=max_tasks, timeout=background_timeout),
                  bash_timeout_ms=int(bash_timeout * 1000))
    tools = [
        Tool.from_schema(name=name, description=DESCRIPTIONS[name], parameters=PARAMETERS[name],
                         handler=lambda args, h=handler: h(state, args),  # type: ignore[misc]
                         render_error=render_error, **_HINTS[name])
        for name, handler in HANDLERS.items()
    ]
    registry = Registry(tools, render_error=render_error)
    registry.on_close(state.tasks.close)
    return registry
