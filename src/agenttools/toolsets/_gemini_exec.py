"""The gemini toolset's search and shell handlers: search_file_content, glob, run_shell_command."""

from __future__ import annotations

import os
import time
from typing import Any

from agenttools import search, shell
from agenttools._collate import locale_key
from agenttools.errors import (
    AgentToolsError,
    OutsideWorkspaceError,
    PatternError,
)
from agenttools.output import ToolOutput
from agenttools.schema import validate
from agenttools.toolsets._gemini_common import (
    RECENT_SECONDS,
    Failure,
    Invalid,
    Rejected,
    State,
    _inside,
    _num,
    in_git_repo,
    node_error,
)

# --- search_file_content and glob ----------------------------------------------------------------------------

def _js_regex_error(pattern: str, reason: str) -> str:
    for python, js in (("unterminated character set", "Unterminated character class"),
                       ("missing )", "Unterminated group"), ("unbalanced parenthesis", "Unmatched ')'"),
                       ("nothing to repeat", "Nothing to repeat"), ("multiple repeat", "Nothing to repeat")):
        if python in reason:
            reason = js
            break
    return f"Invalid regular expression pattern provided: {pattern}. Error: Invalid regular expression: " \
           f"/{pattern}/: {reason}"


MAX_LINE_CHARS = 2000  # as read_file: a longer matching line is cut, so a search's output stays bounded

# what JavaScript's String.prototype.trim() removes: WhiteSpace (with U+FEFF and category Zs) and LineTerminator
_JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
                 "\u2028\u2029\u202f\u205f\u3000\ufeff"


MAX_PATTERN_CHARS = 4096
"""Longest ``pattern`` (and ``include``) a search or glob takes: compiling a regex holds the GIL, ~35 ms and 220 bytes
per 1,000 characters, so a 4 MiB pattern cost ~1 GB and seconds (and ripgrep cannot take an argument over 128 KiB)."""


def _check_length(args: dict[str, Any], *names: str) -> None:
    """Refuse an overlong pattern argument in Ajv's words (as a schema ``maxLength`` would)."""
    for name in names:
        value = args.get(name)
        if isinstance(value, str) and len(value) > MAX_PATTERN_CHARS:
            raise Invalid(f"params/{name} must NOT have more than {MAX_PATTERN_CHARS} characters")


def search_file_content(state: State, args: dict[str, Any]) -> str:
    _check_length(args, "pattern", "include")
    pattern, given, include = args["pattern"], args.get("path"), args.get("include")
    try:
        search.compile_pattern(pattern)
    except PatternError as exc:
        raise Invalid(_js_regex_error(pattern, exc.reason)) from None
    absolute = os.path.normpath(os.path.join(state.root, given or "."))
    outside = (f'Path validation failed: Attempted path "{given or "."}" resolves outside the allowed root '
               f'directory "{state.root}".')
    real = _inside(state, absolute, outside)
    try:
        os.stat(real)
    except FileNotFoundError as exc:
        raise Invalid(f"Failed to access path stats for {absolute}: Error: {node_error(exc, 'stat', absolute)}") \
            from None
    except OSError:
        raise Invalid(f"Path does not exist: {absolute}") from None
    if not os.path.isdir(real):
        raise Invalid(f"Failed to access path stats for {absolute}: Error: Path is not a directory: {absolute}")
    try:
        result = search.grep(state.workspace, pattern, path=real, include=include or None,
                             respect_gitignore=in_git_repo(real), max_matches=state.max_matches)
    except (AgentToolsError, OSError) as exc:
        raise Failure(f"Error during grep search operation: {exc}") from None
    shown = given or "."
    where = f' (filter: "{include}")' if include else ""
    if not result.matches:
        return f'No matches found for pattern "{pattern}" in path "{shown}"{where}.'
    count = len(result.matches)
    term = "match" if count == 1 else "matches"
    parts = [f'Found {count} {term} for pattern "{pattern}" in path "{shown}"{where}:\n---\n']
    append, current, sep = parts.append, None, os.sep  # one pass over maybe 20,000 lines: locals, no helpers
    for match in result.matches:
        rel = match.rel
        if rel != current:
            shown_rel = rel if sep == "/" else rel.replace("/", sep)
            append(f"File: {shown_rel}\n" if current is None else f"---\nFile: {shown_rel}\n")
            current = rel
        line = match.line.strip(_JS_WHITESPACE)
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + "... [truncated]"
        append(f"L{match.line_number}: {line}\n")
    append("---\n")
    if result.truncated:
        parts.append(f"[Search results truncated: showing the first {count} matching lines. Use a more specific "
                     "pattern, path or include filter to see the rest.]")
    return "".join(parts).strip()


