"""What a tool call returns: ToolOutput and its content blocks, and how plain values become one."""

from __future__ import annotations

import base64
import enum
import json
import pathlib
from collections.abc import Iterable, Sequence
from typing import Any, Self

import attrs

from agenttools.errors import AgentToolsError

__all__ = ["ContentBlock", "DataBlock", "ImageBlock", "TextBlock", "ToolOutput", "default_error_text", "to_json_text"]


@attrs.frozen(kw_only=True)
class TextBlock:
    """A piece of text for the model."""

    text: str
    """The text."""


@attrs.frozen(kw_only=True)
class _InlineBlock:
    """Bytes for the model, base64-encoded, with their MIME type."""

    data: str
    """The bytes, base64-encoded (standard alphabet, padded)."""
    mime_type: str
    """The MIME type, e.g. ``image/png`` or ``application/pdf``."""

    @classmethod
    def from_bytes(cls, raw: bytes, mime_type: str) -> Self:
        """Encode raw bytes."""
        return cls(data=base64.b64encode(raw).decode("ascii"), mime_type=mime_type)

    def to_bytes(self) -> bytes:
        """Decode the bytes."""
        return base64.b64decode(self.data)


@attrs.frozen(kw_only=True)
class ImageBlock(_InlineBlock):
    """An image for the model, base64-encoded."""


@attrs.frozen(kw_only=True)
class DataBlock(_InlineBlock):
    """Other inline data for the model (a PDF, audio, video), base64-encoded."""


ContentBlock = TextBlock | ImageBlock | DataBlock


def _blocks(value: Iterable[ContentBlock]) -> tuple[ContentBlock, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True, repr=False)
class ToolOutput:
    """The result of one tool call, ready to hand to a model.

    ``text`` is exactly what the model must see (for toolsets: the contract's text); ``content`` is the same as
    content blocks (a single TextBlock for text results; images as ImageBlocks); ``data`` is the family's typed
    result, or the exception when ``is_error`` is true.
    """

    text: str
    """What the model must see."""
    is_error: bool = False
    """Whether the call failed (bad arguments, unknown tool, or the tool raised)."""
    content: tuple[ContentBlock, ...] = attrs.field(default=attrs.Factory(lambda s: (TextBlock(text=s.text),),
                                                                          takes_self=True),
                                                    converter=_blocks)
    """The output as content blocks, for SDKs that take them."""
    data: Any = None
    """The tool's own return value (typed result), or the exception for an error."""

    def to_openai(self, call_id: str) -> dict[str, Any]:
        """A Chat Completions ``{"role": "tool", "tool_call_id", "content"}`` message."""
        from agenttools._sdk import to_openai

        return to_openai(self, call_id)

    def to_openai_responses(self, call_id: str) -> dict[str, Any]:
        """A Responses ``function_call_output`` item (images as ``input_image`` parts)."""
        from agenttools._sdk import to_openai_responses

        return to_openai_responses(self, call_id)

    def to_anthropic(self, tool_use_id: str) -> dict[str, Any]:
        """An Anthropic ``tool_result`` block with ``is_error``; images as image blocks."""
        from agenttools._sdk import to_anthropic

        return to_anthropic(self, tool_use_id)

    def to_gemini(self, name: str, call_id: str | None = None) -> dict[str, Any]:
        """A google-genai ``Part`` dict holding the ``function_response``."""
        from agenttools._sdk import to_gemini

        return to_gemini(self, name, call_id)

    def to_mcp(self) -> dict[str, Any]:
        """An MCP ``CallToolResult`` dict (``content`` blocks and ``isError``)."""
        from agenttools._sdk import to_mcp

        return to_mcp(self)

    def __repr__(self) -> str:
        text = self.text if len(self.text) <= 200 else self.text[:197] + "..."
        blocks = ", ".join(type(b).__name__ for b in self.content)
        return f"ToolOutput(is_error={self.is_error}, text={text!r}, content=[{blocks}])"

    def _repr_markdown_(self) -> str:
        fence = "```"
        head = "**Error**\n\n" if self.is_error else ""
        return f"{head}{fence}\n{self.text}\n{fence}"

    def _repr_png_(self) -> bytes | None:
        for block in self.content:
            if isinstance(block, ImageBlock) and block.mime_type == "image/png":
                return block.to_bytes()
        return None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle: dict[str, Any] = {"text/plain": repr(self), "text/markdown": self._repr_markdown_()}
        for block in self.content:
            if isinstance(block, ImageBlock) and block.mime_type in ("image/png", "image/jpeg", "image/gif",
                                                                      "image/svg+xml"):
                bundle.setdefault(block.mime_type, block.to_bytes().decode("utf-8") if block.mime_type ==
                                  "image/svg+xml" else block.data)
        return bundle


def _json_default(value: Any) -> Any:
    if attrs.has(type(value)):
        return attrs.asdict(value, recurse=True, retain_collection_types=False)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, pathlib.PurePath):
        return str(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def to_json_text(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, also accepting attrs instances, enums, paths and sets."""
    return json.dumps(value, ensure_ascii=False, default=_json_default)


def _is_blocks(value: Any) -> bool:
    return (isinstance(value, Sequence) and not isinstance(value, str) and bool(value)
            and all(isinstance(v, TextBlock | ImageBlock | DataBlock) for v in value))


def to_output(value: Any) -> ToolOutput:
    """Turn a tool function's return value into a ToolOutput.

    A ToolOutput is kept as it is; a ``str`` is the text; a content block or a list of them is the content (the
    text joins the text blocks, with ``[image: <mime>]`` for each image); anything else is its JSON.
    """
    if isinstance(value, ToolOutput):
        return value
    if isinstance(value, str):
        return ToolOutput(text=value, data=value)
    if isinstance(value, TextBlock | ImageBlock | DataBlock):
        value = [value]
    if _is_blocks(value):
        blocks = tuple(value)
        text = "\n".join(b.text if isinstance(b, TextBlock) else
                          f"[{'image' if isinstance(b, ImageBlock) else 'data'}: {b.mime_type}]" for b in blocks)
        return ToolOutput(text=text, content=blocks, data=blocks)
    return ToolOutput(text=to_json_text(value), data=value)


def default_error_text(tool: str, error: BaseException) -> str:
    """The default error text, one line: ``Error: <message>``, with the exception type for errors not ours.

    Line breaks inside the message are folded into spaces so the model always gets a single line.
    """
    detail = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    if isinstance(error, AgentToolsError):
        return f"Error: {detail}"
    return f"Error: {type(error).__name__}: {detail}" if detail else f"Error: {type(error).__name__}"
