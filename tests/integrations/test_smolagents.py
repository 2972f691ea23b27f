"""smolagents' own agent loop (``ToolCallingAgent``) over ``reg.to_smolagents()``, with a scripted ``Model``."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import PIL.Image
import pytest
from smolagents import CodeAgent, ToolCallingAgent
from smolagents.memory import ActionStep
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)
from smolagents.monitoring import LogLevel
from smolagents.utils import AgentError

import agenttools
from agenttools.sdk import openai as openai_sdk
from agenttools.sdk.smolagents import exact_schemas
from conftest import GONE_WITHIN, gone, load_example, read_pid, tiny_png

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "smolagents_agent.py"


class Scripted(Model):
    """Answers with one scripted tool call per turn; records what a real model would be sent."""

    def __init__(self, *script: tuple[str, dict[str, Any]]) -> None:
        super().__init__(model_id="scripted")
        self.script = list(script)
        self.inputs: list[list[ChatMessage]] = []  # the messages the agent handed over
        self.sent: list[dict[str, Any]] = []  # the request a provider would get (tools, messages with image URLs)

    def generate(self, messages: list[ChatMessage], stop_sequences: list[str] | None = None,
                 response_format: dict[str, str] | None = None, tools_to_call_from: list[Any] | None = None,
                 **kwargs: Any) -> ChatMessage:
        self.inputs.append(list(messages))
        self.sent.append(self._prepare_completion_kwargs(messages=messages, tools_to_call_from=tools_to_call_from,
                                                         convert_images_to_image_urls=True))
        name, arguments = self.script.pop(0)
        call = ChatMessageToolCall(id=f"call_{len(self.inputs)}", type="function",
                                   function=ChatMessageToolCallFunction(name=name, arguments=arguments))
        return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[call])

    def added(self, turn: int) -> list[ChatMessage]:
        """What the agent added to the model's input since the previous turn (one step's messages)."""
        return self.inputs[turn][len(self.inputs[turn - 1]):]


Exact = exact_schemas(Scripted)  # sends our definitions verbatim


def _run(reg: agenttools.Registry, model: Scripted, **options: Any) -> tuple[Any, ToolCallingAgent]:
    tools = reg.to_smolagents(**options)
    agent = tools.attach(ToolCallingAgent(tools=tools, model=model, max_steps=8, verbosity_level=LogLevel.OFF))
    return agent.run("go"), agent


def _text(message: ChatMessage) -> str:
    return "".join(part.get("text", "") for part in message.content if isinstance(part, dict))


def _retry(text: str) -> str:
    """The model's view of a failed step: smolagents wraps the error with its own advice."""
    return (f"Error:\n{text}\nNow let's retry: take care not to repeat previous errors! If you have retried several"
            " times, try a completely different approach.\n")


def _failure(reg: agenttools.Registry, name: str, arguments: dict[str, Any]) -> str:
    """How smolagents words a call our tool answered with an error (it raises ToolFailure with our text)."""
    return _retry(f"Error executing tool '{name}' with arguments {arguments}: ToolFailure: "
                  f"{reg.call(name, arguments).text}\nPlease try again or use another tool")


def _final(answer: str = "done") -> tuple[str, dict[str, Any]]:
    return "final_answer", {"answer": answer}


def test_a_successful_call_shows_our_text(agent_registry, agent_workspace: Path):
    model = Exact(("read_file", {"absolute_path": str(agent_workspace / "a.txt")}), _final())
    answer, agent = _run(agent_registry, model)
    assert answer == "done"
    added = model.added(1)
    assert [m.role for m in added] == [MessageRole.TOOL_CALL, MessageRole.TOOL_RESPONSE]
    assert _text(added[1]) == "Observation:\nhello"  # smolagents strips the observation ("hello\n")
    assert agent.memory.steps[1].observations == "hello"


def test_a_failed_call_is_an_error_step_with_our_text(agent_registry, agent_workspace: Path):
    arguments = {"absolute_path": str(agent_workspace / "missing.txt")}
    model = Exact(("read_file", arguments), _final())
    answer, agent = _run(agent_registry, model)
    assert answer == "done"  # the run goes on
    step = agent.memory.steps[1]
    assert isinstance(step, ActionStep)
    assert type(step.error).__name__ == "AgentToolExecutionError"
    added = model.added(1)
    assert [m.role for m in added] == [MessageRole.TOOL_RESPONSE]  # no tool-call message for a failed call
    assert _text(added[0]) == _failure(agent_registry, "read_file", arguments)
    assert f"ToolFailure: File not found: {agent_workspace / 'missing.txt'}\n" in _text(added[0])


