"""The anthropic contract's words: the tools' types, descriptions and input schemas, and the reference's texts.

The texts are those of Anthropic's reference implementation (``computer-use-demo/computer_use_demo/tools`` of
anthropics/claude-quickstarts at 370e18d4a20ff5fd4bc1a6bf11d5105b2383977c: ``edit.py``, ``bash.py``, ``run.py``)
to the byte; the descriptions and schemas are those Anthropic documents for its client tools (the model is
trained on them and never sees them: the API is given the native type only).
"""

from __future__ import annotations

from typing import Any

from agenttools.errors import ToolFailure
from agenttools.output import default_error_text

__all__ = ["BASH_TYPE", "COMMANDS", "DESCRIPTIONS", "EDITOR_TYPE", "MAX_RESPONSE_LEN", "PARAMETERS", "SNIPPET_LINES",
           "TRUNCATED_MESSAGE", "fail", "maybe_truncate", "render_error"]

EDITOR_TYPE = "text_editor_20250728"
BASH_TYPE = "bash_20250124"
COMMANDS = ("view", "create", "str_replace", "insert")
"""The commands of ``text_editor_20250728``, in the reference's order (no ``undo_edit``)."""
SNIPPET_LINES = 4
MAX_RESPONSE_LEN = 16000
TRUNCATED_MESSAGE = (
    "<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry "
    "this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what "
    "you are looking for.</NOTE>")


def maybe_truncate(content: str, truncate_after: int | None = MAX_RESPONSE_LEN) -> str:
    """The reference's ``maybe_truncate``: the first ``truncate_after`` characters and the clipped note."""
    if not truncate_after or len(content) <= truncate_after:
        return content
    return content[:truncate_after] + TRUNCATED_MESSAGE


DESCRIPTIONS: dict[str, str] = {
    "str_replace_based_edit_tool": """Custom editing tool for viewing, creating and editing files
* State is persistent across command calls and discussions with the user
* If `path` is a file, `view` displays the result of applying `cat -n`. If `path` is a directory, `view` lists \
non-hidden files and directories up to 2 levels deep
* The `create` command cannot be used if the specified `path` already exists as a file
* If a `command` generates a long output, it will be truncated and marked with `<response clipped>`

Notes for using the `str_replace` command:
* The `old_str` parameter should match EXACTLY one or more consecutive lines from the original file. Be mindful of \
whitespaces!
* If the `old_str` parameter is not unique in the file, the replacement will not be performed. Make sure to include \
enough context in `old_str` to make it unique
* The `new_str` parameter should contain the edited lines that should replace the `old_str`""",
    "bash": """Run commands in a bash shell
* When invoking this tool, the contents of the "command" parameter does NOT need to be XML-escaped.
* State is persistent across command calls and discussions with the user.
* To inspect a particular line range of a file, e.g. lines 10-25, try 'sed -n 10,25p /path/to/the/file'.
* Please avoid commands that may produce a very large amount of output.
* Please run long lived commands in the background, e.g. 'sleep 10 &' or start a server in the background.""",
}
"""The documented descriptions (text_editor_20241022's without ``undo_edit``; bash's without the demo's package
mirror), for the formats that need a function definition."""

PARAMETERS: dict[str, dict[str, Any]] = {
    "str_replace_based_edit_tool": {
        "type": "object",
        "properties": {
            "command": {
                "description": "The commands to run. Allowed options are: `view`, `create`, `str_replace`, `insert`.",
                "enum": list(COMMANDS),
                "type": "string",
            },
            "file_text": {
                "description": "Required parameter of `create` command, with the content of the file to be created.",
                "type": "string",
            },
            "insert_line": {
                "description": "Required parameter of `insert` command. The `insert_text` will be inserted AFTER the "
                "line `insert_line` of `path`.",
                "type": "integer",
            },
            "insert_text": {
                "description": "Required parameter of `insert` command containing the text to insert.",
                "type": "string",
            },
            "new_str": {
                "description": "Optional parameter of `str_replace` command containing the new string (if not "
                "given, no string will be added).",
                "type": "string",
            },
            "old_str": {
                "description": "Required parameter of `str_replace` command containing the string in `path` to "
                "replace.",
                "type": "string",
            },
            "path": {
                "description": "Absolute path to file or directory, e.g. `/repo/file.py` or `/repo`.",
                "type": "string",
            },
            "view_range": {
                "description": "Optional parameter of `view` command when `path` points to a file. If none is "
                "given, the full file is shown. If provided, the file will be shown in the indicated line number "
                "range, e.g. [11, 12] will show lines 11 and 12. Indexing at 1 to start. Setting `[start_line, -1]` "
                "shows all lines from `start_line` to the end of the file.",
                "items": {"type": "integer"},
                "type": "array",
            },
        },
        "required": ["command", "path"],
    },
    "bash": {
        "type": "object",
        "properties": {
            "command": {
                "description": "The bash command to run. Required unless the tool is being restarted.",
                "type": "string",
            },
            "restart": {
                "description": "Specifying true will restart this tool. Otherwise, leave this unspecified.",
                "type": "boolean",
            },
        },
    },
}
"""The documented input schemas (text_editor_20250728: no ``undo_edit``, ``insert`` takes ``insert_text``)."""


def fail(text: str) -> ToolFailure:
    """A failure whose text the model sees exactly (the reference's ``ToolError(message)``)."""
    return ToolFailure(text, code="anthropic_tool_error")


def render_error(tool: str, error: BaseException) -> str:
    """Words failures the reference has no text for (it would crash): one line, ``Error: ...``."""
    return default_error_text(tool, error)
