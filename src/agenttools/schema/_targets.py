"""Per-target rewrites of a canonical parameters schema (see docs/registry.md, "What each format changes").

Each function takes the canonical schema and returns a new one; none mutates its input. Rewrites that cannot
be done return None (strict modes: the caller falls back to the non-strict form) or raise ``_Unrepresentable``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

from agenttools.schema._validate import is_nullable

__all__ = ["anthropic_strict", "canonicalize", "gemini_legacy", "inline_refs", "openai_strict"]

Schema = dict[str, Any]

_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_OPENAI_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
_ANTHROPIC_FORMATS = _OPENAI_FORMATS | {"uri"}
_OPENAI_NOTED = ("uniqueItems", "contains", "patternProperties", "propertyNames", "unevaluatedItems",
                 "unevaluatedProperties", "minProperties", "maxProperties", "minLength", "maxLength",
                 "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies",
                 "examples", "discriminator")
_ANTHROPIC_NOTED = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
                    "maxLength", "maxItems", "uniqueItems", "contains", "patternProperties", "propertyNames",
                    "unevaluatedItems", "unevaluatedProperties", "minProperties", "maxProperties", "not", "if",
                    "then", "else", "dependentRequired", "dependentSchemas", "dependencies", "examples",
                    "discriminator")
_GEMINI_KEYS = {"type", "format", "description", "nullable", "enum", "maxItems", "minItems", "properties",
                "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
                "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"}
_MAX_DEPTH = 10


class _Unrepresentable(Exception):  # noqa: N818 - internal control flow, never escapes this package
    """The schema cannot be expressed in the target form."""


def _children(schema: Schema) -> Iterator[Schema]:
    for key in _SUBSCHEMA_LISTS:
        yield from (s for s in schema.get(key, ()) if isinstance(s, dict))
    for key in _SUBSCHEMA_SINGLE:
        if isinstance(schema.get(key), dict):
            yield schema[key]
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        yield from (s for s in schema.get(key, {}).values() if isinstance(s, dict))


def _map_children(schema: Schema, fn: Callable[[Schema], Schema]) -> Schema:
    out = dict(schema)
    for key in _SUBSCHEMA_LISTS:
        if key in out:
            out[key] = [fn(s) if isinstance(s, dict) else s for s in out[key]]
    for key in _SUBSCHEMA_SINGLE:
        if isinstance(out.get(key), dict):
            out[key] = fn(out[key])
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        if isinstance(out.get(key), dict):
            out[key] = {k: fn(v) if isinstance(v, dict) else v for k, v in out[key].items()}
    return out


def canonicalize(schema: Schema) -> Schema:
    """Drop ``title`` and ``$schema`` keywords at every schema level (never a property *named* title)."""
    out = _map_children(schema, canonicalize)
    out.pop("title", None)
    out.pop("$schema", None)
    return out


def inline_refs(schema: Schema) -> Schema:
    """Replace every local ``$ref`` by its target and drop ``$defs``; a recursive reference is unrepresentable."""
    root = schema

    def resolve(ref: str) -> Schema:
        node: Any = root
        for part in ref.lstrip("#").split("/")[1:]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return dict(node)

    def walk(node: Schema, seen: tuple[str, ...]) -> Schema:
        if "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                raise _Unrepresentable(f"recursive $ref {ref}")
            target = walk(resolve(ref), (*seen, ref))
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings}
        return _map_children(node, lambda child: walk(child, seen))

    if "$defs" not in schema and "definitions" not in schema and '"$ref"' not in json.dumps(schema):
        return schema
    out = walk(schema, ())
    out.pop("$defs", None)
    out.pop("definitions", None)
    return out


def _note(schema: Schema, text: str) -> None:
    """Append a sentence or a parenthesised note to the schema's description."""
    current = schema.get("description", "")
    schema["description"] = f"{current} {text}" if current else text


def _move_to_description(schema: Schema, keys: tuple[str, ...]) -> None:
    moved = {k: schema.pop(k) for k in keys if k in schema}
    if moved:
        _note(schema, "(" + ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in moved.items()) + ")")


def _tuple_to_items(schema: Schema) -> Schema:
    """T8: ``prefixItems`` becomes ``items`` (one schema, or an ``anyOf``) with exact min/max counts."""
    prefix = schema.pop("prefixItems")
    unique = [s for i, s in enumerate(prefix) if s not in prefix[:i]]
    schema["items"] = unique[0] if len(unique) == 1 else {"anyOf": unique}
    schema.setdefault("minItems", len(prefix))
    schema.setdefault("maxItems", len(prefix))
    if len(unique) > 1:
        _note(schema, "(positional: [" + ", ".join(json.dumps(s, ensure_ascii=False) for s in prefix) + "])")
    return schema


def _depth(schema: Schema) -> int:
    return 1 + max((_depth(c) for c in _children(schema)), default=0)


def _strict_common(schema: Schema) -> Schema:
    """Rewrites both strict modes share: oneOf→anyOf, merge a single allOf, tuples to items."""
    node = dict(schema)
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if "allOf" in node:
        parts = node.pop("allOf")
        if len(parts) != 1:
            raise _Unrepresentable("allOf with several schemas")
        node = {**parts[0], **node}
    if "prefixItems" in node:
        node = _tuple_to_items(node)
    return node


