"""The ``anthropic`` toolset: Anthropic's client tools ``text_editor_20250728`` and ``bash_20250124``.

``agenttools.toolset("anthropic", root="/abs/project")``. ``reg.definitions("anthropic")`` gives the native tool
types the API expects; every other format gets function definitions with the documented input schemas. The
texts are those of Anthropic's reference implementation; deviations are listed in docs/toolsets/anthropic.md.

The package: :mod:`~.texts` (types, descriptions, schemas, the reference's texts), :mod:`~.state` (what the
handlers share, path confinement), :mod:`~.view` (the text the reference edits, mapped back to the file),
:mod:`~.editor` and :mod:`~.bash` (the handlers), :mod:`~.session` (the persistent bash) and :mod:`~.tools`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from agenttools.registry import Registry
from agenttools.sandbox import Sandbox
from agenttools.toolsets._options import PATH_OPTIONS, SANDBOX_OPTIONS, Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.anthropic.state import DEFAULT_TIMEOUT, State
from agenttools.toolsets.anthropic.texts import render_error
from agenttools.toolsets.anthropic.tools import TOOLS, specs
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["OPTIONS", "TOOLS", "build", "render_error"]

OPTIONS = (*PATH_OPTIONS,
           Option(name="max_characters", kind="count", nullable=True,
                  help="characters of a file view shows before clipping it (None: the reference's 16000); also "
                       "sent in the text editor's definition"),
           Option(name="bash_timeout", kind="seconds",
                  help="seconds a bash command may run before the session must be restarted"),
           Option(name="max_output", kind="size", help="bytes of stdout and of stderr kept per bash command"),
           *SANDBOX_OPTIONS)
"""The options of ``build``, checked when the toolset is built."""


@takes_options("anthropic", OPTIONS)
def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    deny: Iterable[str] = (),
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
    max_characters: int | None = None,
    bash_timeout: float = DEFAULT_TIMEOUT,
    max_output: int = 16 * 1024 * 1024,
    sandbox: str = "auto",
    network: bool | None = None,
    memory_limit: int | str | None = None,
    max_processes: int | None = None,
) -> Registry:
    """Build the anthropic toolset.

    Args:
        root: The project directory; every path must stay inside it (required). bash starts here.
        allow_dirs: Directories every path must stay inside (default: ``[root]``).
        deny: Gitignore-style globs (``**/.env``) never read, written or listed; deny wins over allow.
        max_file_size: The largest file viewed or edited (bytes or ``"10MB"``).
        max_characters: Characters of a file ``view`` shows before the ``<response clipped>`` note (None: the
            reference's 16000). When set it is also sent as the text editor definition's ``max_characters``.
        bash_timeout: Seconds a bash command may run before the session must be restarted (the reference's 120).
        max_output: Bytes of stdout and of stderr kept per bash command (the middle is elided beyond it).
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
    state = State(workspace=workspace, max_characters=max_characters, timeout=bash_timeout, max_output=max_output,
                  sandbox=box)
    tools = TOOLS if max_characters is None else specs(max_characters)
    return build_registry(tools, state, render_error=render_error, on_close=[state.close])
