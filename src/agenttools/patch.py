"""The patch family: V4A patches (the ``*** Begin Patch`` format of Codex's ``apply_patch``), applied all-or-nothing.

:func:`parse_patch` reads a patch into hunks exactly as Codex's parser does (its leniencies and its error texts);
:func:`apply_patch` checks every hunk against the files in order — later hunks see what earlier ones did — and only
when all of them apply writes the result, each file atomically, every path through the :class:`Workspace`. A
patch that fails changes nothing (Codex leaves the hunks before the failing one applied).

Context lines are found as the reference finds them: exactly, then ignoring trailing whitespace, then ignoring
surrounding whitespace, then with typographic dashes, quotes and spaces read as their ASCII forms. Unchanged lines
keep their text and line ending; new lines take the file's first line ending (so a CRLF file stays CRLF). The
texts (:attr:`PatchResult.text`, :attr:`PatchError.message`) are the reference's stdout and stderr lines.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import attrs

from agenttools._display import MarkdownRepr
from agenttools._text import atomic_write, make_dirs_beneath, open_dir, read_checked
from agenttools.errors import AgentToolsError, EditError, NotFoundError
from agenttools.workspace import Workspace

__all__ = ["AddFile", "Chunk", "DeleteFile", "FileChange", "Hunk", "PatchError", "PatchParseError", "PatchResult",
           "UpdateFile", "apply_patch", "operation_patch", "parse_patch", "seek_sequence"]

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
EOF = "*** End of File"
CONTEXT = "@@ "
EMPTY_CONTEXT = "@@"

_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
               "\u2028\u2029\u202f\u205f\u3000")
"""Rust's ``char::is_whitespace`` (Unicode White_Space): what the reference's ``trim`` removes. Python's own
``str.strip()`` would also remove U+001C..U+001F."""

_PUNCTUATION = str.maketrans({
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
})
"""The reference's last matching pass: typographic dashes, quotes and spaces read as ASCII."""


def _trim(text: str) -> str:
    return text.strip(_WHITESPACE)


def _lines(text: str) -> list[str]:
    """Rust's ``str::lines``: split at ``\\n``, drop one ``\\r`` before it, no empty last line after a final one."""
    parts = text.split("\n")
    last = parts.pop()
    lines = [p[:-1] if p.endswith("\r") else p for p in parts]
    return [*lines, last] if last else lines


class PatchError(EditError):
    """A patch could not be applied; nothing was written. ``message`` is the reference's stderr line.

    Attributes:
        path: The file concerned (``""`` when the patch itself is at fault).
    """

    code = "patch_failed"


class PatchParseError(PatchError):
    """The patch text is malformed (``Invalid patch: ...`` / ``Invalid patch hunk on line N: ...``).

    Attributes:
        detail: The reason, without the ``Invalid patch...:`` prefix.
        line: The 1-based patch line of a malformed hunk, or None for the patch's own markers.
    """

    code = "patch_invalid"

    def __init__(self, detail: str, *, line: int | None = None) -> None:
        self.detail = detail
        self.line = line
        prefix = "Invalid patch" if line is None else f"Invalid patch hunk on line {line}"
        super().__init__(f"{prefix}: {detail}", path="")


@attrs.frozen(kw_only=True)
class Chunk:
    """One ``@@`` section of an update: where it is (``context``) and its lines."""

    context: str | None
    """The ``@@ text`` line that must come before the change (None for a bare ``@@``)."""
    lines: tuple[tuple[Literal[" ", "-", "+"], str], ...]
    """Each line of the section: kept (``" "``), removed (``"-"``) or added (``"+"``), with its text."""
    end_of_file: bool = False
    """The section ends with ``*** End of File``: its old lines are looked for at the end of the file first."""

    @property
    def old_lines(self) -> list[str]:
        """The lines the section expects in the file."""
        return [text for kind, text in self.lines if kind != "+"]

    @property
    def new_lines(self) -> list[str]:
        """The lines the section leaves in their place."""
        return [text for kind, text in self.lines if kind != "-"]


