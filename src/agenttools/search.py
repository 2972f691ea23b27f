"""The search family: glob for files, grep for lines. gitignore-aware, binary-safe, bounded in time.

``grep`` runs on ripgrep when the binary is available (the ``ripgrep`` wheel's ``rg`` next to the interpreter,
then ``PATH``) and otherwise on a pure-Python backend that gives the same results: files in path order, lines in
ascending order. ``AGENTTOOLS_SEARCH_BACKEND=auto|rg|python`` (or ``backend=``) chooses.
"""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path
from typing import Literal

import attrs
import regex

from agenttools._display import MarkdownRepr
from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._ignore import ALWAYS_SKIPPED, IgnoreRules, find_ignore_base, walk_files
from agenttools._text import detect_bom
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


def compile_pattern(pattern: str, *, ignore_case: bool = True) -> regex.Pattern[str]:
    """Compile a grep pattern (Python ``regex`` syntax, close to ripgrep's and JavaScript's).

    Raises:
        PatternError: The pattern does not compile.
    """
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


def _decode_for_search(data: bytes) -> str | None:
    """The text to search, or None for a binary file (a NUL byte and no UTF-16/32 byte-order mark)."""
    found = detect_bom(data[:4])
    if found is not None:
        bom, encoding = found
        try:
            return data[len(bom):].decode(encoding)
        except UnicodeDecodeError:
            return None
    if b"\x00" in data:
        return None
    return data.decode("utf-8", errors="surrogateescape")


def display(line: str) -> str:
    """A line for display: bytes that were not UTF-8 become U+FFFD."""
    return line.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def _grep_text(compiled: regex.Pattern[str], text: str, deadline: float) -> list[tuple[int, str]]:
    """(line number, line) of every line with a match; one whole-text search, line numbers only for hits."""
    hits: list[tuple[int, str]] = []
    pos, line_number, counted_to = 0, 1, 0
    end = len(text)
    while pos <= end:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        match = compiled.search(text, pos, timeout=remaining, concurrent=True)
        if match is None or (match.start() == end and (end == 0 or text.endswith("\n"))):
            break  # no phantom line after a final newline (nor in an empty file), as ripgrep
        start = text.rfind("\n", 0, match.start()) + 1
        stop = text.find("\n", match.start())
        stop = end if stop == -1 else stop
        if match.end() > stop and compiled.search(text, start, stop, timeout=remaining, concurrent=True) is None:
            pos = stop + 1  # the match needed the next line: not a match of this line
            continue
        line_number += text.count("\n", counted_to, start)
        counted_to = start
        hits.append((line_number, text[start:stop]))
        pos = stop + 1
    return hits


def _read_all(path: str) -> bytes | None:
    """A file's bytes with four system calls and no file object (a tree search reads thousands of small files)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size + 1)
        if len(data) == size:
            return data
        chunks = [data]  # a short read, or the file grew: read on to the end
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _grep_files(batch: list[tuple[str, str]], compiled: regex.Pattern[str], deadline: float) -> list[GrepMatch]:
    matches: list[GrepMatch] = []
    for rel, path in batch:
        data = _read_all(path)
        if data is None:
            continue
        text = _decode_for_search(data)
        if text is None:
            continue
        matches.extend(GrepMatch(path=path, rel=rel, line_number=number, line=display(line))
                       for number, line in _grep_text(compiled, text, deadline))
    return matches


_PARALLEL_FILES = 256  # below this, threads cost more than they save
_BATCH = 64


def _grep_python(root: Path, compiled: regex.Pattern[str], include: regex.Pattern[str] | None,
                 rules: IgnoreRules | None, deadline: float, limit: int | None = None) -> list[GrepMatch]:
    """Search files in batches on a few threads (reads and ``regex`` matching release the GIL).

    With ``limit``, files are searched one by one in path order until ``limit`` matching lines are found.
    """
    if limit is not None:
        found: list[GrepMatch] = []
        for rel, entry, _ in walk_files(str(root), rules=rules, skip_dirs=ALWAYS_SKIPPED, ordered=True):
            if include is None or include.match(rel):
                found.extend(_grep_files([(rel, entry.path)], compiled, deadline))
                if len(found) >= limit:
                    break
        return found
    targets = [(rel, entry.path) for rel, entry, _ in walk_files(str(root), rules=rules, skip_dirs=ALWAYS_SKIPPED)
               if include is None or include.match(rel)]
    workers = min(4, (os.cpu_count() or 1) - 1)  # measured: on two cores one thread is faster (the GIL)
    if len(targets) < _PARALLEL_FILES or workers < 2:
        return _grep_files(targets, compiled, deadline)
    from concurrent.futures import ThreadPoolExecutor

    batches = [targets[i:i + _BATCH] for i in range(0, len(targets), _BATCH)]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="agenttools-grep") as pool:
        results = list(pool.map(lambda batch: _grep_files(batch, compiled, deadline), batches))
    return [match for batch in results for match in batch]


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
        lines = by_file[rel]
        if any(a.line_number > b.line_number for a, b in itertools.pairwise(lines)):
            lines.sort(key=lambda m: m.line_number)
        ordered.extend(lines)
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
            found = _grep_python(root, compiled, include_re, rules, deadline, limit)
            used = "python"
    except TimeoutError:
        raise ToolTimeoutError(f"search timed out after {timeout:g} seconds", seconds=timeout) from None
    found = _in_path_order(found)
    truncated = max_matches is not None and len(found) > max_matches
    return GrepResult(root=root, pattern=pattern, matches=tuple(found[:max_matches] if truncated else found),
                      backend=used, truncated=truncated)
