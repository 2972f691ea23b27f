"""The gemini file tools: ``list_directory``, ``read_file``, ``write_file`` and ``replace``, on the families."""

from __future__ import annotations

import errno
import os
import stat
from typing import Any

from agenttools import edit, files
from agenttools._glob import wildcard_match
from agenttools._text import read_regular
from agenttools.blocks import ContentBlock, DataBlock, ImageBlock
from agenttools.errors import (
    AgentToolsError,
    AlreadyExistsError,
    EncodingError,
    FileTooLargeError,
    IsDirectoryError,
    MatchCountError,
    NoMatchError,
    NotFoundError,
    ToolFailure,
)
from agenttools.ignore import IgnoreRules, RuleFile, find_ignore_base
from agenttools.output import ToolOutput
from agenttools.toolsets._collate import locale_key
from agenttools.toolsets._node import node_error
from agenttools.toolsets.gemini.state import (
    DEFAULT_LINES,
    MAX_LINE_CHARS,
    MAX_SVG_BYTES,
    State,
    absolute_inside,
    eloop,
    in_git_repo,
)
from agenttools.toolsets.gemini.texts import invalid, num

__all__ = ["list_directory", "read_file", "replace", "write_file"]


def _mb(state: State) -> str:
    """The read limit as upstream words it: ``20MB`` (its fixed limit, and our default)."""
    return f"{state.workspace.max_file_size / (1024 * 1024):g}MB"


# --- list_directory ------------------------------------------------------------------------------------------

def _ignored_by_pattern(name: str, patterns: list[str]) -> bool:
    # upstream's `*` -> `.*`, `?` -> `.`, the rest literal, on a matcher that cannot backtrack (_glob.wildcard_match)
    return any(wildcard_match(pattern, name) for pattern in patterns)


def list_directory(state: State, args: dict[str, Any]) -> str:
    """``list_directory``: a directory's entries, folders first, with upstream's ignore and git-ignore rules."""
    path = args["path"]
    real = absolute_inside(state, path, f"Path must be absolute: {path}", label="Path",
                           loop=ToolFailure(f"Error listing directory: {eloop(path).replace(', open ', ', stat ')}"))
    try:
        st = os.stat(real)
    except OSError as exc:
        raise ToolFailure(f"Error listing directory: {node_error(exc, 'stat', path)}") from None
    if not os.path.isdir(real) or not st:
        raise ToolFailure(f"Error: Path is not a directory: {path}")
    try:
        listing = files.list_dir(state.workspace, real)
    except OSError as exc:
        raise ToolFailure(f"Error listing directory: {node_error(exc, 'scandir', path)}") from None
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
    raw = read_regular(ignore_file)  # non-blocking and fstat-checked: a FIFO swapped in cannot hang the call
    if raw is None or len(raw) > state.workspace.max_file_size:
        return False
    rules = RuleFile.parse("", raw.decode("utf-8", errors="replace"))
    rel = os.path.relpath(real, state.root).replace(os.sep, "/")
    return rules is not None and bool(rules.decide(rel))


def read_file(state: State, args: dict[str, Any]) -> str | ToolOutput:
    """``read_file``: a text file's lines (paged by offset/limit), an image or PDF as a content block."""
    path = args["absolute_path"]
    real = absolute_inside(state, path, f"File path must be absolute, but was relative: {path}. You must provide "
                                         "an absolute path.", loop=ToolFailure(f"File not found: {path}"))
    offset, limit = args.get("offset"), args.get("limit")
    if offset is not None and offset < 0:
        raise invalid("Offset must be a non-negative number")
    if limit is not None and limit <= 0:
        raise invalid("Limit must be a positive number")
    if _geminiignore(state, real):
        raise invalid(f"File path '{path}' is ignored by .geminiignore pattern(s).")
    rel = os.path.relpath(path, state.root).replace(os.sep, "/")
    if not os.path.lexists(path) or not os.path.exists(real):
        raise ToolFailure(f"File not found: {path}")
    if os.path.isdir(real):
        raise ToolFailure(f"Path is a directory, not a file: {path}")
    # upstream's arithmetic on JavaScript numbers: a fractional offset or limit shows in the header ("lines
    # 2.5-3.5"), and slice() truncates both ends of the range it reads
    start = offset or 0
    count = limit if limit is not None else DEFAULT_LINES
    first = int(start)
    try:
        result = files.read_file(state.workspace, real, offset=first, limit=max(int(start + count) - first, 0),
                                 max_line_chars=MAX_LINE_CHARS, max_size=state.workspace.max_file_size)
    except FileTooLargeError as exc:
        raise ToolFailure(f"Error reading file {path}: File size exceeds the {_mb(state)} limit: {path} "
                          f"({exc.size / (1024 * 1024):.2f}MB)") from None
    except (AgentToolsError, OSError) as exc:
        raise ToolFailure(f"Error reading file {path}: {_os_text(exc, path)}") from None
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
        header = (f"[File content truncated: showing lines {num(min(start, result.total_lines) + 1)}-{num(end)} of "
                  f"{result.total_lines} total lines. Use offset/limit parameters to view more.]\n")
    elif result.cut_lines:
        header = ("[File content partially truncated: some lines exceeded maximum length of "
                  f"{MAX_LINE_CHARS} characters.]\n")
    return header + "\n".join(lines)