@attrs.frozen(kw_only=True)
class AddFile:
    """``*** Add File: path``: create (or overwrite) a file with ``contents``."""

    path: str
    contents: str


@attrs.frozen(kw_only=True)
class DeleteFile:
    """``*** Delete File: path``."""

    path: str


@attrs.frozen(kw_only=True)
class UpdateFile:
    """``*** Update File: path`` (optionally ``*** Move to: move_to``) with its sections."""

    path: str
    move_to: str | None
    chunks: tuple[Chunk, ...]


Hunk = AddFile | DeleteFile | UpdateFile


@attrs.frozen(kw_only=True)
class FileChange:
    """What a patch does to one file."""

    action: Literal["add", "update", "delete"]
    path: str
    """The path as the patch names it."""
    real_path: Path
    """The file written or removed."""
    move_to: str | None = None
    """For a moved file, the destination as the patch names it."""
    before: str | None = attrs.field(default=None, repr=False)
    """The text before (None for a file that did not exist)."""
    after: str | None = attrs.field(default=None, repr=False)
    """The text after (None for a deleted file)."""


@attrs.frozen(kw_only=True)
class PatchResult(MarkdownRepr):
    """What :func:`apply_patch` did (or, with ``dry_run``, would do)."""

    added: tuple[str, ...]
    """Files added, as the patch names them, in patch order."""
    modified: tuple[str, ...]
    """Files updated (a moved file under its new name)."""
    deleted: tuple[str, ...]
    """Files deleted."""
    changes: tuple[FileChange, ...] = attrs.field(repr=False)
    """Each hunk's effect, in patch order."""
    dry_run: bool = False
    """Nothing was written."""

    @property
    def text(self) -> str:
        """The reference's report: ``Success. Updated the following files:`` then ``A``/``M``/``D`` lines."""
        rows = ["Success. Updated the following files:"]
        rows += [f"A {p}" for p in self.added] + [f"M {p}" for p in self.modified] + [f"D {p}" for p in self.deleted]
        return "\n".join(rows) + "\n"

    @property
    def diff(self) -> str:
        """A unified diff of every change (what a dry run would write)."""
        out: list[str] = []
        for change in self.changes:
            old = (change.before or "").splitlines(keepends=True)
            new = (change.after or "").splitlines(keepends=True)
            name = change.move_to if change.move_to is not None else change.path
            out.extend(difflib.unified_diff(old, new, "/dev/null" if change.before is None else f"a/{change.path}",
                                            "/dev/null" if change.after is None else f"b/{name}"))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)


# ---------------------------------------------------------------------------------------------------------- parse

def parse_patch(text: str) -> tuple[Hunk, ...]:
    """The hunks of a V4A patch, read as Codex's parser reads them (its lenient mode).

    The text is trimmed; its first line must be ``*** Begin Patch`` and its last ``*** End Patch`` (surrounding
    whitespace allowed); a patch wrapped in a ``<<EOF`` ... ``EOF`` heredoc is unwrapped.

    Raises:
        PatchParseError: The reference's error, word for word.
    """
    lines = _lines(_trim(text))
    try:
        body = _boundaries(lines)
    except PatchParseError:
        if (len(lines) >= 4 and lines[0] in ("<<EOF", "<<'EOF'", '<<"EOF"') and lines[-1].endswith("EOF")):
            body = _boundaries(lines[1:-1])
        else:
            raise
    hunks: list[Hunk] = []
    line_number = 2
    while body:
        hunk, used = _parse_hunk(body, line_number)
        hunks.append(hunk)
        line_number += used
        body = body[used:]
    return tuple(hunks)


