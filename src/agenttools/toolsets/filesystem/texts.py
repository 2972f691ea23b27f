"""The filesystem contract's words: descriptions, schemas, titles, the SDK's argument errors, and Node's formats.

Descriptions and schemas are those ``tools/list`` of ``@modelcontextprotocol/server-filesystem`` 2026.8.31 reports
(its zod shapes as JSON Schema, without the ``$schema`` key), to the byte. :func:`check_arguments` words a bad
argument as the MCP TypeScript SDK and zod 4 do; :func:`render_error` words every failure that is not a
ToolFailure.
"""

from __future__ import annotations

import decimal
import json
import math
import time
from collections.abc import Mapping
from typing import Any

from agenttools.errors import (
    ArgumentsError,
    DeniedPathError,
    FileTooLargeError,
    HardLinkError,
    OutsideWorkspaceError,
    PathError,
    ProtectedPathError,
    SpecialFileError,
    ToolFailure,
    UnknownToolError,
)
from agenttools.toolsets._node import node_error

__all__ = ["DESCRIPTIONS", "JS_SPACE", "PARAMETERS", "TITLES", "check_arguments", "fail", "format_size", "js_date",
           "js_json", "js_length", "render_error", "to_fixed"]

DESCRIPTIONS: dict[str, str] = {
    "read_file": "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
    "read_text_file": "Read the complete contents of a file from the file system as text. Handles various text "
    "encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to "
    "examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or "
    "the 'tail' parameter to read only the last N lines of a file. Operates on the file as text regardless of "
    "extension. Only works within allowed directories.",
    "read_media_file": "Read a file and return it as a base64-encoded content block with its MIME type. Image and "
    "audio files are returned as image/audio content; any other file type is returned as an embedded resource. "
    "Only works within allowed directories.",
    "read_multiple_files": "Read the contents of multiple files simultaneously. This is more efficient than reading "
    "files one by one when you need to analyze or compare multiple files. Each file's content is returned with its "
    "path as a reference. Failed reads for individual files won't stop the entire operation. Only works within "
    "allowed directories.",
    "write_file": "Create a new file or completely overwrite an existing file with new content. Use with caution as "
    "it will overwrite existing files without warning. Handles text content with proper encoding. Only works within "
    "allowed directories.",
    "edit_file": "Make line-based edits to a text file. Each edit replaces exact line sequences with new content. "
    "Returns a git-style diff showing the changes made. Only works within allowed directories.",
    "create_directory": "Create a new directory or ensure a directory exists. Can create multiple nested directories "
    "in one operation. If the directory already exists, this operation will succeed silently. Perfect for setting up "
    "directory structures for projects or ensuring required paths exist. Only works within allowed directories.",
    "list_directory": "Get a detailed listing of all files and directories in a specified path. Results clearly "
    "distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is essential for "
    "understanding directory structure and finding specific files within a directory. Only works within allowed "
    "directories.",
    "list_directory_with_sizes": "Get a detailed listing of all files and directories in a specified path, "
    "including sizes. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. "
    "This tool is useful for understanding directory structure and finding specific files within a directory. Only "
    "works within allowed directories.",
    "directory_tree": "Get a recursive tree view of files and directories as a JSON structure. Each entry includes "
    "'name', 'type' (file/directory), and 'children' for directories. Files have no children array, while "
    "directories always have a children array (which may be empty). The output is formatted with 2-space "
    "indentation for readability. Only works within allowed directories.",
    "move_file": "Move or rename files and directories. Can move files between directories and rename them in a "
    "single operation. If the destination exists, the operation will fail. Works across different directories and "
    "can be used for simple renaming within the same directory. Both source and destination must be within allowed "
    "directories.",
    "search_files": "Recursively search for files and directories matching a pattern. The patterns should be "
    "glob-style patterns that match paths relative to the working directory. Use pattern like '*.ext' to match "
    "files in current directory, and '**/*.ext' to match files in all subdirectories. Returns full paths to all "
    "matching items. Great for finding files when you don't know their exact location. Only searches within "
    "allowed directories.",
    "get_file_info": "Retrieve detailed metadata about a file or directory. Returns comprehensive information "
    "including size, creation time, last modified time, permissions, and type. This tool is perfect for "
    "understanding file characteristics without reading the actual content. Only works within allowed directories.",
    "list_allowed_directories": "Returns the list of directories that this server is allowed to access. "
    "Subdirectories within these allowed directories are also accessible. Use this to understand which directories "
    "and their nested paths are available before trying to access files.",
}
"""Each tool's description, exactly as upstream's ``tools/list`` reports it."""

TITLES: dict[str, str] = {
    "read_file": "Read File (Deprecated)", "read_text_file": "Read Text File", "read_media_file": "Read Media File",
    "read_multiple_files": "Read Multiple Files", "write_file": "Write File", "edit_file": "Edit File",
    "create_directory": "Create Directory", "list_directory": "List Directory",
    "list_directory_with_sizes": "List Directory with Sizes", "directory_tree": "Directory Tree",
    "move_file": "Move File", "search_files": "Search Files", "get_file_info": "Get File Info",
    "list_allowed_directories": "List Allowed Directories",
}
"""Each tool's MCP ``title``."""

