"""Google Gemini (google-genai): ``FunctionDeclaration`` dicts, ``function_response`` parts, ``function_call``s.

Parameters take the OpenAPI 3.0 subset Gemini's legacy ``parameters`` field accepts (:func:`gemini_legacy`):
upper-case types, ``nullable`` instead of null unions, unsupported keywords moved into descriptions.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agenttools.blocks import Answer, DataBlock, ImageBlock
from agenttools.errors import ToolDefinitionError
from agenttools.schema.transform import (
    Schema,
    Unrepresentable,
    canonicalize,
    inline_refs,
    map_children,
    move_to_description,
    note,
    strict_common,
)
from agenttools.tool import Tool

__all__ = ["definitions", "gemini_legacy", "parse_call", "result"]

_KEYS = {"type", "format", "description", "nullable", "enum", "maxItems", "minItems", "properties",
         "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
         "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"}


def gemini_legacy(schema: Schema) -> Schema | None:
    """Gemini ``FunctionDeclaration.parameters`` (OpenAPI 3.0 subset, T6); None when there are no parameters.

    Raises:
        ValueError: The schema cannot be represented (a recursive ``$ref``).
    """
    try:
        flat = inline_refs(canonicalize(schema))
    except Unrepresentable as exc:
        raise ValueError(str(exc)) from None
    if not flat.get("properties"):
        return None
    return _gemini_node(flat)


def _gemini_node(schema: Schema) -> Schema:
    node = strict_common(schema) if "allOf" not in schema or len(schema["allOf"]) == 1 else dict(schema)
    if "const" in node:
        node["enum"] = [node.pop("const")]
    branches = node.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        rest = [b for b in branches if b != {"type": "null"}]
        node.pop("anyOf")
        node = {**rest[0], **node} if len(rest) == 1 else {"anyOf": rest, **node}
        node["nullable"] = True
    kind = node.get("type")
    if isinstance(kind, list):
        non_null = [k for k in kind if k != "null"]
        if "null" in kind:
            node["nullable"] = True
        if len(non_null) == 1:
            node["type"] = non_null[0]
        else:
            node.pop("type")
            node["anyOf"] = [{"type": k} for k in non_null]
    if "default" in node and node["default"] is None:
        del node["default"]
    if "enum" in node:
        values = node["enum"]
        if not all(isinstance(v, str) for v in values if v is not None):
            del node["enum"]
            note(node, "Allowed values: " + ", ".join(json.dumps(v) for v in values) + ".")
        elif None in values:
            node["enum"] = [v for v in values if v is not None]
            node["nullable"] = True
    if node.get("format") not in (None, "date-time", "enum"):
        move_to_description(node, ("format",))
    if isinstance(node.get("additionalProperties"), dict):
        extra = node.pop("additionalProperties")
        note(node, f"(keys: any string; values: {json.dumps(extra, ensure_ascii=False)})")
    node.pop("additionalProperties", None)
    move_to_description(node, tuple(k for k in list(node) if k not in _KEYS and k != "description"))
    node = map_children(node, _gemini_node)
    if isinstance(node.get("type"), str):
        node["type"] = node["type"].upper()
    return node


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """One ``FunctionDeclaration`` dict per tool (wrap as ``{"function_declarations": defs}``); no strict mode.

    Raises:
        ToolDefinitionError: A schema cannot be expressed for Gemini (a recursive ``$ref``).
    """
    out = []
    for tool in tools:
        try:
            parameters = gemini_legacy(tool.parameters)
        except ValueError as exc:
            raise ToolDefinitionError(f"the Gemini definition of {tool.name!r}", [str(exc)]) from None
        entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
        if parameters is not None:
            entry["parameters"] = parameters
        out.append(entry)
    return out


def result(out: Answer, name: str, call_id: str | None = None) -> dict[str, Any]:
    """A ``Part`` with a ``function_response`` (``{"output": ...}`` or ``{"error": ...}``; inline data as parts)."""
    response: dict[str, Any] = {"name": name, "response": {"error" if out.is_error else "output": out.text}}
    if call_id:
        response["id"] = call_id
    parts = [{"inline_data": {"mime_type": b.mime_type, "data": b.data}} for b in out.content
             if isinstance(b, ImageBlock | DataBlock)]
    if parts:
        response["parts"] = parts
    return {"function_response": response}


def parse_call(data: Mapping[str, Any]) -> tuple[str, Any, str | None] | None:
    """``(name, args, id)`` of a ``function_call`` (the part or the call itself), or None when not one."""
    call = data.get("function_call", data.get("functionCall"))
    if isinstance(call, Mapping):
        # The part's wrapper says what this is, so a call without arguments is still a call.
        if "name" in call and set(call) <= {"name", "id", "args"}:
            return str(call["name"]), call.get("args") or {}, call.get("id")
        return None
    # A bare call needs its ``args``: ``{"name": ...}`` alone is no SDK's shape and is not guessed at.
    if "name" in data and "args" in data and set(data) <= {"name", "id", "args"}:
        return str(data["name"]), data.get("args") or {}, data.get("id")
    return None
