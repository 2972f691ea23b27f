"""The ``editor`` toolset: view, str_replace, create_file, bash and task_output, as the boris MCP server has them.

``agenttools.toolset("editor", root="/abs/project", allow_dirs=None, deny_dirs=(), max_file_size="10MB")``.
Errors read ``[CODE] message``. Deviations from upstream are listed in docs/toolsets/editor.md.

The package: :mod:`~.texts` (descriptions, schemas, error wording), :mod:`~.render` (numbered lines, sizes, output
sections), :mod:`~.state`, the handlers in :mod:`~.files` and :mod:`~.shell`, and :mod:`~.tools` (the ToolSpecs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from agenttools.process import ProcessTable
from agenttools.registry import Registry
from agenttools.sandbox import Sandbox
from agenttools.toolsets._options import PATH_OPTIONS, SANDBOX_OPTIONS, Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.editor.state import State
from agenttools.toolsets.editor.texts import render_error
from agenttools.toolsets.editor.tools import EXTENDED_TOOLS, TOOLS
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["OPTIONS", "TOOLS", "build", "render_error"]


OPTIONS = (PATH_OPTIONS[0], PATH_OPTIONS[1],
           Option(name="deny_dirs", kind="globs", help="doublestar globs refused even inside allow_dirs"),
           PATH_OPTIONS[3],
           Option(name="bash_timeout", kind="seconds", help="default seconds a foreground bash command may run"),
           Option(name="background_timeout", kind="seconds", nullable=True,
                  help="seconds before a background task's group is killed (None: never)"),
           Option(name="max_tasks", kind="count", help="background tasks held at once"),
           Option(name="edit_extensions", kind="bool",
                  help="add multi-edits, dry runs, a version check and tolerant matching to str_replace"),
           *SANDBOX_OPTIONS)
"""The options of ``build``, checked when the toolset is built (``deny_dirs`` is the contract's name for ``deny``)."""


@takes_options("editor", OPTIONS)
def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    deny_dirs: Iterable[str] = (),
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
    bash_timeout: float = 120,
    background_timeout: float | None = None,
    max_tasks: int = 10,
    edit_extensions: bool = False,
    sandbox: str = "auto",
    network: bool | None = None,
    memory_limit: int | str | None = None,
    max_processes: int | None = None,
) -> Registry:
    """Build the editor toolset; close the registry (or use it as a context manager) to end background tasks.

    Args:
        root: The initial session cwd (required).
        allow_dirs: Directories every path must stay inside (default: ``[root]``; ``["/"]`` opens everything).
        deny_dirs: Doublestar globs refused even inside ``allow_dirs``, e.g. ``**/.env``.
        max_file_size: Largest file ``view`` reads and ``create_file`` writes (bytes or ``"10MB"``).
        bash_timeout: Default seconds a foreground ``bash`` command may run.
        background_timeout: Seconds before a background task's group is killed (None: never).
        max_tasks: Background tasks held at once (running, or finished and not yet read).
        edit_extensions: Give ``str_replace`` the edit family's features (``edits``, ``dry_run``,
            ``expected_version``, ``tolerant``) and end a viewed file with its version; off, the schemas are
            upstream's exactly.
        sandbox: Where commands run: ``"auto"`` (bubblewrap where it runs, else unsandboxed with a
            ``SandboxWarning``), ``"bwrap"`` (bubblewrap, else ConfigError) or ``"none"``. See docs/security.md.
        network: Give sandboxed commands the host's network (default: none).
        memory_limit: Memory the sandboxed commands may use together (bytes or ``"2GiB"``; default: half the RAM).
        max_processes: Processes the sandbox may hold at once (default: 1024).

    Raises:
        ConfigError: ``root`` is missing, a directory does not exist, or an option is invalid.
    """
    assert root is not None  # noqa: S101 - takes_options requires it
    workspace = Workspace(root, allow_dirs=allow_dirs, deny=deny_dirs, max_file_size=max_file_size)
    box = Sandbox(workspace, mode=sandbox, network=network, memory_limit=memory_limit,
                  max_processes=max_processes)
    state = State(workspace=workspace, bash_timeout_ms=int(bash_timeout * 1000),
                  tasks=ProcessTable(max_processes=max_tasks, timeout=background_timeout, sandbox=box))
    return build_registry(EXTENDED_TOOLS if edit_extensions else TOOLS, state, render_error=render_error,
                          on_close=[state.tasks.close, box.close])
