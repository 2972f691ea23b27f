"""A tool: what the model is told (name, description, parameters, hints) and how a call runs.

Build one with :meth:`agenttools.Registry.tool` (from a typed function) or :meth:`Tool.from_schema` (from an
explicit JSON Schema). The checks here are the definition rules every SDK agrees on.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from agenttools.blocks import Answer
from agenttools.errors import ToolDefinitionError
from agenttools.schema import canonicalize, is_nullable

__all__ = ["NAME_PATTERN", "ErrorRenderer", "Tool", "ToolCall", "check_description", "check_name",
           "check_parameters"]

ErrorRenderer = Callable[[str, BaseException], "str | Answer"]
"""``(tool_name, error) -> text or ToolOutput``: how a toolset words its errors."""

NAME_PATTERN = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}\Z")


def check_name(name: Any) -> list[str]:
    """The problems with a tool name (none when every SDK accepts it)."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        return [f"name {name!r} must match {NAME_PATTERN.pattern[:-2]}$ (portable across OpenAI, Anthropic, "
                "Gemini and MCP)"]
    return []


def check_description(description: Any) -> list[str]:
    """The problems with a tool description (it must be non-empty text)."""
    if not isinstance(description, str) or not description.strip():
        return ["no description: write a docstring (its text before the first section, such as 'Args:' or "
                "':param x:', is the description) or pass description="]
    return []


def check_parameters(parameters: Any) -> list[str]:
    """The problems with a parameters schema (an object schema, JSON-serialisable, required keys declared)."""
    if not isinstance(parameters, Mapping):
        return [f"parameters must be a JSON Schema object, got {type(parameters).__name__}"]
    problems = []
    if parameters.get("type") != "object":
        problems.append('parameters must have "type": "object" at the root')
    if any(k in parameters for k in ("anyOf", "oneOf", "allOf")):
        problems.append("parameters must not combine schemas (anyOf/oneOf/allOf) at the root")
    props = parameters.get("properties", {})
    if not isinstance(props, Mapping) or not all(isinstance(v, Mapping | bool) for v in props.values()):
        problems.append("parameters.properties must map names to schemas")
        props = {}
    problems.extend(f"required property {r!r} is not in properties"
                    for r in parameters.get("required", ()) if r not in props)
    try:
        json.dumps(parameters, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(f"parameters are not JSON: {exc}")
    return problems


@attrs.frozen(kw_only=True)
class Tool:
    """One tool: what the model is told (name, description, parameters) and how a call runs.

    Build one with :meth:`Registry.tool` (from a typed function) or :meth:`Tool.from_schema` (from an explicit
    JSON Schema, as toolsets do with their upstream schemas).
    """

    name: str
    """The tool name the model calls."""
    description: str
    """What the model is told the tool does."""
    parameters: dict[str, Any]
    """Canonical JSON Schema of the arguments object."""
    handler: Callable[[dict[str, Any]], Any] = attrs.field(repr=False)
    """Runs the tool with validated arguments (a dict); may return an awaitable."""
    is_async: bool = False
    """Whether ``handler`` returns an awaitable."""
    title: str | None = None
    """Human-friendly display name (MCP ``title``)."""
    read_only: bool = False
    """The tool does not change its environment (MCP ``readOnlyHint``)."""
    destructive: bool | None = None
    """The tool may destroy data (MCP ``destructiveHint``); None means "unless read-only"."""
    idempotent: bool = False
    """Repeating a call with the same arguments has no further effect (MCP ``idempotentHint``)."""
    open_world: bool = True
    """The tool reaches outside a closed set of entities, e.g. the web (MCP ``openWorldHint``)."""
    strict: bool | None = None
    """Preferred strict mode when ``definitions(strict=None)``; None means not strict."""
    validate: bool = True
    """Validate arguments against ``parameters`` before ``handler`` runs."""
    render_error: ErrorRenderer | None = attrs.field(default=None, repr=False)
    """How this tool's errors become text; None uses the registry's renderer."""
    null_means_default: frozenset[str] = frozenset()
    """Optional parameters for which ``null`` means "use the default" (the key is dropped before validation)."""
    null_defaults: bool = False
    """``null`` for any optional property, at any depth, whose schema does not admit null means "use its default"
    (what a model writes for an OpenAI-strict schema); set for function and ``from_schema`` tools."""
    native: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict, repr=False)
    """Definition format -> the provider's own declaration of this tool (``{"anthropic": {"type": "bash_20250124",
    "name": "bash"}}``, ``{"openai-responses": {"type": "apply_patch"}}``), emitted verbatim by ``definitions`` in
    that format instead of a function definition."""
    output_schema: dict[str, Any] | None = attrs.field(default=None, repr=False)
    """The JSON Schema of the tool's structured result (MCP ``outputSchema``); None for a text result."""
    native_arguments: Callable[[Mapping[str, Any]], dict[str, Any]] | None = attrs.field(default=None, repr=False)
    """Turns the payload of a native call item (a Responses ``apply_patch_call``'s operation) into this tool's
    arguments; what it raises is the call's failure, worded by ``render_error``. None: the payload is the
    arguments."""

    @property
    def is_destructive(self) -> bool:
        """The effective destructive hint."""
        return (not self.read_only) if self.destructive is None else self.destructive

    @classmethod
    def from_schema(
        cls,
        *,
        name: str,
        description: str,
        parameters: Mapping[str, Any],
        handler: Callable[[dict[str, Any]], Any],
        **options: Any,
    ) -> Tool:
        """Define a tool from an explicit JSON Schema; ``handler`` receives the arguments dict.

        Keys of ``parameters`` are kept as given (only ``title``/``$schema`` keywords are dropped), so an upstream
        schema without ``additionalProperties: false`` still lets extra keys through to the handler.

        Raises:
            ToolDefinitionError: The name, description or schema is unusable (every problem listed).
        """
        problems = check_name(name) + check_description(description) + check_parameters(parameters)
        if problems:
            raise ToolDefinitionError(f"tool {name!r}", problems)
        schema = canonicalize(dict(parameters))
        required = set(schema.get("required", ()))
        nulls = frozenset(k for k, v in schema.get("properties", {}).items()
                          if k not in required and not is_nullable(v))
        options.setdefault("null_means_default", nulls)
        options.setdefault("null_defaults", True)
        options.setdefault("is_async", inspect.iscoroutinefunction(handler))
        return cls(name=name, description=description, parameters=schema, handler=handler, **options)


@attrs.frozen(kw_only=True)
class ToolCall:
    """One call on its way through a registry's hooks: what the model asked for, and of which tool.

    A hook's ``before`` may return ``attrs.evolve(call, arguments={...})`` to change the arguments (they are
    validated again), a :class:`~agenttools.ToolOutput` to answer without running the tool, or None.
    """

    name: str
    """The tool's name, as the model called it."""
    arguments: dict[str, Any]
    """The validated arguments; for a call that failed validation (seen by ``after`` only), what could be read."""
    tool: Tool | None
    """The tool, with its hints (``read_only``, ``is_destructive``); None when no tool has that name."""
    call_id: str
    """The SDK's call id (OpenAI ``tool_call_id``, Anthropic ``tool_use`` id, the MCP request id), else generated."""
    started: float = attrs.field(default=0.0, repr=False)
    """``time.monotonic()`` when the registry received the call."""
