"""``str_replace_based_edit_tool`` (``text_editor_20250728``): view, create, str_replace and insert.

Each check runs in the reference's order and answers with its text. Paths are confined to the workspace; a
directory is listed without a shell; an edit is decided on the text the reference edits (universal newlines, tabs
expanded) and written into the file's own bytes, so untouched lines keep their tabs and line endings.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

from agenttools import files
from agenttools._text import path_lock, read_checked
from agenttools.errors import (
    AgentToolsError,
    FileTooLargeError,
    IsDirectoryError,
    NotFoundError,
    SpecialFileError,
    ToolFailure,
)
from agenttools.output import ToolOutput
from agenttools.toolsets.anthropic.state import State, resolve
from agenttools.toolsets.anthropic.texts import COMMANDS, MAX_RESPONSE_LEN, SNIPPET_LINES, fail, maybe_truncate
from agenttools.toolsets.anthropic.view import Shown, universal

__all__ = ["edit_tool", "listing"]

_NAME = "str_replace_based_edit_tool"


def _os_error(code: int, shown: Path) -> str:
    """Python's ``OSError`` text for ``shown``: ``[Errno 2] No such file or directory: '/p'``."""
    return f"[Errno {code}] {os.strerror(code)}: {str(shown)!r}"


def _exists(real: str) -> bool:
    try:
        os.stat(real)
    except (OSError, ValueError):
        return False
    return True


def _validate_path(state: State, command: Any, shown: Path) -> str:
    """The reference's ``validate_path`` (absolute, exists, not over a file, directories only viewed) + confinement."""
    if not shown.is_absolute():
        raise fail(f"The path {shown} is not an absolute path, it should start with `/`. Maybe you meant {shown}?")
    real = resolve(state, shown, write=command == "create")
    exists = _exists(real)
    if not exists and command != "create":
        raise fail(f"The path {shown} does not exist. Please provide a valid path.")
    if exists and command == "create":
        raise fail(f"File already exists at: {shown}. Cannot overwrite files using command `create`.")
    if os.path.isdir(real) and command != "view":
        raise fail(f"The path {shown} is a directory and only the `view` command can be used on directories")
    return real


def edit_tool(state: State, args: dict[str, Any]) -> str | ToolOutput:
    """Run one command of the text editor tool."""
    command = args.get("command")
    path = args.get("path")
    if not isinstance(path, str):
        raise fail("Parameter `path` is required and must be a string." if path is None else
                   f"Invalid `path` parameter: {path!r}. It should be a string.")
    if "\x00" in path:
        raise fail(f"The path {path!r} contains a NUL byte. Please provide a valid path.")
    shown = Path(path)
    real = _validate_path(state, command, shown)
    if command == "view":
        return _view(state, shown, real, args.get("view_range"))
    if command == "create":
        file_text = args.get("file_text")
        if file_text is None:
            raise fail("Parameter `file_text` is required for command: create")
        _string(file_text, "file_text")
        _create(state, shown, real, file_text)
        return f"File created successfully at: {shown}"
    if command == "str_replace":
        old_str = args.get("old_str")
        if old_str is None:
            raise fail("Parameter `old_str` is required for command: str_replace")
        new_str = args.get("new_str")
        _string(old_str, "old_str")
        if new_str is not None:
            _string(new_str, "new_str")
        return _str_replace(state, shown, real, old_str, new_str)
    if command == "insert":
        insert_line = args.get("insert_line")
        if insert_line is None:
            raise fail("Parameter `insert_line` is required for command: insert")
        insert_text = args.get("insert_text")
        if insert_text is None:
            raise fail("Parameter `insert_text` is required for command: insert")
        if not isinstance(insert_line, int):
            raise fail(f"Invalid `insert_line` parameter: {insert_line!r}. It should be an integer.")
        _string(insert_text, "insert_text")
        return _insert(state, shown, real, insert_line, insert_text)
    raise fail(f"Unrecognized command {command}. The allowed commands for the {_NAME} tool are: "
               f"{', '.join(COMMANDS)}")


def _string(value: Any, name: str) -> None:
    if not isinstance(value, str):
        raise fail(f"Invalid `{name}` parameter: {value!r}. It should be a string.")


