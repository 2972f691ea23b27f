"""The exceptions agenttools raises, all under one root.

Families raise these; the registry turns them into the text a model sees, in one place, in each toolset's own
words. Every class has a stable ``code`` (a short snake_case string that never changes once released) and keeps
the data the message was made from (``path``, ``limit``, ...), so a renderer never has to parse a message.
Where a builtin exception means the same thing it is mixed in, so ``except FileNotFoundError`` keeps working.

The tree::

    AgentToolsError                      error (the code of each class follows its name)
    ├── ToolDefinitionError (TypeError)  definition      a tool or schema is defined wrongly (raised, never rendered)
    ├── ConfigError (ValueError)         config          bad toolset/Workspace options, unknown toolset
    ├── ToolFailure                      tool_failure    a tool failed; its text is exactly what the model sees
    ├── UnknownToolError (LookupError)   unknown_tool    no tool of that name in the registry
    ├── ToolInputError (ValueError)      invalid_input   the arguments were rejected
    │   ├── ArgumentsError               invalid_arguments   not JSON / not an object / schema violations
    │   ├── PathError                    invalid_path    empty path, NUL byte, symlink loop
    │   └── PatternError                 invalid_pattern a regular expression or glob that does not compile
    ├── AccessDeniedError (PermissionError)  access_denied   path is outside the workspace or denied
    │   ├── OutsideWorkspaceError        outside_root    resolves outside every allowed directory
    │   ├── DeniedPathError              denied_path     matches a deny pattern
    │   │   └── ProtectedPathError       protected_path  a write inside git metadata (.git)
    │   └── HardLinkError                hard_link       a write to a file with more than one hard link
    ├── NotFoundError (FileNotFoundError)    not_found
    ├── IsDirectoryError (IsADirectoryError) is_directory
    ├── NotDirectoryError (NotADirectoryError) not_directory
    ├── SpecialFileError (OSError)       special_file    FIFO, socket or device: never opened
    ├── FileTooLargeError (OSError)      file_too_large
    ├── EncodingError (UnicodeError)     encoding        not text, or text the file's encoding cannot hold
    ├── AlreadyExistsError (FileExistsError) already_exists  refusing to create over an existing file
    ├── EditError (ValueError)           edit_failed     an edit could not be applied as asked
    │   ├── NoMatchError                 no_match        the text to replace is not in the file
    │   ├── MatchCountError              match_count     it occurs a different number of times than expected
    │   ├── NoChangeError                no_change       the edit would leave the file as it is
    │   ├── OverlappingEditsError        overlapping_edits  two edits of one multi-edit touch the same text
    │   └── StaleFileError               stale_file      the file changed since the version the edit was based on
    ├── ToolTimeoutError (TimeoutError)  timeout
    ├── GitError                         git             git cannot run safely here, or failed
    ├── UnknownProcessError (LookupError) unknown_process  no background process with that id
    ├── ProcessLimitError                process_limit   too many background processes held
    ├── SandboxError (OSError)           sandbox_failed  the sandbox a command runs in could not start
    ├── ChannelNotFoundError (LookupError) channel_not_found  no message channel with that id
    └── SendError                        send_failed     a channel failed to deliver a message

One warning, not an error: ``SandboxWarning`` (a ``UserWarning``), when ``sandbox="auto"`` runs commands
unsandboxed because no sandbox can run here.
"""

from __future__ import annotations

import errno as _errno
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from agenttools.schema._validate import ValidationIssue

__all__ = [
    "AccessDeniedError",
    "AgentToolsError",
    "AlreadyExistsError",
    "ArgumentsError",
    "ChannelNotFoundError",
    "ConfigError",
    "DeniedPathError",
    "EditError",
    "EncodingError",
    "FileTooLargeError",
    "GitError",
    "HardLinkError",
    "IsDirectoryError",
    "MatchCountError",
    "NoChangeError",
    "NoMatchError",
    "NotDirectoryError",
    "NotFoundError",
    "OutsideWorkspaceError",
    "OverlappingEditsError",
    "PathError",
    "PatternError",
    "ProcessLimitError",
    "ProtectedPathError",
    "SandboxError",
    "SandboxWarning",
    "SendError",
    "SpecialFileError",
    "StaleFileError",
    "ToolDefinitionError",
    "ToolFailure",
    "ToolInputError",
    "ToolTimeoutError",
    "UnknownProcessError",
    "UnknownToolError",
    "ValidationIssue",
    "code_of",
]


