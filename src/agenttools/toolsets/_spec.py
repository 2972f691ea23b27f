"""A toolset as data: one :class:`ToolSpec` per tool, and :func:`build_registry` to turn the specs into tools.

A toolset package states its contract — names, descriptions, parameter schemas, hints and the exact texts — as a
list of ToolSpecs next to those texts, and its ``build(**options)`` makes the shared state and calls
:func:`build_registry`. Adding a tool is adding one ToolSpec. The specs also say which parameters hold paths, so
the security suite derives its escape attempts from the specs of every toolset instead of a hand-kept list.

ToolSpec and Hints are named tuples (``spec._replace(name=...)`` changes a field): a class of them costs a
fraction of an attrs class to define, which keeps building a toolset fast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, Literal, NamedTuple, TypeVar

from agenttools.registry import Registry
from agenttools.tool import ErrorRenderer, Tool

__all__ = ["READ", "Hints", "PathKind", "ToolSpec", "build_registry"]

S = TypeVar("S")

PathKind = Literal["path", "paths", "args", "patch"]
"""How a parameter holds paths: one path string, an array of path strings, a command-line-like string whose
operands are paths (``-n 5 file.txt``), or a V4A patch whose file headers name them."""


class Hints(NamedTuple):
    """What a tool does to its environment (MCP's tool annotations); see :class:`agenttools.Tool`."""

    title: str | None = None
    """Human-friendly display name (MCP ``title``)."""
    read_only: bool = False
    """The tool does not change its environment."""
    destructive: bool | None = None
    """The tool may destroy data; None means "unless read-only"."""
    idempotent: bool = False
    """Repeating a call with the same arguments has no further effect."""
    open_world: bool = True
    """The tool reaches outside a closed set of entities (the web, any program)."""


READ = Hints(read_only=True, idempotent=True, open_world=False)
"""A tool that only reads the workspace."""


class ToolSpec(NamedTuple, Generic[S]):
    """One tool of a toolset: its contract and its handler.

    ``handler(state, arguments)`` receives the toolset's shared state (made once by ``build``) and the validated
    arguments; it returns the tool's text (or a :class:`~agenttools.output.ToolOutput`) and fails by raising —
    :class:`~agenttools.errors.ToolFailure` for exact text, any other error for the toolset's ``render_error``.
    """

    name: str
    """The tool name the model calls."""
    description: str
    """The contract's description, exactly."""
    parameters: Mapping[str, Any]
    """The contract's JSON Schema for the arguments, exactly."""
    handler: Callable[[S, dict[str, Any]], Any]
    """Runs one call: ``handler(state, arguments)``."""
    hints: Hints = Hints()
    """What the tool does to its environment."""
    paths: Mapping[str, PathKind] = {}
    """Parameters that hold workspace paths, and how (for the security suite's escape matrix)."""
    validate: bool = True
    """Check arguments against ``parameters`` before the handler runs (False: the handler checks them itself)."""
    render_error: ErrorRenderer | None = None
    """This tool's own error wording; None uses the toolset's."""
    native: Mapping[str, Mapping[str, Any]] = {}
    """Definition format -> the provider's own declaration of this tool, emitted verbatim by ``definitions``."""
    native_arguments: Callable[[S, Mapping[str, Any]], dict[str, Any]] | None = None
    """``native_arguments(state, payload)``: a native call item's payload as this tool's arguments."""


def _bound(native_arguments: Callable[[S, Mapping[str, Any]], dict[str, Any]] | None,
           state: S) -> Callable[[Mapping[str, Any]], dict[str, Any]] | None:
    if native_arguments is None:
        return None
    return lambda payload: native_arguments(state, payload)


def build_registry(specs: Iterable[ToolSpec[S]], state: S, *, render_error: ErrorRenderer,
                   on_close: Iterable[Callable[[], object]] = ()) -> Registry:
    """The registry of a toolset: one tool per spec, in order, every handler bound to ``state``.

    Args:
        specs: The toolset's tools.
        state: What the handlers share (workspace, limits, process tables).
        render_error: How the toolset words errors that are not a ToolFailure.
        on_close: Called when the registry is closed (kill background processes, end sessions).

    Raises:
        ToolDefinitionError: A spec is malformed (bad name, empty description, invalid schema) or names repeat.
    """
    registry = Registry(render_error=render_error)
    for spec in specs:
        handler = spec.handler
        registry.add(Tool.from_schema(
            name=spec.name, description=spec.description, parameters=spec.parameters,
            handler=lambda args, h=handler: h(state, args),  # type: ignore[misc]
            render_error=spec.render_error or render_error, validate=spec.validate, title=spec.hints.title,
            read_only=spec.hints.read_only, destructive=spec.hints.destructive, idempotent=spec.hints.idempotent,
            open_world=spec.hints.open_world, native=spec.native,
            native_arguments=_bound(spec.native_arguments, state),
        ))
    for callback in on_close:
        registry.on_close(callback)
    return registry
