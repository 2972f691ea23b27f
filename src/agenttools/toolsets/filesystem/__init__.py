"""The ``filesystem`` toolset: the MCP reference filesystem server's 14 tools, with upstream's names, schemas, texts.

``agenttools.toolset("filesystem", allow_dirs=["/abs/a", "/abs/b"])`` reproduces
``@modelcontextprotocol/server-filesystem`` 2026.8.31 started with those directories. Deviations from upstream are
listed in docs/toolsets/filesystem.md; the exact texts are pinned by tests/toolsets/test_filesystem.py and compared
with the real server by tests/fidelity/test_filesystem_upstream.py.

The package: :mod:`~.texts` (descriptions, schemas, the SDK's argument errors, Node's formats), :mod:`~.state`
(what the handlers share, upstream's path check made safe), :mod:`~.editing` (edit_file's matching and jsdiff's
patch), :mod:`~.handlers` and :mod:`~.tools` (the ToolSpecs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from agenttools.errors import ConfigError
from agenttools.registry import Registry
from agenttools.toolsets._options import Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.filesystem.state import State, allowed_directories
from agenttools.toolsets.filesystem.texts import render_error
from agenttools.toolsets.filesystem.tools import TOOLS
from agenttools.workspace import Workspace

__all__ = ["DEFAULT_MAX_FILE_SIZE", "OPTIONS", "TOOLS", "build", "render_error"]

DEFAULT_MAX_FILE_SIZE = 256 * 1024 * 1024
"""256 MiB: the largest file read whole or edited by default (upstream has no limit but Node's 2 GiB)."""

OPTIONS = (
    Option(name="allow_dirs", kind="dirs", nullable=True,
           help="the directories the server may access (upstream's command-line directories; default: [root])"),
    Option(name="root", kind="dir", help="the main directory (default: the first of allow_dirs)"),
    Option(name="deny", kind="globs", help="gitignore-style globs never read, written, listed or searched"),
    Option(name="max_file_size", kind="size", help="the largest file read whole or edited"),
)
"""The options of ``build``, checked when the toolset is built."""


@takes_options("filesystem", OPTIONS)
def build(
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    deny: Iterable[str] = (),
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
) -> Registry:
    """Build the filesystem toolset.

    Args:
        allow_dirs: The directories every path must stay inside, as upstream's command line gives them (a
            relative one is taken against the current directory; default: ``[root]``).
        root: The main directory (default: the first of ``allow_dirs``); ``list_allowed_directories`` does not
            list it unless it is allowed.
        deny: Gitignore-style globs (``**/.env``) never read, written, listed or searched; deny wins over allow.
        max_file_size: The largest file read whole or edited (bytes or ``"20MB"``; 256 MiB by default).

    Raises:
        ConfigError: Neither ``allow_dirs`` nor ``root`` given, or an option is invalid.
    """
    given = [os.fspath(d) for d in allow_dirs] if allow_dirs is not None else None
    if not given:
        if root is None:
            raise ConfigError("toolset 'filesystem' needs the option 'allow_dirs' (or 'root'): the directories the "
                              "server may access")
        given = [os.fspath(root)]
    main = root if root is not None else given[0]
    workspace = Workspace(main, allow_dirs=given, deny=deny, max_file_size=max_file_size)
    state = State(workspace=workspace, allowed=allowed_directories([str(d) for d in given]))
    return build_registry(TOOLS, state, render_error=render_error)
