"""The filesystem toolset as data: the MCP reference filesystem server's 14 tools, in upstream's order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agenttools.toolsets._spec import Hints, PathKind, ToolSpec
from agenttools.toolsets.filesystem import handlers
from agenttools.toolsets.filesystem.state import State
from agenttools.toolsets.filesystem.texts import DESCRIPTIONS, PARAMETERS, TITLES, check_arguments

__all__ = ["TOOLS"]

Handler = Callable[[State, dict[str, Any]], Any]


def _checked(name: str, handler: Handler) -> Handler:
    """The handler behind the SDK's argument check (zod's words; defaults filled, unknown keys dropped)."""
    def run(state: State, args: dict[str, Any]) -> Any:
        return handler(state, check_arguments(name, args))

    run.__name__ = handler.__name__
    run.__doc__ = handler.__doc__
    return run


def _read(title: str) -> Hints:
    return Hints(title=title, read_only=True, open_world=False)


def _spec(name: str, handler: Handler, hints: Hints, paths: dict[str, PathKind]) -> ToolSpec[State]:
    return ToolSpec(name=name, description=DESCRIPTIONS[name], parameters=PARAMETERS[name],
                    handler=_checked(name, handler), hints=hints, paths=paths, validate=False)


_PATH: dict[str, PathKind] = {"path": "path"}

TOOLS: list[ToolSpec[State]] = [
    _spec("read_file", handlers.read_text_file, _read(TITLES["read_file"]), _PATH),
    _spec("read_text_file", handlers.read_text_file, _read(TITLES["read_text_file"]), _PATH),
    _spec("read_media_file", handlers.read_media_file, _read(TITLES["read_media_file"]), _PATH),
    _spec("read_multiple_files", handlers.read_multiple_files, _read(TITLES["read_multiple_files"]),
          {"paths": "paths"}),
    _spec("write_file", handlers.write_file,
          Hints(title=TITLES["write_file"], destructive=True, idempotent=True, open_world=False), _PATH),
    _spec("edit_file", handlers.edit_file,
          Hints(title=TITLES["edit_file"], destructive=True, idempotent=False, open_world=False), _PATH),
    _spec("create_directory", handlers.create_directory,
          Hints(title=TITLES["create_directory"], destructive=False, idempotent=True, open_world=False), _PATH),
    _spec("list_directory", handlers.list_directory, _read(TITLES["list_directory"]), _PATH),
    _spec("list_directory_with_sizes", handlers.list_directory_with_sizes,
          _read(TITLES["list_directory_with_sizes"]), _PATH),
    _spec("directory_tree", handlers.directory_tree, _read(TITLES["directory_tree"]), _PATH),
    _spec("move_file", handlers.move_file,
          Hints(title=TITLES["move_file"], destructive=True, idempotent=False, open_world=False),
          {"source": "path", "destination": "path"}),
    _spec("search_files", handlers.search_files, _read(TITLES["search_files"]), _PATH),
    _spec("get_file_info", handlers.get_file_info, _read(TITLES["get_file_info"]), _PATH),
    _spec("list_allowed_directories", handlers.list_allowed_directories,
          _read(TITLES["list_allowed_directories"]), {}),
]
"""Each tool of the contract, in upstream's order (``read_file`` is the deprecated alias of ``read_text_file``)."""
