"""The gemini toolset as data: Gemini CLI v0.1.13's seven core tools, in upstream's order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenttools._lazy import lazy_module
from agenttools.toolsets._spec import Hints, ToolSpec
from agenttools.toolsets.gemini import files, shell
from agenttools.toolsets.gemini.state import State
from agenttools.toolsets.gemini.texts import DESCRIPTIONS, PARAMETERS

if TYPE_CHECKING:
    from agenttools.toolsets.gemini import search
else:  # the search family (its results, patterns and backends) loads with the first search or glob
    search = lazy_module("agenttools.toolsets.gemini.search")

__all__ = ["TOOLS"]

TOOLS: list[ToolSpec[State]] = [
    ToolSpec(name="list_directory", description=DESCRIPTIONS["list_directory"],
             parameters=PARAMETERS["list_directory"], handler=files.list_directory, paths={"path": "path"},
             hints=Hints(title="ReadFolder", read_only=True, idempotent=True, open_world=False)),
    ToolSpec(name="read_file", description=DESCRIPTIONS["read_file"], parameters=PARAMETERS["read_file"],
             handler=files.read_file, paths={"absolute_path": "path"},
             hints=Hints(title="ReadFile", read_only=True, idempotent=True, open_world=False)),
    ToolSpec(name="write_file", description=DESCRIPTIONS["write_file"], parameters=PARAMETERS["write_file"],
             handler=files.write_file, paths={"file_path": "path"},
             hints=Hints(title="WriteFile", destructive=True, idempotent=True, open_world=False)),
    ToolSpec(name="replace", description=DESCRIPTIONS["replace"], parameters=PARAMETERS["replace"],
             handler=files.replace, paths={"file_path": "path"},
             hints=Hints(title="Edit", destructive=True, open_world=False)),
    ToolSpec(name="search_file_content", description=DESCRIPTIONS["search_file_content"],
             parameters=PARAMETERS["search_file_content"],
             handler=lambda state, args: search.search_file_content(state, args), paths={"path": "path"},
             hints=Hints(title="SearchText", read_only=True, idempotent=True, open_world=False)),
    ToolSpec(name="glob", description=DESCRIPTIONS["glob"], parameters=PARAMETERS["glob"],
             handler=lambda state, args: search.glob(state, args), paths={"path": "path"},
             hints=Hints(title="FindFiles", read_only=True, idempotent=True, open_world=False)),
    # upstream checks the command before the schema (Command rejected: ...), so the handler validates
    ToolSpec(name="run_shell_command", description=DESCRIPTIONS["run_shell_command"],
             parameters=PARAMETERS["run_shell_command"], handler=shell.run_shell_command, validate=False,
             paths={"directory": "path"}, hints=Hints(title="Shell", destructive=True, open_world=True)),
]
"""Each tool of the contract, in upstream's order."""
