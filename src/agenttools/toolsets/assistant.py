"""The ``assistant`` toolset: read, write, edit, list, delete, file, exec, process and message, as friday has them.

``agenttools.toolset("assistant", root="/abs/workspace", channels={"ops": callable_or_channel_or_url})``.
Success texts are compact JSON objects (keys in the spec's order); failures are ``ERROR: <message>``.
Deviations from upstream are listed in docs/toolsets/assistant.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from agenttools.errors import ConfigError
from agenttools.message import ChannelLike, WebhookChannel
from agenttools.process import ProcessManager
from agenttools.registry import Registry, Tool
from agenttools.toolsets import _assistant_exec as run
from agenttools.toolsets import _assistant_files as fs
from agenttools.toolsets._assistant_common import State, render_error
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["DESCRIPTIONS", "HANDLERS", "PARAMETERS", "build", "render_error"]

DESCRIPTIONS: dict[str, str] = {
    "read": "Read a single file. Returns its content and size. Use list first to discover the correct path.",
    "write": "Create or overwrite a file with the given content (parent directories are created).",
    "edit": "Modify an existing file with minimal changes. Text mode: old_text/new_text (replace_all defaults to "
            "true). Line mode: start_line/end_line (1-based, inclusive) replaced by new_text.",
    "list": "List the entries of a directory (name, path, type, size, mode).",
    "delete": "Delete a single file (or an empty directory).",
    "file": "Legacy multi-operation file tool (read_file, write_file, list_dir, delete_file); prefer read, write, "
            "list and delete. If operation is omitted it is inferred.",
    "exec": "Run a short command synchronously: a shell string or an argv array. A non-zero exit is returned as "
            "success=false with exit_code, not as an error; a timeout is an error.",
    "process": "Manage long-running background processes without blocking: action start, status, log, kill or list.",
    "message": "Send a message to a channel/chat.",
}

_PATH = {"type": "string", "description": "File or directory path, relative to the workspace or absolute."}
_COMMAND = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
            "description": "The command: a shell string, or an array of program and arguments."}
_WORKING_DIR = {"type": "string", "description": "Directory to run in, relative to the workspace (default: the "
                                                 "workspace)."}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


PARAMETERS: dict[str, dict[str, Any]] = {
    "read": _obj({"path": _PATH}, ["path"]),
    "write": _obj({"path": _PATH, "content": {"type": "string", "description": "The full file content."}},
                  ["path", "content"]),
    "edit": _obj({
        "path": _PATH,
        "old_text": {"type": "string", "description": "Text mode: the exact text to replace."},
        "new_text": {"type": "string", "description": "The replacement text (both modes)."},
        "replace_all": {"type": "boolean", "description": "Text mode: replace every occurrence (default true) or "
                                                          "only the first."},
        "start_line": {"type": "integer", "description": "Line mode: first line to replace (1-based)."},
        "end_line": {"type": "integer", "description": "Line mode: last line to replace (1-based, inclusive)."},
    }, ["path", "new_text"]),
    "list": _obj({"path": _PATH}, ["path"]),
    "delete": _obj({"path": _PATH}, ["path"]),
    "file": _obj({
        "operation": {"type": "string", "enum": ["read_file", "write_file", "list_dir", "delete_file"],
                      "description": "The operation (strongly recommended; inferred when omitted)."},
        "path": _PATH,
        "content": {"type": "string", "description": "Content for write_file."},
    }, ["path"]),
    "exec": _obj({
        "command": _COMMAND, "working_dir": _WORKING_DIR,
        "timeout": {"type": "number", "description": "Timeout in seconds (default 60, at most 600)."},
    }, ["command"]),
    "process": _obj({
        "action": {"type": "string", "enum": ["start", "status", "log", "kill", "list"],
                   "description": "What to do."},
        "command": _COMMAND, "working_dir": _WORKING_DIR,
        "process_id": {"type": "string", "description": "The process id (e.g. proc-1) for status, log and kill; "
                                                        "alias pid."},
        "tail": {"type": "integer", "description": "log: how many bytes of each stream to return (default 4096)."},
    }, ["action"]),
    "message": _obj({
        "chanId": {"type": "string", "description": "The channel id (aliases chan_id, channelId, channel_id)."},
        "chatId": {"type": "string", "description": "The chat id within the channel (alias chat_id)."},
        "content": {"type": "string", "description": "The message text."},
    }, ["chanId", "chatId", "content"]),
}

HANDLERS: dict[str, Callable[[State, dict[str, Any]], Any]] = {
    "read": fs.read, "write": fs.write, "edit": fs.edit_file, "list": fs.list_dir, "delete": fs.delete,
    "file": fs.file_tool, "exec": run.exec_command, "process": run.process, "message": run.message,
}
"""Each tool's handler, in the spec's order."""

_HINTS: dict[str, dict[str, Any]] = {
    "read": {"read_only": True, "idempotent": True, "open_world": False},
    "write": {"destructive": True, "idempotent": True, "open_world": False},
    "edit": {"destructive": True, "open_world": False},
    "list": {"read_only": True, "idempotent": True, "open_world": False},
    "delete": {"destructive": True, "open_world": False},
    "file": {"destructive": True, "open_world": False},
    "exec": {"destructive": True, "open_world": True},
    "process": {"destructive": True, "open_world": True},
    "message": {"destructive": False, "open_world": True},
}


def _channel(value: Any) -> ChannelLike:
    if isinstance(value, str):
        return WebhookChannel(url=value)
    if callable(value) or hasattr(value, "send"):
        return value  # type: ignore[no-any-return]
    raise ConfigError(f"a channel must be a callable, an object with send(chat_id, content) or a URL, got {value!r}")


def build(
    root: str | os.PathLike[str] | None = None,
    *,
    channels: Mapping[str, Any] | None = None,
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
    max_running: int = 16,
) -> Registry:
    """Build the assistant toolset; close the registry (or use ``with``) to kill its background processes.

    Args:
        root: The workspace every path must stay inside (required).
        channels: Channel id to a callable ``(chat_id, content)``, an object with ``send(chat_id, content)``, or a
            webhook URL (POSTed ``{"chat_id", "content"}`` as JSON).
        max_file_size: Largest file ``read`` returns (bytes or ``"10MB"``).
        max_running: Background processes running at once.

    Raises:
        ConfigError: ``root`` is missing or not a directory, or a channel is unusable.
    """
    if root is None:
        raise ConfigError("the assistant toolset needs root=<the workspace directory>")
    state = State(workspace=Workspace(root, max_file_size=max_file_size),
                  processes=ProcessManager(max_running=max_running),
                  channels={str(k): _channel(v) for k, v in (channels or {}).items()})
    tools = [
        Tool.from_schema(name=name, description=DESCRIPTIONS[name], parameters=PARAMETERS[name],
                         handler=lambda args, h=handler: h(state, args),  # type: ignore[misc]
                         render_error=render_error, validate=False, **_HINTS[name])
        for name, handler in HANDLERS.items()
    ]
    registry = Registry(tools, render_error=render_error)
    registry.on_close(state.processes.close)
    return registry