class AgentToolsError(Exception):
    """Root of every exception agenttools raises on purpose.

    Attributes:
        code: Stable machine-readable name of the error kind.
        message: The human- and model-readable message (also ``str(error)``).
    """

    code: ClassVar[str] = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle by state, not by constructor arguments (the constructors take keyword-only data).

        So errors cross process boundaries (multiprocessing, concurrent.futures) intact.
        """
        state = dict(self.__dict__)
        if isinstance(self, OSError):
            state.update(errno=self.errno, strerror=self.strerror, filename=self.filename)
        return _rebuild, (type(self), self.args), state


def _rebuild(cls: type[AgentToolsError], args: tuple[Any, ...]) -> AgentToolsError:
    error = cls.__new__(cls)
    error.args = args
    return error


class ToolDefinitionError(AgentToolsError, TypeError):
    """A tool, its signature or its schema is defined wrongly.

    Raised at registration (a programmer error), listing every problem found at once.

    Attributes:
        problems: Each problem on its own.
    """

    code = "definition"

    def __init__(self, what: str, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(f"cannot define {what}:\n  " + "\n  ".join(self.problems))


class ConfigError(AgentToolsError, ValueError):
    """Options given to a toolset or a Workspace are invalid (unknown toolset, missing root, bad size...)."""

    code = "config"


class ToolFailure(AgentToolsError):  # noqa: N818 - a failure of the tool, not an error of ours
    """A tool failed, and ``text`` is exactly what the model must see.

    The one way for any tool, ours or yours, to fail with exact wording: raise it from a tool function and the
    registry answers ``ToolOutput(text=text, is_error=True)`` without passing it through any error renderer.

    Args:
        text: The exact text for the model.
        code: A stable snake_case name for the kind of failure, for callers that branch on it.
        data: What ``ToolOutput.data`` carries (default: the exception itself).

    Attributes:
        text: The exact text for the model.
        code: The failure's kind (``tool_failure`` unless given).
        data: The value for ``ToolOutput.data``, or None.
    """

    code = "tool_failure"

    def __init__(self, text: str, *, code: str | None = None, data: object = None) -> None:
        super().__init__(text)
        self.text = text
        self.data = data
        if code is not None:
            self.code = code  # type: ignore[misc]


class UnknownToolError(AgentToolsError, LookupError):
    """No tool of that name is registered.

    Attributes:
        name: The name that was asked for.
        available: The names that exist.
    """

    code = "unknown_tool"

    def __init__(self, name: str, available: Sequence[str]) -> None:
        self.name = name
        self.available = tuple(available)
        listing = ", ".join(self.available) or "none"
        super().__init__(f"unknown tool {name!r}; available tools: {listing}")


class ToolInputError(AgentToolsError, ValueError):
    """The arguments given to a tool were rejected before it did anything."""

    code = "invalid_input"


class ArgumentsError(ToolInputError):
    """Arguments are not JSON, not an object, or violate the tool's schema.

    Attributes:
        tool: The tool's name.
        issues: Every violation found, in the order a validator meets them (the first is what Ajv reports).
    """

    code = "invalid_arguments"

    def __init__(self, tool: str, issues: Sequence[ValidationIssue]) -> None:
        self.tool = tool
        self.issues = tuple(issues)
        detail = "; ".join(issue.describe() for issue in self.issues)
        super().__init__(f"invalid arguments for {tool}: {detail}")


class PathError(ToolInputError):
    """A path argument cannot be a path: empty, containing a NUL byte, or caught in a symlink loop.

    Attributes:
        path: The path as given.
    """

    code = "invalid_path"

    def __init__(self, message: str, *, path: str) -> None:
        self.path = path
        super().__init__(message)


class PatternError(ToolInputError):
    """A regular expression or glob pattern is malformed.

    Attributes:
        pattern: The pattern as given.
        kind: ``regex`` or ``glob``.
        reason: The compiler's explanation.
    """

    code = "invalid_pattern"

    def __init__(self, *, pattern: str, kind: str, reason: str) -> None:
        self.pattern = pattern
        self.kind = kind
        self.reason = reason
        super().__init__(f"invalid {kind} {pattern!r}: {reason}")


class _OSErrorMixin(AgentToolsError):  # noqa: N818 - a mixin, never raised on its own
    """Fills ``errno``/``filename`` of the builtin OSError it is mixed with, keeping our message as ``str()``."""

    _errno: ClassVar[int | None] = None
    _template: ClassVar[str] = "{path}: error"
    errno: int | None
    strerror: str | None
    filename: Any

    def __init__(self, message: str | None = None, *, path: str) -> None:
        super().__init__(message or self._template.format(path=path))
        self.path = path
        self.filename = path
        if self._errno is not None:
            self.errno = self._errno
            self.strerror = message


class AccessDeniedError(_OSErrorMixin, PermissionError):
    """A path may not be used: outside the workspace or matched by a deny rule.

    Attributes:
        path: The resolved absolute path.
    """

    code = "access_denied"
    _errno = _errno.EACCES


class OutsideWorkspaceError(AccessDeniedError):
    """A path resolves (symlinks followed) outside every allowed directory.

    Attributes:
        path: The resolved absolute path.
        given: The path as the caller gave it.
        roots: The allowed directories.
    """

    code = "outside_root"

    def __init__(self, *, path: str, given: str, roots: Sequence[str]) -> None:
        self.given = given
        self.roots = tuple(roots)
        where = ", ".join(self.roots)
        super().__init__(f"path {path!r} is outside the allowed directories ({where})", path=path)


class HardLinkError(AccessDeniedError):
    """A write to a file with more than one hard link: its data may be shared with a file outside the workspace.

    Attributes:
        path: The resolved absolute path.
        links: How many hard links the file has.
    """

    code = "hard_link"

    def __init__(self, *, path: str, links: int) -> None:
        self.links = links
        super().__init__(f"refusing to write {path!r}: it has {links} hard links, and another may be outside the "
                         "workspace", path=path)


class DeniedPathError(AccessDeniedError):
    """A path matches one of the workspace's deny patterns.

    Attributes:
        path: The resolved absolute path.
        pattern: The deny pattern that matched.
    """

    code = "denied_path"

    def __init__(self, *, path: str, pattern: str) -> None:
        self.pattern = pattern
        super().__init__(f"path {path!r} matches deny pattern {pattern!r}", path=path)


class ProtectedPathError(DeniedPathError):
    """A write, edit, creation or deletion inside git metadata: a ``.git`` entry or a git directory.

    Reading there stays allowed; changing it could plant hooks or rewrite the repository's configuration, which
    git would then run or obey.

    Attributes:
        path: The resolved absolute path.
        pattern: Always ``.git``.
        directory: The git metadata the path is in (the ``.git`` entry or git directory itself).
    """

    code = "protected_path"

    def __init__(self, *, path: str, directory: str) -> None:
        self.pattern = ".git"
        self.directory = directory
        AccessDeniedError.__init__(self, f"refusing to change {path!r}: it is inside git metadata ({directory}), "
                                         "which file tools may read but not change", path=path)


class NotFoundError(_OSErrorMixin, FileNotFoundError):
    """A file or directory does not exist.

    Attributes:
        path: The resolved absolute path.
    """

    code = "not_found"
    _errno = _errno.ENOENT
    _template = "{path} does not exist"


class IsDirectoryError(_OSErrorMixin, IsADirectoryError):
    """A file was expected but the path is a directory.

    Attributes:
        path: The resolved absolute path.
    """

    code = "is_directory"
    _errno = _errno.EISDIR
    _template = "{path} is a directory"


class NotDirectoryError(_OSErrorMixin, NotADirectoryError):
    """A directory was expected but the path is not one.

    Attributes:
        path: The resolved absolute path.
    """

    code = "not_directory"
    _errno = _errno.ENOTDIR
    _template = "{path} is not a directory"


class SpecialFileError(_OSErrorMixin, OSError):
    """The path is a FIFO, socket or device; agenttools never opens those (a FIFO would block forever).

    Attributes:
        path: The resolved absolute path.
        kind: ``fifo``, ``socket``, ``character device``, ``block device`` or ``special file``.
    """

    code = "special_file"

    def __init__(self, *, path: str, kind: str) -> None:
        self.kind = kind
        super().__init__(f"{path} is a {kind}, not a regular file", path=path)


class FileTooLargeError(_OSErrorMixin, OSError):
    """A file is larger than the limit for this operation.

    Attributes:
        path: The resolved absolute path.
        size: Its size in bytes.
        limit: The limit in bytes.
    """

    code = "file_too_large"
    _errno = _errno.EFBIG

    def __init__(self, *, path: str, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"file {path} is {size} bytes, exceeds maximum {limit} bytes", path=path)


class EncodingError(AgentToolsError, UnicodeError):
    """A file cannot be decoded without loss, or new text cannot be encoded in the file's encoding.

    The file is never changed when this is raised.

    Attributes:
        path: The file concerned.
        direction: ``decode`` (the file's bytes are not text in any encoding that fits) or ``encode`` (the new
            text cannot be written in the file's encoding).
    """

    code = "encoding"

    def __init__(self, message: str, *, path: str, direction: Literal["decode", "encode"] = "decode") -> None:
        self.path = path
        self.direction = direction
        super().__init__(message)


class AlreadyExistsError(_OSErrorMixin, FileExistsError):
    """Asked to create a file that already exists.

    Attributes:
        path: The resolved absolute path.
    """

    code = "already_exists"
    _errno = _errno.EEXIST
    _template = "{path} already exists"


class EditError(AgentToolsError, ValueError):
    """An edit could not be applied as asked; the file is unchanged.

    Attributes:
        path: The file concerned.
    """

    code = "edit_failed"

    def __init__(self, message: str, *, path: str) -> None:
        self.path = path
        super().__init__(message)


def _which(edit: int | None) -> str:
    """``edit 2: `` for the third edit of a multi-edit (0-based, as the list is indexed)."""
    return f"edit {edit}: " if edit is not None else ""


def _how(strategy: str | None) -> str:
    """`` (matching by indentation)`` for a tolerant strategy; nothing for an exact match."""
    return f" (matching by {strategy.replace('_', ' ')})" if strategy and strategy != "exact" else ""


class NoMatchError(EditError):
    """The text to replace does not occur in the file.

    Attributes:
        path: The file concerned.
        edit: For a multi-edit, the 0-based index of the edit that failed (else None).
    """

    code = "no_match"

    def __init__(self, *, path: str, edit: int | None = None) -> None:
        self.edit = edit
        super().__init__(f"{_which(edit)}the text to replace was not found in {path}", path=path)


class MatchCountError(EditError):
    """The text to replace occurs a different number of times than expected.

    Attributes:
        path: The file concerned.
        expected: How many occurrences the caller expected.
        found: How many there are.
        lines: The 1-based line number where each occurrence starts.
        edit: For a multi-edit, the 0-based index of the edit that failed (else None).
        strategy: The matching strategy that found them (``exact`` or a tolerant one).
    """

    code = "match_count"

    def __init__(self, *, path: str, expected: int, found: int, lines: tuple[int, ...] = (),
                 edit: int | None = None, strategy: str = "exact") -> None:
        self.expected = expected
        self.found = found
        self.lines = lines
        self.edit = edit
        self.strategy = strategy
        where = f" (at lines {', '.join(map(str, lines))})" if lines else ""
        super().__init__(f"{_which(edit)}expected {expected} occurrence(s) in {path} but found "
                         f"{found}{where}{_how(strategy)}", path=path)


class NoChangeError(EditError):
    """The edit would leave the file exactly as it is (nothing was written).

    Attributes:
        path: The file concerned.
    """

    code = "no_change"

    def __init__(self, *, path: str) -> None:
        super().__init__("edit made no changes", path=path)


class OverlappingEditsError(EditError):
    """Two edits of one multi-edit would change the same text (or one's text lies inside the other's).

    Every edit is located in the original file, so edits never see each other's results; ones that overlap
    cannot all be applied, and none is.

    Attributes:
        path: The file concerned.
        first: The 0-based index of the edit whose span comes first.
        second: The index of the edit that overlaps it.
        line: The 1-based line where the overlap starts.
    """

    code = "overlapping_edits"

    def __init__(self, *, path: str, first: int, second: int, line: int) -> None:
        self.first = first
        self.second = second
        self.line = line
        what = f"edit {first} overlaps itself" if first == second else f"edits {first} and {second} overlap"
        super().__init__(f"{what} at line {line} of {path}; no edit was applied", path=path)


class StaleFileError(EditError):
    """The file is no longer the version the edit or write was based on; nothing was written.

    Attributes:
        path: The file concerned.
        expected: The version token given (``sha256:<hex>`` or ``stat:<mtime_ns>:<size>``).
        actual: The file's version token now, in the same form, or None when the file no longer exists.
    """

    code = "stale_file"

    def __init__(self, *, path: str, expected: str, actual: str | None) -> None:
        self.expected = expected
        self.actual = actual
        now = "it no longer exists" if actual is None else f"it is now {actual}"
        super().__init__(f"{path} has changed since it was read (expected {expected}, {now}); read it again "
                         "and redo the edit", path=path)


class ToolTimeoutError(AgentToolsError, TimeoutError):
    """An operation ran past its time limit and was stopped.

    Attributes:
        seconds: The limit that was exceeded.
        partial: Whatever result was gathered before the limit (a family result), or None.
    """

    code = "timeout"

    def __init__(self, message: str, *, seconds: float, partial: object = None) -> None:
        self.seconds = seconds
        self.partial = partial
        super().__init__(message)


class GitError(AgentToolsError):
    """git cannot be run safely on this repository, or it failed.

    Raised when there is no repository, when its git data (object store, alternates, index entries, symlinks)
    leads outside the project, when git is missing or times out, or with git's own error message.
    """

    code = "git"


class UnknownProcessError(AgentToolsError, LookupError):
    """No background process has that id (never started, or already collected).

    Attributes:
        process_id: The id asked for.
    """

    code = "unknown_process"

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        super().__init__(f"process not found: {process_id}")


class ProcessLimitError(AgentToolsError):
    """Starting another background process would exceed the table's limit.

    Attributes:
        limit: The most processes the table holds at once.
    """

    code = "process_limit"

    def __init__(self, message: str, *, limit: int) -> None:
        self.limit = limit
        super().__init__(message)


class ChannelNotFoundError(AgentToolsError, LookupError):
    """No channel has that id.

    Attributes:
        channel_id: The id asked for.
    """

    code = "channel_not_found"

    def __init__(self, channel_id: str) -> None:
        self.channel_id = channel_id
        super().__init__(f"channel not found: {channel_id}")


class SendError(AgentToolsError):
    """The channel failed to deliver the message.

    Attributes:
        channel_id: The channel used.
    """

    code = "send_failed"

    def __init__(self, channel_id: str, reason: str) -> None:
        self.channel_id = channel_id
        super().__init__(f"failed to send message: {reason}")


class SandboxError(AgentToolsError, OSError):
    """The sandbox a command runs in could not be set up; the command did not run.

    An ``OSError`` too, so code that handles a program that cannot start handles this the same way.
    """

    code = "sandbox_failed"


class SandboxWarning(UserWarning):
    """``sandbox="auto"`` found no working sandbox here: commands run unsandboxed.

    The message says why, and how to fix it.
    """


def code_of(error: object) -> str:
    """The error code of what a failed call holds as its ``data`` (``not_found``, ``invalid_arguments``...).

    A toolset's exact-text failure (:class:`ToolFailure`, code ``tool_failure``) raised while handling one of our
    errors gives that error's code; anything without a code gives ``tool_error``.
    """
    code = getattr(error, "code", None)
    if code == "tool_failure" and isinstance(error, BaseException):
        cause = error.__cause__ or error.__context__
        code = getattr(cause, "code", None) or code
    return code if isinstance(code, str) and code else "tool_error"