# --- write_file and replace ----------------------------------------------------------------------------------

def _unreadable(real: str, path: str) -> str | None:
    """Node's text when an existing file cannot be read (upstream reads before it writes), else None.

    A path ending in ``/`` is opened so (``a.txt/``: ``ENOTDIR``); a directory opens but cannot be read
    (``EISDIR: illegal operation on a directory, read``, with no path, as Node's ``read`` on a descriptor).
    """
    try:
        fd = os.open(real + "/" if path.endswith("/") else real,
                     os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (PermissionError, NotADirectoryError) as exc:  # Node's readFileSync throws these, not ENOENT
        return node_error(exc, "open", path)
    except OSError:
        return None  # missing, a symlink: the write or edit itself says what is wrong
    try:
        is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
    finally:
        os.close(fd)
    return f"{node_error(IsADirectoryError(errno.EISDIR, 'directory'), 'read')}" if is_dir else None


def _os_text(exc: BaseException, path: str) -> str:
    """The text of a write failure: Node's for the OS refusing to open the file, else the error's own message.

    Node's is ``EACCES: permission denied, open '<path>'``.
    """
    if isinstance(exc, PermissionError) and not isinstance(exc, AgentToolsError) and exc.errno == errno.EACCES:
        return node_error(exc, "open", path)
    return str(exc)


def write_file(state: State, args: dict[str, Any]) -> str:
    """``write_file``: create or overwrite a file with the given content."""
    path = args["file_path"]
    real = absolute_inside(state, path, f"File path must be absolute: {path}",
                           loop=ToolFailure(f"Error checking existing file {path}: {eloop(path)}"))
    try:
        if os.path.lexists(path) and os.path.isdir(path) and not os.path.islink(path):
            raise invalid(f"Path is a directory, not a file: {path}")
    except OSError as exc:
        raise invalid(f"Error accessing path properties for validation: {path}. Reason: {exc}") from None
    unreadable = _unreadable(real, path)
    if unreadable is not None:  # upstream reads the old content first: "Error checking existing file"
        raise ToolFailure(f"Error checking existing file {path}: {unreadable}")
    try:
        # a final "/" names a directory: the family refuses it (EISDIR), as Node's writeFileSync does
        target = real + "/" if path.endswith("/") else real
        result = files.write_file(state.workspace, target, args["content"], max_size=state.workspace.max_file_size)
    except IsDirectoryError:
        raise ToolFailure(f"Error writing to file {path}: Error writing to file: "
                          f"EISDIR: illegal operation on a directory, open '{path}'") from None
    except (AgentToolsError, OSError) as exc:
        raise ToolFailure(f"Error writing to file {path}: Error writing to file: {_os_text(exc, path)}") from None
    if result.created:
        return f"Successfully created and wrote to new file: {path}."
    return f"Successfully overwrote file: {path}."


def replace(state: State, args: dict[str, Any]) -> str:
    """``replace``: replace an exact text (the expected number of times), or create a file from an empty one."""
    path = args["file_path"]
    real = absolute_inside(state, path, f"File path must be absolute: {path}",
                           loop=ToolFailure(f"Error preparing edit: {eloop(path)}"))
    expected = args.get("expected_replacements", 1)
    expected = int(expected) if float(expected).is_integer() else expected
    unreadable = _unreadable(real, path)
    if unreadable is not None:  # upstream reads the file before it edits: "Error preparing edit"
        raise ToolFailure(f"Error preparing edit: {unreadable}")
    try:
        result = edit.replace_text(state.workspace, real, args["old_string"], args["new_string"], expected=expected,
                                   max_size=state.workspace.max_file_size)
    except NotFoundError:
        raise ToolFailure(f"File not found: {path}") from None
    except IsDirectoryError:
        raise ToolFailure("Error preparing edit: EISDIR: illegal operation on a directory, read") from None
    except AlreadyExistsError:
        raise ToolFailure(f"File already exists, cannot create: {path}") from None
    except NoMatchError:
        raise ToolFailure(f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made. The exact "
                          "text in old_string was not found. Ensure you're not escaping content incorrectly and check "
                      "whitespace, indentation, and context. Use read_file tool to verify.") from None
    except MatchCountError as exc:
        term = "occurrence" if expected == 1 else "occurrences"
        raise ToolFailure(f"Failed to edit, Expected {num(expected)} {term} but found {exc.found} for old_string in "
                          f"file: {path}") from None
    except EncodingError as exc:
        stage = "preparing" if exc.direction == "decode" else "executing"
        raise ToolFailure(f"Error {stage} edit: {exc}") from None
    except FileTooLargeError as exc:
        raise ToolFailure(f"Error preparing edit: File size exceeds the {_mb(state)} limit: {path} "
                          f"({exc.size / (1024 * 1024):.2f}MB)") from None
    except (AgentToolsError, OSError) as exc:
        raise ToolFailure(f"Error executing edit: {_os_text(exc, path)}") from None
    if result.created:
        return f"Created new file: {path} with provided content."
    return f"Successfully modified file: {path} ({result.occurrences} replacements)."
