"""The ``gemini`` toolset: Gemini CLI v0.1.13's seven core tools, with upstream's names, schemas and texts.

``agenttools.toolset("gemini", root="/abs/project")``. Deviations from upstream are listed in
docs/toolsets/gemini.md; the exact texts are pinned by tests/toolsets/test_gemini.py.

The package: :mod:`~.texts` (descriptions, schemas, upstream's messages and error wording), :mod:`~.state` (what the
handlers share, path checks), :mod:`~.files`, :mod:`~.search` and :mod:`~.shell` (the handlers) and :mod:`~.tools`
(the ToolSpecs).
"""

from __future__ import annotations

import os
import weakref

from agenttools.errors import ConfigError
from agenttools.registry import Registry
from agenttools.shell import DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT, kill_session
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.gemini.state import State
from agenttools.toolsets.gemini.texts import render_error
from agenttools.toolsets.gemini.tools import TOOLS
from agenttools.workspace import Workspace

__all__ = ["TOOLS", "build", "render_error"]


def build(
    root: str | os.PathLike[str] | None = None,
    *,
    shell_timeout: float | None = DEFAULT_TIMEOUT,
    max_output: int = DEFAULT_MAX_OUTPUT,
    max_matches: int = 20_000,
) -> Registry:
    """Build the gemini toolset.

    Args:
        root: The project directory; every path must stay inside it (required).
        shell_timeout: Seconds before ``run_shell_command`` kills the command's process group (None: never).
        max_output: Bytes of stdout and of stderr kept per command (the middle is elided beyond it).
        max_matches: The most matching lines ``search_file_content`` returns; beyond it the search stops and a
            truncation note says so.

    Raises:
        ConfigError: ``root`` is missing or not a directory.
    """
    if root is None:
        raise ConfigError("the gemini toolset needs root=<the project directory>")
    if not isinstance(max_matches, int) or isinstance(max_matches, bool) or max_matches < 1:
        raise ConfigError(f"max_matches must be a positive integer, got {max_matches!r}")
    state = State(workspace=Workspace(root), shell_timeout=shell_timeout, max_output=max_output,
                  max_matches=max_matches)
    weakref.finalize(state, kill_session, state.session)  # background jobs, also when nobody closes the registry
    return build_registry(TOOLS, state, render_error=render_error,
                          on_close=[lambda: kill_session(state.session)])  # background jobs the commands left
