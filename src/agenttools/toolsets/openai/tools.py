"""The openai toolset as data: ``apply_patch`` and ``shell``, with their native Responses declarations."""

from __future__ import annotations

from agenttools.toolsets._spec import Hints, ToolSpec
from agenttools.toolsets.openai import handlers
from agenttools.toolsets.openai.state import State
from agenttools.toolsets.openai.texts import DESCRIPTIONS, NATIVE, PARAMETERS

__all__ = ["TOOLS"]

TOOLS: list[ToolSpec[State]] = [
    ToolSpec(name="apply_patch", description=DESCRIPTIONS["apply_patch"], parameters=PARAMETERS["apply_patch"],
             handler=handlers.apply_patch, paths={"input": "patch"}, native=NATIVE["apply_patch"],
             native_arguments=handlers.patch_arguments,
             hints=Hints(title="Apply patch", destructive=True, open_world=False)),
    ToolSpec(name="shell", description=DESCRIPTIONS["shell"], parameters=PARAMETERS["shell"],
             handler=handlers.shell, native=NATIVE["shell"],
             hints=Hints(title="Shell", destructive=True, open_world=True)),
]
"""Each tool of the contract."""
