"""The search family: glob for files, grep for lines. gitignore-aware, binary-safe, bounded in time.

The package: :mod:`~agenttools.search.results` (what a search returns), :mod:`~agenttools.search.pattern` (regex
and include-glob compilation), and the two backends :mod:`~agenttools.search.rg` (ripgrep) and
:mod:`~agenttools.search.python`. The gitignore rules and the walk they prune are :mod:`agenttools.ignore`
(directory listings use them too).

``grep`` runs on ripgrep when the binary is available (the ``ripgrep`` wheel's ``rg`` next to the interpreter,
then ``PATH``) and otherwise on a pure-Python backend that gives the same results: files in path order, lines in
ascending order. ``AGENTTOOLS_SEARCH_BACKEND=auto|rg|python`` (or ``backend=``) chooses.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agenttools._calls import CallCancelledError, current_scope, raise_if_cancelled
from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._lazy import lazy_module
from agenttools.errors import PatternError, ToolTimeoutError
from agenttools.ignore import IgnoreRules, find_ignore_base, walk_files
from agenttools.search.gitpathspec import compile_pathspec, expand_braces
from agenttools.search.pattern import MAX_REPEAT_EXPANSION, compile_pattern, include_matcher
from agenttools.search.results import (
    FileHits,
    GlobMatch,
    GlobResult,
    GrepMatch,
    GrepResult,
    IncludeMatcher,
    build_matches,
    path_key,
)
from agenttools.workspace import Workspace

if TYPE_CHECKING:
    from agenttools.search import python as _python
    from agenttools.search import rg as _rg
else:  # the backends load with the first search: the ignore rules and results import without them
    _python = lazy_module("agenttools.search.python")
    _rg = lazy_module("agenttools.search.rg")

__all__ = ["MAX_REPEAT_EXPANSION", "Backend", "GlobMatch", "GlobResult", "GrepMatch", "GrepResult", "IncludeSyntax",
           "compile_pattern", "glob_files", "grep", "path_key"]

Backend = Literal["auto", "rg", "python"]
IncludeSyntax = Literal["glob", "git"]
DEFAULT_GREP_TIMEOUT = 60.0


def _rel_to_base(root: Path, rules: IgnoreRules) -> str:
    """``root`` relative to the ignore base, ``/``-separated (``""`` for the base itself)."""
    rel = os.path.relpath(root, rules.base).replace(os.sep, "/")
    return "" if rel == "." else rel


def _names_by_suffix(include: str | None) -> bool:
    """Whether a git pathspec include takes exactly the files whose name ends in a literal (``*.py``, ``*.{c,h}``).

    Such a pathspec matches a path exactly when its name matches (``*`` takes the directories), so ripgrep can
    narrow its walk with it as a glob on names instead of reading every file for Python to filter.
    """
    return bool(include) and all(_SUFFIX_ONLY.fullmatch(alternative) for alternative in expand_braces(include or ""))


_SUFFIX_ONLY = re.compile(r"\*[^*?\[\\/{},]+")


def _relative_pattern(pattern: str, root: Path) -> str | None:
    """The pattern relative to the search directory: ``./`` dropped, an absolute prefix removed; None if elsewhere."""
    if pattern.startswith("/"):
        prefix = str(root).rstrip("/") + "/"
        if not pattern.startswith(prefix):
            return None
        pattern = pattern[len(prefix):]
    while pattern.startswith("./"):
        pattern = pattern[2:].lstrip("/")
    return pattern


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

    ``*.py`` matches top-level files only; ``**/*.py`` matches at any depth; leading ``./`` segments are dropped,
    and an absolute pattern is taken relative to ``path`` (one naming another place matches nothing). Symlinks are
    not followed.

    Raises:
        PatternError: The glob is malformed.
        NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError: The search directory.
    """
    root = _search_root(ws, path)
    relative = _relative_pattern(pattern, root)
    if relative is None:
        return GlobResult(root=root, matches=(), ignored_count=0)
    try:
        matcher = compile_glob(relative, case_sensitive=case_sensitive)
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
    raise_if_cancelled(current_scope())  # (ripgrep polls the scope, the walk checks it: this is before either)
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
        for rel, entry, is_ignored in walk_files(str(root), rules=rules, skip_dirs=skip_dirs, on_ignored=True,
                                                 wanted=matcher.match):
            if is_ignored:
                ignored += 1
                continue
            try:
                mtime = entry.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            matches.append(GlobMatch(path=entry.path, rel=rel, mtime=mtime))
    if ws.deny:
        matches = [m for m in matches if ws.denied_by(m.path) is None]
    matches.sort(key=lambda m: path_key(m.rel))
    return GlobResult(root=root, matches=tuple(matches), ignored_count=ignored)


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
    include_syntax: IncludeSyntax = "glob",
    binary_window: int | None = None,
) -> GrepResult:
    """Find the lines matching a regular expression in the files below ``path``.

    Args:
        ws: The workspace the search directory must be inside.
        pattern: The regular expression (matched within single lines).
        path: The directory to search (relative paths resolve against the session cwd).
        include: A glob filtering files: without ``/`` it matches file names at any depth (``*.py``,
            ``*.{ts,tsx}``); with ``/`` it matches paths relative to ``path`` (``src/**``). Leading ``./`` segments
            are dropped, and an absolute glob is taken relative to ``path`` (one naming another place matches
            nothing).
        ignore_case: Case-insensitive matching (Unicode-aware).
        respect_gitignore: Skip files ignored by .gitignore rules (and ``.git`` itself, always).
        backend: ``rg``, ``python`` or ``auto`` (default: the ``AGENTTOOLS_SEARCH_BACKEND`` environment variable,
            else ``auto``: ripgrep when found).
        max_matches: Keep at most this many lines, the first in path order (``truncated`` tells). Files the
            workspace denies are left out before the lines are counted.
        timeout: Seconds before the search gives up with :class:`~agenttools.ToolTimeoutError`.
        include_syntax: ``glob`` (above) or ``git``: ``include`` is a git pathspec, as ``git grep -- <include>``
            reads it (:mod:`~agenttools.search.gitpathspec`: ``*`` and ``?`` match ``/``, a pathspec without
            wildcards takes the path itself and everything below it), plus comma braces and, for an include without
            ``/``, file names at any depth.
        binary_window: A file is binary (never searched) when it holds a NUL byte and no UTF-16/32 byte-order mark:
            anywhere (None), or within its first ``binary_window`` bytes (git's rule is 8,000); a NUL further on is
            then part of the line it is in.

    Raises:
        PatternError: The regex or the include glob does not compile.
        NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError: The search directory.
        ToolTimeoutError: The search took longer than ``timeout``.
    """
    root = _search_root(ws, path)
    compiled = compile_pattern(pattern, ignore_case=ignore_case)
    if include:
        include = _relative_pattern(include, root)
        if include is None:  # an absolute include naming another place: nothing here matches it
            return GrepResult(root=root, pattern=pattern, matches=(), backend="python")
    include_re: IncludeMatcher | None = (include_matcher(include) if include_syntax == "glob"
                                         else compile_pathspec(include) if include else None)
    rules = IgnoreRules(find_ignore_base(str(root), stop=str(ws.root))) if respect_gitignore else None
    if rules is not None and rules.ancestors_ignored(_rel_to_base(root, rules)):
        rules = None
    raise_if_cancelled(current_scope())
    deadline = time.monotonic() + timeout
    choice = _backend(backend)
    found: list[FileHits] | None = None
    used: Literal["rg", "python"] = "python"
    limit = None if max_matches is None else max_matches + 1  # one more, to know whether the list was cut
    keep = None if not ws.deny else (lambda file: ws.denied_by(file) is None)  # before counting toward the cap
    try:
        if choice != "python":
            found = _rg.grep(root, pattern, include if include_syntax == "glob" or _names_by_suffix(include) else None,
                             include_re, rules,
                             ignore_case=ignore_case, deadline=deadline, required=choice == "rg", limit=limit,
                             keep=keep, binary_window=binary_window)
            used = "rg"
        if found is None:
            found = _python.grep_python(root, compiled, include_re, rules, deadline, limit, keep=keep,
                                        binary_window=binary_window)
            used = "python"
    except CallCancelledError:
        raise  # not a timeout: nobody waits for the answer
    except TimeoutError:
        raise ToolTimeoutError(f"search timed out after {timeout:g} seconds", seconds=timeout) from None
    found.sort(key=lambda file: path_key(file[0]))  # files in path order; both backends give each file's lines in order
    matches, truncated = build_matches(found, max_matches)
    return GrepResult(root=root, pattern=pattern, matches=tuple(matches), backend=used, truncated=truncated)
