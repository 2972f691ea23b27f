"""The directory walker every family shares: iterative, depth first, never following a symlink.

``os.walk`` recurses (Python 3.11), so a tree a few thousand levels deep — easy to make in a workspace — raised
``RecursionError``; this walker keeps its own stack. It has two orders: a directory's entries before its
subdirectories' (the default), and *path order* (entries by name, a subdirectory's entries right after it), in
which a search can stop at the first N files of a sorted listing. The gitignore-aware walk of the search family
(:func:`agenttools.ignore.walk_files`) is this walker with an ``enter`` that prunes ignored directories.

Inside a tool call run by :meth:`Registry.acall <agenttools.registry.Registry.acall>`, the walk checks the call's
cancel scope before each directory it lists and every ``_CHECK_EVERY`` entries of a large directory, and raises
:class:`~agenttools._calls.CallCancelledError` once the call is cancelled, so a walk of a huge tree ends promptly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

from agenttools._calls import CallScope, current_scope, raise_if_cancelled

__all__ = ["walk"]


_CHECK_EVERY = 512
"""Entries of one directory between two checks of the cancel scope (a directory is checked before it is listed)."""


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _checked(entries: list[os.DirEntry[str]], scope: CallScope) -> Iterator[os.DirEntry[str]]:
    """The entries of a large directory, the cancel scope checked every ``_CHECK_EVERY`` of them."""
    for start in range(0, len(entries), _CHECK_EVERY):
        raise_if_cancelled(scope)
        yield from entries[start:start + _CHECK_EVERY]


def _listing(directory: str, rel_dir: str, sort: bool,
             listed: Callable[[str, list[os.DirEntry[str]]], object] | None,
             scope: CallScope | None) -> Iterator[os.DirEntry[str]]:
    """One directory's entries (none when it cannot be read), shown to ``listed`` first; the scope is checked."""
    raise_if_cancelled(scope)
    try:
        with os.scandir(directory) as scan:
            entries = sorted(scan, key=_name) if sort else list(scan)
    except OSError:
        return iter(())
    if listed is not None:
        listed(rel_dir, entries)
    return iter(entries) if scope is None or len(entries) <= _CHECK_EVERY else _checked(entries, scope)


def walk(top: str, *, sort: bool = False, path_order: bool = False,
         enter: Callable[[str, os.DirEntry[str]], bool] | None = None,
         listed: Callable[[str, list[os.DirEntry[str]]], object] | None = None,
         ) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    """Yield ``(rel, entry, is_dir)`` for every entry below ``top``, a directory's entries before its subdirectories'.

    ``rel`` is ``/``-separated and relative to ``top``. A symlink is an entry like any other (``is_dir`` is false
    for it) and is never followed. A directory is entered when ``enter(rel, entry)`` is true (default: always).
    With ``sort``, each directory's entries come in name order and subdirectories are entered in name order.
    With ``path_order``, entries come in name order and a directory is entered as soon as it is yielded, so paths
    come in the order of their components (``a/x`` before ``a.txt``, and ``a.txt`` before ``b/y``).
    ``listed(rel_dir, entries)``, when given, sees each directory's listing before its entries are yielded
    (``rel_dir`` is ``""`` for ``top``, else ends with ``/``). Unreadable directories and entries whose type cannot
    be read are passed by.

    Raises:
        CallCancelledError: The tool call running the walk was cancelled (see :mod:`agenttools._calls`).
    """
    scope = current_scope()
    if path_order:
        yield from _walk_in_path_order(top, enter, listed, scope)
        return
    stack: list[tuple[str, str]] = [(top, "")]
    while stack:
        directory, rel_dir = stack.pop()
        subdirs = []
        for entry in _listing(directory, rel_dir, sort, listed, scope):
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            rel = rel_dir + entry.name
            yield rel, entry, is_dir
            if is_dir and (enter is None or enter(rel, entry)):
                subdirs.append((entry.path, rel + "/"))
        stack.extend(reversed(subdirs))


def _walk_in_path_order(top: str, enter: Callable[[str, os.DirEntry[str]], bool] | None,
                        listed: Callable[[str, list[os.DirEntry[str]]], object] | None,
                        scope: CallScope | None) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    def listing(directory: str, rel_dir: str) -> Iterator[os.DirEntry[str]]:
        return _listing(directory, rel_dir, True, listed, scope)

    # a stack of listings: a directory's entries are taken up again once everything below one of its
    # subdirectories has been yielded
    stack = [(listing(top, ""), "")]
    while stack:
        entries, rel_dir = stack[-1]
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            rel = rel_dir + entry.name
            yield rel, entry, is_dir
            if is_dir and (enter is None or enter(rel, entry)):
                stack.append((listing(entry.path, rel + "/"), rel + "/"))
                break
        else:
            stack.pop()
