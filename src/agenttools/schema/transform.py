"""Rewriting JSON Schemas: walking subschemas, canonical form, inlined ``$ref``s, the steps strict modes share.

Pure JSON Schema, nothing SDK-specific: :mod:`agenttools.sdk` builds each target's form from these pieces (see
docs/registry.md, "What each format changes"). No function mutates its input.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Schema", "Unrepresentable", "canonicalize", "children", "close_object", "depth", "inline_refs",
           "map_children", "move_to_description", "note", "strict_common", "tuple_to_items"]

Schema = dict[str, Any]

_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


class Unrepresentable(Exception):  # noqa: N818 - control flow between a rewrite and its caller
    """The schema cannot be expressed in the target form (the SDK converters fall back or report it)."""


def children(schema: Schema) -> Iterator[Schema]:
    """The direct subschemas of ``schema`` (combinators, items, properties, definitions)."""
    for key in _SUBSCHEMA_LISTS:
        yield from (s for s in schema.get(key, ()) if isinstance(s, dict))
    for key in _SUBSCHEMA_SINGLE:
        if isinstance(schema.get(key), dict):
            yield schema[key]
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        yield from (s for s in schema.get(key, {}).values() if isinstance(s, dict))


def map_children(schema: Schema, fn: Callable[[Schema], Schema]) -> Schema:
    """A copy of ``schema`` with ``fn`` applied to each direct subschema."""
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
    out = map_children(schema, canonicalize)
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
                raise Unrepresentable(f"recursive $ref {ref}")
            target = walk(resolve(ref), (*seen, ref))
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **siblings}
        return map_children(node, lambda child: walk(child, seen))

    if "$defs" not in schema and "definitions" not in schema and '"$ref"' not in json.dumps(schema):
        return schema
    out = walk(schema, ())
    out.pop("$defs", None)
    out.pop("definitions", None)
    return out


def note(schema: Schema, text: str) -> None:
    """Append a sentence or a parenthesised note to the schema's description."""
    current = schema.get("description", "")
    schema["description"] = f"{current} {text}" if current else text


def move_to_description(schema: Schema, keys: tuple[str, ...]) -> None:
    """Move keywords a target does not take into the description, as ``(key=value, ...)``."""
    moved = {k: schema.pop(k) for k in keys if k in schema}
    if moved:
        note(schema, "(" + ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in moved.items()) + ")")


def tuple_to_items(schema: Schema) -> Schema:
    """T8: ``prefixItems`` becomes ``items`` (one schema, or an ``anyOf``) with exact min/max counts."""
    prefix = schema.pop("prefixItems")
    unique = [s for i, s in enumerate(prefix) if s not in prefix[:i]]
    schema["items"] = unique[0] if len(unique) == 1 else {"anyOf": unique}
    schema.setdefault("minItems", len(prefix))
    schema.setdefault("maxItems", len(prefix))
    if len(unique) > 1:
        note(schema, "(positional: [" + ", ".join(json.dumps(s, ensure_ascii=False) for s in prefix) + "])")
    return schema


def depth(schema: Schema) -> int:
    """How deeply subschemas nest (1 for a schema without any)."""
    return 1 + max((depth(c) for c in children(schema)), default=0)


def strict_common(schema: Schema) -> Schema:
    """Rewrites both strict modes share: oneOf→anyOf, merge a single allOf, tuples to items."""
    node = dict(schema)
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if "allOf" in node:
        parts = node.pop("allOf")
        if len(parts) != 1:
            raise Unrepresentable("allOf with several schemas")
        node = {**parts[0], **node}
    if "prefixItems" in node:
        node = tuple_to_items(node)
    return node


def close_object(node: Schema, *, all_required: bool, make_optional: Callable[[Schema], Schema]) -> Schema:
    """Close an object schema for a strict mode: no extra keys, optional properties rewritten by ``make_optional``.

    Raises:
        Unrepresentable: The object allows free-form keys.
    """
    if node.get("additionalProperties", False) not in (False, None) or "patternProperties" in node:
        raise Unrepresentable("object with free-form keys")
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
