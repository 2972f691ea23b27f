"""The editor toolset as data: view, str_replace, create_file, bash and task_output, in upstream's order."""

from __future__ import annotations

from agenttools.toolsets._spec import READ, Hints, ToolSpec
from agenttools.toolsets.editor import extensions, files, shell
from agenttools.toolsets.editor.extensions import EXTENDED_DESCRIPTIONS, EXTENDED_PARAMETERS
from agenttools.toolsets.editor.state import State
from agenttools.toolsets.editor.texts import DESCRIPTIONS, PARAMETERS

__all__ = ["EXTENDED_TOOLS", "TOOLS"]

TOOLS: list[ToolSpec[State]] = [
    ToolSpec(name="view", description=DESCRIPTIONS["view"], parameters=PARAMETERS["view"], handler=files.view,
             paths={"path": "path"}, hints=READ._replace(title="View")),
    ToolSpec(name="str_replace", description=DESCRIPTIONS["str_replace"], parameters=PARAMETERS["str_replace"],
             handler=files.str_replace, paths={"path": "path"},
             hints=Hints(title="Replace text", destructive=True, open_world=False)),
    ToolSpec(name="create_file", description=DESCRIPTIONS["create_file"], parameters=PARAMETERS["create_file"],
             handler=files.create_file, paths={"path": "path"},
             hints=Hints(title="Create file", destructive=True, idempotent=True, open_world=False)),
    ToolSpec(name="bash", description=DESCRIPTIONS["bash"], parameters=PARAMETERS["bash"], handler=shell.bash,
             hints=Hints(title="Bash", destructive=True, open_world=True)),
    ToolSpec(name="task_output", description=DESCRIPTIONS["task_output"], parameters=PARAMETERS["task_output"],
             handler=shell.task_output, hints=Hints(title="Task output", read_only=True, open_world=False)),
]
"""Each tool of the contract, in upstream's order."""

EXTENDED_TOOLS: list[ToolSpec[State]] = [
    TOOLS[0]._replace(description=EXTENDED_DESCRIPTIONS["view"], parameters=EXTENDED_PARAMETERS["view"],
                      handler=extensions.view),
    TOOLS[1]._replace(description=EXTENDED_DESCRIPTIONS["str_replace"],
                      parameters=EXTENDED_PARAMETERS["str_replace"], handler=extensions.str_replace),
    *TOOLS[2:],
]
"""The tools with ``edit_extensions=True``: ``view`` and ``str_replace`` take the edit family's features."""
