"""What the search family returns: files a glob found, lines a regex matched, and their order."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import attrs

from agenttools._display import MarkdownRepr

__all__ = ["GlobMatch", "GlobResult", "GrepMatch", "GrepResult", "path_key"]


@attrs.frozen(kw_only=True)
class GlobMatch:
    """A file a glob matched."""

    path: str
    """Absolute path (not resolved: symlinks are not followed during the walk)."""
    rel: str
    """Path relative to the search directory, ``/``-separated."""
    mtime: float
    """Modification time, seconds since the epoch."""


@attrs.frozen(kw_only=True)
class GlobResult(MarkdownRepr):
    """Files matching a glob, sorted by relative path."""

    root: Path
    """The search directory."""
    matches: tuple[GlobMatch, ...]
    """Matching files that are not ignored."""
    ignored_count: int
    """Matching files left out because .gitignore rules ignore them."""


@attrs.frozen(kw_only=True)
class GrepMatch:
    """One matching line."""

    path: str
    """Absolute path of the file (a string: building ``Path`` objects for 100k matches is measurable)."""
    rel: str
    """Path relative to the search directory, ``/``-separated."""
    line_number: int
    """1-based line number."""
    line: str
    """The line without its ``\\n`` (a ``\\r`` before it stays); undecodable bytes shown as U+FFFD."""


@attrs.frozen(kw_only=True)
class GrepResult(MarkdownRepr):
    """Matching lines, files in path order and lines ascending within a file."""

    root: Path
    """The search directory."""
    pattern: str
    """The regular expression searched for."""
    matches: tuple[GrepMatch, ...]
    """Every matching line (or the first ``max_matches``)."""
    backend: Literal["rg", "python"]
    """Which backend produced the result."""
    truncated: bool = False
    """Whether ``max_matches`` cut the list."""


def path_key(rel: str) -> str:
    """Sort key putting ``/``-separated paths in component order (``a/b`` before ``a-c``): NUL sorts first."""
    return rel.replace("/", "\x00")