def _read(state: State, shown: Path, real: str) -> str:
    """The file's text, decoded as the reference decodes it (strict UTF-8), size and kind checked first."""
    ws = state.workspace
    try:
        data = read_checked(real, root=ws.root_of(real), max_size=ws.max_file_size)
    except SpecialFileError as exc:
        raise fail(f"Ran into {shown} is a {exc.kind}, not a regular file while trying to read {shown}") from None
    except FileTooLargeError as exc:
        raise fail(f"Ran into {shown} is {exc.size} bytes, over the {exc.limit}-byte limit while trying to read "
                   f"{shown}") from None
    except IsDirectoryError:
        raise fail(f"Ran into {_os_error(errno.EISDIR, shown)} while trying to read {shown}") from None
    except NotFoundError:
        raise fail(f"Ran into {_os_error(errno.ENOENT, shown)} while trying to read {shown}") from None
    except OSError as exc:
        raise fail(f"Ran into {_os_error(exc.errno or errno.EIO, shown)} while trying to read {shown}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"Ran into {exc} while trying to read {shown}") from None


def _write_error(exc: BaseException, shown: Path) -> ToolFailure:
    """A failed write as the reference words it: the OS's error on the path as given (``[Errno 13] ...: '/p'``).

    The OS names the file we opened (a temporary file next to it, or a name relative to its directory); the
    reference's ``write_text`` names the path it was given. Our own refusals (hard links, size, git metadata, a
    file swapped while written) keep their words.
    """
    if isinstance(exc, OSError) and not isinstance(exc, AgentToolsError) and exc.errno is not None \
            and exc.filename is not None and exc.strerror == os.strerror(exc.errno):
        return fail(f"Ran into {_os_error(exc.errno, shown)} while trying to write to {shown}")
    return fail(f"Ran into {exc} while trying to write to {shown}")


def _write(state: State, shown: Path, real: str, text: str) -> None:
    """Write an edited file in place (atomically, mode kept), or fail as the reference words a write failure."""
    ws = state.workspace
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise fail(f"Ran into {exc} while trying to write to {shown}") from None
    try:
        files.write_bytes(ws, real, data, create_parents=False)
    except (AgentToolsError, OSError) as exc:
        raise _write_error(exc, shown) from None


def _make_output(state: State, content: str, descriptor: str, init_line: int = 1, *,
                 limit: int | None = MAX_RESPONSE_LEN) -> str:
    """The reference's ``_make_output``: clipped, tabs expanded, ``cat -n`` numbered, with its header."""
    content = maybe_truncate(content, limit).expandtabs()
    numbered = "\n".join(f"{i + init_line:6}\t{line}" for i, line in enumerate(content.split("\n")))
    return f"Here's the result of running `cat -n` on {descriptor}:\n" + numbered + "\n"


def _view(state: State, shown: Path, real: str, view_range: Any) -> str | ToolOutput:
    if os.path.isdir(real):
        if view_range:
            raise fail("The `view_range` parameter is not allowed when `path` points to a directory.")
        stdout, stderr = listing(state, shown, real)
        if stderr:
            return ToolOutput(text=stderr, is_error=True, data={"output": stdout, "error": stderr})
        return (f"Here's the files and directories up to 2 levels deep in {shown}, excluding hidden items:\n"
                f"{stdout}\n")
    content = universal(_read(state, shown, real))
    init_line = 1
    if view_range:
        if not isinstance(view_range, list) or len(view_range) != 2 or \
                not all(isinstance(i, int) for i in view_range):
            raise fail("Invalid `view_range`. It should be a list of two integers.")
        lines = content.split("\n")
        count = len(lines)
        init_line, final_line = view_range
        if init_line < 1 or init_line > count:
            raise fail(f"Invalid `view_range`: {view_range}. Its first element `{init_line}` should be within the "
                       f"range of lines of the file: {[1, count]}")
        if final_line > count:
            raise fail(f"Invalid `view_range`: {view_range}. Its second element `{final_line}` should be smaller "
                       f"than the number of lines in the file: `{count}`")
        if final_line != -1 and final_line < init_line:
            raise fail(f"Invalid `view_range`: {view_range}. Its second element `{final_line}` should be larger or "
                       f"equal than its first `{init_line}`")
        content = "\n".join(lines[init_line - 1:] if final_line == -1 else lines[init_line - 1:final_line])
    limit = MAX_RESPONSE_LEN if state.max_characters is None else state.max_characters
    return _make_output(state, content, str(shown), init_line, limit=limit)


def _find_quoted(name: str) -> str:
    """A name as GNU find quotes it in a message: in curly quotes in a UTF-8 locale, else in ``'``."""
    locale = next((os.environ[v] for v in ("LC_ALL", "LC_MESSAGES", "LANG") if os.environ.get(v)), "")
    utf8 = locale.lower().replace("-", "").endswith("utf8")
    return f"\u2018{name}\u2019" if utf8 else f"'{name}'"


def _hidden(path: str) -> bool:
    """``find -not -path '*/\\.*'`` leaves out every path with a component starting with a dot."""
    return "/." in path


def _readable(name: str) -> str:
    """A file name as ``find``'s output decodes with replacement: a byte that is not UTF-8 becomes U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def listing(state: State, shown: Path, real: str) -> tuple[str, str]:
    """What ``find <path> -maxdepth 2 -not -path '*/\\.*'`` prints (stdout, stderr), found without a shell.

    Entries come in directory order, each directory before its entries; symlinks are listed, never followed (a
    symlink given as the path itself is listed alone, as ``find -P`` does). Paths the workspace denies are left
    out with everything below them. Each output is clipped as the reference's ``run`` clips it.
    """
    ws = state.workspace
    top = str(shown)
    out: list[str] = []
    err: list[str] = []

    def emit(path: str) -> None:
        if not _hidden(path):
            out.append(_readable(path) + "\n")

    def walk(printed: str, directory: str, depth: int) -> None:
        try:
            with os.scandir(directory) as entries:
                found = list(entries)
        except OSError as exc:
            err.append(f"find: {_find_quoted(_readable(printed))}: {os.strerror(exc.errno or errno.EIO)}\n")
            return
        for entry in found:
            path = printed.rstrip("/") + "/" + entry.name
            if ws.denied_by(os.path.join(directory, entry.name)) is not None or ws.denied_by(path) is not None:
                continue
            emit(path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir and depth < 2 and not _hidden(path):
                walk(path, os.path.join(directory, entry.name), depth + 1)

    emit(top)
    lexical = os.path.normpath(top)
    if not os.path.islink(lexical):
        walk(top, real, 1)
    return maybe_truncate("".join(out)), maybe_truncate("".join(err))


def _create(state: State, shown: Path, real: str, file_text: str) -> None:
    parent = os.path.dirname(real)
    try:
        mode = os.stat(parent).st_mode
    except FileNotFoundError:
        raise fail(f"Ran into {_os_error(errno.ENOENT, shown)} while trying to write to {shown}") from None
    except NotADirectoryError:
        raise fail(f"Ran into {_os_error(errno.ENOTDIR, shown)} while trying to write to {shown}") from None
    if not stat.S_ISDIR(mode):
        raise fail(f"Ran into {_os_error(errno.ENOTDIR, shown)} while trying to write to {shown}")
    if os.path.islink(real):  # a symlink loop (resolve left it as given): open() would fail with ELOOP
        raise fail(f"Ran into {_os_error(errno.ELOOP, shown)} while trying to write to {shown}")
    try:
        file_text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate: nothing is written (the reference leaves an empty file)
        raise fail(f"Ran into {exc} while trying to write to {shown}") from None
    try:
        files.write_file(state.workspace, real, file_text, keep_format=False, create_parents=False)
    except (AgentToolsError, OSError, UnicodeError) as exc:
        raise _write_error(exc, shown) from None


def _str_replace(state: State, shown: Path, real: str, old_str: str, new_str: str | None) -> str:
    real = resolve(state, shown, write=True)
    with path_lock(real):
        file = Shown(_read(state, shown, real))
        content = file.text
        old = old_str.expandtabs()
        new = new_str.expandtabs() if new_str is not None else ""
        occurrences = content.count(old)
        if occurrences == 0:
            raise fail(f"No replacement was performed, old_str `{old}` did not appear verbatim in {shown}.")
        if occurrences > 1:
            lines = [index + 1 for index, line in enumerate(content.split("\n")) if old in line]
            raise fail(f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines {lines}. "
                       "Please ensure it is unique")
        start = content.find(old)
        # the file keeps its own tabs: the new text is written as given, the old span replaced in the file's bytes
        _write(state, shown, real, file.replace(start, start + len(old), new_str if new_str is not None else ""))
    new_content = content.replace(old, new)
    # an empty old_str matches once only in an empty file; the reference then crashes on split(""): line 0
    replacement_line = content.split(old)[0].count("\n") if old else 0
    start_line = max(0, replacement_line - SNIPPET_LINES)
    end_line = replacement_line + SNIPPET_LINES + new.count("\n")
    snippet = "\n".join(new_content.split("\n")[start_line:end_line + 1])
    return (f"The file {shown} has been edited. "
            + _make_output(state, snippet, f"a snippet of {shown}", start_line + 1)
            + "Review the changes and make sure they are as expected. Edit the file again if necessary.")


def _insert(state: State, shown: Path, real: str, insert_line: int, insert_text: str) -> str:
    real = resolve(state, shown, write=True)
    with path_lock(real):
        file = Shown(_read(state, shown, real))
        lines = file.text.split("\n")
        count = len(lines)
        if insert_line < 0 or insert_line > count:
            raise fail(f"Invalid `insert_line` parameter: {insert_line}. It should be within the range of lines of "
                       f"the file: {[0, count]}")
        _write(state, shown, real, file.insert(insert_line, insert_text))
    new_lines = insert_text.expandtabs().split("\n")
    snippet = "\n".join(lines[max(0, insert_line - SNIPPET_LINES):insert_line] + new_lines
                        + lines[insert_line:insert_line + SNIPPET_LINES])
    return (f"The file {shown} has been edited. "
            + _make_output(state, snippet, "a snippet of the edited file", max(1, insert_line - SNIPPET_LINES + 1))
            + "Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). "
            "Edit the file again if necessary.")
