"""The ``assistant`` toolset: read, write, edit, list, delete, file, exec, process and message, as friday has them.

``agenttools.toolset("assistant", root="/abs/workspace", channels={"ops": callable_or_channel_or_url})``.
Success texts are compact JSON objects (keys in the spec's order); failures are ``ERROR: <message>``.
Deviations from upstream are listed in docs/toolsets/assistant.md.

The package: :mod:`~.texts` (descriptions, schemas, JSON and Go-style texts, error wording), :mod:`~.state` (the
shared state, the path guard), the handlers in :mod:`~.files`, :mod:`~.commands` and :mod:`~.messages`, and
:mod:`~.tools` (the ToolSpecs).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from agenttools.errors import ConfigError
from agenttools.message import ChannelLike, WebhookChannel
from agenttools.process import ProcessManager
from agenttools.registry import Registry
from agenttools.sandbox import Sandbox
from agenttools.toolsets._options import PATH_OPTIONS, SANDBOX_OPTIONS, Option, takes_options
from agenttools.toolsets._spec import build_registry
from agenttools.toolsets.assistant.state import State
from agenttools.toolsets.assistant.texts import render_error
from agenttools.toolsets.assistant.tools import TOOLS
from agenttools.workspace import DEFAULT_MAX_FILE_SIZE, Workspace

__all__ = ["OPTIONS", "TOOLS", "build", "render_error"]


def _channel(value: Any) -> ChannelLike:
    if isinstance(value, str):
        return WebhookChannel(url=value)
    if callable(value) or hasattr(value, "send"):
        return value  # type: ignore[no-any-return]
    raise ConfigError(f"a channel must be a callable, an object with send(chat_id, content) or a URL, got {value!r}")


OPTIONS = (*PATH_OPTIONS,
           Option(name="channels", kind="mapping", nullable=True,
                  help="channel id to a callable (chat_id, content), an object with send(), or a webhook URL"),
           Option(name="max_running", kind="count", help="background processes running at once"),
           *SANDBOX_OPTIONS)
"""The options of ``build``, checked when the toolset is built."""


@takes_options("assistant", OPTIONS)
def build(
    root: str | os.PathLike[str] | None = None,
    *,
    allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
    deny: Iterable[str] = (),
    channels: Mapping[str, Any] | None = None,
    max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
    max_running: int = 16,
    sandbox: str = "auto",
    network: bool | None = None,
    memory_limit: int | str | None = None,
    max_processes: int | None = None,
) -> Registry:
    """Build the assistant toolset; close the registry (or use ``with``) to kill its background processes.

    Args:
        root: The workspace; every path must stay inside it (required).
        allow_dirs: Directories every path must stay inside (default: ``[root]``).
        deny: Gitignore-style globs (``**/.env``) never read, written, listed or searched; deny wins over allow.
        channels: Channel id to a callable ``(chat_id, content)``, an object with ``send(chat_id, content)``, or a
            webhook URL (POSTed ``{"chat_id", "content"}`` as JSON).
        max_file_size: Largest file ``read`` returns (bytes or ``"10MB"``).
        max_running: Background processes running at once.
        sandbox: Where commands run: ``"auto"`` (bubblewrap where it runs, else unsandboxed with a
            ``SandboxWarning``), ``"bwrap"`` (bubblewrap, else ConfigError) or ``"none"``. See docs/security.md.
        network: Give sandboxed commands the host's network (default: none).
        memory_limit: Memory the sandboxed commands may use together (bytes or ``"2GiB"``; default: half the RAM).
        max_processes: Processes the sandbox may hold at once (default: 1024).

    Raises:
        ConfigError: ``root`` is missing or not a directory, or a channel is unusable.
    """
    assert root is not None  # noqa: S101 - takes_options requires it
    workspace = Workspace(root, allow_dirs=allow_dirs, deny=deny, max_file_size=max_file_size)
    box = Sandbox(workspace, mode=sandbox, network=network, memory_limit=memory_limit,
                  max_processes=max_processes)
    state = State(workspace=workspace, processes=ProcessManager(max_running=max_running, sandbox=box),
                  channels={str(k): _channel(v) for k, v in (channels or {}).items()})
    return build_registry(TOOLS, state, render_error=render_error, on_close=[state.processes.close, box.close])
