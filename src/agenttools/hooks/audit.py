"""One JSON line per call: who asked for what, how it ended, how long it took."""

from __future__ import annotations

import datetime
import json
import math
import os
import stat
import threading
import time
from collections.abc import Iterable
from typing import IO, Any

from agenttools.errors import ConfigError
from agenttools.output import ToolOutput, error_code
from agenttools.registry import logger
from agenttools.tool import ToolCall

__all__ = ["AuditLog"]

REDACTED = "[redacted]"


class AuditLog:
    """Write one JSON object per line and per call to a file or a writable stream.

    Each line holds ``time`` (when the call arrived, ISO 8601 UTC, milliseconds), ``tool``, ``call_id``,
    ``arguments`` (the value of every key named in ``redact``, at any depth, replaced by ``"[redacted]"``),
    ``is_error``, ``error`` (the error code, such as ``invalid_arguments``, ``not_found`` or ``denied``; only on
    failures), ``duration_ms`` and ``output_chars`` (the length of the text the model sees). Every call is logged,
    including those a hook answered and those that failed validation: give the log first among the hooks to time
    the others too.

    A line is written whole and flushed at once, under a lock, so lines never interleave between the threads,
    tasks or MCP sessions that share the log; a file is opened once, for appending (created ``0600`` when new).
    A file that cannot be opened fails here; a write that fails later is logged on the ``agenttools`` logger and
    the call goes on.

    Args:
        target: A path, or an object with ``write`` (and ``flush``, if it has one), such as ``sys.stderr``.
        redact: Argument names whose values never reach the log.

    Raises:
        ConfigError: The file cannot be opened for appending or is not a regular file; ``redact`` is not a list of
            names; ``target`` is neither.
    """

    def __init__(self, target: str | os.PathLike[str] | IO[str], redact: Iterable[str] = ()) -> None:
        names = [redact] if isinstance(redact, str) else list(redact)
        if not all(isinstance(name, str) for name in names):
            raise ConfigError(f"AuditLog: redact must be a list of argument names, got {redact!r}")
        self._redact = frozenset(names)
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._stream: IO[str] | None = None
        if isinstance(target, str | os.PathLike):
            path = os.fspath(target)
            try:  # O_NONBLOCK: a FIFO planted there cannot hang the open
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NONBLOCK, 0o600)
            except OSError as exc:
                raise ConfigError(f"AuditLog: cannot open {path} for appending: {exc.strerror or exc}") from None
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise ConfigError(f"AuditLog: {path} is not a regular file")
            os.set_blocking(fd, True)
            self._fd = fd
            self.path: str | None = path
            """The file written, or None for a stream."""
        elif callable(getattr(target, "write", None)):
            self._stream = target
            self.path = None
        else:
            raise ConfigError(f"AuditLog: target must be a path or a writable object, got {type(target).__name__}")

    def __repr__(self) -> str:
        return f"AuditLog({self.path or self._stream!r})"

    def record(self, call: ToolCall, output: ToolOutput) -> dict[str, Any]:
        """The log's object for one call."""
        elapsed = time.monotonic() - call.started if call.started else 0.0
        arrived = datetime.datetime.now(datetime.UTC) - datetime.timedelta(seconds=elapsed)
        entry: dict[str, Any] = {
            "time": arrived.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "tool": call.name,
            "call_id": call.call_id,
            "arguments": self._redacted(call.arguments),
            "is_error": output.is_error,
        }
        if output.is_error:
            entry["error"] = error_code(output)
        entry["duration_ms"] = round(elapsed * 1000, 3)
        entry["output_chars"] = len(output.text)
        return entry

    def _redacted(self, value: Any) -> Any:
        if not self._redact:
            return value
        if isinstance(value, dict):
            return {key: REDACTED if key in self._redact else self._redacted(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._redacted(item) for item in value]
        return value

    def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        """Write the call's line; the output goes on unchanged."""
        entry = self.record(call, output)
        try:
            line = json.dumps(entry, ensure_ascii=False, allow_nan=False, default=str)
        except ValueError:  # NaN or Infinity (an SDK's json.loads reads them): strict JSON has no such numbers
            line = json.dumps(_finite(entry), ensure_ascii=False, allow_nan=False, default=str)
        if not line.isascii():  # a lone surrogate: its JSON escape, which a strict UTF-8 stream can write too
            line = line.encode("utf-8", "backslashreplace").decode("utf-8")
        self._write(line + "\n")
        return output

    async def aafter(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        """As :meth:`after` (one short write: it does not leave the event loop)."""
        return self.after(call, output)

    def _write(self, line: str) -> None:
        try:
            with self._lock:
                if self._fd is not None:
                    data = memoryview(line.encode("utf-8"))
                    while data:
                        data = data[os.write(self._fd, data):]
                elif self._stream is not None:
                    self._stream.write(line)
                    flush = getattr(self._stream, "flush", None)
                    if callable(flush):
                        flush()
        except (OSError, ValueError) as exc:  # a full disk, a closed stream: the call is not failed for it
            logger().warning("audit log write failed: %s", exc)

    def close(self) -> None:
        """Close the file (a stream is the caller's to close). Later calls are no longer logged."""
        with self._lock:
            fd, self._fd = self._fd, None
            self._stream = None
        if fd is not None:
            os.close(fd)


def _finite(value: Any) -> Any:
    """``value`` with NaN and the infinities as the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
