"""pydantic-ai's own agent loop over ``reg.to_pydantic_ai()``, with its ``TestModel`` and ``FunctionModel``."""

from __future__ import annotations

import asyncio
import copy
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, UnexpectedModelBehavior, capture_run_messages
from pydantic_ai.messages import (
    BinaryImage,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

import agenttools
from conftest import GONE_WITHIN, cancel_and_wait_gone, load_example, process_alive, read_pid, tiny_png

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PATH_TOOLS = {"list_directory", "read_file", "write_file", "replace"}
"""The gemini tools whose path must be absolute: TestModel's generated ``"a"`` is an argument error for them."""


class Script:
    """A FunctionModel function: answers from a list of responses, recording each request and the tools shown."""

    def __init__(self, *responses: list[Any]) -> None:
        self.responses = list(responses)
        self.requests: list[ModelRequest] = []
        self.tools: list[Any] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests.append(messages[-1])  # type: ignore[arg-type]
        self.tools = list(info.function_tools)
        return ModelResponse(parts=self.responses.pop(0))

    def returns(self, turn: int) -> dict[str, ToolReturnPart]:
        return {p.tool_call_id: p for p in self.requests[turn].parts if isinstance(p, ToolReturnPart)}


def run(agent: Agent[Any, Any], prompt: str | None = None, **kwargs: Any) -> Any:
    """``agent.run`` on a loop of its own (``run_sync`` keeps its loop as the thread's current one, unclosed)."""
    return asyncio.run(agent.run(prompt, **kwargs))


def returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def test_the_model_is_shown_our_schemas_and_hints(agent_registry):
    script = Script([TextPart("ok")])
    run(Agent(FunctionModel(script), toolsets=[agent_registry.to_pydantic_ai()]), "hi")
    assert [(t.name, t.description, t.parameters_json_schema) for t in script.tools] == [
        (d["name"], d["description"], d["parameters"]) for d in agent_registry.definitions("json-schema")]
    assert all(t.strict is None and t.kind == "function" for t in script.tools)  # the provider decides
    hints = {t.name: t.metadata["annotations"] for t in script.tools}
    assert hints == {tool.name: {"readOnlyHint": tool.read_only, "destructiveHint": tool.is_destructive,
                                 "idempotentHint": tool.idempotent, "openWorldHint": tool.open_world,
                                 "title": tool.title} for tool in agent_registry}  # MCPToolset's names
    assert hints["read_file"]["readOnlyHint"] and hints["write_file"]["destructiveHint"]


def test_strict_shows_our_openai_strict_schemas(agent_registry):
    script = Script([TextPart("ok")])
    run(Agent(FunctionModel(script), toolsets=[agent_registry.to_pydantic_ai(strict=True)]), "hi")
    expected = [(tool.name, agenttools.sdk.openai.parameters(tool, True)[0]) for tool in agent_registry]
    assert [(t.name, t.parameters_json_schema) for t in script.tools] == expected
    assert all(t.strict is True for t in script.tools)
    for _, schema in expected:  # pydantic-ai's own OpenAI strict transformer leaves ours as it is
        assert OpenAIJsonSchemaTransformer(copy.deepcopy(schema), strict=True).walk() == schema


def test_test_model_calls_every_tool_with_generated_arguments(agent_registry):
    with capture_run_messages() as messages, pytest.raises(UnexpectedModelBehavior, match="exceeded max retries"):
        # TestModel retries the path tools with the same relative path "a": their retry budget (the agent's
        # retries=1) runs out, which ends a pydantic-ai run by design
        run(Agent(TestModel(), toolsets=[agent_registry.to_pydantic_ai()]), "go")
    parts = returns(messages)
    assert {p.tool_name for p in parts} == set(agent_registry.names())
    retried = [p for p in parts if p.outcome == "retried"]
    assert {p.tool_name for p in retried} == PATH_TOOLS
    assert all(p.content.startswith("Error: Invalid parameters provided. Reason: ") for p in retried)

    rest = agent_registry.select([name for name in agent_registry.names() if name not in PATH_TOOLS])
    result = run(Agent(TestModel(), toolsets=[rest.to_pydantic_ai()]), "go")
    parts = returns(result.all_messages())
    assert sorted(p.tool_name for p in parts) == sorted(rest.names())
    assert all(p.outcome == "success" and isinstance(p.content, str) for p in parts)


def test_the_run_shows_the_model_our_texts_errors_and_images(agent_registry, agent_workspace: Path):
    ws = agent_workspace
    script = Script(
        [ToolCallPart("read_file", {"absolute_path": f"{ws}/a.txt"}, "ok"),
         ToolCallPart("read_file", {"absolute_path": f"{ws}/missing.txt"}, "bad"),
         ToolCallPart("read_file", {"absolute_path": f"{ws}/img.png"}, "img"),
         ToolCallPart("read_file", {"absolute_path": 7}, "args")],
        [ToolCallPart("read_file", '{"absolute_path": ', "json")],
        [TextPart("done")])
    # two argument errors in a row on read_file: the agent's default budget (retries=1) would end the run
    result = run(Agent(FunctionModel(script), toolsets=[agent_registry.to_pydantic_ai(max_retries=2)]), "go")
    assert result.output == "done"
    shown = script.returns(1) | script.returns(2)
    assert (shown["ok"].outcome, shown["ok"].content) == ("success", "hello\n")
    assert (shown["bad"].outcome, shown["bad"].content) == ("failed", f"File not found: {ws / 'missing.txt'}")
    assert (shown["args"].outcome, shown["args"].content) == (
        "retried", "Error: Invalid parameters provided. Reason: params/absolute_path must be string")
    assert (shown["json"].outcome, shown["json"].content) == (
        "retried", "Error: Invalid parameters provided. Reason: arguments are not valid JSON: "
                   "Expecting value: line 1 column 19 (char 18)")
    image = shown["img"]
    assert image.outcome == "success"
    assert image.content[0] == "Binary content of type image/png was processed."
    assert isinstance(image.content[1], BinaryImage)
    assert (image.content[1].media_type, image.content[1].data) == ("image/png", tiny_png())
    # a provider without an error channel gets pydantic-ai's error rendering of our text
    assert shown["bad"].model_response_str() == f'{{"error":"File not found: {ws / "missing.txt"}"}}'


def test_tool_error_behavior_retry_makes_failures_retries(agent_registry, agent_workspace: Path):
    script = Script([ToolCallPart("read_file", {"absolute_path": f"{agent_workspace}/missing.txt"}, "bad")],
                    [TextPart("done")])
    toolset = agent_registry.to_pydantic_ai(tool_error_behavior="retry")
    assert run(Agent(FunctionModel(script), toolsets=[toolset]), "go").output == "done"
    part = script.returns(1)["bad"]
    assert (part.outcome, part.content) == ("retried", f"File not found: {agent_workspace / 'missing.txt'}")


def test_destructive_tools_are_deferred_for_approval(agent_registry, agent_workspace: Path):
    target = agent_workspace / "new.txt"
    script = Script([ToolCallPart("write_file", {"file_path": str(target), "content": "x"}, "w"),
                     ToolCallPart("read_file", {"absolute_path": f"{agent_workspace}/a.txt"}, "r")],
                    [TextPart("done")])
    toolset = agent_registry.to_pydantic_ai(requires_approval=lambda tool: tool.is_destructive)
    agent = Agent(FunctionModel(script), toolsets=[toolset], output_type=[str, DeferredToolRequests])
    first = run(agent, "go")
    assert {t.name for t in script.tools if t.kind == "unapproved"} == {
        t.name for t in agent_registry if t.is_destructive}
    assert isinstance(first.output, DeferredToolRequests)
    assert [call.tool_name for call in first.output.approvals] == ["write_file"]
    assert not target.exists()  # nothing ran before the decision
    resumed = run(agent, message_history=first.all_messages(),
                 deferred_tool_results=DeferredToolResults(approvals={"w": True}))
    assert resumed.output == "done" and target.read_text() == "x"
    shown = {p.tool_call_id: p for p in returns(resumed.all_messages())}
    assert shown["r"].content == "hello\n" and shown["w"].outcome == "success" and "new.txt" in shown["w"].content


def test_a_timeout_cancels_the_call_and_kills_the_command(agent_registry, agent_workspace: Path):
    pid_file = agent_workspace / "pid"
    script = Script([ToolCallPart("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"}, "t")],
                    [TextPart("done")])
    toolset = agent_registry.to_pydantic_ai(timeout=2)
    assert run(Agent(FunctionModel(script), toolsets=[toolset]), "go").output == "done"
    part = script.returns(1)["t"]
    assert (part.outcome, part.content) == ("retried", "Timed out after 2 seconds.")
    pid = read_pid(pid_file, timeout=1)
    deadline = time.monotonic() + GONE_WITHIN
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid)


