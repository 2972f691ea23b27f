"""The ``coder`` toolset: fourteen tools from read_file to todoread, as riazarbi/agent has them, all inside ``root``.

``agenttools.toolset("coder", root="/abs/project", allow_private_network=False)``. Tool results are the tools' own
texts; failures are ``Error: <message>``. Deviations from upstream are listed in docs/toolsets/coder.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from agenttools.errors import ConfigError
from agenttools.registry import Registry, Tool
from agenttools.toolsets import _coder_files as files_impl
from agenttools.toolsets import _coder_tools as tools_impl
from agenttools.toolsets._coder_files import State, render_error
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["DESCRIPTIONS", "HANDLERS", "PARAMETERS", "build", "render_error"]

_REL = "The file path, relative to the project directory."
DESCRIPTIONS: dict[str, str] = {
    "read_file": "Reads the contents of a file. The path is relative to the current directory; do not use it with "
                 "directory names. Returns an error if the file does not exist.",
    "list_files": "Lists files and directories recursively (trailing slashes denote directories). Without a path, "
                  "lists the current directory. Excludes .git, .agent/prompts and .agent/sessions.",
    "edit_file": "Edits a text file or creates a new one, and returns a JSON object with a message, the number of "
                 "replacements and a unified diff. old_str must match exactly (and exactly once unless "
                 "expected_replacements says otherwise); old_str and new_str are unescaped as Go string literals. "
                 "An empty old_str creates a new file (an error if it exists). Writes are atomic.",
    "delete_file": "Deletes a file. The path is relative to the current directory. This cannot be undone.",
    "rg": "Searches for patterns in files using ripgrep. Supports literal and regex patterns; args is a "
          "space-separated string of ripgrep arguments (e.g. --ignore-case --hidden).",
    "glob": "Finds files matching a glob pattern (e.g. *.go, **/*.md), relative to the project directory.",
    "git_diff": "Shows unstaged changes in the working directory (git diff). Takes no parameters.",
    "web_fetch": "Downloads and caches web content (http:// or https://; text, JSON, XML and XHTML). Returns a JSON "
                 "object with the path of the cached file under .agent/cache/webfetch/, the HTTP statusCode and "
                 "the contentType.",
    "html_to_markdown": "Converts an HTML file to Markdown, saved next to it with a .md extension.",
    "head": "Shows the first N lines of a file. args is a space-separated string of head arguments (e.g. "
            "-n 20 file.txt); 10 lines by default.",
    "tail": "Shows the last N lines of a file. args is a space-separated string of tail arguments (e.g. "
            "-n 20 file.txt, -n +5 file.txt); 10 lines by default.",
    "cloc": "Counts lines of code with a language breakdown. args is a space-separated string of cloc arguments "
            "(e.g. --exclude-dir=.git .); without arguments it returns usage.",
    "todowrite": "Replaces the session's todo list. todos_json is a JSON array of {id?, content, status, priority}: "
                 "status pending, in_progress, completed or cancelled (only one in_progress at a time); priority "
                 "high, medium or low.",
    "todoread": "Retrieves the current todo list as a JSON string. Takes no parameters.",
}


def _s(description: str, kind: str = "string") -> dict[str, Any]:
    return {"type": kind, "description": description}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


PARAMETERS: dict[str, dict[str, Any]] = {
    "read_file": _obj({"path": _s(_REL)}, ["path"]),
    "list_files": _obj({"path": _s("Optional: the directory to list, relative to the project directory.")}, []),
    "edit_file": _obj({
        "path": _s(_REL),
        "old_str": _s("Text to search for - must match exactly and must only have one match exactly - will be "
                      "unescaped as a Go string literal."),
        "new_str": _s("Text to replace old_str with - will be unescaped as a Go string literal."),
        "expected_replacements": _s("Optional: the expected number of replacements. If actual replacements differ, "
                                    "an error is returned.", "integer"),
    }, ["path", "old_str", "new_str"]),
    "delete_file": _obj({"path": _s(_REL)}, ["path"]),
    "rg": _obj({"pattern": _s("The search pattern (regex or literal)."),
                "args": _s("Optional: space-separated ripgrep arguments, e.g. --ignore-case --hidden.")},
               ["pattern"]),
    "glob": _obj({"pattern": _s("The glob pattern, e.g. *.go or **/*.md.")}, ["pattern"]),
    "git_diff": _obj({}, []),
    "web_fetch": _obj({"url": _s("The URL to fetch; must start with http:// or https://.")}, ["url"]),
    "html_to_markdown": _obj({"path": _s("The HTML file, relative to the project directory.")}, ["path"]),
    "head": _obj({"args": _s("Optional: head arguments, e.g. -n 20 file.txt.")}, []),
    "tail": _obj({"args": _s("Optional: tail arguments, e.g. -n 20 file.txt.")}, []),
    "cloc": _obj({"args": _s("Optional: cloc arguments, e.g. --exclude-dir=.git .")}, []),
    "todowrite": _obj({"todos_json": _s("A JSON array of todo items: {id?, content, status, priority}.")},
                      ["todos_json"]),
    "todoread": _obj({}, []),
}

HANDLERS: dict[str, Callable[[State, dict[str, Any]], Any]] = {
    "read_file": files_impl.read_file, "list_files": files_impl.list_files, "edit_file": files_impl.edit_file,
    "delete_file": files_impl.delete_file, "rg": tools_impl.rg, "glob": files_impl.glob,
    "git_diff": tools_impl.git_diff, "web_fetch": tools_impl.web_fetch,
    "html_to_markdown": tools_impl.html_to_markdown, "head": tools_impl.head, "tail": tools_impl.tail,
    "cloc": tools_impl.cloc, "todowrite": tools_impl.todowrite, "todoread": tools_impl.todoread,
}
"""Each tool's handler, in the spec's order."""

_READ_ONLY = {"read_file", "list_files", "rg", "glob", "git_diff", "head", "tail", "cloc", "todoread"}


def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_private_network: bool = False,
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
) -> Registry:
    """Build the coder toolset.

    Args:
        root: The working directory every tool acts in and may not leave (required).
        allow_private_network: Let ``web_fetch`` reach loopback, private and link-local addresses.
        max_file_size: Largest file ``read_file`` returns, largest body ``web_fetch`` accepts and largest file
            ``cloc`` counts (larger ones are skipped unread).

    Raises:
        ConfigError: ``root`` is missing or not a directory.
    """
    if root is None:
        raise ConfigError("the coder toolset needs root=<the project directory>")
    state = State(workspace=Workspace(root, max_file_size=max_file_size),
                  allow_private_network=allow_private_network)
    tools = [
        Tool.from_schema(name=name, description=DESCRIPTIONS[name], parameters=PARAMETERS[name],
                         handler=lambda args, h=handler: h(state, args),  # type: ignore[misc]
                         render_error=render_error, read_only=name in _READ_ONLY,
                         open_world=name == "web_fetch", idempotent=name in _READ_ONLY)
        for name, handler in HANDLERS.items()
    ]
    return Registry(tools, render_error=render_error)
