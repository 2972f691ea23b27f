"""Every toolset through every SDK: definitions, SDK-shaped results, tool calls from SDK objects, LangChain."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import warnings
from pathlib import Path
from typing import Any

import anthropic.types
import mcp.types
import openai.types.chat
import openai.types.responses
import openai.types.responses.response_input_item_param as responses_input
import openai.types.shared
import pydantic
import pytest
from google.genai import types as gtypes

import agenttools
from agenttools import DataBlock, ImageBlock, TextBlock, ToolOutput

GOLDEN = Path(__file__).parent / "golden"
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "mcp", "json-schema")
TOOLSETS = ("gemini", "editor", "assistant", "coder", "content")


def build(name: str, tmp_path: Path) -> agenttools.Registry:
    if name == "content":
        return agenttools.toolset("content", docroot=str(tmp_path),
                                  categories=[{"name": "docs", "dir": "."}])
    return agenttools.toolset(name, root=str(tmp_path))


def _typed_ok(typed_dict: Any, data: dict[str, Any]) -> None:
    """The SDK's TypedDict accepts ``data`` and knows every top-level key (TypedDicts ignore extras otherwise)."""
    pydantic.TypeAdapter(typed_dict).validate_python(data)
    known: set[str] = set()
    for klass in getattr(typed_dict, "__mro__", (typed_dict,)):
        known |= set(getattr(klass, "__annotations__", {}))
    assert set(data) <= known, set(data) - known


def _roundtrip(model: Any, data: dict[str, Any]) -> dict[str, Any]:
    return model.model_validate(data).model_dump(by_alias=True, exclude_none=True, mode="json")  # type: ignore[no-any-return]


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_definitions_match_golden_files_and_sdk_types(toolset, tmp_path):
    reg = build(toolset, tmp_path)
    emitted = {fmt: reg.definitions(fmt) for fmt in FORMATS}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every built-in schema can be OpenAI-strict: no fallback warning
        emitted["openai-strict"] = reg.definitions("openai", strict=True)
        emitted["anthropic-strict"] = reg.definitions("anthropic", strict=True)
    golden = GOLDEN / f"{toolset}.json"
    if os.environ.get("AGENTTOOLS_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(emitted, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert emitted == json.loads(golden.read_text(encoding="utf-8"))
    for definition in emitted["openai"] + emitted["openai-strict"]:
        assert _roundtrip(openai.types.chat.ChatCompletionFunctionTool, definition) == definition
    for definition in emitted["openai-responses"]:
        assert _roundtrip(openai.types.responses.FunctionTool, definition) == definition
    adapter = pydantic.TypeAdapter(anthropic.types.ToolParam)
    for definition in emitted["anthropic"]:
        assert adapter.validate_python(definition) == definition
    for definition in emitted["gemini"]:
        assert _roundtrip(gtypes.FunctionDeclaration, definition) == definition
    for definition in emitted["mcp"]:
        assert _roundtrip(mcp.types.Tool, definition) == definition
        assert set(definition["annotations"]) >= {"readOnlyHint", "destructiveHint", "idempotentHint",
                                                  "openWorldHint"}


def _strict_ok(schema: dict[str, Any]) -> None:
    if schema.get("type") == "object" or "properties" in schema:
        assert schema["additionalProperties"] is False
        assert schema["required"] == list(schema["properties"])
    assert "default" not in schema
    for key in ("properties",):
        for sub in schema.get(key, {}).values():
            _strict_ok(sub)
    for sub in schema.get("anyOf", []):
        _strict_ok(sub)
    if isinstance(schema.get("items"), dict):
        _strict_ok(schema["items"])


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_strict_openai_follows_the_rules(toolset, tmp_path):
    for definition in build(toolset, tmp_path).definitions("openai", strict=True):
        assert definition["function"]["strict"] is True
        _strict_ok(definition["function"]["parameters"])


# --- SDK-shaped results --------------------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + bytes(8)
TEXT = ToolOutput(text="hello")
ERROR = ToolOutput(text="Error: nope", is_error=True)
IMAGE = ToolOutput(text="Binary content of type image/png was processed.",
                   content=(ImageBlock.from_bytes(PNG, "image/png"),))
PDF = ToolOutput(text="Binary content of type application/pdf was processed.",
                 content=(DataBlock.from_bytes(b"%PDF-1.4", "application/pdf"),))
MIXED = ToolOutput(text="a", content=(TextBlock(text="a"), ImageBlock.from_bytes(PNG, "image/png")))


def test_to_openai():
    for out in (TEXT, ERROR, IMAGE):
        _typed_ok(openai.types.chat.ChatCompletionToolMessageParam, out.to_openai("call_1"))
    assert TEXT.to_openai("call_1") == {"role": "tool", "tool_call_id": "call_1", "content": "hello"}


def test_to_openai_responses():
    assert TEXT.to_openai_responses("c1") == {"type": "function_call_output", "call_id": "c1", "output": "hello"}
    item = IMAGE.to_openai_responses("c1")
    assert item["output"] == [
        {"type": "input_text", "text": "Binary content of type image/png was processed."},
        {"type": "input_image", "image_url": "data:image/png;base64," + base64.b64encode(PNG).decode()}]
    for out in (TEXT, ERROR, IMAGE, MIXED, PDF):
        _typed_ok(responses_input.FunctionCallOutput, out.to_openai_responses("c1"))


def test_to_anthropic():
    assert ERROR.to_anthropic("toolu_1") == {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                                             "content": [{"type": "text", "text": "Error: nope"}]}
    block = IMAGE.to_anthropic("toolu_1")
    assert block["content"][1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                               "data": base64.b64encode(PNG).decode()}}
    assert PDF.to_anthropic("t")["content"][1]["type"] == "document"
    for out in (TEXT, ERROR, IMAGE, MIXED, PDF):
        _typed_ok(anthropic.types.ToolResultBlockParam, out.to_anthropic("toolu_1"))


