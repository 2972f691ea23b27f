"""Each SDK's shapes in one module per target, both directions: definitions out, calls in, results back.

=====================  ==========================================  ==========================================
format                 definitions                                 call in / result out
=====================  ==========================================  ==========================================
``openai``             :mod:`~agenttools.sdk.openai`               tool call / ``tool`` message
``openai-responses``   :mod:`~agenttools.sdk.openai_responses`     ``function_call`` / ``function_call_output``
``anthropic``          :mod:`~agenttools.sdk.anthropic`            ``tool_use`` / ``tool_result``
``gemini``             :mod:`~agenttools.sdk.gemini`               ``function_call`` / ``function_response``
``mcp``                :mod:`~agenttools.sdk.mcp`                  ``tools/call`` / ``CallToolResult``
``json-schema``        :mod:`~agenttools.sdk.json_schema`          (definitions only)
=====================  ==========================================  ==========================================

:mod:`agenttools.sdk.langchain` turns tools into LangChain ``StructuredTool``s. No SDK is imported here: every
shape is a plain dict, and SDK objects given to :func:`parse_call` are read through their own ``model_dump``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, get_args

from agenttools.blocks import Answer
from agenttools.sdk import anthropic, gemini, json_schema, mcp, openai, openai_responses
from agenttools.tool import Tool

__all__ = ["FORMATS", "Format", "ParsedCall", "definitions", "parse_call"]

Format = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp", "json-schema"]
FORMATS: tuple[str, ...] = get_args(Format)

_DEFINITIONS: dict[str, Callable[[Sequence[Tool], bool | None], list[dict[str, Any]]]] = {
    "openai": openai.definitions, "openai-responses": openai_responses.definitions,
    "anthropic": anthropic.definitions, "gemini": gemini.definitions, "mcp": mcp.definitions,
    "json-schema": json_schema.definitions,
}


def definitions(tools: Sequence[Tool], format: str, *, strict: bool | None = None) -> list[dict[str, Any]]:
    """Definitions of ``tools`` in ``format`` (see :data:`FORMATS`); each call returns fresh dicts.

    A tool with a native definition for ``format`` (:attr:`Tool.native`, e.g. Anthropic's
    ``{"type": "bash_20250124", "name": "bash"}``) is emitted as that dict, in its place among the others.

    Raises:
        ValueError: Unknown format.
        ToolDefinitionError: A schema cannot be expressed in the format (a recursive schema for Gemini).
    """
    emit = _DEFINITIONS.get(format)
    if emit is None:
        raise ValueError(f"unknown definitions format {format!r}; use one of: {', '.join(FORMATS)}")
    if not any(format in tool.native for tool in tools):
        return copy.deepcopy(emit(tools, strict))
    # a tool with a native definition for this format (Anthropic's ``{"type": "bash_20250124", ...}``) is emitted
    # as that dict, verbatim; the others go through the format's emitter together (strict budgets are shared)
    plain = iter(emit([tool for tool in tools if format not in tool.native], strict))
    return copy.deepcopy([dict(tool.native[format]) if format in tool.native else next(plain) for tool in tools])


class ParsedCall:
    """A tool call read from any SDK: which tool, what arguments, and how to shape the answer."""

    __slots__ = ("arguments", "call_id", "kind", "name")

    def __init__(self, kind: str, name: str, arguments: Any, call_id: str | None) -> None:
        self.kind = kind
        self.name = name
        self.arguments = arguments
        """The call's arguments; for a native item, its payload (see :attr:`native`)."""
        self.call_id = call_id

    @property
    def native(self) -> bool:
        """A provider's native call item: its payload goes through the tool's ``native_arguments`` first."""
        return self.kind in openai_responses.NATIVE_CALLS

    def shape(self, out: Answer) -> dict[str, Any]:
        """The answer in the caller's SDK shape."""
        if self.kind == "openai":
            return openai.result(out, self.call_id or "")
        if self.kind == "openai-responses":
            return openai_responses.result(out, self.call_id or "")
        if self.kind in openai_responses.NATIVE_CALLS:
            return openai_responses.native_result(self.kind, out, self.call_id or "")
        if self.kind == "anthropic":
            return anthropic.result(out, self.call_id or "")
        if self.kind == "mcp":
            return mcp.result(out)
        return gemini.result(out, self.name, self.call_id)


def _as_dict(value: Any) -> Any:
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        data = dump(mode="json", exclude_none=True)
        if isinstance(data, dict) and hasattr(value, "args") and hasattr(value, "name"):
            # A Gemini ``FunctionCall`` without arguments dumps to ``{"name": ...}``; keep its shape.
            data.setdefault("args", {})
        return data
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return value


_PARSERS = (("openai", openai.parse_call), ("openai-responses", openai_responses.parse_call),
            ("anthropic", anthropic.parse_call), ("gemini", gemini.parse_call), ("mcp", mcp.parse_call))


def parse_call(call: Any) -> ParsedCall:
    """Read a tool call from any supported SDK.

    Accepts an OpenAI tool call, a Responses ``function_call`` item (or a native ``apply_patch_call`` /
    ``shell_call`` item), an Anthropic ``tool_use`` block, a Gemini ``function_call`` (the part, or the call
    itself) or MCP ``tools/call`` params — SDK objects or plain dicts.

    Raises:
        ValueError: The object is none of those.
    """
    data = _as_dict(call)
    if not isinstance(data, Mapping):
        raise ValueError(f"not a tool call: {call!r}")
    native = openai_responses.parse_native_call(data)
    if native is not None:
        return ParsedCall(str(data["type"]), *native)
    for kind, parse in _PARSERS:
        found = parse(data)
        if found is not None:
            return ParsedCall(kind, *found)
    raise ValueError("not a tool call from a known SDK (an OpenAI tool call, a Responses function_call item, an "
                     "Anthropic tool_use block, a Gemini function_call or MCP tools/call params): "
                     f"{json.dumps(data, default=str)[:200]}")
