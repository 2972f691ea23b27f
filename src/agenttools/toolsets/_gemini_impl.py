"""The gemini toolset's handlers: map arguments onto the families and render upstream's exact texts."""

from __future__ import annotations

import errno as errno_codes
import os
import time
from collections.abc import Callable
from typing import Any

import attrs

from agenttools import edit, files, search, shell
from agenttools._collate import locale_key
from agenttools._ignore import IgnoreRules, find_ignore_base
from agenttools._output import ContentBlock, DataBlock, ImageBlock, ToolOutput
from agenttools.errors import (
    AgentToolsError,
    AlreadyExistsError,
    EncodingError,
    FileTooLargeError,
    IsDirectoryError,
    MatchCountError,
    NoMatchError,
    NotFoundError,
    OutsideWorkspaceError,
    PathError,
    PatternError,
)
from agenttools.schema import validate
from agenttools.workspace import Workspace

MAX_READ_BYTES = 20 * 1024 * 1024
DEFAULT_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_SVG_BYTES = 1024 * 1024
RECENT_SECONDS = 24 * 60 * 60
_NODE_MESSAGES = {
    errno_codes.ENOENT: "no such file or directory", errno_codes.EACCES: "permission denied",
    errno_codes.ENOTDIR: "not a directory", errno_codes.ELOOP: "too many symbolic links encountered",
    errno_codes.EISDIR: "illegal operation on a directory", errno_codes.EPERM: "operation not permitted",
}


