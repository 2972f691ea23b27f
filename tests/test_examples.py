"""The integration examples in examples/ run against scripted SDK clients (no network), so the docs cannot rot."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anthropic.types
import openai.types.chat
import openai.types.responses
import pytest
from google.genai import types as gtypes

from conftest import EXAMPLES, load_example


def load(name: str) -> Any:
    return load_example(name)


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "a.txt").write_text("hi from the file\n")
    return tmp_path


class Scripted:
    """Returns the scripted responses in order and records every request."""

    def __init__(self, *responses: Any) -> None:
        self.responses = list(responses)
        self.requests: list[dict[str, Any]] = []

    def create(self, **kwargs: Any) -> Any:
        self.requests.append({k: list(v) if isinstance(v, list) else v for k, v in kwargs.items()})  # a snapshot
        return self.responses.pop(0)


def test_openai_chat(project):
    calls = Scripted(
        openai.types.chat.ChatCompletion.model_validate({
            "id": "1", "object": "chat.completion", "created": 0, "model": "m", "choices": [{
                "index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {
                    "name": "read_file", "arguments": json.dumps({"absolute_path": f"{project}/a.txt"})}}]}}]}),
        openai.types.chat.ChatCompletion.model_validate({
            "id": "2", "object": "chat.completion", "created": 0, "model": "m", "choices": [{
                "index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "It greets."}}]}))
    client = SimpleNamespace(chat=SimpleNamespace(completions=calls))
    assert load("openai_chat").run(client, str(project), "What does a.txt say?") == "It greets."
    assert calls.requests[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_1",
                                                 "content": "hi from the file\n"}
    assert calls.requests[0]["tools"][1]["function"]["name"] == "read_file"


def test_openai_responses(project):
    call = openai.types.responses.ResponseFunctionToolCall.model_validate({
        "type": "function_call", "call_id": "fc_1", "name": "view", "arguments": json.dumps({"path": "a.txt"})})
    calls = Scripted(SimpleNamespace(output=[call], output_text=""), SimpleNamespace(output=[], output_text="done"))
    client = SimpleNamespace(responses=calls)
    assert load("openai_responses").run(client, str(project), "Show a.txt") == "done"
    assert calls.requests[1]["input"][-1] == {"type": "function_call_output", "call_id": "fc_1",
                                              "output": "1\thi from the file\n"}
    assert all(tool["strict"] for tool in calls.requests[0]["tools"])


def test_anthropic(project):
    def message(content: list[dict[str, Any]], stop: str) -> Any:
        return anthropic.types.Message.model_validate({
            "id": "m", "type": "message", "role": "assistant", "model": "m", "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})

    calls = Scripted(message([{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}}],
                             "tool_use"),
                     message([{"type": "text", "text": "Read it."}], "end_turn"))
    client = SimpleNamespace(messages=calls)
    assert load("anthropic_messages").run(client, str(project), "Read a.txt") == "Read it."
    assert calls.requests[1]["messages"][-1] == {"role": "user", "content": [{
        "type": "tool_result", "tool_use_id": "toolu_1", "is_error": False,
        "content": [{"type": "text", "text": "hi from the file\n"}]}]}


def test_gemini(project):
    first = gtypes.GenerateContentResponse.model_validate({"candidates": [{"content": {"role": "model", "parts": [
        {"function_call": {"name": "read_file", "args": {"absolute_path": f"{project}/a.txt"}}}]}}]})
    last = gtypes.GenerateContentResponse.model_validate({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "It says hi."}]}}]})
    models = SimpleNamespace(requests=[], generate_content=None)
    script = [first, last]

    def generate_content(**kwargs: Any) -> Any:
        models.requests.append({k: list(v) if isinstance(v, list) else v for k, v in kwargs.items()})
        return script.pop(0)

    models.generate_content = generate_content
    assert load("gemini_genai").run(SimpleNamespace(models=models), str(project), "Read a.txt") == "It says hi."
    reply = models.requests[1]["contents"][-1]
    assert reply.parts[0].function_response.response == {"output": "hi from the file\n"}


def test_langchain(project):
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, ToolMessage

    model = GenericFakeChatModel(messages=iter([
        AIMessage(content="", tool_calls=[{"name": "read", "args": {"path": "a.txt"}, "id": "c1",
                                           "type": "tool_call"}]),
        AIMessage(content="done")]))
    seen: list[Any] = []
    original = model.invoke

    def invoke(messages: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(list(messages))
        return original(messages, *args, **kwargs)

    object.__setattr__(model, "invoke", invoke)
    assert load("langchain_tools").run(model, str(project), "Read a.txt") == "done"
    tool_message = seen[1][-1]
    assert isinstance(tool_message, ToolMessage)
    assert json.loads(tool_message.content) == {"success": True, "path": "a.txt", "content": "hi from the file\n",
                                                "size": 17}


def test_mcp_client(project):
    lines = asyncio.run(asyncio.wait_for(load("mcp_client").run(str(project)), 60))
    assert lines[:5] == ["view", "str_replace", "create_file", "bash", "task_output"]
    assert lines[5] == f"{project.name}/\n└── a.txt\n"


@pytest.mark.parametrize("name", ["openai_chat", "openai_responses", "anthropic_messages", "gemini_genai",
                                  "langchain_tools", "mcp_client", "quickstart"])
def test_every_example_runs_without_arguments_or_keys(name, project):
    """No argument and no API key: the example runs on the current directory and says what happened."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    if name not in ("mcp_client", "quickstart"):
        assert "(scripted model)" in done.stdout, done.stdout
    if name in ("openai_chat", "gemini_genai", "anthropic_messages", "openai_responses"):
        assert "is not set: a scripted client plays the model" in done.stdout


def test_examples_are_all_tested():
    tested = {"openai_chat", "openai_responses", "anthropic_messages", "gemini_genai", "langchain_tools",
              "mcp_client", "quickstart", "scripted",
              # the agent frameworks' examples, run by tests/integrations/test_<framework>.py
              "openai_agents_agent", "pydantic_ai_agent", "smolagents_agent", "llama_index_agent",
              "google_adk_agent", "crewai_agent", "langgraph_agent"}
    assert {p.stem for p in EXAMPLES.glob("*.py")} == tested
    assert sys.executable
