"""Model Context Protocol: ``Tool`` definitions with annotations, ``CallToolResult`` dicts, ``tools/call`` params."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agenttools.blocks import Answer, ImageBlock, TextBlock
from agenttools.schema import canonicalize
from agenttools.tool import Tool

__all__ = ["definitions", "parse_call", "result"]


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """One MCP ``Tool`` dict per tool, always with ``annotations`` (the hints); MCP has no strict mode."""
    out = []
    for tool in tools:
        entry: dict[str, Any] = {"name": tool.name}
        if tool.title:
            entry["title"] = tool.title
        entry["description"] = tool.description
        entry["inputSchema"] = canonicalize(tool.parameters)
        annotations: dict[str, Any] = {}
        if tool.title:
            annotations["title"] = tool.title
        annotations.update(readOnlyHint=tool.read_only, destructiveHint=tool.is_destructive,
                           idempotentHint=tool.idempotent, openWorldHint=tool.open_world)
        entry["annotations"] = annotations
        out.append(entry)
    return out


def result(out: Answer) -> dict[str, Any]:
    """A ``CallToolResult`` dict: text and image blocks, embedded resources for other data, ``isError``."""
    content: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            content.append({"type": "image", "data": block.data, "mimeType": block.mime_type})
        else:
            content.append({"type": "resource", "resource": {"uri": f"data:{block.mime_type};base64",
                                                             "mimeType": block.mime_type, "blob": block.data}})
    return {"content": content, "isError": out.is_error}


def parse_call(data: Mapping[str, Any]) -> tuple[str, Any, str | None] | None:
    """``(name, arguments, None)`` of ``tools/call`` params (``{"name", "arguments"}``), or None when not those."""
    if set(data) - {"name", "arguments", "_meta"} or not isinstance(data.get("name"), str) or "arguments" not in data:
        return None
    return data["name"], data.get("arguments") or {}, None