def glob(state: State, args: dict[str, Any]) -> str:
    _check_length(args, "pattern")
    pattern, given = args["pattern"], args.get("path")
    absolute = os.path.normpath(os.path.join(state.root, given or "."))
    real = _inside(state, absolute,
                   f'Search path ("{absolute}") resolves outside the tool\'s root directory ("{state.root}").')
    if not os.path.exists(real):
        raise Invalid(f"Search path does not exist {absolute}")
    if not os.path.isdir(real):
        raise Invalid(f"Search path is not a directory: {absolute}")
    if not pattern.strip():
        raise Invalid("The 'pattern' parameter cannot be empty.")
    respect = bool(args.get("respect_git_ignore", True)) and in_git_repo(real)
    try:
        result = search.glob_files(state.workspace, pattern, path=real,
                                   case_sensitive=bool(args.get("case_sensitive", False)), respect_gitignore=respect)
    except (AgentToolsError, OSError) as exc:
        raise Failure(f"Error during glob search operation: {exc}") from None
    if not result.matches:
        extra = f" ({result.ignored_count} files were git-ignored)" if result.ignored_count else ""
        return f'No files found matching pattern "{pattern}" within {absolute}.{extra}'
    now = time.time()
    prefix = absolute.rstrip(os.sep) + os.sep
    paths = [(prefix + m.rel.replace("/", os.sep), m.mtime) for m in result.matches]
    recent = sorted((p for p in paths if now - p[1] < RECENT_SECONDS), key=lambda p: -p[1])
    old = sorted((p for p in paths if now - p[1] >= RECENT_SECONDS), key=lambda p: locale_key(p[0]))
    extra = f" ({result.ignored_count} additional files were git-ignored)" if result.ignored_count else ""
    listing = "\n".join(p for p, _ in recent + old)
    return (f'Found {len(paths)} file(s) matching "{pattern}" within {absolute}{extra}, sorted by modification '
            f"time (newest first):\n{listing}")


# --- run_shell_command ---------------------------------------------------------------------------------------

def rejected_text(command: Any, reason: str) -> str:
    """Upstream's ``Command rejected: ...\\nReason: ...`` text (``undefined`` for a missing command, as JS)."""
    shown = "undefined" if command is None else command
    return f"Command rejected: {shown}\nReason: {reason}"


def _command_root(command: str) -> str:
    import re

    stripped = re.sub(r"[{}()]", "", command.strip())
    first = re.split(r"[\s;&|]+", stripped)[0]
    return first.split("/")[-1].split("\\")[-1]


def run_shell_command(state: State, args: dict[str, Any]) -> ToolOutput | str:
    command = args.get("command")
    if isinstance(command, str) and "$(" in command:
        raise Rejected(rejected_text(command, "Command substitution using $() is not allowed for security reasons"))
    from agenttools.toolsets.gemini import PARAMETERS

    issues = validate(PARAMETERS["run_shell_command"], args, all_errors=False)
    if issues:
        raise Rejected(rejected_text(command, issues[0].ajv_text()))
    assert isinstance(command, str)  # noqa: S101 - checked by the schema
    if not command.strip():
        raise Rejected(rejected_text(command, "Command cannot be empty."))
    if not _command_root(command):
        raise Rejected(rejected_text(command, "Could not identify command root to obtain permission from user."))
    directory = args.get("directory")
    cwd = state.root
    if directory:
        if os.path.isabs(directory):
            raise Rejected(rejected_text(command, "Directory cannot be absolute. Must be relative to the project "
                                                  "root directory."))
        try:
            cwd = str(state.workspace.resolve(os.path.join(state.root, directory), expect="dir"))
        except OutsideWorkspaceError:
            raise Rejected(rejected_text(command, f"Directory must be within the root directory ({state.root}): "
                                                  f"{directory}")) from None
        except AgentToolsError:
            raise Rejected(rejected_text(command, "Directory must exist.")) from None
    inner = command.strip()
    wrapped = f"{{ {inner if inner.endswith('&') else inner + ';'} }}; __code=$?; exit $__code;"
    result = shell.run_shell(wrapped, cwd=cwd, timeout=state.shell_timeout, max_output=state.max_output,
                             session=state.session)
    error = result.error
    if result.timed_out:
        error = f"Command timed out after {_num(state.shell_timeout)} seconds."
    text = "\n".join([
        f"Command: {command}",
        f"Directory: {directory or '(root)'}",
        f"Stdout: {result.stdout or '(empty)'}",
        f"Stderr: {result.stderr or '(empty)'}",
        f"Error: {error or '(none)'}",
        f"Exit Code: {'(none)' if result.exit_code is None else result.exit_code}",
        f"Signal: {result.signal_name or '(none)'}",
        f"Background PIDs: {', '.join(map(str, result.background_pids)) or '(none)'}",
        f"Process Group PGID: {'(none)' if result.pgid is None else result.pgid}",
    ])
    return ToolOutput(text=text, is_error=bool(error), data=result)