def _close_object(node: Schema, *, all_required: bool, make_optional: Callable[[Schema], Schema]) -> Schema:
    if node.get("additionalProperties", False) not in (False, None) or "patternProperties" in node:
        raise _Unrepresentable("object with free-form keys")
    props = node.get("properties", {})
    required = list(node.get("required", []))
    new_props = {}
    for key, sub in props.items():
        new_props[key] = sub if key in required else make_optional(sub)
    node["properties"] = new_props
    if all_required:
        node["required"] = list(props)
    node["additionalProperties"] = False
    return node


def openai_strict(schema: Schema) -> Schema | None:
    """OpenAI Structured Outputs form (T1), or None when the schema cannot be strict."""
    try:
        flat = inline_refs(canonicalize(schema))
        if _depth(flat) > _MAX_DEPTH * 2:
            return None
        return _openai_node(flat)
    except _Unrepresentable:
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
    node = _strict_common(schema)
    if not node or ("type" not in node and not any(k in node for k in ("anyOf", "enum", "const"))):
        raise _Unrepresentable("a schema without a type")
    if len(node.get("enum", ())) > 1000:
        raise _Unrepresentable("more than 1000 enum values")
    default = node.pop("default", None)
    if default is not None:
        _note(node, f"Default: {json.dumps(default, ensure_ascii=False)}.")
    fmt = node.get("format")
    if fmt is not None and fmt not in _OPENAI_FORMATS:
        _move_to_description(node, ("format",))
    if "pattern" in node and any(look in node["pattern"] for look in ("(?=", "(?!", "(?<=", "(?<!")):
        _move_to_description(node, ("pattern",))
    _move_to_description(node, _OPENAI_NOTED)
    kinds: list[Any] = node["type"] if isinstance(node.get("type"), list) else [node.get("type")]
    if "array" in kinds and not node.get("items"):
        raise _Unrepresentable("an array without typed items")
    node = _map_children(node, _openai_node)
    if "object" in kinds or "properties" in node:
        node.setdefault("properties", {})
        if len(node["properties"]) > 5000:
            raise _Unrepresentable("more than 5000 properties")
        node = _close_object(node, all_required=True, make_optional=_openai_optional)
    return node


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
    except _Unrepresentable:
        return None


def _anthropic_node(schema: Schema) -> Schema:
    node = _strict_common(schema)
    fmt = node.get("format")
    if fmt is not None and fmt not in _ANTHROPIC_FORMATS:
        _move_to_description(node, ("format",))
    if node.get("minItems", 0) > 1:
        _note(node, f"(minItems={node['minItems']})")
        node["minItems"] = 1
    _move_to_description(node, _ANTHROPIC_NOTED)
    node = _map_children(node, _anthropic_node)
    kinds: list[Any] = node["type"] if isinstance(node.get("type"), list) else [node.get("type")]
    if "object" in kinds or "properties" in node:
        node.setdefault("properties", {})
        node = _close_object(node, all_required=False, make_optional=_anthropic_optional)
    return node


def anthropic_budget(schema: Schema) -> tuple[int, int]:
    """(optional parameters, union-typed parameters) of a strict Anthropic schema, for the request budgets."""
    required = set(schema.get("required", ()))
    props = schema.get("properties", {})
    optional = sum(1 for k in props if k not in required)
    unions = sum(1 for s in props.values() if "anyOf" in s or isinstance(s.get("type"), list))
    return optional, unions


def gemini_legacy(schema: Schema) -> Schema | None:
    """Gemini ``FunctionDeclaration.parameters`` (OpenAPI 3.0 subset, T6); None when there are no parameters.

    Raises:
        ValueError: The schema cannot be represented (a recursive ``$ref``).
    """
    try:
        flat = inline_refs(canonicalize(schema))
    except _Unrepresentable as exc:
        raise ValueError(str(exc)) from None
    if not flat.get("properties"):
        return None
    return _gemini_node(flat)


def _gemini_node(schema: Schema) -> Schema:
    node = _strict_common(schema) if "allOf" not in schema or len(schema["allOf"]) == 1 else dict(schema)
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
            _note(node, "Allowed values: " + ", ".join(json.dumps(v) for v in values) + ".")
        elif None in values:
            node["enum"] = [v for v in values if v is not None]
            node["nullable"] = True
    if node.get("format") not in (None, "date-time", "enum"):
        _move_to_description(node, ("format",))
    if isinstance(node.get("additionalProperties"), dict):
        extra = node.pop("additionalProperties")
        _note(node, f"(keys: any string; values: {json.dumps(extra, ensure_ascii=False)})")
    node.pop("additionalProperties", None)
    _move_to_description(node, tuple(k for k in list(node) if k not in _GEMINI_KEYS and k != "description"))
    node = _map_children(node, _gemini_node)
    if isinstance(node.get("type"), str):
        node["type"] = node["type"].upper()
    return node


def copy_schema(schema: Schema) -> Schema:
    """A deep copy, so callers may change emitted definitions freely."""
    return copy.deepcopy(schema)