def test_an_image_is_shown_as_a_smolagents_image_before_our_text(agent_registry, agent_workspace: Path):
    model = Exact(("read_file", {"absolute_path": str(agent_workspace / "img.png")}), _final())
    _run(agent_registry, model)
    added = model.added(1)
    assert [m.role for m in added] == [MessageRole.TOOL_CALL, MessageRole.USER, MessageRole.TOOL_RESPONSE]
    [part] = added[1].content
    assert part["type"] == "image" and isinstance(part["image"], PIL.Image.Image)
    assert part["image"].size == (1, 1) and part["image"].getpixel((0, 0)) == (255, 0, 0)
    assert _text(added[2]) == "Observation:\nBinary content of type image/png was processed."
    # a provider gets it as a PNG data URL (smolagents re-encodes the image: this PNG survives byte for byte)
    urls = [part["image_url"]["url"] for message in model.sent[1]["messages"] if isinstance(message["content"], list)
            for part in message["content"] if part.get("type") == "image_url"]
    assert urls == ["data:image/png;base64," + base64.b64encode(tiny_png()).decode()]


def test_bad_arguments(agent_registry, agent_workspace: Path):
    path = str(agent_workspace / "a.txt")
    model = Exact(("read_file", {"absolute_path": 7}),  # smolagents' own type check answers first
                  ("read_file", {"absolute_path": path, "offset": -1}),  # passes it: the tool answers
                  _final())
    answer, agent = _run(agent_registry, model)
    assert answer == "done"
    assert type(agent.memory.steps[1].error).__name__ == "AgentToolCallError"
    assert _text(model.added(1)[-1]) == _retry("Argument absolute_path has type 'integer' but should be 'string'")
    assert _text(model.added(2)[-1]) == _failure(agent_registry, "read_file", {"absolute_path": path, "offset": -1})
    assert "ToolFailure: Error: Invalid parameters provided. Reason: Offset must be a non-negative number\n" in \
        _text(model.added(2)[-1])


def test_without_the_precheck_every_argument_error_is_ours(agent_registry):
    model = Exact(("read_file", {"absolute_path": 7}), _final())
    _run(agent_registry, model, precheck=False)
    assert _text(model.added(1)[-1]) == _failure(agent_registry, "read_file", {"absolute_path": 7})
    assert "ToolFailure: Error: Invalid parameters provided. Reason: params/absolute_path must be string\n" in \
        _text(model.added(1)[-1])
    sent = {spec["function"]["name"]: spec["function"] for spec in model.sent[0]["tools"]}
    assert sent == {d["name"]: d for d in agent_registry.definitions("json-schema")} | {"final_answer": ANY}