def _boundaries(lines: list[str]) -> list[str]:
    """The lines between ``*** Begin Patch`` and the first ``*** End Patch``, or the reference's error.

    Only blank lines and more end markers may follow the first end marker.
    """
    if not lines or _trim(lines[0]) != BEGIN:
        if lines:
            raise PatchParseError("The first line of the patch must be '*** Begin Patch'")
        raise PatchParseError("The last line of the patch must be '*** End Patch'")
    for index in range(1, len(lines)):
        if _trim(lines[index]) == END:
            if all(_trim(line) in ("", END) for line in lines[index + 1:]):
                return lines[1:index]
            break
    raise PatchParseError("The last line of the patch must be '*** End Patch'")


def _parse_hunk(lines: list[str], line_number: int) -> tuple[Hunk, int]:
    first = _trim(lines[0])
    if first.startswith(ADD):
        contents = []
        for line in lines[1:]:
            if not line.startswith("+"):
                break
            contents.append(line[1:] + "\n")
        return AddFile(path=first[len(ADD):], contents="".join(contents)), 1 + len(contents)
    if first.startswith(DELETE):
        return DeleteFile(path=first[len(DELETE):]), 1
    if first.startswith(UPDATE):
        path = first[len(UPDATE):]
        rest = lines[1:]
        used = 1
        move_to = None
        if rest and rest[0].startswith(MOVE):
            move_to = rest[0][len(MOVE):]
            rest = rest[1:]
            used += 1
        chunks: list[Chunk] = []
        while rest:
            if not _trim(rest[0]):
                used += 1
                rest = rest[1:]
                continue
            if rest[0].startswith("*"):
                break
            chunk, taken = _parse_chunk(rest, line_number + used, allow_missing_context=not chunks)
            chunks.append(chunk)
            used += taken
            rest = rest[taken:]
        if not chunks:
            raise PatchParseError(f"Update file hunk for path '{path}' is empty", line=line_number)
        return UpdateFile(path=path, move_to=move_to, chunks=tuple(chunks)), used
    raise PatchParseError(f"'{first}' is not a valid hunk header. Valid hunk headers: '*** Add File: {{path}}', "
                          "'*** Delete File: {path}', '*** Update File: {path}'", line=line_number)


def _parse_chunk(lines: list[str], line_number: int, *, allow_missing_context: bool) -> tuple[Chunk, int]:
    if lines[0] == EMPTY_CONTEXT:
        context, start = None, 1
    elif lines[0].startswith(CONTEXT):
        context, start = lines[0][len(CONTEXT):], 1
    elif allow_missing_context:
        context, start = None, 0
    else:
        raise PatchParseError(f"Expected update hunk to start with a @@ context marker, got: '{lines[0]}'",
                              line=line_number)
    if start >= len(lines):
        raise PatchParseError("Update hunk does not contain any lines", line=line_number + 1)
    body: list[tuple[Literal[" ", "-", "+"], str]] = []
    end_of_file = False
    parsed = 0
    for line in lines[start:]:
        if line == EOF:
            if parsed == 0:
                raise PatchParseError("Update hunk does not contain any lines", line=line_number + 1)
            end_of_file = True
            parsed += 1
            break
        if line == "":
            body.append((" ", ""))
        elif line[0] in " -+":
            body.append((line[0], line[1:]))  # type: ignore[arg-type]
        else:
            if parsed == 0:
                raise PatchParseError(f"Unexpected line found in update hunk: '{line}'. Every line should start "
                                      "with ' ' (context line), '+' (added line), or '-' (removed line)",
                                      line=line_number + start)
            break  # the next section starts here
        parsed += 1
    return Chunk(context=context, lines=tuple(body), end_of_file=end_of_file), parsed + start