def test_cancelling_the_run_kills_the_command(agent_workspace: Path):
    pid_file = agent_workspace / "pid"
    script = Script([ToolCallPart("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"}, "slow")])

    async def main() -> int:
        with agenttools.toolset("gemini", root=str(agent_workspace)) as reg:
            agent = Agent(FunctionModel(script), toolsets=[reg.to_pydantic_ai()])
            task = asyncio.ensure_future(agent.run("wait"))
            pid = await asyncio.to_thread(read_pid, pid_file)
            assert process_alive(pid)
            await cancel_and_wait_gone(task, pid)
            return pid

    pid = asyncio.run(asyncio.wait_for(main(), 60))
    assert not process_alive(pid)


def test_without_pydantic_ai_the_error_names_the_extra(agent_registry, monkeypatch):
    for name in [name for name in sys.modules if name.split(".")[0] == "pydantic_ai"]:
        monkeypatch.setitem(sys.modules, name, None)  # imported already: hide the submodules too
    with pytest.raises(ImportError, match=r"pip install 'agenttools\[pydantic-ai\]'"):
        agent_registry.to_pydantic_ai()


def test_the_example_runs_offline(tmp_path):
    (tmp_path / "notes.txt").write_text("x\n")
    example = load_example("pydantic_ai_agent")
    try:
        answer = example.run(example.scripted_model(), str(tmp_path), "What is in this project?")
    finally:  # the example's Agent.run_sync ran on a loop it made current and keeps: close it, as asyncio.run does
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop()
        loop.close()
        asyncio.set_event_loop(None)
    assert answer.startswith("(scripted model) The tool answered:") and "notes.txt" in answer