def test_to_gemini():
    assert TEXT.to_gemini("read_file") == {"function_response": {"name": "read_file",
                                                                 "response": {"output": "hello"}}}
    assert ERROR.to_gemini("read_file", "id-1") == {"function_response": {
        "name": "read_file", "response": {"error": "Error: nope"}, "id": "id-1"}}
    for out in (TEXT, ERROR, IMAGE, PDF):
        part = gtypes.Part.model_validate(out.to_gemini("read_file"))
        assert part.function_response is not None
        assert part.function_response.name == "read_file"
    part = gtypes.Part.model_validate(IMAGE.to_gemini("read_file"))
    assert part.function_response.parts[0].inline_data.mime_type == "image/png"  # type: ignore[index, union-attr]


def test_to_mcp():
    for out in (TEXT, ERROR, IMAGE, PDF):
        shaped = out.to_mcp()
        result = mcp.types.CallToolResult.model_validate(shaped)
        assert bool(getattr(result, "is_error", None) or getattr(result, "isError", None)) is out.is_error
    assert IMAGE.to_mcp()["content"] == [{"type": "image", "data": base64.b64encode(PNG).decode(),
                                          "mimeType": "image/png"}]


# --- reg.run: tool calls from each SDK, objects or dicts ---------------------------------------------------------

@pytest.fixture
def reg(tmp_path):
    (tmp_path / "a.txt").write_text("hi\n")
    return agenttools.toolset("gemini", root=str(tmp_path))