_PATH = {"path": {"type": "string"}}
_LINES = {
    "tail": {"description": "If provided, returns only the last N lines of the file", "type": "number"},
    "head": {"description": "If provided, returns only the first N lines of the file", "type": "number"},
}
_EXCLUDE = {"excludePatterns": {"default": [], "type": "array", "items": {"type": "string"}}}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


PARAMETERS: dict[str, dict[str, Any]] = {
    "read_file": _obj({**_PATH, **_LINES}, ["path"]),
    "read_text_file": _obj({**_PATH, **_LINES}, ["path"]),
    "read_media_file": _obj(dict(_PATH), ["path"]),
    "read_multiple_files": _obj({"paths": {
        "minItems": 1, "type": "array", "items": {"type": "string"},
        "description": "Array of file paths to read. Each path must be a string pointing to a valid file within "
                       "allowed directories."}}, ["paths"]),
    "write_file": _obj({**_PATH, "content": {"type": "string"}}, ["path", "content"]),
    "edit_file": _obj({**_PATH, "edits": {"type": "array", "items": _obj({
        "oldText": {"type": "string", "description": "Text to search for - must match exactly"},
        "newText": {"type": "string", "description": "Text to replace with"}}, ["oldText", "newText"])},
        "dryRun": {"default": False, "description": "Preview changes using git-style diff format", "type": "boolean"},
    }, ["path", "edits"]),
    "create_directory": _obj(dict(_PATH), ["path"]),
    "list_directory": _obj(dict(_PATH), ["path"]),
    "list_directory_with_sizes": _obj({**_PATH, "sortBy": {
        "default": "name", "description": "Sort entries by name or size", "type": "string", "enum": ["name", "size"]},
    }, ["path"]),
    "directory_tree": _obj({**_PATH, **_EXCLUDE}, ["path"]),
    "move_file": _obj({"source": {"type": "string"}, "destination": {"type": "string"}}, ["source", "destination"]),
    "search_files": _obj({**_PATH, "pattern": {"type": "string"}, **_EXCLUDE}, ["path", "pattern"]),
    "get_file_info": _obj(dict(_PATH), ["path"]),
    "list_allowed_directories": {"type": "object", "properties": {}},
}
"""Each tool's input schema, exactly as upstream's ``tools/list`` reports it (less ``$schema``)."""


def fail(text: str, code: str = "tool_failure") -> ToolFailure:
    """An upstream error text, exactly (the SDK answers ``isError`` with the thrown message)."""
    return ToolFailure(text, code=code)


# --- the MCP SDK's and zod's words for bad arguments -------------------------------------------------------------

def _received(value: Any) -> str:
    """Zod 4's name for a value's type (``parsedType``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "NaN" if isinstance(value, float) and math.isnan(value) else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def _dot_path(path: tuple[str | int, ...]) -> str:
    """The SDK's ``getDotPath``: ``edits[0].newText``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text


_TYPES: dict[str, Any] = {"string": str, "boolean": bool, "array": (list, tuple), "object": Mapping}


def _issues(schema: Mapping[str, Any], value: Any, path: tuple[str | int, ...],
            out: list[tuple[str, tuple[str | int, ...]]]) -> Any:
    """Check ``value`` against a (small) schema as zod would.

    Appends ``(message, path)`` issues to ``out``; returns the value with defaults filled in and unknown keys dropped.
    """
    kind: str = schema["type"]
    ok: bool
    if kind == "number":
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    else:
        ok = isinstance(value, _TYPES[kind]) and not (kind != "boolean" and isinstance(value, bool))
    if not ok:
        out.append((f"Invalid input: expected {kind}, received {_received(value)}", path))
        return value
    if "enum" in schema and value not in schema["enum"]:
        shown = "|".join(json.dumps(option) for option in schema["enum"])
        out.append((f"Invalid option: expected one of {shown}", path))
        return value
    if kind == "array":
        items = [_issues(schema["items"], item, (*path, index), out) for index, item in enumerate(value)]
        if len(items) < schema.get("minItems", 0):
            out.append((f"Too small: expected array to have >={schema['minItems']} items", path))
        return items
    if kind == "object":
        checked: dict[str, Any] = {}
        required = schema.get("required", ())
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                checked[name] = _issues(sub, value[name], (*path, name), out)
            elif "default" in sub:
                checked[name] = json.loads(json.dumps(sub["default"]))
            elif name in required:
                out.append((f"Invalid input: expected {sub['type']}, received undefined", (*path, name)))
        return checked
    return value


def _invalid_text(tool: str, issues: list[tuple[str, tuple[str | int, ...]]]) -> str:
    lines = [message if not path else f"{message} at {_dot_path(path)}" for message, path in issues]
    return f"MCP error -32602: Input validation error: Invalid arguments for tool {tool}: " + "\n".join(lines)