def operation_patch(operation: dict[str, object]) -> str:
    """The V4A patch of one Responses ``apply_patch_call`` operation.

    ``create_file`` and ``update_file`` carry a ``path`` and a V4A ``diff``; ``delete_file`` only a ``path``.

    Raises:
        PatchParseError: Not an operation (an unknown ``type``, no ``path``, no ``diff``).
    """
    kind, path, diff = operation.get("type"), operation.get("path"), operation.get("diff")
    if not isinstance(path, str):
        raise PatchParseError("the operation has no path")
    if kind == "delete_file":
        return f"{BEGIN}\n{DELETE}{path}\n{END}\n"
    if not isinstance(diff, str):
        raise PatchParseError(f"the {kind} operation has no diff")
    body = diff if diff.endswith("\n") or not diff else diff + "\n"
    if kind == "create_file":
        return f"{BEGIN}\n{ADD}{path}\n{body}{END}\n"
    if kind == "update_file":
        return f"{BEGIN}\n{UPDATE}{path}\n{body}{END}\n"
    raise PatchParseError(f"unknown operation type {kind!r}: use create_file, update_file or delete_file")


# ---------------------------------------------------------------------------------------------------------- match

def seek_sequence(lines: Sequence[str], pattern: Sequence[str], start: int, eof: bool) -> int | None:
    """Where ``pattern`` starts in ``lines`` at or after ``start`` (None if nowhere), as the reference seeks.

    Passes of decreasing strictness: exact, then ignoring trailing whitespace, then ignoring surrounding
    whitespace, then also reading typographic dashes, quotes and spaces as ASCII. With ``eof`` the search starts
    where the pattern would end the file.
    """
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if eof else start
    last = len(lines) - len(pattern)
    passes = (lambda s: s, lambda s: s.rstrip(_WHITESPACE), _trim, lambda s: _trim(s).translate(_PUNCTUATION))
    for norm in passes:
        want = [norm(p) for p in pattern]
        for i in range(first, last + 1):
            if all(norm(lines[i + k]) == want[k] for k in range(len(want))):
                return i
    return None


# ---------------------------------------------------------------------------------------------------------- apply

_Ending = Literal["\n", "\r\n"] | None


@attrs.define
class _Line:
    text: str
    ending: _Ending


def _split(contents: str) -> tuple[list[_Line], Literal["\n", "\r\n"]]:
    """The file's lines with their endings, and its preferred ending (its first one; LF when it has none)."""
    lines = []
    preferred: Literal["\n", "\r\n"] | None = None
    pieces = contents.split("\n")
    for piece in pieces[:-1]:
        ending: Literal["\n", "\r\n"] = "\r\n" if piece.endswith("\r") else "\n"
        preferred = preferred or ending
        lines.append(_Line(piece[:-1] if ending == "\r\n" else piece, ending))
    if pieces[-1]:
        lines.append(_Line(pieces[-1], None))
    return lines, preferred or "\n"


_Item = tuple[Literal["keep"], int] | tuple[Literal["new"], str]


def _updated(contents: str, chunks: Sequence[Chunk], display: str) -> str:
    """The file's text after the sections, or the reference's error."""
    lines, preferred = _split(contents)
    texts = [line.text for line in lines]
    replacements: list[tuple[int, int, list[_Item]]] = []
    index = 0
    for chunk in chunks:
        if chunk.context is not None:
            found = seek_sequence(texts, [chunk.context], index, False)
            if found is None:
                raise PatchError(f"Failed to find context '{chunk.context}' in {display}", path=display)
            index = found + 1
        ops = list(chunk.lines)
        if not chunk.old_lines:
            replacements.append((len(texts), 0, [("new", text) for _, text in ops]))
            continue
        pattern = chunk.old_lines
        found = seek_sequence(texts, pattern, index, chunk.end_of_file)
        if found is None and pattern[-1] == "":
            pattern = pattern[:-1]
            ops = _drop_last_blank(ops, new_too=chunk.new_lines[-1:] == [""])
            found = seek_sequence(texts, pattern, index, chunk.end_of_file)
        if found is None:
            raise PatchError(f"Failed to find expected lines in {display}:\n" + "\n".join(chunk.old_lines),
                             path=display)
        items: list[_Item] = []
        offset = 0
        for kind, text in ops:
            if kind == " ":
                items.append(("keep", found + offset))
            elif kind == "+":
                items.append(("new", text))
            if kind != "+":
                offset += 1
        replacements.append((found, len(pattern), items))
        index = found + len(pattern)
    replacements.sort(key=lambda r: r[0])
    result: list[_Line] = []
    source = 0
    for start, length, items in replacements:
        result.extend(lines[source:start] if start >= source else [])
        for item in items:
            if item[0] == "keep":
                result.append(lines[item[1]])
            else:
                result.append(_Line(item[1], preferred))
        source = max(source, start + length)
    result.extend(lines[source:])
    return "".join(line.text + (line.ending or preferred) for line in result)


