"""The ``coder`` toolset: fourteen tools from read_file to todoread, as riazarbi/agent has them, all inside ``root``.

``agenttools.toolset("coder", root="/abs/project", allow_private_network=False)``. Tool results are the tools' own
texts; failures are ``Error: <message>``. Deviations from upstream are listed in docs/toolsets/coder.md.

The package: :mod:`~.texts` (descriptions, schemas, wording), :mod:`~.state` (shared state, paths, the toolset's
own files), the handlers in :mod:`~.files`, :mod:`~.search`, :mod:`~.project`, :mod:`~.web` and :mod:`~.todos`,
the contract's own emulations :mod:`~.coreutils` (head/tail) and :mod:`~.gostr` (Go string literals), and
:mod:`~.tools` (the ToolSpecs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from agenttools.registry import Registry
from agenttools.toolsets._options import PATH_OPTIONS, Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.coder.state import State
from agenttools.toolsets.coder.texts import render_error
from agenttools.toolsets.coder.tools import TOOLS
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["OPTIONS", "TOOLS", "build", "render_error"]


OPTIONS = (*PATH_OPTIONS,
           Option(name="allow_private_network", kind="bool",
                  help="let web_fetch reach loopback, private and link-local addresses"))
"""The options of ``build``, checked when the toolset is built."""


@takes_options("coder", OPTIONS)
def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    deny: Iterable[str] = (),
    allow_private_network: bool = False,
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
) -> Registry:
    """Build the coder toolset.

    Args:
        root: The working directory every tool acts in and may not leave (required).
        allow_dirs: Directories every path must stay inside (default: ``[root]``).
        deny: Gitignore-style globs (``**/.env``) never read, written, listed or searched; deny wins over allow.
        allow_private_network: Let ``web_fetch`` reach loopback, private and link-local addresses.
        max_file_size: Largest file ``read_file`` returns, largest body ``web_fetch`` accepts and largest file
            ``cloc`` counts (larger ones are skipped unread).

    Raises:
        ConfigError: ``root`` is missing or not a directory.
    """
    assert root is not None  # noqa: S101 - takes_options requires it
    state = State(workspace=Workspace(root, allow_dirs=allow_dirs, deny=deny, max_file_size=max_file_size),
                  allow_private_network=allow_private_network)
    return build_registry(TOOLS, state, render_error=render_error)
