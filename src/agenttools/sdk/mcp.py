"""Model Context Protocol: ``Tool`` definitions with annotations, ``CallToolResult`` dicts, ``tools/call`` params."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agenttools.blocks import Answer, ImageBlock, TextBlock
from agenttools.schema import canonicalize
from agenttools.tool import Tool

__all__ = ["definitions", "output_schema", "parse_call", "result", "title_of", "unwrapped_output_schema", "wrapped"]

_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
"""Where a camelCase name starts a word."""


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """One MCP ``Tool`` dict per tool, always with a ``title`` and ``annotations`` (the hints); no strict mode."""
    out = []
    for tool in tools:
        title = tool.title or title_of(tool.name)
        entry: dict[str, Any] = {"name": tool.name, "title": title, "description": tool.description,
                                 "inputSchema": canonicalize(tool.parameters)}
        if tool.output_schema is not None:
            entry["outputSchema"] = output_schema(tool.output_schema)
        annotations: dict[str, Any] = {"title": title}
        annotations.update(readOnlyHint=tool.read_only, destructiveHint=tool.is_destructive,
                           idempotentHint=tool.idempotent, openWorldHint=tool.open_world)
        entry["annotations"] = annotations
        out.append(entry)
    return out


def title_of(name: str) -> str:
    """The display name of a tool that has none: its name in words (``read_file``, ``readFile`` -> ``Read file``)."""
    spaced = _WORD_BREAK.sub(" ", name)
    words = [w if w.isupper() and len(w) > 1 else w.lower() for w in re.split(r"[\s_.\-]+", spaced) if w]
    if not words:
        return name
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


def wrapped(schema: Mapping[str, Any]) -> bool:
    """Whether a result of this schema is sent as ``{"result": value}`` (MCP wants an object at the root)."""
    return schema.get("type") != "object"


def output_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The MCP ``outputSchema`` of a tool's result schema: itself for an object, else ``{"result": ...}``."""
    schema = canonicalize(dict(schema))
    if not wrapped(schema):
        return schema
    return {"type": "object", "properties": {"result": schema}, "required": ["result"],
            "additionalProperties": False}


def unwrapped_output_schema(schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A tool's own output schema from an MCP ``outputSchema`` (the inverse of :func:`output_schema`)."""
    if schema is None:
        return None
    props = schema.get("properties")
    if (schema.get("type") == "object" and isinstance(props, Mapping) and list(props) == ["result"]
            and schema.get("required") == ["result"] and schema.get("additionalProperties") is False):
        inner = props["result"]
        if isinstance(inner, Mapping) and wrapped(inner):
            return dict(inner)
    return dict(schema)


def result(out: Answer, schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A ``CallToolResult`` dict: text and image blocks, embedded resources for other data, ``isError``.

    A structured answer (``out.structured``, not None) also gives ``structuredContent``: wrapped as
    ``{"result": value}`` when ``schema`` (the tool's output schema) is not an object, or, without a schema, when the
    value is not one. A tool with a wrapped schema that answered None (an ``Optional`` result) gives
    ``{"result": null}``; without a schema, None is its text (``null``) alone.
    """
    content: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            content.append({"type": "image", "data": block.data, "mimeType": block.mime_type})
        else:
            content.append({"type": "resource", "resource": {"uri": f"data:{block.mime_type};base64",
                                                             "mimeType": block.mime_type, "blob": block.data}})
    answer: dict[str, Any] = {"content": content, "isError": out.is_error}
    structured = getattr(out, "structured", None)
    if out.is_error:
        return answer
    if structured is not None:
        wrap = wrapped(schema) if schema is not None else not isinstance(structured, dict)
        answer["structuredContent"] = {"result": structured} if wrap else structured
    elif schema is not None and wrapped(schema):  # a None result of an Optional type: a value the schema allows
        answer["structuredContent"] = {"result": None}
    return answer


def parse_call(data: Mapping[str, Any]) -> tuple[str, Any, str | None] | None:
    """``(name, arguments, None)`` of ``tools/call`` params (``{"name", "arguments"}``), or None when not those."""
    if set(data) - {"name", "arguments", "_meta"} or not isinstance(data.get("name"), str) or "arguments" not in data:
        return None
    return data["name"], data.get("arguments") or {}, None