def _drop_last_blank(ops: list[tuple[Literal[" ", "-", "+"], str]],
                     *, new_too: bool) -> list[tuple[Literal[" ", "-", "+"], str]]:
    """The section without its last old line (a blank one), and its last new line when that is blank too.

    The reference's second try for a section whose old lines end with the file's final newline.
    """
    ops = list(ops)
    old_at = max(i for i, (kind, _) in enumerate(ops) if kind != "+")
    new_at = max((i for i, (kind, _) in enumerate(ops) if kind != "-"), default=None) if new_too else None
    if new_at == old_at:
        del ops[old_at]
        return ops
    if ops[old_at][0] == " ":
        ops[old_at] = ("+", ops[old_at][1])  # it stays a new line
    else:
        del ops[old_at]
        if new_at is not None and new_at > old_at:
            new_at -= 1
    if new_at is not None:
        del ops[new_at]
    return ops


_DELETED = None


@attrs.define
class _Plan:
    """The files as the patch leaves them, hunk by hunk, before anything is written."""

    ws: Workspace
    limit: int
    state: dict[str, str | None] = attrs.field(factory=dict)
    """Real (or entry) path -> its new text, or None when deleted."""
    created_dirs: set[str] = attrs.field(factory=set)

    def text_of(self, key: str, display: str) -> str:
        if key in self.state:
            text = self.state[key]
            if text is None:
                raise _io_error("Failed to read file to update", display, errno.ENOENT)
            return text
        try:
            st = os.stat(key)
        except OSError as exc:
            raise _io_error("Failed to read file to update", display, exc.errno or errno.EIO) from None
        if not stat.S_ISREG(st.st_mode):
            raise PatchError(f"Failed to read file to update {display}: path `{display}` is not a file", path=display)
        try:
            raw = read_checked(key, root=self.ws.root_of(key), max_size=self.limit)
        except AgentToolsError as exc:
            raise PatchError(f"Failed to read file to update {display}: {exc}", path=display) from None
        except OSError as exc:
            raise _io_error("Failed to read file to update", display, exc.errno or errno.EIO) from None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.reason == "unexpected end of data":
                reason = f"incomplete utf-8 byte sequence from index {exc.start}"
            else:
                reason = f"invalid utf-8 sequence of {exc.end - exc.start} bytes from index {exc.start}"
            raise PatchError(f"Failed to read file to update {display}: {reason}", path=display) from None

    def exists(self, key: str) -> bool:
        if key in self.state:
            return self.state[key] is not None
        return os.path.lexists(key)

    def is_dir(self, key: str) -> bool:
        if key in self.state:
            return False
        return key in self.created_dirs or os.path.isdir(key)

    def check_writable(self, key: str, display: str) -> None:
        """Refuse (with the reference's text) a write the OS would refuse: a directory there, a file above it."""
        if self.is_dir(key):
            raise PatchError(f"Failed to write file {display}", path=display)
        parent = os.path.dirname(key)
        missing = []
        while not self.is_dir(parent):
            if self.exists(parent):
                raise PatchError(f"Failed to write file {display}", path=display)
            missing.append(parent)
            parent = os.path.dirname(parent)
        self.created_dirs.update(missing)

    def write(self, key: str, text: str, display: str) -> None:
        if len(text.encode("utf-8", "surrogatepass")) > self.limit:
            raise PatchError(f"Failed to write file {display}: the new text is larger than {self.limit} bytes",
                             path=display)
        self.check_writable(key, display)
        self.state[key] = text


