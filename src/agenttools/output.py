"""What a tool call returns: :class:`ToolOutput`, how plain values become one, and the default error text."""

from __future__ import annotations

import enum
import json
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from agenttools._jsonable import jsonable
from agenttools.blocks import ContentBlock, DataBlock, ImageBlock, TextBlock, text_of
from agenttools.errors import AgentToolsError, code_of
from agenttools.sdk import anthropic, gemini, mcp, openai, openai_responses

__all__ = ["ContentBlock", "DataBlock", "ImageBlock", "TextBlock", "ToolOutput", "default_error_text", "error_code",
           "jsonable", "structured_output", "to_json_text", "to_output", "well_formed", "well_formed_output"]


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
    structured: Any = None
    """For a tool with an output schema: the result as a JSON value (``text`` holds the same JSON); else None."""

    def to_openai(self, call_id: str) -> dict[str, Any]:
        """A Chat Completions ``{"role": "tool", "tool_call_id", "content"}`` message."""
        return openai.result(self, call_id)

    def to_openai_responses(self, call_id: str) -> dict[str, Any]:
        """A Responses ``function_call_output`` item (images as ``input_image`` parts)."""
        return openai_responses.result(self, call_id)

    def to_anthropic(self, tool_use_id: str) -> dict[str, Any]:
        """An Anthropic ``tool_result`` block with ``is_error``; images as image blocks."""
        return anthropic.result(self, tool_use_id)

    def to_gemini(self, name: str, call_id: str | None = None) -> dict[str, Any]:
        """A google-genai ``Part`` dict holding the ``function_response``."""
        return gemini.result(self, name, call_id)

    def to_mcp(self) -> dict[str, Any]:
        """An MCP ``CallToolResult`` dict (``content`` blocks and ``isError``)."""
        return mcp.result(self)

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


def structured_output(value: Any, schema: Mapping[str, Any] | None = None) -> ToolOutput:
    """The answer of a tool with an output schema: ``structured`` the JSON value, ``text`` the same JSON.

    With ``schema`` (the tool's output schema), an object's keys follow its ``properties`` order, at any depth: a
    ``TypedDict`` or a dict written in another order reads as its type declares it.
    """
    if isinstance(value, ToolOutput | TextBlock | ImageBlock | DataBlock) or _is_blocks(value):
        return to_output(value)  # content, not a value (a bare ``-> list`` of blocks)
    structured = jsonable(value)
    if schema is not None:
        structured = _in_schema_order(schema, structured)
    return ToolOutput(text=json.dumps(structured, ensure_ascii=False), data=value, structured=structured)


def _in_schema_order(schema: Mapping[str, Any], value: Any) -> Any:
    """``value`` with each object's keys in the order its schema's ``properties`` name them (others after)."""
    if isinstance(value, dict):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        if isinstance(props, Mapping):
            keys = [k for k in props if k in value] + [k for k in value if k not in props]
            return {k: _in_schema_order(props.get(k, extra if isinstance(extra, Mapping) else {}), value[k])
                    for k in keys}
        if isinstance(extra, Mapping):
            return {k: _in_schema_order(extra, v) for k, v in value.items()}
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, Mapping):
            return [_in_schema_order(items, v) for v in value]
    branches = [b for b in schema.get("anyOf", ()) if isinstance(b, Mapping) and b.get("type") != "null"]
    if len(branches) == 1 and value is not None:
        return _in_schema_order(branches[0], value)
    return value


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
        text = text_of(blocks)
        return ToolOutput(text=text, content=blocks, data=blocks)
    return ToolOutput(text=to_json_text(value), data=value)


def well_formed(text: str) -> str:
    """``text`` as well-formed Unicode: each lone surrogate becomes U+FFFD (surrogate pairs are joined).

    A file name that is not UTF-8 reaches a tool's text as lone surrogates (Python's ``surrogateescape``), and
    UTF-8 cannot carry those: the SDKs' HTTP clients (httpx encodes JSON as UTF-8) and MCP's JSON writer raise.
    Node and Go upstreams show such bytes as U+FFFD, and so does every shell tool here.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def error_code(output: ToolOutput) -> str | None:
    """The error code of a failed output (``not_found``, ``invalid_arguments``, ``denied``...), None on success.

    A toolset's exact-text failure (:class:`~agenttools.ToolFailure`, code ``tool_failure``) raised while handling
    one of our errors gives that error's code; an exception without a code gives ``tool_error``.
    """
    return code_of(output.data) if output.is_error else None


def well_formed_output(out: ToolOutput) -> ToolOutput:
    """``out`` with its text and text blocks well-formed (:func:`well_formed`); ``out`` itself when they are."""
    text = out.text
    if text.isascii() and all(block.text is text or block.text.isascii() for block in out.content
                              if isinstance(block, TextBlock)):
        return out  # nearly every answer: one ASCII check, no copy
    text = well_formed(text)
    blocks = tuple(attrs.evolve(b, text=well_formed(b.text)) if isinstance(b, TextBlock) and
                   well_formed(b.text) is not b.text else b for b in out.content)
    if text is out.text and all(new is old for new, old in zip(blocks, out.content, strict=True)):
        return out
    return attrs.evolve(out, text=text, content=blocks)


def default_error_text(tool: str, error: BaseException) -> str:
    """The default error text, one line: ``Error: <message>``, with the exception type for errors not ours.

    Line breaks inside the message are folded into spaces so the model always gets a single line.
    """
    detail = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    if isinstance(error, AgentToolsError):
        return f"Error: {detail}"
    return f"Error: {type(error).__name__}: {detail}" if detail else f"Error: {type(error).__name__}"
