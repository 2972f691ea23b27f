"""How the content toolset answers: mcp-guide's Result envelope, and documents as plain text or MIME multipart."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import attrs

from agenttools.content import Document

__all__ = ["BOUNDARY", "Result", "format_documents"]

BOUNDARY = "guide-boundary"
_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".html": "text/html",
          ".htm": "text/html", ".json": "application/json", ".yaml": "application/yaml",
          ".yml": "application/yaml", ".xml": "application/xml", ".csv": "text/csv"}


def _content_type(basename: str) -> str:
    return _TYPES.get(os.path.splitext(basename)[1].lower(), "text/plain")


def format_documents(documents: Sequence[tuple[Document, str]]) -> str:
    """One document: its text as-is. Several: the ``guide-boundary`` MIME block (LF, UTF-8 Content-Length)."""
    if len(documents) == 1:
        return documents[0][1]
    parts = [f'Content-Type: multipart/mixed; boundary="{BOUNDARY}"\n\n']
    for document, text in documents:
        parts.append(f"--{BOUNDARY}\nContent-Type: {_content_type(document.basename)}\n"
                     f"Content-Location: guide://category/{document.category}/{document.path}\n"
                     f"Content-Length: {len(text.encode('utf-8'))}\n\n{text}\n\n")
    parts.append(f"--{BOUNDARY}--")
    return "".join(parts)


@attrs.frozen(kw_only=True)
class Result:
    """mcp-guide's Result envelope; :meth:`to_json_str` is exactly what its tools answer."""

    success: bool
    """Whether the call succeeded."""
    value: Any = None
    """The content (success)."""
    error: str | None = None
    """The error message (failure)."""
    error_type: str | None = None
    """not_found, no_matches, invalid_pattern, no_session, io_error, validation_error, unknown."""
    exception: BaseException | None = attrs.field(default=None, repr=False)
    """The exception behind an ``unknown`` failure."""
    message: str | None = None
    """An informational message."""
    instruction: str | None = None
    """Guidance for the agent."""
    error_data: Any = None
    """Structured details (validation errors)."""

    @classmethod
    def ok(cls, value: Any, message: str | None = None, instruction: str | None = None) -> Result:
        """A success."""
        return cls(success=True, value=value, message=message, instruction=instruction)

    @classmethod
    def failure(cls, error: str, error_type: str = "unknown", exception: BaseException | None = None,
                message: str | None = None, instruction: str | None = None, error_data: Any = None) -> Result:
        """A failure."""
        return cls(success=False, error=error, error_type=error_type, exception=exception, message=message,
                   instruction=instruction, error_data=error_data)

    def to_json(self) -> dict[str, Any]:
        """The keys in upstream's order, optional ones only when set."""
        if self.success:
            out: dict[str, Any] = {"success": True}
            if self.value is not None:
                out["value"] = self.value
        else:
            out = {"success": False, "error": self.error, "error_type": self.error_type}
            if self.error_data:
                out["error_data"] = self.error_data
            if self.exception is not None:
                out["exception_type"] = type(self.exception).__name__
                out["exception_message"] = str(self.exception)
        if self.message:
            out["message"] = self.message
        if self.instruction:
            out["instruction"] = self.instruction
        return out

    def to_json_str(self) -> str:
        """``json.dumps(self.to_json())`` (ASCII-escaped, ``", "``/``": "`` separators)."""
        return json.dumps(self.to_json())