def _io_error(context: str, display: str, code: int) -> PatchError:
    """The reference's ``{context} {path}: {strerror} (os error N)``."""
    return PatchError(f"{context} {display}: {os.strerror(code)} (os error {code})", path=display)


def _refused(context: str, display: str, exc: AgentToolsError) -> PatchError:
    return PatchError(f"{context} {display}: {exc}", path=display)


def apply_patch(ws: Workspace, patch: str | Sequence[Hunk], *, dry_run: bool = False,
                max_size: int | None = None) -> PatchResult:
    """Apply a V4A patch all-or-nothing: every hunk is checked in order, then every file is written.

    Relative paths resolve against the workspace's cwd; every path must stay inside the workspace. ``Add File``
    overwrites an existing file and creates missing directories; ``Update File`` needs an existing UTF-8 text file;
    ``Move to`` writes the destination and removes the source (a move onto the same path keeps the file).

    Args:
        ws: Where the files are.
        patch: The patch text, or hunks from :func:`parse_patch`.
        dry_run: Check everything and report, write nothing (:attr:`PatchResult.diff` shows the change).
        max_size: The largest file read or written (default: the workspace's ``max_file_size``).

    Raises:
        PatchParseError: The patch is malformed (the reference's ``Invalid patch...`` text).
        PatchError: A hunk does not apply, or a path is refused; nothing was written. Its message is the
            reference's, or for a path the reference would have used but we refuse, the reference's context
            followed by why (``Failed to write file /abs/x: path ... is outside the allowed directories``).
    """
    hunks = parse_patch(patch) if isinstance(patch, str) else tuple(patch)
    if not hunks:
        raise PatchError("No files were modified.", path="")
    plan = _Plan(ws=ws, limit=ws.max_file_size if max_size is None else max_size)
    added: list[str] = []
    modified: list[str] = []
    deleted: list[str] = []
    changes: list[FileChange] = []

    for hunk in hunks:
        display = _display(ws, hunk.path)
        if isinstance(hunk, AddFile):
            key = _write_key(ws, plan, hunk.path, display)
            old = plan.state[key] if key in plan.state else _peek(key)
            plan.write(key, hunk.contents, display)
            added.append(hunk.path)
            changes.append(FileChange(action="add", path=hunk.path, real_path=Path(key), before=old,
                                      after=hunk.contents))
        elif isinstance(hunk, DeleteFile):
            try:
                entry = str(ws.resolve_entry(hunk.path, write=True))
            except AgentToolsError as exc:
                raise _refused("Failed to delete file", display, exc) from None
            if not plan.exists(entry) or plan.is_dir(entry):
                raise PatchError(f"Failed to delete file {display}", path=display)
            old = plan.state.get(entry) if entry in plan.state else _peek(entry)
            plan.state[entry] = _DELETED
            deleted.append(hunk.path)
            changes.append(FileChange(action="delete", path=hunk.path, real_path=Path(entry), before=old))
        else:
            key = _read_key(ws, plan, hunk.path, display)
            old = plan.text_of(key, display)
            new = _updated(old, hunk.chunks, display)
            if hunk.move_to is None:
                plan.write(key, new, display)
                modified.append(hunk.path)
                changes.append(FileChange(action="update", path=hunk.path, real_path=Path(key), before=old, after=new))
                continue
            dest_display = _display(ws, hunk.move_to)
            source_entry = str(ws.resolve_entry(hunk.path, write=True))
            dest_entry = _entry(ws, hunk.move_to, dest_display)
            dest = key if dest_entry == source_entry else _write_key(ws, plan, hunk.move_to, dest_display)
            plan.write(dest, new, dest_display)
            if dest_entry != source_entry:  # a move onto its own path keeps the file (the reference deletes it)
                plan.state[source_entry] = _DELETED
            modified.append(hunk.move_to)
            changes.append(FileChange(action="update", path=hunk.path, real_path=Path(dest), move_to=hunk.move_to,
                                      before=old, after=new))
    if not dry_run:
        _commit(ws, plan)
    return PatchResult(added=tuple(added), modified=tuple(modified), deleted=tuple(deleted), changes=tuple(changes),
                       dry_run=dry_run)


