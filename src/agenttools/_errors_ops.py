"""The errors of edits, processes and message channels; :mod:`agenttools.errors` is their public home.

Kept apart so each module stays short; every class here is re-exported by :mod:`agenttools.errors` and reports
it as its module.
"""

from __future__ import annotations

from agenttools.errors import AgentToolsError

__all__ = [
    "ChannelNotFoundError",
    "EditError",
    "MatchCountError",
    "NoChangeError",
    "NoMatchError",
    "ProcessLimitError",
    "SendError",
    "ToolTimeoutError",
    "UnknownProcessError",
]


class EditError(AgentToolsError, ValueError):
    """An edit could not be applied as asked; the file is unchanged.

    Attributes:
        path: The file concerned.
    """

    code = "edit_failed"

    def __init__(self, message: str, *, path: str) -> None:
        self.path = path
        super().__init__(message)


class NoMatchError(EditError):
    """The text to replace does not occur in the file.

    Attributes:
        path: The file concerned.
    """

    code = "no_match"

    def __init__(self, *, path: str) -> None:
        super().__init__(f"the text to replace was not found in {path}", path=path)


class MatchCountError(EditError):
    """The text to replace occurs a different number of times than expected.

    Attributes:
        path: The file concerned.
        expected: How many occurrences the caller expected.
        found: How many there are.
        lines: The 1-based line number where each occurrence starts.
    """

    code = "match_count"

    def __init__(self, *, path: str, expected: int, found: int, lines: tuple[int, ...] = ()) -> None:
        self.expected = expected
        self.found = found
        self.lines = lines
        where = f" (at lines {', '.join(map(str, lines))})" if lines else ""
        super().__init__(f"expected {expected} occurrence(s) in {path} but found {found}{where}", path=path)


class NoChangeError(EditError):
    """The edit would leave the file exactly as it is (nothing was written).

    Attributes:
        path: The file concerned.
    """

    code = "no_change"

    def __init__(self, *, path: str) -> None:
        super().__init__("edit made no changes", path=path)


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
