"""The gemini contract's words: descriptions, schemas, Node-style messages, and how failures are worded.

Descriptions and schemas are Gemini CLI v0.1.13's, to the byte; :func:`render_error` words every failure that is
not a ToolFailure.
"""

from __future__ import annotations

import decimal
import math
from typing import Any

from agenttools.errors import ArgumentsError, ToolFailure, UnknownToolError

__all__ = ["DESCRIPTIONS", "PARAMETERS", "invalid", "js_regex_error", "num", "rejected",
           "rejected_text", "render_error"]

DESCRIPTIONS: dict[str, str] = {
    "list_directory": "Lists the names of files and subdirectories directly within a specified directory path. Can "
    "optionally ignore entries matching provided glob patterns.",
    "read_file": "Reads and returns the content of a specified file from the local filesystem. Handles text, images "
    "(PNG, JPG, GIF, WEBP, SVG, BMP), and PDF files. For text files, it can read specific line ranges.",
    "write_file": "Writes content to a specified file in the local filesystem.\n\n      The user has the ability to "
    "modify `content`. If modified, this will be stated in the response.",
    "replace": """Replaces text within a file. By default, replaces a single occurrence, but can replace multiple \
occurrences when `expected_replacements` is specified. This tool requires providing significant context around the \
change to ensure precise targeting. Always use the read_file tool to examine the file's current content before \
attempting a text replacement.

      The user has the ability to modify the `new_string` content. If modified, this will be stated in the response.

Expectation for required parameters:
1. `file_path` MUST be an absolute path; otherwise an error will be thrown.
2. `old_string` MUST be the exact literal text to replace (including all whitespace, indentation, newlines, and \
surrounding code etc.).
3. `new_string` MUST be the exact literal text to replace `old_string` with (also including all whitespace, \
indentation, newlines, and surrounding code etc.). Ensure the resulting code is correct and idiomatic.
4. NEVER escape `old_string` or `new_string`, that would break the exact literal text requirement.
**Important:** If ANY of the above are not satisfied, the tool will fail. CRITICAL for `old_string`: Must uniquely \
identify the single instance to change. Include at least 3 lines of context BEFORE and AFTER the target text, \
matching whitespace and indentation precisely. If this string matches multiple locations, or does not match \
exactly, the tool will fail.
**Multiple replacements:** Set `expected_replacements` to the number of occurrences you want to replace. The tool \
will replace ALL occurrences that match `old_string` exactly. Ensure the number of replacements matches your \
expectation.""",
    "search_file_content": "Searches for a regular expression pattern within the content of files in a specified "
    "directory (or current working directory). Can filter files by a glob pattern. Returns the lines containing "
    "matches, along with their file paths and line numbers.",
    "glob": "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, `**/*.md`), returning "
    "absolute paths sorted by modification time (newest first). Ideal for quickly locating files based on their "
    "name or path structure, especially in large codebases.",
    "run_shell_command": """This tool executes a given shell command as `bash -c <command>`. Command can start \
background processes using `&`. Command is executed as a subprocess that leads its own process group. Command \
process group can be terminated as `kill -- -PGID` or signaled as `kill -s SIGNAL -- -PGID`.

The following information is returned:

Command: Executed command.
Directory: Directory (relative to project root) where command was executed, or `(root)`.
Stdout: Output on stdout stream. Can be `(empty)` or partial on error and for any unwaited background processes.
Stderr: Output on stderr stream. Can be `(empty)` or partial on error and for any unwaited background processes.
Error: Error or `(none)` if no error was reported for the subprocess.
Exit Code: Exit code or `(none)` if terminated by signal.
Signal: Signal number or `(none)` if no signal was received.
Background PIDs: List of background processes started or `(none)`.
Process Group PGID: Process group started or `(none)`""",
}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _s(description: str, kind: str = "string", **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": description, **extra}


PARAMETERS: dict[str, dict[str, Any]] = {
    "list_directory": _obj({
        "path": _s("The absolute path to the directory to list (must be absolute, not relative)"),
        "ignore": {"type": "array", "items": {"type": "string"}, "description": "List of glob patterns to ignore"},
        "respect_git_ignore": _s("Optional: Whether to respect .gitignore patterns when listing files. Only "
                                 "available in git repositories. Defaults to true.", "boolean"),
    }, ["path"]),
    "read_file": _obj({
        "absolute_path": _s("The absolute path to the file to read (e.g., '/home/user/project/file.txt'). "
                            "Relative paths are not supported. You must provide an absolute path."),
        "offset": _s("Optional: For text files, the 0-based line number to start reading from. Requires 'limit' "
                     "to be set. Use for paginating through large files.", "number"),
        "limit": _s("Optional: For text files, maximum number of lines to read. Use with 'offset' to paginate "
                    "through large files. If omitted, reads the entire file (if feasible, up to a default limit).",
                    "number"),
    }, ["absolute_path"]),
    "write_file": _obj({
        "file_path": _s("The absolute path to the file to write to (e.g., '/home/user/project/file.txt'). "
                        "Relative paths are not supported."),
        "content": _s("The content to write to the file."),
    }, ["file_path", "content"]),
    "replace": _obj({
        "file_path": _s("The absolute path to the file to modify. Must start with '/'."),
        "old_string": _s("The exact literal text to replace, preferably unescaped. For single replacements "
                         "(default), include at least 3 lines of context BEFORE and AFTER the target text, matching "
                         "whitespace and indentation precisely. For multiple replacements, specify "
                         "expected_replacements parameter. If this string is not the exact literal text (i.e. you "
                         "escaped it) or does not match exactly, the tool will fail."),
        "new_string": _s("The exact literal text to replace `old_string` with, preferably unescaped. Provide the "
                         "EXACT text. Ensure the resulting code is correct and idiomatic."),
        "expected_replacements": _s("Number of replacements expected. Defaults to 1 if not specified. Use when "
                                    "you want to replace multiple occurrences.", "number", minimum=1),
    }, ["file_path", "old_string", "new_string"]),
    "search_file_content": _obj({
        "pattern": _s("The regular expression (regex) pattern to search for within file contents (e.g., "
                      "'function\\s+myFunction', 'import\\s+\\{.*\\}\\s+from\\s+.*')."),
        "path": _s("Optional: The absolute path to the directory to search within. If omitted, searches the "
                   "current working directory."),
        "include": _s("Optional: A glob pattern to filter which files are searched (e.g., '*.js', '*.{ts,tsx}', "
                      "'src/**'). If omitted, searches all files (respecting potential global ignores)."),
    }, ["pattern"]),
    "glob": _obj({
        "pattern": _s("The glob pattern to match against (e.g., '**/*.py', 'docs/*.md')."),
        "path": _s("Optional: The absolute path to the directory to search within. If omitted, searches the root "
                   "directory."),
        "case_sensitive": _s("Optional: Whether the search should be case-sensitive. Defaults to false.",
                             "boolean"),
        "respect_git_ignore": _s("Optional: Whether to respect .gitignore patterns when finding files. Only "
                                 "available in git repositories. Defaults to true.", "boolean"),
    }, ["pattern"]),
    "run_shell_command": _obj({
        "command": _s("Exact bash command to execute as `bash -c <command>`"),
        "description": _s("Brief description of the command for the user. Be specific and concise. Ideally a "
                          "single sentence. Can be up to 3 sentences for clarity. No line breaks."),
        "directory": _s("(OPTIONAL) Directory to run the command in, if not the project root directory. Must be "
                        "relative to the project root directory and must already exist."),
    }, ["command"]),
}


def num(value: Any) -> str:
    """A number as JavaScript's ``String(number)`` prints it: ``3`` (not ``3.0``), ``2.5``, ``1e-7``, ``1e+21``."""
    if not isinstance(value, float):
        return str(value)
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits_tuple, exponent = decimal.Decimal(repr(abs(value))).normalize().as_tuple()[1:]
    digits = "".join(map(str, digits_tuple))
    assert isinstance(exponent, int)  # noqa: S101 - finite
    k, n = len(digits), len(digits) + exponent  # value = 0.digits x 10^n, digits shortest (as ECMAScript's)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"


def js_regex_error(pattern: str, reason: str) -> str:
    """Upstream's text for a regex JavaScript would not compile (Python's reasons mapped to V8's)."""
    for python, js in (("unterminated character set", "Unterminated character class"),
                       ("missing )", "Unterminated group"), ("unbalanced parenthesis", "Unmatched ')'"),
                       ("nothing to repeat", "Nothing to repeat"), ("multiple repeat", "Nothing to repeat")):
        if python in reason:
            reason = js
            break
    return f"Invalid regular expression pattern provided: {pattern}. Error: Invalid regular expression: " \
           f"/{pattern}/: {reason}"


def rejected_text(command: Any, reason: str) -> str:
    """Upstream's ``Command rejected: ...\\nReason: ...`` text (``undefined`` for a missing command, as JS)."""
    shown = "undefined" if command is None else command
    return f"Command rejected: {shown}\nReason: {reason}"


def invalid(reason: str) -> ToolFailure:
    """A parameter check failing, in upstream's words: ``Error: Invalid parameters provided. Reason: <reason>``."""
    return ToolFailure(f"Error: Invalid parameters provided. Reason: {reason}", code="invalid_parameters")


def rejected(command: Any, reason: str) -> ToolFailure:
    """A shell command refused before it ran (``Command rejected: ...``)."""
    return ToolFailure(rejected_text(command, reason), code="command_rejected")


def render_error(tool: str, error: BaseException) -> str:
    """Word errors as Gemini CLI does: validation as ``Error: Invalid parameters provided. Reason: ...``."""
    if isinstance(error, ArgumentsError):
        issue = error.issues[0]
        reason = issue.message if issue.keyword == "json" else issue.ajv_text()
        if tool == "run_shell_command":
            return rejected_text(None, reason)
        return f"Error: Invalid parameters provided. Reason: {reason}"
    if isinstance(error, UnknownToolError):  # Gemini CLI's tool scheduler
        return f'Tool "{error.name}" not found in registry.'
    return f"Error: {error}"
