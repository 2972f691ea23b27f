"""The search family: glob for files, grep for lines. gitignore-aware, binary-safe, bounded in time.

``grep`` runs on ripgrep when the binary is available (the ``ripgrep`` wheel's ``rg`` next to the interpreter,
then ``PATH``) and otherwise on a pure-Python backend that gives the same results: files in path order, lines in
ascending order. ``AGENTTOOLS_SEARCH_BACKEND=auto|rg|python`` (or ``backend=``) chooses.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Literal

import attrs
import regex

from agenttools._display import MarkdownRepr
from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._ignore import IgnoreRules, find_ignore_base, walk_files
from agenttools.errors import PatternError, ToolTimeoutError
from agenttools.workspace import Workspace

__all__ = ["GlobMatch", "GlobResult", "GrepMatch", "GrepResult", "compile_pattern", "glob_files", "grep"]

Backend = Literal["auto", "rg", "python"]
DEFAULT_GREP_TIMEOUT = 60.0
_REGEX_FLAGS = regex.MULTILINE | regex.V0


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


MAX_REPEAT_EXPANSION = 100_000
"""Most items a pattern's counted repeats may multiply out to: ``regex`` unrolls ``x{n}`` and ``x{n,}`` into n
copies when it compiles (about 280 bytes each, with the GIL held), so ``a{10000000}`` or ``(?:(?:a{1000}){1000}){1000}``
took gigabytes and killed the process."""

_COUNTED = regex.compile(r"\{\s*([0-9]*)\s*(?:,\s*[0-9]*\s*)?\}")
_ESCAPE_WITH_BRACES = frozenset("pPNxuUgk")


_VERBOSE = regex.compile(r"\(\?[a-zA-Z0-9-]*x")


def _repeat_expansion(pattern: str) -> int:
    """An upper bound on the items ``regex`` makes of a pattern: each counted repeat multiplies what it repeats.

    A scan, not a parser: anything it cannot read counts as one item or as a group, which can only raise the bound.
    A pattern that may turn on verbose mode is scanned both ways and the larger count kept.
    """
    plain = _scan_repeats(pattern, verbose=False)
    return max(plain, _scan_repeats(pattern, verbose=True)) if _VERBOSE.search(pattern) else plain


def _scan_repeats(pattern: str, *, verbose: bool) -> int:
    stack = [[0, 0]]  # per open group: [items so far, items of the last atom]
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        frame = stack[-1]
        if verbose and ch.isspace():
            i += 1
            continue
        if verbose and ch == "#":
            close = pattern.find("\n", i)
            i = n if close == -1 else close + 1
            continue
        if ch == "\\":
            i += 2
            if i < n and pattern[i - 1] in _ESCAPE_WITH_BRACES and pattern[i] in "{<":
                close = pattern.find("}" if pattern[i] == "{" else ">", i)
                i = n if close == -1 else close + 1
            frame[0] += 1
            frame[1] = 1
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            frame[0] += 1
            frame[1] = 1
            continue
        if ch == "(":
            stack.append([0, 0])
        elif ch == ")" and len(stack) > 1:
            size = max(stack.pop()[0], 1)
            stack[-1][0] += size
            stack[-1][1] = size
        elif ch == "{" and (counted := _COUNTED.match(pattern, i)) is not None:
            times = int(counted.group(1) or 0)
            frame[0] = min(frame[0] + frame[1] * max(times - 1, 0), MAX_REPEAT_EXPANSION + 1)
            frame[1] = min(frame[1] * times, MAX_REPEAT_EXPANSION + 1)
            i = counted.end()
            continue
        else:
            frame[0] += 1
            frame[1] = 1
        i += 1
    while len(stack) > 1:  # unclosed groups: regex refuses them, count them anyway
        size = stack.pop()[0]
        stack[-1][0] += size
    return stack[0][0]


def compile_pattern(pattern: str, *, ignore_case: bool = True) -> regex.Pattern[str]:
    """Compile a grep pattern (Python ``regex`` syntax, close to ripgrep's and JavaScript's).

    Raises:
        PatternError: The pattern does not compile, or its counted repeats multiply out to more than
            :data:`MAX_REPEAT_EXPANSION` items (or the pattern's own length, when that is longer: long literal
            text costs what it says, only repeats multiply).
    """
    if _repeat_expansion(pattern) > max(MAX_REPEAT_EXPANSION, len(pattern)):  # repeats, not long literal text
        raise PatternError(pattern=pattern, kind="regex",
                           reason=f"its counted repeats multiply out to more than {MAX_REPEAT_EXPANSION} items")
    try:
        return regex.compile(pattern, _REGEX_FLAGS | (regex.IGNORECASE if ignore_case else 0))
    except (regex.error, ValueError, OverflowError) as exc:
        raise PatternError(pattern=pattern, kind="regex", reason=str(exc)) from None


def _include_matcher(include: str | None, case_sensitive: bool = True) -> regex.Pattern[str] | None:
    if not include:
        return None
    anchored = include if "/" in include.rstrip("/") else "**/" + include
    try:
        compiled = compile_glob(anchored.lstrip("/"), case_sensitive=case_sensitive)
    except GlobSyntaxError as exc:
        raise PatternError(pattern=include, kind="glob", reason=str(exc)) from None
    return compiled  # type: ignore[return-value]


def _rel_to_base(root: Path, rules: IgnoreRules) -> str:
    """``root`` relative to the ignore base, ``/``-separated (``""`` for the base itself)."""
    rel = os.path.relpath(root, rules.base).replace(os.sep, "/")
    return "" if rel == "." else rel


def _search_root(ws: Workspace, path: str | os.PathLike[str]) -> Path:
    return ws.resolve(path, expect="dir")


def glob_files(
    ws: Workspace,
    pattern: str,
    *,
    path: str | os.PathLike[str] = ".",
    case_sensitive: bool = False,
    respect_gitignore: bool = True,
    skip_dirs: frozenset[str] = frozenset({".git", "node_modules"}),
    backend: Backend | None = None,
) -> GlobResult:
    """Find files whose path relative to ``path`` matches a doublestar glob (dotfiles included).

    ``*.py`` matches top-level files only; ``**/*.py`` matches at any depth. Symlinks are not followed.

    Raises:
        PatternError: The glob is malformed.
        NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError: The search directory.
    """
    root = _search_root(ws, path)
    try:
        matcher = compile_glob(pattern, case_sensitive=case_sensitive)
    except GlobSyntaxError as exc:
        raise PatternError(pattern=pattern, kind="glob", reason=str(exc)) from None
    rules = IgnoreRules(find_ignore_base(str(root), stop=str(ws.root))) if respect_gitignore else None
    rel_root = "" if rules is None else _rel_to_base(root, rules)
    if rules is not None and rules.ancestors_ignored(rel_root):
        rules = None  # searching inside an ignored directory on purpose: show what is there
    matches: list[GlobMatch] = []
    ignored = 0
    base = str(root).rstrip(os.sep) + os.sep
    prefix = rel_root + "/" if rel_root else ""
    from agenttools import _rg

    rg = _rg.find_rg() if _backend(backend) != "python" else None
    if rg is not None:
        # one ripgrep walk lists every file; matching, the ignore rules and stat run here while it walks
        for rel in _rg.iter_files(rg, root, skip_dirs, _rg.name_filter(pattern, case_sensitive=case_sensitive),
                                  time.monotonic() + DEFAULT_GREP_TIMEOUT):
            if not matcher.match(rel):
                continue
            if rules is not None and rules.file_ignored(prefix + rel):
                ignored += 1
                continue
            try:
                matches.append(GlobMatch(path=base + rel, rel=rel, mtime=os.lstat(base + rel).st_mtime))
            except OSError:
                continue
    else:
        for rel, entry, is_ignored in walk_files(str(root), rules=rules, skip_dirs=skip_dirs, on_ignored=True):
            if not matcher.match(rel):
                continue
            if is_ignored:
                ignored += 1
                continue
            try:
                mtime = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            matches.append(GlobMatch(path=entry.path, rel=rel, mtime=mtime))
    matches.sort(key=lambda m: path_key(m.rel))
    return GlobResult(root=root, matches=tuple(matches), ignored_count=ignored)


def path_key(rel: str) -> str:
    """Sort key putting ``/``-separated paths in component order (``a/b`` before ``a-c``): NUL sorts first."""
    return rel.replace("/", "\x00")


def _in_path_order(found: list[GrepMatch]) -> list[GrepMatch]:
    """Files in path order, lines ascending: the files are sorted, not the (many more) lines."""
    by_file: dict[str, list[GrepMatch]] = {}
    for match in found:
        lines = by_file.get(match.rel)
        if lines is None:
            by_file[match.rel] = [match]
        else:
            lines.append(match)
    ordered: list[GrepMatch] = []
    for rel in sorted(by_file, key=path_key):
        ordered.extend(by_file[rel])  # both backends read a file front to back: its lines are in order
    return ordered


def _backend(requested: Backend | None) -> Backend:
    choice = requested or os.environ.get("AGENTTOOLS_SEARCH_BACKEND", "auto").strip().lower() or "auto"
    if choice not in ("auto", "rg", "python"):
        choice = "auto"
    return choice  # type: ignore[return-value]


def grep(
    ws: Workspace,
    pattern: str,
    *,
    path: str | os.PathLike[str] = ".",
    include: str | None = None,
    ignore_case: bool = True,
    respect_gitignore: bool = True,
    backend: Backend | None = None,
    max_matches: int | None = None,
    timeout: float = DEFAULT_GREP_TIMEOUT,
) -> GrepResult:
    """Find the lines matching a regular expression in the files below ``path``.

    Args:
        ws: The workspace the search directory must be inside.
        pattern: The regular expression (matched within single lines).
        path: The directory to search (relative paths resolve against the session cwd).
        include: A glob filtering files: without ``/`` it matches file names at any depth (``*.py``,
            ``*.{ts,tsx}``); with ``/`` it matches paths relative to ``path`` (``src/**``).
        ignore_case: Case-insensitive matching (Unicode-aware).
        respect_gitignore: Skip files ignored by .gitignore rules (and ``.git`` itself, always).
        backend: ``rg``, ``python`` or ``auto`` (default: the ``AGENTTOOLS_SEARCH_BACKEND`` environment variable,
            else ``auto``: ripgrep when found).
        max_matches: Keep at most this many lines (``truncated`` tells).
        timeout: Seconds before the search gives up with :class:`~agenttools.ToolTimeoutError`.

    Raises:
        PatternError: The regex or the include glob does not compile.
        NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError: The search directory.
        ToolTimeoutError: The search took longer than ``timeout``.
    """
    from agenttools import _rg

    root = _search_root(ws, path)
    compiled = compile_pattern(pattern, ignore_case=ignore_case)
    include_re = _include_matcher(include)
    rules = IgnoreRules(find_ignore_base(str(root), stop=str(ws.root))) if respect_gitignore else None
    if rules is not None and rules.ancestors_ignored(_rel_to_base(root, rules)):
        rules = None
    deadline = time.monotonic() + timeout
    choice = _backend(backend)
    found: list[GrepMatch] | None = None
    used: Literal["rg", "python"] = "python"
    limit = None if max_matches is None else max_matches + 1  # one more, to know whether the list was cut
    try:
        if choice != "python":
            found = _rg.grep(root, pattern, include, include_re, rules, ignore_case=ignore_case,
                             deadline=deadline, required=choice == "rg", limit=limit)
            used = "rg"
        if found is None:
            from agenttools._pygrep import grep_python

            found = grep_python(root, compiled, include_re, rules, deadline, limit)
            used = "python"
    except TimeoutError:
        raise ToolTimeoutError(f"search timed out after {timeout:g} seconds", seconds=timeout) from None
    found = _in_path_order(found)
    truncated = max_matches is not None and len(found) > max_matches
    return GrepResult(root=root, pattern=pattern, matches=tuple(found[:max_matches] if truncated else found),
                      backend=used, truncated=truncated)