def test_run_openai_chat(reg, tmp_path):
    call = openai.types.chat.ChatCompletionMessageToolCall.model_validate({
        "id": "call_9", "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"absolute_path": f"{tmp_path}/a.txt"})}})
    assert reg.run(call) == {"role": "tool", "tool_call_id": "call_9", "content": "hi\n"}
    assert reg.run(call.model_dump()) == reg.run(call)


def test_run_openai_responses(reg, tmp_path):
    call = openai.types.responses.ResponseFunctionToolCall.model_validate({
        "type": "function_call", "call_id": "fc_1", "name": "read_file",
        "arguments": json.dumps({"absolute_path": f"{tmp_path}/a.txt"})})
    assert reg.run(call) == {"type": "function_call_output", "call_id": "fc_1", "output": "hi\n"}


def test_run_anthropic(reg, tmp_path):
    block = anthropic.types.ToolUseBlock.model_validate({
        "type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"absolute_path": f"{tmp_path}/nope"}})
    assert reg.run(block) == {"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                              "content": [{"type": "text", "text": f"File not found: {tmp_path}/nope"}]}


def test_run_gemini(reg, tmp_path):
    call = gtypes.FunctionCall(name="read_file", args={"absolute_path": f"{tmp_path}/a.txt"})
    expected = {"function_response": {"name": "read_file", "response": {"output": "hi\n"}}}
    assert reg.run(call) == expected
    assert reg.run(gtypes.Part(function_call=call)) == expected
    assert reg.run({"name": "read_file", "args": {"absolute_path": f"{tmp_path}/a.txt"}}) == expected


def test_arun_and_bad_calls(reg, tmp_path):
    result = asyncio.run(reg.arun({"type": "tool_use", "id": "t", "name": "read_file",
                                   "input": {"absolute_path": f"{tmp_path}/a.txt"}}))
    assert result["content"] == [{"type": "text", "text": "hi\n"}]
    with pytest.raises(ValueError, match="not a tool call"):
        reg.run({"hello": "world"})


# --- LangChain -------------------------------------------------------------------------------------------------

def test_langchain_tools(reg, tmp_path):
    from langchain_core.utils.function_calling import convert_to_openai_tool

    tools = reg.to_langchain()
    assert [t.name for t in tools] == list(reg.names())
    read = next(t for t in tools if t.name == "read_file")
    definition = reg.definitions("json-schema")[1]
    assert convert_to_openai_tool(read) == {"type": "function", "function": {
        "name": "read_file", "description": definition["description"], "parameters": definition["parameters"]}}
    assert read.invoke({"absolute_path": f"{tmp_path}/a.txt"}) == "hi\n"
    assert read.invoke({"absolute_path": 5}) == (
        "Error: Invalid parameters provided. Reason: params/absolute_path must be string")
    assert asyncio.run(read.ainvoke({"absolute_path": f"{tmp_path}/a.txt"})) == "hi\n"


def test_langchain_validates_custom_tools():
    reg = agenttools.Registry()

    @reg.tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers.

        Args:
            a: First addend.
            b: Second addend.
        """
        return a + b

    (tool,) = reg.to_langchain()
    assert tool.invoke({"a": 40}) == "42"
    assert tool.invoke({"a": "x"}) == "Error: invalid arguments for add: argument 'a' must be integer, got string"


def test_langchain_errors_are_error_tool_messages_and_images_are_image_blocks():
    from langchain_core.messages import ToolMessage

    reg = agenttools.Registry()

    @reg.tool
    def picture(fail: bool = False) -> list:
        """Return a picture, or fail.

        Args:
            fail: Whether to fail.
        """
        if fail:
            raise agenttools.ToolFailure("no picture today")
        return [agenttools.TextBlock(text="a dot"), agenttools.ImageBlock.from_bytes(PNG, "image/png")]

    (tool,) = reg.to_langchain()
    failed = tool.invoke({"type": "tool_call", "id": "c1", "name": "picture", "args": {"fail": True}})
    assert isinstance(failed, ToolMessage)
    assert (failed.status, failed.content, failed.tool_call_id) == ("error", "no picture today", "c1")
    shown = tool.invoke({"type": "tool_call", "id": "c2", "name": "picture", "args": {}})
    assert shown.status == "success"
    assert shown.content == [{"type": "text", "text": "a dot"},
                             {"type": "image", "base64": base64.b64encode(PNG).decode(), "mime_type": "image/png"}]
    assert asyncio.run(tool.ainvoke({"type": "tool_call", "id": "c3", "name": "picture",
                                     "args": {"fail": True}})).status == "error"


# --- notebooks -------------------------------------------------------------------------------------------------

def test_notebook_reprs():
    assert repr(TEXT) == "ToolOutput(is_error=False, text='hello', content=[TextBlock])"
    assert ERROR._repr_markdown_() == "**Error**\n\n```\nError: nope\n```"
    assert IMAGE._repr_png_() == PNG
    assert TEXT._repr_png_() is None
    bundle = IMAGE._repr_mimebundle_()
    assert bundle["image/png"] == base64.b64encode(PNG).decode()
    assert bundle["text/markdown"].startswith("```")
    long = ToolOutput(text="x" * 500)
    assert len(repr(long)) < 300


def test_results_show_as_markdown_tables(tmp_path):
    from agenttools import files, shell

    (tmp_path / "a.txt").write_text("x\n")
    result = files.read_file(agenttools.Workspace(tmp_path), "a.txt")
    table = result._repr_markdown_()
    assert table.startswith("**ReadResult**\n\n| field | value |\n|---|---|\n")
    assert "| lines | `('x', '')` |" in table
    ran = shell.run_shell("echo hi", cwd=tmp_path)
    assert "| stdout | `'hi\\n'` |" in ran._repr_markdown_()
    assert "ShellResult(" in repr(ran)
