"""The gemini search tools: ``search_file_content`` (grep) and ``glob``, on the search family."""

from __future__ import annotations

import os
import time
from typing import Any

from agenttools import search
from agenttools.errors import AgentToolsError, PatternError, ToolFailure
from agenttools.search.jsregex import v8_syntax_error
from agenttools.toolsets._collate import locale_key
from agenttools.toolsets._node import node_error
from agenttools.toolsets.gemini.state import RECENT_SECONDS, State, in_git_repo, inside
from agenttools.toolsets.gemini.texts import invalid, js_regex_error

__all__ = ["glob", "search_file_content"]

MAX_LINE_CHARS = 2000  # as read_file: a longer matching line is cut, so a search's output stays bounded
GIT_BINARY_WINDOW = 8000  # git grep: a file is binary when a NUL byte lies in its first 8,000 bytes
_MAX_INDEX = 2**32 - 2  # the largest array index: a JavaScript object lists such keys first, in numeric order

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
            raise invalid(f"params/{name} must NOT have more than {MAX_PATTERN_CHARS} characters")


def _file_order(rel: str) -> tuple[int, int, bytes]:
    """Upstream's order of files: git grep's (whole paths, bytewise), then an object's keys (array indexes first).

    Upstream groups the lines in a plain object keyed by path; JavaScript lists keys that are array indexes
    (``2``, ``10``; not ``01``) first, in numeric order, and the rest in insertion order, which is git's.
    """
    if rel.isdigit() and rel.isascii() and (rel == "0" or rel[0] != "0") and int(rel) <= _MAX_INDEX:
        return 0, int(rel), b""
    return 1, 0, rel.encode("utf-8", "surrogateescape")


def search_file_content(state: State, args: dict[str, Any]) -> str:
    """``search_file_content``: matching lines grouped by file, in path order, up to the toolset's cap."""
    _check_length(args, "pattern", "include")
    pattern, given, include = args["pattern"], args.get("path"), args.get("include")
    refused = v8_syntax_error(pattern)  # upstream compiles it with new RegExp(pattern) first
    if refused is not None:
        raise invalid(js_regex_error(pattern, refused))
    try:
        search.compile_pattern(pattern)
    except PatternError as exc:  # JavaScript takes it, our engines do not: their reason, in V8's frame
        raise invalid(js_regex_error(pattern, exc.reason)) from None
    absolute = os.path.normpath(os.path.join(state.root, given or "."))
    outside = (f'Path validation failed: Attempted path "{given or "."}" resolves outside the allowed root '
               f'directory "{state.root}".')
    real = inside(state, absolute, outside, loop=invalid(f"Path does not exist: {absolute}"))
    try:
        os.stat(real)
    except FileNotFoundError as exc:
        raise invalid(f"Failed to access path stats for {absolute}: Error: {node_error(exc, 'stat', absolute)}") \
            from None
    except OSError:
        raise invalid(f"Path does not exist: {absolute}") from None
    if not os.path.isdir(real):
        raise invalid(f"Failed to access path stats for {absolute}: Error: Path is not a directory: {absolute}")
    try:
        result = search.grep(state.workspace, pattern, path=real, include=include or None,
                             respect_gitignore=in_git_repo(real), max_matches=state.max_matches,
                             include_syntax="git", binary_window=GIT_BINARY_WINDOW)
    except (AgentToolsError, OSError) as exc:
        raise ToolFailure(f"Error during grep search operation: {exc}") from None
    shown = given or "."
    where = f' (filter: "{include}")' if include else ""
    if not result.matches:
        return f'No matches found for pattern "{pattern}" in path "{shown}"{where}.'
    count = len(result.matches)
    term = "match" if count == 1 else "matches"
    parts = [f'Found {count} {term} for pattern "{pattern}" in path "{shown}"{where}:\n---\n']
    append, current, sep = parts.append, None, os.sep  # one pass over maybe 20,000 lines: locals, no helpers
    # files in upstream's order; sorted() is stable, so each file's lines stay ascending
    for match in sorted(result.matches, key=lambda m: _file_order(m.rel)):
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
    """``glob``: matching files as absolute paths, the last day's newest first, the rest in locale order."""
    _check_length(args, "pattern")
    pattern, given = args["pattern"], args.get("path")
    absolute = os.path.normpath(os.path.join(state.root, given or "."))
    real = inside(state, absolute,
                  f'Search path ("{absolute}") resolves outside the tool\'s root directory ("{state.root}").',
                  loop=invalid(f"Search path does not exist {absolute}"))
    if not os.path.exists(real):
        raise invalid(f"Search path does not exist {absolute}")
    if not os.path.isdir(real):
        raise invalid(f"Search path is not a directory: {absolute}")
    if not pattern.strip():
        raise invalid("The 'pattern' parameter cannot be empty.")
    respect = bool(args.get("respect_git_ignore", True)) and in_git_repo(real)
    try:
        result = search.glob_files(state.workspace, pattern, path=real,
                                   case_sensitive=bool(args.get("case_sensitive", False)), respect_gitignore=respect)
    except (AgentToolsError, OSError) as exc:
        raise ToolFailure(f"Error during glob search operation: {exc}") from None
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
