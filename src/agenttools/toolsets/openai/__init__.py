"""The ``openai`` toolset: OpenAI's Responses tools ``apply_patch`` (Codex's V4A patches) and ``shell``.

``agenttools.toolset("openai", root="/abs/project")``. ``reg.call("apply_patch", {"input": patch})`` is the
function form (Chat Completions and every other SDK); ``reg.run()`` also takes the Responses API's native
``apply_patch_call`` and ``shell_call`` items and answers with ``apply_patch_call_output`` / ``shell_call_output``
items, and ``reg.definitions("openai-responses")`` declares ``{"type": "apply_patch"}`` and ``{"type": "shell"}``.
See docs/toolsets/openai.md.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable

from agenttools.registry import Registry
from agenttools.sandbox import Sandbox
from agenttools.shell import kill_session
from agenttools.toolsets._options import PATH_OPTIONS, SANDBOX_OPTIONS, Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.openai.handlers import render_error
from agenttools.toolsets.openai.state import DEFAULT_MAX_OUTPUT_LENGTH, DEFAULT_TIMEOUT_MS, State
from agenttools.toolsets.openai.tools import TOOLS
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["OPTIONS", "TOOLS", "build", "render_error"]

OPTIONS = (*PATH_OPTIONS,
           Option(name="timeout_ms", kind="count",
                  help="milliseconds a shell command may run when the call names none"),
           Option(name="max_output_length", kind="count",
                  help="characters of stdout plus stderr kept per command when the call names none"),
           *SANDBOX_OPTIONS)
"""The options of ``build``, checked when the toolset is built."""


@takes_options("openai", OPTIONS)
def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    deny: Iterable[str] = (),
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    max_output_length: int = DEFAULT_MAX_OUTPUT_LENGTH,
    sandbox: str = "auto",
    network: bool | None = None,
    memory_limit: int | str | None = None,
    max_processes: int | None = None,
) -> Registry:
    """Build the openai toolset.

    Args:
        root: The project directory: relative patch paths and shell commands start here (required).
        allow_dirs: Directories every patched path must stay inside (default: ``[root]``).
        deny: Gitignore-style globs a patch may never touch; deny wins over allow.
        max_file_size: The largest file a patch reads or writes (bytes or ``"10MB"``).
        timeout_ms: Milliseconds a shell command may run when the call names no ``timeout_ms``.
        max_output_length: Characters of stdout plus stderr kept per command when the call names none.
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
    state = State(workspace=workspace, timeout_ms=timeout_ms, max_output_length=max_output_length, sandbox=box)
    weakref.finalize(state, kill_session, state.session)
    return build_registry(TOOLS, state, render_error=render_error,
                          on_close=[lambda: kill_session(state.session), box.close])