def test_a_code_agent_sees_our_texts(agent_registry, agent_workspace: Path):
    class Coder(Scripted):  # a CodeAgent's model answers with code that calls the tools as functions
        def generate(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
            self.inputs.append(list(messages))
            return ChatMessage(role=MessageRole.ASSISTANT, content=self.script.pop(0))

    model = Coder(f"<code>\nprint(read_file(absolute_path='{agent_workspace / 'a.txt'}'))\n</code>",
                  f"<code>\nread_file(absolute_path='{agent_workspace / 'missing.txt'}')\n</code>",
                  "<code>\nfinal_answer('done')\n</code>")
    tools = agent_registry.to_smolagents()
    agent = tools.attach(CodeAgent(tools=tools, model=model, max_steps=5, verbosity_level=LogLevel.OFF))
    assert agent.run("go") == "done"
    assert _text(model.added(1)[-1]) == "Observation:\nExecution logs:\nhello\n\nLast output from code snippet:\nNone"
    assert _text(model.added(2)[-1]) == "Call id: call_2\n" + _retry(
        f"Code execution failed at line 'read_file(absolute_path='{agent_workspace / 'missing.txt'}')' due to: "
        f"ToolFailure: File not found: {agent_workspace / 'missing.txt'}")


def _ours(sent: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool definitions of a request, but smolagents' own final_answer tool."""
    return [spec for spec in sent["tools"] if spec["function"]["name"] != "final_answer"]


def test_an_exact_schemas_model_shows_our_definitions_verbatim(agent_registry):
    model = Exact(_final())
    _run(agent_registry, model)
    assert _ours(model.sent[0]) == [{"type": "function", "function": d}
                                    for d in agent_registry.definitions("json-schema")]
    prompt = model.sent[0]["messages"][0]["content"][0]["text"]  # the system prompt lists them too
    for definition in agent_registry.definitions("json-schema"):
        assert (f"{definition['name']}: {definition['description']}\n"
                f"    Takes inputs: {json.dumps(definition['parameters'])}\n") in prompt


def test_strict_definitions(agent_registry, agent_workspace: Path):
    # a strict model sends every argument, null for "use the default"
    call = {"absolute_path": str(agent_workspace / "a.txt"), "offset": None, "limit": None}
    model = Exact(("read_file", call), _final())
    _run(agent_registry, model, strict=True)
    assert _text(model.added(1)[-1]) == "Observation:\nhello"
    assert _ours(model.sent[0]) == [
        {"type": "function", "function": {"name": tool.name, "description": tool.description,
                                          "parameters": openai_sdk.parameters(tool, True)[0], "strict": True}}
        for tool in agent_registry]


def test_a_stock_model_shows_our_properties_with_smolagents_nullable_flag(agent_registry):
    model = Scripted(_final())  # no ExactSchemas: smolagents builds the definitions from Tool.inputs
    _run(agent_registry, model)
    expected = []
    for definition in agent_registry.definitions("json-schema"):
        parameters = definition["parameters"]
        required = parameters.get("required", [])
        properties = {name: schema if name in required else {**schema, "nullable": True}
                      for name, schema in parameters["properties"].items()}
        expected.append({"type": "function", "function": {
            **definition, "parameters": {"type": "object", "properties": properties, "required": required}}})
    assert _ours(model.sent[0]) == expected


def test_hints_stay_on_the_tools(agent_registry):
    tools = {tool.name: tool for tool in agent_registry.to_smolagents()}
    assert tools["read_file"].agenttools_tool.read_only is True  # smolagents has no place for them
    assert tools["run_shell_command"].agenttools_tool.destructive is True


def test_interrupting_the_agent_kills_the_command(agent_registry, agent_workspace: Path):
    pid_file = agent_workspace / "pid"
    model = Exact(("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"}), _final("never"))
    tools = agent_registry.to_smolagents()
    agent = tools.attach(ToolCallingAgent(tools=tools, model=model, max_steps=4, verbosity_level=LogLevel.OFF))
    raised: list[BaseException] = []

    def run() -> None:
        try:
            agent.run("wait")
        except AgentError as error:
            raised.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    pid = read_pid(pid_file)
    agent.interrupt()
    thread.join(GONE_WITHIN)
    assert not thread.is_alive()
    assert [str(error) for error in raised] == ["Agent interrupted."]
    assert gone(pid)
    assert len(model.inputs) == 1  # the model was not asked again
    assert "ToolFailure: The call to run_shell_command was cancelled" in str(agent.memory.steps[1].error)


def test_a_missing_smolagents_names_the_extra(agent_registry, monkeypatch):
    for name in [name for name in sys.modules if name == "smolagents" or name.startswith("smolagents.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install 'agenttools\[smolagents\]'"):
        agent_registry.to_smolagents()


def _example() -> Any:
    return load_example("smolagents_agent")


def test_the_example_answers_with_what_the_tool_returned(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hi\n")
    example = _example()
    answer = example.run(example.ScriptedModel(str(tmp_path)), str(tmp_path), "What is in this project?")
    assert answer == f"(scripted model) The tool answered 2 line(s); the first: Directory listing for {tmp_path}:"


def test_the_example_runs_offline_without_an_api_key(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hi\n")
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    env.update(HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9", HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "OPENAI_API_KEY is not set" in done.stdout
    assert "(scripted model) The tool answered 2 line(s)" in done.stdout.splitlines()[-1]
