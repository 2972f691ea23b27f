"""The directory walker every family shares: iterative, depth first, never following a symlink.

``os.walk`` recurses (Python 3.11), so a tree a few thousand levels deep — easy to make in a workspace — raised
``RecursionError``; this walker keeps its own stack. The gitignore-aware walk of the search family
(:func:`agenttools.search.ignore.walk_files`) prunes with the ignore rules as it lists, and is its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

__all__ = ["walk"]


def walk(top: str, *, sort: bool = False,
         enter: Callable[[str, os.DirEntry[str]], bool] | None = None) -> Iterator[tuple[str, os.DirEntry[str], bool]]:
    """Yield ``(rel, entry, is_dir)`` for every entry below ``top``, a directory's entries before its subdirectories'.

    ``rel`` is ``/``-separated and relative to ``top``. A symlink is an entry like any other (``is_dir`` is false
    for it) and is never followed. A directory is entered when ``enter(rel, entry)`` is true (default: always).
    With ``sort``, each directory's entries come in name order and subdirectories are entered in name order.
    Unreadable directories and entries whose type cannot be read are passed by.
    """
    stack: list[tuple[str, str]] = [(top, "")]
    while stack:
        directory, rel_dir = stack.pop()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name) if sort else list(scan)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            rel = rel_dir + entry.name
            yield rel, entry, is_dir
            if is_dir and (enter is None or enter(rel, entry)):
                subdirs.append((entry.path, rel + "/"))
        stack.extend(reversed(subdirs))
