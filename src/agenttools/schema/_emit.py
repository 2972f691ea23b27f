"""Tool definitions in each SDK's shape, from a tool's name, description and canonical parameters."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from agenttools.errors import ToolDefinitionError
from agenttools.schema._targets import (
    anthropic_budget,
    anthropic_strict,
    canonicalize,
    gemini_legacy,
    openai_strict,
)

if TYPE_CHECKING:
    from agenttools.registry import Tool

__all__ = ["FORMATS", "Format", "emit"]

Format = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp", "json-schema"]
FORMATS: tuple[str, ...] = get_args(Format)

# Anthropic's per-request budgets for strict tools (docs "Strict tool use").
_ANTHROPIC_MAX_STRICT_TOOLS = 20
_ANTHROPIC_MAX_OPTIONAL = 24
_ANTHROPIC_MAX_UNIONS = 16


def _openai_parameters(tool: Tool, strict: bool) -> tuple[dict[str, Any], bool]:
    canonical = canonicalize(tool.parameters)
    if not strict:
        return canonical, False
    converted = openai_strict(canonical)
    if converted is None:
        warnings.warn(f"tool {tool.name!r}: schema cannot be OpenAI-strict; emitted with strict=false",
                      UserWarning, stacklevel=4)
        return canonical, False
    return converted, True


def _anthropic(tools: Sequence[Tool], strict: bool | None) -> list[dict[str, Any]]:
    out = []
    strict_count = optional_total = union_total = 0
    for tool in tools:
        entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
        schema = canonicalize(tool.parameters)
        want = tool.strict if strict is None else strict
        converted = anthropic_strict(schema) if want else None
        if converted is not None:
            optional, unions = anthropic_budget(converted)
            fits = (strict_count < _ANTHROPIC_MAX_STRICT_TOOLS
                    and optional_total + optional <= _ANTHROPIC_MAX_OPTIONAL
                    and union_total + unions <= _ANTHROPIC_MAX_UNIONS)
            if fits:
                strict_count += 1
                optional_total += optional
                union_total += unions
                entry["strict"] = True
                schema = converted
            else:
                warnings.warn(f"tool {tool.name!r}: over Anthropic's strict budget; emitted without strict",
                              UserWarning, stacklevel=3)
        elif want:
            warnings.warn(f"tool {tool.name!r}: schema cannot be Anthropic-strict; emitted without strict",
                          UserWarning, stacklevel=3)
        entry["input_schema"] = schema
        out.append(entry)
    return out


def _gemini(tool: Tool) -> dict[str, Any]:
    try:
        parameters = gemini_legacy(tool.parameters)
    except ValueError as exc:
        raise ToolDefinitionError(f"the Gemini definition of {tool.name!r}", [str(exc)]) from None
    entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if parameters is not None:
        entry["parameters"] = parameters
    return entry


def _mcp(tool: Tool) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": tool.name}
    if tool.title:
        entry["title"] = tool.title
    entry["description"] = tool.description
    entry["inputSchema"] = canonicalize(tool.parameters)
    annotations: dict[str, Any] = {}
    if tool.title:
        annotations["title"] = tool.title
    annotations.update(
        readOnlyHint=tool.read_only,
        destructiveHint=tool.is_destructive,
        idempotentHint=tool.idempotent,
        openWorldHint=tool.open_world,
    )
    entry["annotations"] = annotations
    return entry


def emit(tools: Sequence[Tool], format: str, *, strict: bool | None = None) -> list[dict[str, Any]]:
    """Definitions of ``tools`` in ``format`` (see :data:`FORMATS`); each call returns fresh dicts.

    Raises:
        ValueError: Unknown format.
        ToolDefinitionError: A schema cannot be expressed in the format (a recursive schema for Gemini).
    """
    if format not in FORMATS:
        raise ValueError(f"unknown definitions format {format!r}; use one of: {', '.join(FORMATS)}")
    out: list[dict[str, Any]]
    if format in ("openai", "openai-responses"):
        out = []
        for tool in tools:
            want = bool(tool.strict if strict is None else strict)
            parameters, is_strict = _openai_parameters(tool, want)
            body = {"name": tool.name, "description": tool.description, "parameters": parameters,
                    "strict": is_strict}
            out.append({"type": "function", "function": body} if format == "openai" else {"type": "function",
                                                                                          **body})
    elif format == "anthropic":
        out = _anthropic(tools, strict)
    elif format == "gemini":
        out = [_gemini(t) for t in tools]
    elif format == "mcp":
        out = [_mcp(t) for t in tools]
    else:
        out = [{"name": t.name, "description": t.description, "parameters": canonicalize(t.parameters)}
               for t in tools]
    return copy.deepcopy(out)