def check_arguments(tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as the tool's handler gets them (defaults filled, unknown keys dropped), or the SDK's error.

    Raises:
        ToolFailure: ``MCP error -32602: Input validation error: Invalid arguments for tool <tool>: <zod issues>``.
    """
    issues: list[tuple[str, tuple[str | int, ...]]] = []
    checked = _issues(PARAMETERS[tool], arguments, (), issues)
    if issues:
        raise fail(_invalid_text(tool, issues), "invalid_arguments")
    return dict(checked)


# --- Node's formats -----------------------------------------------------------------------------------------------

def to_fixed(value: float, digits: int) -> str:
    """JavaScript's ``Number.prototype.toFixed``: the exact value rounded half up (``(1.125).toFixed(2)`` is 1.13)."""
    quantum = decimal.Decimal(1).scaleb(-digits)
    return str(decimal.Decimal(value).quantize(quantum, rounding=decimal.ROUND_HALF_UP))


_UNITS = ("B", "KB", "MB", "GB", "TB")


def format_size(size: int) -> str:
    """Upstream's ``formatSize``: ``0 B``, ``512 B``, ``1.50 KB``, ``2.00 MB``."""
    if size <= 0:
        return "0 B"
    index = math.floor(math.log(size) / math.log(1024))
    if index <= 0:
        return f"{size} B"
    unit = min(index, len(_UNITS) - 1)
    return f"{to_fixed(size / 1024 ** unit, 2)} {_UNITS[unit]}"


_ZONE_NAMES = {"UTC": "Coordinated Universal Time", "UCT": "Coordinated Universal Time",
               "GMT": "Greenwich Mean Time", "BST": "British Summer Time", "CET": "Central European Standard Time",
               "CEST": "Central European Summer Time", "EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time",
               "CST": "Central Standard Time", "CDT": "Central Daylight Time", "MST": "Mountain Standard Time",
               "MDT": "Mountain Daylight Time", "PST": "Pacific Standard Time", "PDT": "Pacific Daylight Time"}


def js_date(seconds: float) -> str:
    """A time as JavaScript's ``String(new Date(ms))`` in the local zone.

    ``Tue Nov 14 2023 22:13:20 GMT+0000 (Coordinated Universal Time)``; ICU's long zone names are known for the
    common abbreviations above, and the abbreviation itself stands in for any other.
    """
    whole = math.floor(math.floor(seconds * 1000) / 1000)
    local = time.localtime(whole)
    offset = local.tm_gmtoff or 0
    sign = "+" if offset >= 0 else "-"
    hours, minutes = divmod(abs(offset) // 60, 60)
    abbreviation = local.tm_zone or "UTC"
    zone = _ZONE_NAMES.get(abbreviation, abbreviation)
    return (time.strftime("%a %b %d ", local) + f"{local.tm_year:04d}" + time.strftime(" %H:%M:%S", local)
            + f" GMT{sign}{hours:02d}{minutes:02d} ({zone})")


def js_json(value: Any) -> str:
    """``JSON.stringify(value, null, 2)``."""
    return json.dumps(value, indent=2, ensure_ascii=False)


JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028" \
           "\u2029\u202f\u205f\u3000\ufeff"
"""What JavaScript's ``trim`` and ``\\s`` take for white space."""


def js_length(text: str) -> int:
    """JavaScript's ``text.length``: UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


# --- errors that are not upstream's own texts -----------------------------------------------------------------------

def render_error(tool: str, error: BaseException) -> str:
    """Word a failure as the MCP SDK answers a thrown error: its message alone (``isError`` set)."""
    if isinstance(error, UnknownToolError):
        return f"MCP error -32602: Tool {error.name} not found"
    if isinstance(error, ArgumentsError):
        issue = error.issues[0]
        if issue.keyword == "type" and not issue.path:
            message = f"Invalid input: expected object, received {_received(issue.value)}"
        else:
            message = issue.message
        return _invalid_text(tool, [(message, ())])
    if isinstance(error, HardLinkError):
        return f"Access denied - {error.path} has {error.links} hard links (one may be outside allowed directories)"
    if isinstance(error, ProtectedPathError):
        return f"Access denied - path inside git metadata (read-only): {error.path}"
    if isinstance(error, DeniedPathError):
        return f"Access denied - path matches a deny pattern ({error.pattern}): {error.path}"
    if isinstance(error, OutsideWorkspaceError):
        return f"Access denied - path outside allowed directories: {error.path}"
    if isinstance(error, FileTooLargeError):
        return f"File size ({error.size}) is greater than the limit of {error.limit} bytes: {error.path}"
    if isinstance(error, SpecialFileError):
        return f"Not a regular file ({error.kind}), refusing to open it: {error.path}"
    if isinstance(error, PathError):
        return f"Invalid path: {error}"
    if isinstance(error, OSError):
        return node_error(error, "open", error.filename if isinstance(error.filename, str) else None)
    return str(error) or type(error).__name__
