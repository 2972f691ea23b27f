"""The ``gemini`` toolset: Gemini CLI v0.1.13's seven core tools, with upstream's names, schemas and texts.

``agenttools.toolset("gemini", root="/abs/project")``. Deviations from upstream are listed in
docs/toolsets/gemini.md; the exact texts are pinned by tests/toolsets/test_gemini.py.

The package: :mod:`~.texts` (descriptions, schemas, upstream's messages and error wording), :mod:`~.state` (what the
handlers share, path checks), :mod:`~.files`, :mod:`~.search` and :mod:`~.shell` (the handlers) and :mod:`~.tools`
(the ToolSpecs). Node's sort order and error words, shared with the filesystem toolset, are in
:mod:`agenttools.toolsets._collate` and :mod:`agenttools.toolsets._node`.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable

from agenttools.registry import Registry
from agenttools.sandbox import Sandbox
from agenttools.shell import DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT, kill_session
from agenttools.toolsets._options import PATH_OPTIONS, SANDBOX_OPTIONS, Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.gemini.state import MAX_READ_BYTES, State
from agenttools.toolsets.gemini.texts import render_error
from agenttools.toolsets.gemini.tools import TOOLS
from agenttools.workspace import Workspace

__all__ = ["OPTIONS", "TOOLS", "build", "render_error"]


OPTIONS = (*PATH_OPTIONS,
           Option(name="shell_timeout", kind="seconds", nullable=True,
                  help="seconds before run_shell_command kills the command's process group (None: never)"),
           Option(name="max_output", kind="size", help="bytes of stdout and of stderr kept per command"),
           Option(name="max_matches", kind="count", help="the most matching lines search_file_content returns"),
           *SANDBOX_OPTIONS)
"""The options of ``build``, checked when the toolset is built."""


@takes_options("gemini", OPTIONS)
def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    deny: Iterable[str] = (),
    max_file_size: int | str = MAX_READ_BYTES,
    shell_timeout: float | None = DEFAULT_TIMEOUT,
    max_output: int = DEFAULT_MAX_OUTPUT,
    max_matches: int = 20_000,
    sandbox: str = "auto",
    network: bool | None = None,
    memory_limit: int | str | None = None,
    max_processes: int | None = None,
) -> Registry:
    """Build the gemini toolset.

    Args:
        root: The project directory; every path must stay inside it (required).
        allow_dirs: Directories every path must stay inside (default: ``[root]``).
        deny: Gitignore-style globs (``**/.env``) never read, written, listed or searched; deny wins over allow.
        max_file_size: The largest file read, written or edited (bytes or ``"20MB"``; upstream's limit by default).
        shell_timeout: Seconds before ``run_shell_command`` kills the command's process group (None: never).
        max_output: Bytes of stdout and of stderr kept per command (the middle is elided beyond it).
        max_matches: The most matching lines ``search_file_content`` returns; beyond it the search stops and a
            truncation note says so.
        sandbox: Where commands run: ``"auto"`` (bubblewrap where it runs, else unsandboxed with a
            ``SandboxWarning``), ``"bwrap"`` (bubblewrap, else ConfigError) or ``"none"``. See docs/security.md.
        network: Give sandboxed commands the host's network (default: none).
        memory_limit: Memory the sandboxed commands may use together (bytes or ``"2GiB"``; default: half the RAM).
        max_processes: Processes the sandbox may hold at once (default: 1024).

    Raises:
        ConfigError: An option is unknown, missing (``root``) or invalid.
    """
    assert root is not None  # noqa: S101 - takes_options requires it
    workspace = Workspace(root, allow_dirs=allow_dirs, deny=deny, max_file_size=max_file_size)
    box = Sandbox(workspace, mode=sandbox, network=network, memory_limit=memory_limit,
                  max_processes=max_processes)
    state = State(workspace=workspace, shell_timeout=shell_timeout, max_output=max_output,
                  max_matches=max_matches, sandbox=box)
    weakref.finalize(state, kill_session, state.session)  # background jobs, also when nobody closes the registry
    return build_registry(TOOLS, state, render_error=render_error,  # background jobs the commands left
                          on_close=[lambda: kill_session(state.session), box.close])
