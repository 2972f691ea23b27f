"""OpenAI Chat Completions: tool definitions (strict Structured Outputs form), tool messages, tool calls.

Definitions are ``{"type": "function", "function": {...}}`` with ``strict`` always explicit; a schema that cannot
be strict falls back to ``strict: false`` with a warning. The strict rewrite (:func:`openai_strict`) is shared
with :mod:`agenttools.sdk.openai_responses`.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from agenttools.blocks import Answer
from agenttools.schema import is_nullable
from agenttools.schema.transform import (
    Schema,
    Unrepresentable,
    canonicalize,
    close_object,
    depth,
    inline_refs,
    map_children,
    move_to_description,
    note,
    strict_common,
)
from agenttools.tool import Tool

__all__ = ["definitions", "openai_strict", "parameters", "parse_call", "result"]

_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
_NOTED = ("uniqueItems", "contains", "patternProperties", "propertyNames", "unevaluatedItems",
          "unevaluatedProperties", "minProperties", "maxProperties", "minLength", "maxLength",
          "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies",
          "examples", "discriminator")
_MAX_DEPTH = 10


def openai_strict(schema: Schema) -> Schema | None:
    """OpenAI Structured Outputs form (T1), or None when the schema cannot be strict."""
    try:
        flat = inline_refs(canonicalize(schema))
        if depth(flat) > _MAX_DEPTH * 2:
            return None
        return _openai_node(flat)
    except Unrepresentable:
        return None


def _openai_optional(sub: Schema) -> Schema:
    """Make an optional property required-but-nullable (its default was already moved to the description)."""
    if is_nullable(sub):
        return sub
    sub = dict(sub)
    description = sub.pop("description", None)
    wrapper: Schema = {"anyOf": [sub, {"type": "null"}]}
    if description is not None:
        wrapper["description"] = description
    return wrapper


def _openai_node(schema: Schema) -> Schema:
    node = strict_common(schema)
    if not node or ("type" not in node and not any(k in node for k in ("anyOf", "enum", "const"))):
        raise Unrepresentable("a schema without a type")
    if len(node.get("enum", ())) > 1000:
        raise Unrepresentable("more than 1000 enum values")
    default = node.pop("default", None)
    if default is not None:
        note(node, f"Default: {json.dumps(default, ensure_ascii=False)}.")
    fmt = node.get("format")
    if fmt is not None and fmt not in _FORMATS:
        move_to_description(node, ("format",))
    if "pattern" in node and any(look in node["pattern"] for look in ("(?=", "(?!", "(?<=", "(?<!")):
        move_to_description(node, ("pattern",))
    move_to_description(node, _NOTED)
    kinds: list[Any] = node["type"] if isinstance(node.get("type"), list) else [node.get("type")]
    if "array" in kinds and not node.get("items"):
        raise Unrepresentable("an array without typed items")
    node = map_children(node, _openai_node)
    if "object" in kinds or "properties" in node:
        node.setdefault("properties", {})
        if len(node["properties"]) > 5000:
            raise Unrepresentable("more than 5000 properties")
        node = close_object(node, all_required=True, make_optional=_openai_optional)
    return node


def parameters(tool: Tool, strict: bool | None) -> tuple[Schema, bool]:
    """The tool's parameters for OpenAI and whether they are strict (``strict=None``: the tool's preference)."""
    want = bool(tool.strict if strict is None else strict)
    canonical = canonicalize(tool.parameters)
    if not want:
        return canonical, False
    converted = openai_strict(canonical)
    if converted is None:
        warnings.warn(f"tool {tool.name!r}: schema cannot be OpenAI-strict; emitted with strict=false",
                      UserWarning, stacklevel=5)
        return canonical, False
    return converted, True


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """Chat Completions ``tools`` entries."""
    out = []
    for tool in tools:
        schema, is_strict = parameters(tool, strict)
        out.append({"type": "function", "function": {"name": tool.name, "description": tool.description,
                                                     "parameters": schema, "strict": is_strict}})
    return out


def result(out: Answer, call_id: str) -> dict[str, Any]:
    """A Chat Completions ``tool`` message (text only: the API takes no images in tool messages)."""
    return {"role": "tool", "tool_call_id": call_id, "content": out.text}


def parse_call(data: Mapping[str, Any]) -> tuple[str, Any, str | None] | None:
    """``(name, arguments, id)`` of a Chat Completions tool call, or None when ``data`` is not one."""
    function = data.get("function")
    if not isinstance(function, Mapping):
        return None
    return str(function.get("name")), function.get("arguments"), data.get("id")
