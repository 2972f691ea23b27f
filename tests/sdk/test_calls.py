"""Tool calls read from every SDK's shape by agenttools.sdk.parse_call, answered in the same shape."""

from __future__ import annotations

import pytest

from agenttools import Registry, ToolFailure
from agenttools.sdk import parse_call


@pytest.fixture
def reg() -> Registry:
    reg = Registry()

    @reg.tool
    def echo(text: str) -> str:
        """Echo the text.

        Args:
            text: The text.
        """
        if text == "fail":
            raise ToolFailure("failed exactly")
        return text

    return reg


@pytest.mark.parametrize(("call", "kind", "call_id"), [
    ({"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"text": "hi"}'}}, "openai", "c1"),
    ({"type": "function_call", "call_id": "c2", "name": "echo", "arguments": '{"text": "hi"}'}, "openai-responses",
     "c2"),
    ({"type": "tool_use", "id": "c3", "name": "echo", "input": {"text": "hi"}}, "anthropic", "c3"),
    ({"function_call": {"id": "c4", "name": "echo", "args": {"text": "hi"}}}, "gemini", "c4"),
    ({"name": "echo", "arguments": {"text": "hi"}}, "mcp", None),
])
def test_each_sdk_shape_is_recognised(call, kind, call_id):
    parsed = parse_call(call)
    assert (parsed.kind, parsed.name, parsed.call_id) == (kind, "echo", call_id)


def test_mcp_call_params_get_a_call_tool_result(reg):
    assert reg.run({"name": "echo", "arguments": {"text": "hi"}}) == {
        "content": [{"type": "text", "text": "hi"}], "isError": False}
    assert reg.run({"name": "echo", "arguments": {"text": "fail"}}) == {
        "content": [{"type": "text", "text": "failed exactly"}], "isError": True}


@pytest.mark.parametrize("call", [{"name": "echo", "arguments": {}, "extra": 1}, {"arguments": {}}, "echo", 3,
                                  {"name": "echo"}, {"name": "echo", "id": "x"}, {"function_call": {"name": "echo",
                                                                                                     "x": 1}}])
def test_anything_else_is_refused(call):
    with pytest.raises(ValueError, match="not a tool call"):
        parse_call(call)


def test_gemini_calls_without_arguments_are_still_gemini_calls(reg):
    """A genai ``FunctionCall`` with no args dumps to ``{"name": ...}``; its type, or the part's wrapper, says what it is."""
    from google.genai import types

    @reg.tool
    def ping() -> str:
        """Answer pong."""
        return "pong"

    assert parse_call(types.FunctionCall(name="ping")).kind == "gemini"
    assert parse_call(types.Part(function_call=types.FunctionCall(name="ping"))).kind == "gemini"
    assert parse_call({"functionCall": {"name": "ping"}}).kind == "gemini"
    assert reg.run(types.FunctionCall(name="ping")) == {
        "function_response": {"name": "ping", "response": {"output": "pong"}}}
