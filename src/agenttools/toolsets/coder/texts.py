"""The coder contract's words: descriptions and schemas as riazarbi/agent has them, ``Error: ...``, Go's JSON.

Failures read ``Error: <message>`` (:func:`fail` for the ones a handler words, :func:`render_error` for others).
"""

from __future__ import annotations

import json
from typing import Any

from agenttools.errors import ArgumentsError, ToolFailure, UnknownToolError

__all__ = ["CLOC_USAGE", "DESCRIPTIONS", "MAX_OUTPUT", "PARAMETERS", "cap", "fail", "go_json",
           "render_error"]

MAX_OUTPUT = 1024 * 1024
"""Most characters of a tool's output the model is shown."""

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


def fail(message: str) -> ToolFailure:
    """A failure the model sees as ``Error: <message>``."""
    return ToolFailure(f"Error: {message}", code="coder_error")


def render_error(tool: str, error: BaseException) -> str:
    """``Error: <message>`` as the spec's examples show."""
    if isinstance(error, ArgumentsError):
        return "Error: invalid input: " + "; ".join(issue.describe() for issue in error.issues)
    if isinstance(error, UnknownToolError):
        return f"Error: tool not found: {error.name}"
    return f"Error: {error}"


def go_json(value: Any) -> str:
    """Go's ``json.Marshal``: compact, with ``<``, ``>``, ``&``, U+2028 and U+2029 escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"),
                          ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def cap(text: str) -> str:
    """The output as shown: at most :data:`MAX_OUTPUT` characters, with a note when it was cut."""
    if len(text) <= MAX_OUTPUT:
        return text
    return text[:MAX_OUTPUT] + f"\n[output truncated: {len(text)} characters, showing the first {MAX_OUTPUT}]"


CLOC_USAGE = """Usage: cloc [options] <file(s)/dir(s)>
 Count physical lines of source code in the given files and directories, by language.
 Supported options:
   --exclude-dir=<D1>[,D2,]  Exclude the given comma-separated directory names.
   --json                    Write the results as JSON.
"""