def _display(ws: Workspace, path: str) -> str:
    """The path as the reference names it in errors: made absolute against the cwd, normalised lexically."""
    return os.path.normpath(os.path.join(str(ws.cwd), path)) if path else str(ws.cwd)


def _entry(ws: Workspace, path: str, display: str) -> str:
    try:
        return str(ws.resolve_entry(path, write=True))
    except AgentToolsError as exc:
        raise _refused("Failed to write file", display, exc) from None


def _write_key(ws: Workspace, plan: _Plan, path: str, display: str) -> str:
    """Where a write to ``path`` lands: through a symlink on disk, or the entry itself if this patch deleted it."""
    entry = _entry(ws, path, display)
    if entry in plan.state:
        return entry
    try:
        return str(ws.resolve(path, write=True))
    except AgentToolsError as exc:
        raise _refused("Failed to write file", display, exc) from None


def _read_key(ws: Workspace, plan: _Plan, path: str, display: str) -> str:
    try:
        entry = str(ws.resolve_entry(path, write=True))
        if entry in plan.state:
            return entry
        return str(ws.resolve(path, write=True))
    except AgentToolsError as exc:
        raise _refused("Failed to read file to update", display, exc) from None


def _peek(key: str) -> str | None:
    """A file's text before the patch, for the result (None when absent or unreadable)."""
    try:
        with open(key, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return None


def _commit(ws: Workspace, plan: _Plan) -> None:
    """Write every file, then remove every deleted one; on a failure put back what was already done."""
    undo: list[tuple[str, bytes | str | None]] = []  # path, its bytes / symlink target ("str") / None: absent
    try:
        for key, text in plan.state.items():
            if text is None:
                continue
            undo.append((key, _saved(key)))
            if os.path.islink(key):  # a symlink this patch deleted and then added back as a file
                os.unlink(key)
            root = ws.root_of(key)
            parent = os.path.dirname(key)
            if root is not None and not os.path.isdir(parent):
                make_dirs_beneath(root, parent)
            atomic_write(key, text.encode("utf-8", "surrogatepass"), root=root)
        for key, text in plan.state.items():
            if text is None and os.path.lexists(key):
                undo.append((key, _saved(key)))
                _unlink(ws, key)
    except (OSError, AgentToolsError) as exc:
        for key, saved in reversed(undo):
            with contextlib.suppress(OSError, AgentToolsError):
                _restore(ws, key, saved)
        raise PatchError(f"Failed to write file {key}: {exc}", path=key) from None


def _saved(key: str) -> bytes | str | None:
    if os.path.islink(key):
        return os.readlink(key)
    try:
        with open(key, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _restore(ws: Workspace, key: str, saved: bytes | str | None) -> None:
    if saved is None:
        with contextlib.suppress(FileNotFoundError):
            _unlink(ws, key)
    elif isinstance(saved, str):
        with contextlib.suppress(FileNotFoundError):
            _unlink(ws, key)
        os.symlink(saved, key)
    else:
        if os.path.islink(key):
            _unlink(ws, key)
        atomic_write(key, saved, root=ws.root_of(key))


def _unlink(ws: Workspace, key: str) -> None:
    directory, name = os.path.split(key)
    dir_fd = open_dir(directory, root=ws.root_of(directory))
    try:
        os.unlink(name if dir_fd is not None else key, dir_fd=dir_fd)
    except FileNotFoundError:
        raise NotFoundError(path=key) from None
    finally:
        if dir_fd is not None:
            os.close(dir_fd)
