"""OpenAI Responses API: function tool definitions, ``function_call_output`` items, ``function_call`` items."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agenttools.blocks import Answer, ImageBlock, TextBlock, placeholder
from agenttools.sdk.openai import parameters
from agenttools.tool import Tool

__all__ = ["definitions", "parse_call", "result"]


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """Responses ``tools`` entries (flat: ``{"type": "function", "name", ...}``), strict as for Chat."""
    out = []
    for tool in tools:
        schema, is_strict = parameters(tool, strict)
        out.append({"type": "function", "name": tool.name, "description": tool.description, "parameters": schema,
                    "strict": is_strict})
    return out


def result(out: Answer, call_id: str) -> dict[str, Any]:
    """A ``function_call_output`` item; images become ``input_image`` parts."""
    if not any(isinstance(b, ImageBlock) for b in out.content):
        return {"type": "function_call_output", "call_id": call_id, "output": out.text}
    parts: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append({"type": "input_image", "image_url": f"data:{block.mime_type};base64,{block.data}"})
        else:
            parts.append({"type": "input_text", "text": placeholder(block)})
    if not any(p["type"] == "input_text" for p in parts):
        parts.insert(0, {"type": "input_text", "text": out.text})
    return {"type": "function_call_output", "call_id": call_id, "output": parts}


def parse_call(data: Mapping[str, Any]) -> tuple[str, Any, str | None] | None:
    """``(name, arguments, call_id)`` of a ``function_call`` item, or None when ``data`` is not one."""
    if data.get("type") != "function_call":
        return None
    return str(data.get("name")), data.get("arguments"), data.get("call_id")
