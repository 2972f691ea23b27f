"""Anthropic Messages: tool definitions (with strict tool use where it fits), ``tool_result`` blocks, ``tool_use``.

Strict tool use has per-request budgets (at most 20 strict tools, 24 optional and 16 union-typed parameters in
all); a tool over budget or not expressible is emitted without ``strict``, with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from agenttools.blocks import Answer, ImageBlock, TextBlock, placeholder
from agenttools.schema.transform import (
    Schema,
    Unrepresentable,
    canonicalize,
    close_object,
    inline_refs,
    map_children,
    move_to_description,
    note,
    strict_common,
)
from agenttools.tool import Tool

__all__ = ["anthropic_budget", "anthropic_strict", "definitions", "parse_call", "result"]

_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"}
_NOTED = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
          "maxLength", "maxItems", "uniqueItems", "contains", "patternProperties", "propertyNames",
          "unevaluatedItems", "unevaluatedProperties", "minProperties", "maxProperties", "not", "if",
          "then", "else", "dependentRequired", "dependentSchemas", "dependencies", "examples",
          "discriminator")
# Anthropic's per-request budgets for strict tools (docs "Strict tool use").
_MAX_STRICT_TOOLS = 20
_MAX_OPTIONAL = 24
_MAX_UNIONS = 16


def _anthropic_optional(sub: Schema) -> Schema:
    """``anyOf: [X, null]`` with ``default: null`` becomes ``X``: absence already means null (saves a union)."""
    branches = sub.get("anyOf")
    if "default" in sub and sub["default"] is None and isinstance(branches, list) and {"type": "null"} in branches:
        rest = [b for b in branches if b != {"type": "null"}]
        kept = {k: v for k, v in sub.items() if k not in ("anyOf", "default")}
        return {**rest[0], **kept} if len(rest) == 1 else {"anyOf": rest, **kept}
    return sub


def anthropic_strict(schema: Schema) -> Schema | None:
    """Anthropic strict tool-use form (T4), or None when the schema cannot be strict."""
    try:
        return _anthropic_node(inline_refs(canonicalize(schema)))
    except Unrepresentable:
        return None


def _anthropic_node(schema: Schema) -> Schema:
    node = strict_common(schema)
    fmt = node.get("format")
    if fmt is not None and fmt not in _FORMATS:
        move_to_description(node, ("format",))
    if node.get("minItems", 0) > 1:
        note(node, f"(minItems={node['minItems']})")
        node["minItems"] = 1
    move_to_description(node, _NOTED)
    node = map_children(node, _anthropic_node)
    kinds: list[Any] = node["type"] if isinstance(node.get("type"), list) else [node.get("type")]
    if "object" in kinds or "properties" in node:
        node.setdefault("properties", {})
        node = close_object(node, all_required=False, make_optional=_anthropic_optional)
    return node


def anthropic_budget(schema: Schema) -> tuple[int, int]:
    """(optional parameters, union-typed parameters) of a strict Anthropic schema, for the request budgets."""
    required = set(schema.get("required", ()))
    props = schema.get("properties", {})
    optional = sum(1 for k in props if k not in required)
    unions = sum(1 for s in props.values() if "anyOf" in s or isinstance(s.get("type"), list))
    return optional, unions


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """Messages ``tools`` entries: ``{"name", "description", "input_schema"}``, ``strict: true`` where it fits."""
    out = []
    strict_count = optional_total = union_total = 0
    for tool in tools:
        entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
        schema = canonicalize(tool.parameters)
        want = tool.strict if strict is None else strict
        converted = anthropic_strict(schema) if want else None
        if converted is not None:
            optional, unions = anthropic_budget(converted)
            fits = (strict_count < _MAX_STRICT_TOOLS
                    and optional_total + optional <= _MAX_OPTIONAL
                    and union_total + unions <= _MAX_UNIONS)
            if fits:
                strict_count += 1
                optional_total += optional
                union_total += unions
                entry["strict"] = True
                schema = converted
            else:
                warnings.warn(f"tool {tool.name!r}: over Anthropic's strict budget; emitted without strict",
                              UserWarning, stacklevel=4)
        elif want:
            warnings.warn(f"tool {tool.name!r}: schema cannot be Anthropic-strict; emitted without strict",
                          UserWarning, stacklevel=4)
        entry["input_schema"] = schema
        out.append(entry)
    return out


def result(out: Answer, tool_use_id: str) -> dict[str, Any]:
    """A ``tool_result`` block: text, images (base64) and PDFs (documents), with ``is_error``.

    Text that is empty or only whitespace is left out (the API refuses such a block): an empty answer is
    ``"content": []``, as Anthropic's reference loop sends a command that printed nothing.
    """
    content: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            if block.text.strip():  # the API refuses a text block that is empty or only whitespace
                content.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            content.append({"type": "image", "source": {"type": "base64", "media_type": block.mime_type,
                                                        "data": block.data}})
        elif block.mime_type == "application/pdf":
            content.append({"type": "document", "source": {"type": "base64", "media_type": block.mime_type,
                                                           "data": block.data}})
        else:
            content.append({"type": "text", "text": placeholder(block)})
    if not any(c["type"] == "text" for c in content) and out.text.strip():
        content.insert(0, {"type": "text", "text": out.text})
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": out.is_error}


def parse_call(data: Mapping[str, Any]) -> tuple[str, Any, str | None] | None:
    """``(name, input, id)`` of a ``tool_use`` block, or None when ``data`` is not one."""
    if data.get("type") != "tool_use":
        return None
    return str(data.get("name")), data.get("input"), data.get("id")
