"""The anthropic toolset as data: the text editor and bash tools, each with its native Anthropic definition."""

from __future__ import annotations

from typing import Any

from agenttools.toolsets._spec import Hints, ToolSpec
from agenttools.toolsets.anthropic import bash, editor
from agenttools.toolsets.anthropic.state import State
from agenttools.toolsets.anthropic.texts import BASH_TYPE, DESCRIPTIONS, EDITOR_TYPE, PARAMETERS

__all__ = ["TOOLS", "specs"]


def specs(max_characters: int | None = None) -> list[ToolSpec[State]]:
    """The tools; ``max_characters`` goes into the text editor's native definition when set."""
    editor_native: dict[str, Any] = {"type": EDITOR_TYPE, "name": "str_replace_based_edit_tool"}
    if max_characters is not None:
        editor_native["max_characters"] = max_characters
    return [
        # the reference checks each argument itself, in its own order and words: the handlers validate
        ToolSpec(name="str_replace_based_edit_tool", description=DESCRIPTIONS["str_replace_based_edit_tool"],
                 parameters=PARAMETERS["str_replace_based_edit_tool"], handler=editor.edit_tool, validate=False,
                 paths={"path": "path"}, hints=Hints(title="Text editor", destructive=True, open_world=False),
                 native={"anthropic": editor_native}),
        ToolSpec(name="bash", description=DESCRIPTIONS["bash"], parameters=PARAMETERS["bash"], handler=bash.bash,
                 validate=False, hints=Hints(title="Bash", destructive=True, open_world=True),
                 native={"anthropic": {"type": BASH_TYPE, "name": "bash"}}),
    ]


TOOLS: list[ToolSpec[State]] = specs()
"""Each tool of the contract, in the order of the pinned definitions."""