class Failure(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A failure whose model text is exactly ``message``."""

    code = "gemini_failure"


class Invalid(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A validation failure, rendered as ``Error: Invalid parameters provided. Reason: <message>``."""

    code = "gemini_invalid"


class Rejected(AgentToolsError):  # noqa: N818 - internal, named for what the model sees
    """A rejected shell command (``Command rejected: ...``)."""

    code = "gemini_rejected"


@attrs.define
class State:
    """What the handlers share: the workspace and the shell's limits."""

    workspace: Workspace
    shell_timeout: float | None
    max_output: int

    @property
    def root(self) -> str:
        return str(self.workspace.root)


def node_error(exc: OSError, syscall: str, path: str) -> str:
    """Node's ``fs`` error message, e.g. ``ENOENT: no such file or directory, stat '/x'``."""
    code = errno_codes.errorcode.get(exc.errno or 0, "EIO")
    text = _NODE_MESSAGES.get(exc.errno or 0, (exc.strerror or "i/o error").lower())
    return f"{code}: {text}, {syscall} '{path}'"


def _num(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def in_git_repo(path: str) -> bool:
    """Whether ``path`` is inside a git work tree (a ``.git`` entry here or in a parent)."""
    current = path
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def _inside(state: State, path: str, message: str) -> str:
    """The real path of an absolute path argument, or Invalid(message) when it escapes the root."""
    try:
        return str(state.workspace.resolve(path))
    except OutsideWorkspaceError:
        raise Invalid(message) from None
    except PathError as exc:  # a NUL byte or a symlink loop: say so rather than "outside the root"
        raise Invalid(f"{exc}: {path!r}") from None


# --- list_directory ------------------------------------------------------------------------------------------

def _ignored_by_pattern(name: str, patterns: list[str]) -> bool:
    import re

    for pattern in patterns:
        escaped = re.sub(r"[.+^${}()|\[\]\\]", lambda m: "\\" + m.group(0), pattern)
        if re.fullmatch(escaped.replace("*", ".*").replace("?", "."), name, flags=re.S):
            return True
    return False


def list_directory(state: State, args: dict[str, Any]) -> str:
    path = args["path"]
    if not os.path.isabs(path):
        raise Invalid(f"Path must be absolute: {path}")
    real = _inside(state, path, f"Path must be within the root directory ({state.root}): {path}")
    try:
        st = os.stat(real)
    except OSError as exc:
        raise Failure(f"Error listing directory: {node_error(exc, 'stat', path)}") from None
    if not os.path.isdir(real) or not st:
        raise Failure(f"Error: Path is not a directory: {path}")
    try:
        listing = files.list_dir(state.workspace, real)
    except OSError as exc:
        raise Failure(f"Error listing directory: {node_error(exc, 'scandir', path)}") from None
    if listing.total == 0:
        return f"Directory {path} is empty."
    rules = None
    if args.get("respect_git_ignore", True) and in_git_repo(state.root):
        rules = IgnoreRules(find_ignore_base(state.root))
    rel_dir = os.path.relpath(real, rules.base if rules else state.root).replace(os.sep, "/")
    rel_dir = "" if rel_dir == "." else rel_dir
    inside_ignored = rules is not None and rules.ancestors_ignored(rel_dir)
    kept, git_ignored = [], 0
    for entry in listing.entries:
        if _ignored_by_pattern(entry.name, list(args.get("ignore") or [])):
            continue
        rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
        if rules is not None and (inside_ignored or entry.name == ".git" or rules.ignored(rel, entry.is_dir)):
            git_ignored += 1
            continue
        kept.append(entry)
    kept.sort(key=lambda e: (not e.is_dir, locale_key(e.name)))
    body = "\n".join(f"{'[DIR] ' if e.is_dir else ''}{e.name}" for e in kept)
    text = f"Directory listing for {path}:\n{body}"
    if git_ignored:
        text += f"\n\n({git_ignored} items were git-ignored)"
    return text


# --- read_file -----------------------------------------------------------------------------------------------

def _geminiignore(state: State, real: str) -> bool:
    ignore_file = os.path.join(state.root, ".geminiignore")
    if not os.path.isfile(ignore_file):
        return False
    from agenttools._ignore import RuleFile

    with open(ignore_file, encoding="utf-8", errors="replace") as handle:
        rules = RuleFile.parse("", handle.read())
    rel = os.path.relpath(real, state.root).replace(os.sep, "/")
    return rules is not None and bool(rules.decide(rel))


def read_file(state: State, args: dict[str, Any]) -> str | ToolOutput:
    path = args["absolute_path"]
    if not os.path.isabs(path):
        raise Invalid(f"File path must be absolute, but was relative: {path}. You must provide an absolute path.")
    real = _inside(state, path, f"File path must be within the root directory ({state.root}): {path}")
    offset, limit = args.get("offset"), args.get("limit")
    if offset is not None and offset < 0:
        raise Invalid("Offset must be a non-negative number")
    if limit is not None and limit <= 0:
        raise Invalid("Limit must be a positive number")
    if _geminiignore(state, real):
        raise Invalid(f"File path '{path}' is ignored by .geminiignore pattern(s).")
    rel = os.path.relpath(path, state.root).replace(os.sep, "/")
    if not os.path.lexists(path) or not os.path.exists(real):
        raise Failure(f"File not found: {path}")
    if os.path.isdir(real):
        raise Failure(f"Path is a directory, not a file: {path}")
    start = int(offset or 0)
    count = int(limit) if limit is not None else DEFAULT_LINES
    try:
        result = files.read_file(state.workspace, real, offset=start, limit=count, max_line_chars=MAX_LINE_CHARS,
                                 max_size=MAX_READ_BYTES)
    except FileTooLargeError as exc:
        raise Failure(f"Error reading file {path}: File size exceeds the 20MB limit: {path} "
                      f"({exc.size / (1024 * 1024):.2f}MB)") from None
    except (AgentToolsError, OSError) as exc:
        raise Failure(f"Error reading file {path}: {exc}") from None
    if result.kind == "binary":
        return f"Cannot display content of binary file: {rel}"
    if result.kind == "svg":
        if result.size > MAX_SVG_BYTES:
            return f"Cannot display content of SVG file larger than 1MB: {rel}"
        return (result.data or b"").decode("utf-8", errors="replace")
    if result.kind != "text":
        mime = result.mime_type or "application/octet-stream"
        raw = result.data or b""
        block: ContentBlock = (ImageBlock.from_bytes(raw, mime) if result.kind == "image"
                               else DataBlock.from_bytes(raw, mime))
        return ToolOutput(text=f"Binary content of type {mime} was processed.", content=(block,), data=result)
    lines = [line + "... [truncated]" if i in set(result.cut_lines) else line for i, line in enumerate(result.lines)]
    end = min(start + count, result.total_lines)
    header = ""
    if end < result.total_lines:
        header = (f"[File content truncated: showing lines {min(start, result.total_lines) + 1}-{end} of "
                  f"{result.total_lines} total lines. Use offset/limit parameters to view more.]\n")
    elif result.cut_lines:
        header = ("[File content partially truncated: some lines exceeded maximum length of "
                  f"{MAX_LINE_CHARS} characters.]\n")
    return header + "\n".join(lines)


# --- write_file and replace ----------------------------------------------------------------------------------

def write_file(state: State, args: dict[str, Any]) -> str:
    path = args["file_path"]
    if not os.path.isabs(path):
        raise Invalid(f"File path must be absolute: {path}")
    real = _inside(state, path, f"File path must be within the root directory ({state.root}): {path}")
    try:
        if os.path.lexists(path) and os.path.isdir(path) and not os.path.islink(path):
            raise Invalid(f"Path is a directory, not a file: {path}")
    except OSError as exc:
        raise Invalid(f"Error accessing path properties for validation: {path}. Reason: {exc}") from None
    try:
        result = files.write_file(state.workspace, real, args["content"])
    except IsDirectoryError:
        raise Failure(f"Error writing to file {path}: Error writing to file: "
                      f"EISDIR: illegal operation on a directory, open '{path}'") from None
    except (AgentToolsError, OSError) as exc:
        raise Failure(f"Error writing to file {path}: Error writing to file: {exc}") from None
    if result.created:
        return f"Successfully created and wrote to new file: {path}."
    return f"Successfully overwrote file: {path}."


def replace(state: State, args: dict[str, Any]) -> str:
    path = args["file_path"]
    if not os.path.isabs(path):
        raise Invalid(f"File path must be absolute: {path}")
    real = _inside(state, path, f"File path must be within the root directory ({state.root}): {path}")
    expected = args.get("expected_replacements", 1)
    expected = int(expected) if float(expected).is_integer() else expected
    try:
        result = edit.replace_text(state.workspace, real, args["old_string"], args["new_string"], expected=expected)
    except NotFoundError:
        raise Failure(f"File not found: {path}") from None
    except IsDirectoryError:
        raise Failure("Error preparing edit: EISDIR: illegal operation on a directory, read") from None
    except AlreadyExistsError:
        raise Failure(f"File already exists, cannot create: {path}") from None
    except NoMatchError:
        raise Failure(f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made. The exact "
                      "text in old_string was not found. Ensure you're not escaping content incorrectly and check "
                      "whitespace, indentation, and context. Use read_file tool to verify.") from None
    except MatchCountError as exc:
        term = "occurrence" if expected == 1 else "occurrences"
        raise Failure(f"Failed to edit, Expected {_num(expected)} {term} but found {exc.found} for old_string in "
                      f"file: {path}") from None
    except EncodingError as exc:
        stage = "preparing" if str(exc).startswith("cannot decode") else "executing"
        raise Failure(f"Error {stage} edit: {exc}") from None
    except (AgentToolsError, OSError) as exc:
        raise Failure(f"Error executing edit: {exc}") from None
    if result.created:
        return f"Created new file: {path} with provided content."
    return f"Successfully modified file: {path} ({result.occurrences} replacements)."


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


def search_file_content(state: State, args: dict[str, Any]) -> str:
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
                             respect_gitignore=in_git_repo(real))
    except (AgentToolsError, OSError) as exc:
        raise Failure(f"Error during grep search operation: {exc}") from None
    shown = given or "."
    where = f' (filter: "{include}")' if include else ""
    if not result.matches:
        return f'No matches found for pattern "{pattern}" in path "{shown}"{where}.'
    count = len(result.matches)
    term = "match" if count == 1 else "matches"
    text = f'Found {count} {term} for pattern "{pattern}" in path "{shown}"{where}:\n---\n'
    current = None
    for match in result.matches:
        if match.rel != current:
            if current is not None:
                text += "---\n"
            current = match.rel
            text += f"File: {match.rel.replace('/', os.sep)}\n"
        text += f"L{match.line_number}: {match.line.strip().strip(chr(0xFEFF)).strip()}\n"
    return (text + "---\n").strip()


def glob(state: State, args: dict[str, Any]) -> str:
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
    paths = [(os.path.join(absolute, m.rel.replace("/", os.sep)), m.mtime) for m in result.matches]
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
    result = shell.run_shell(wrapped, cwd=cwd, timeout=state.shell_timeout, max_output=state.max_output)
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


HANDLERS: dict[str, Callable[[State, dict[str, Any]], Any]] = {
    "list_directory": list_directory,
    "read_file": read_file,
    "write_file": write_file,
    "replace": replace,
    "search_file_content": search_file_content,
    "glob": glob,
    "run_shell_command": run_shell_command,
}
