"""Tool results in each SDK's shape, and tool calls from each SDK's shape (plain dicts; no SDK imported)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agenttools._output import DataBlock, ImageBlock, TextBlock

if TYPE_CHECKING:
    from agenttools._output import ToolOutput

__all__ = ["ParsedCall", "parse_tool_call", "to_anthropic", "to_gemini", "to_mcp", "to_openai",
           "to_openai_responses"]


def _placeholder(block: ImageBlock | DataBlock) -> str:
    return f"[{'image' if isinstance(block, ImageBlock) else 'data'}: {block.mime_type}]"


def to_openai(out: ToolOutput, call_id: str) -> dict[str, Any]:
    """A Chat Completions ``tool`` message (text only: the API takes no images in tool messages)."""
    return {"role": "tool", "tool_call_id": call_id, "content": out.text}


def to_openai_responses(out: ToolOutput, call_id: str) -> dict[str, Any]:
    """A Responses ``function_call_output`` item; images become ``input_image`` parts."""
    if not any(isinstance(b, ImageBlock) for b in out.content):
        return {"type": "function_call_output", "call_id": call_id, "output": out.text}
    parts: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append({"type": "input_image", "image_url": f"data:{block.mime_type};base64,{block.data}"})
        else:
            parts.append({"type": "input_text", "text": _placeholder(block)})
    if not any(p["type"] == "input_text" for p in parts):
        parts.insert(0, {"type": "input_text", "text": out.text})
    return {"type": "function_call_output", "call_id": call_id, "output": parts}


def to_anthropic(out: ToolOutput, tool_use_id: str) -> dict[str, Any]:
    """A Messages ``tool_result`` block: text, images (base64) and PDFs (documents), with ``is_error``."""
    content: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            content.append({"type": "image", "source": {"type": "base64", "media_type": block.mime_type,
                                                        "data": block.data}})
        elif block.mime_type == "application/pdf":
            content.append({"type": "document", "source": {"type": "base64", "media_type": block.mime_type,
                                                           "data": block.data}})
        else:
            content.append({"type": "text", "text": _placeholder(block)})
    if not any(c["type"] == "text" for c in content):
        content.insert(0, {"type": "text", "text": out.text})
    return {"type": "tool_result", "tool_use_id": tool_use_id, "content": content, "is_error": out.is_error}


def to_gemini(out: ToolOutput, name: str, call_id: str | None = None) -> dict[str, Any]:
    """A ``Part`` with a ``function_response`` (``{"output": ...}`` or ``{"error": ...}``; inline data as parts)."""
    response: dict[str, Any] = {"name": name, "response": {"error" if out.is_error else "output": out.text}}
    if call_id:
        response["id"] = call_id
    parts = [{"inline_data": {"mime_type": b.mime_type, "data": b.data}} for b in out.content
             if isinstance(b, ImageBlock | DataBlock)]
    if parts:
        response["parts"] = parts
    return {"function_response": response}


def to_mcp(out: ToolOutput) -> dict[str, Any]:
    """An MCP ``CallToolResult``: text and image content blocks, embedded resources for other data, ``isError``."""
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


class ParsedCall:
    """A tool call read from any SDK: which tool, what arguments, and how to shape the answer."""

    __slots__ = ("arguments", "call_id", "kind", "name")

    def __init__(self, kind: str, name: str, arguments: Any, call_id: str | None) -> None:
        self.kind = kind
        self.name = name
        self.arguments = arguments
        self.call_id = call_id

    def shape(self, out: ToolOutput) -> dict[str, Any]:
        """The answer in the caller's SDK shape."""
        if self.kind == "openai":
            return to_openai(out, self.call_id or "")
        if self.kind == "openai-responses":
            return to_openai_responses(out, self.call_id or "")
        if self.kind == "anthropic":
            return to_anthropic(out, self.call_id or "")
        return to_gemini(out, self.name, self.call_id)


def _as_dict(value: Any) -> Any:
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return value


def parse_tool_call(call: Any) -> ParsedCall:
    """Read a tool call from any supported SDK.

    Accepts an OpenAI tool call, a Responses ``function_call`` item, an Anthropic ``tool_use`` block, or a Gemini
    ``function_call`` (the part, or the call itself) — SDK objects or plain dicts.

    Raises:
        ValueError: The object is none of those.
    """
    data = _as_dict(call)
    if not isinstance(data, Mapping):
        raise ValueError(f"not a tool call: {call!r}")
    if isinstance(data.get("function"), Mapping):
        function = data["function"]
        return ParsedCall("openai", str(function.get("name")), function.get("arguments"), data.get("id"))
    if data.get("type") == "function_call":
        return ParsedCall("openai-responses", str(data.get("name")), data.get("arguments"), data.get("call_id"))
    if data.get("type") == "tool_use":
        return ParsedCall("anthropic", str(data.get("name")), data.get("input"), data.get("id"))
    gemini = data.get("function_call", data.get("functionCall"))
    if isinstance(gemini, Mapping):
        data = gemini
    if "name" in data and ("args" in data or set(data) <= {"name", "id", "args"}):
        return ParsedCall("gemini", str(data["name"]), data.get("args") or {}, data.get("id"))
    raise ValueError(f"not a tool call from a known SDK: {json.dumps(data, default=str)[:200]}")
