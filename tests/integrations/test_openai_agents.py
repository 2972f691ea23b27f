"""The OpenAI Agents SDK's own loop (``Runner.run``) over ``reg.to_openai_agents()``, with its ``ScriptedModel``."""

from __future__ import annotations

import asyncio
import base64
import copy
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, TracingProcessor
from agents.models.openai_responses import Converter
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tracing import setup as tracing_setup
from agents.tracing.provider import DefaultTraceProvider

import agenttools
from conftest import GONE_WITHIN, cancel_and_wait_gone, load_example, process_alive, read_pid, tiny_png

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class Spans(TracingProcessor):
    """Keeps the finished function spans' errors, by tool name."""

    def __init__(self) -> None:
        self.errors: dict[str, list[Any]] = {}

    def on_trace_start(self, trace: Any) -> None: ...
    def on_trace_end(self, trace: Any) -> None: ...
    def on_span_start(self, span: Any) -> None: ...

    def on_span_end(self, span: Any) -> None:
        if span.span_data.type == "function":
            self.errors.setdefault(span.span_data.name, []).append(span.error)

    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


@pytest.fixture(autouse=True)
def spans(monkeypatch) -> Spans:
    """Traces go to memory only (the SDK's default processor would export them to OpenAI)."""
    recorder = Spans()
    provider = DefaultTraceProvider()
    provider.register_processor(recorder)
    monkeypatch.setattr(tracing_setup, "GLOBAL_TRACE_PROVIDER", provider)
    return recorder


def outputs(model: ScriptedModel, turn: int) -> dict[str, Any]:
    """The function_call_output items the model is shown on ``turn``, by call id."""
    return {item["call_id"]: item["output"] for item in model.calls[turn].input
            if isinstance(item, dict) and item.get("type") == "function_call_output"}


def wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + GONE_WITHIN
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not process_alive(pid)


def test_the_model_is_shown_our_strict_schemas(agent_registry):
    model = ScriptedModel([[assistant_message("ok")]])
    result = asyncio.run(Runner.run(Agent(name="a", model=model, tools=agent_registry.to_openai_agents()), "hi"))
    assert result.final_output == "ok"
    shown = model.calls[0].tools
    assert all(isinstance(tool, FunctionTool) for tool in shown)
    expected = [(tool.name, tool.description, agenttools.sdk.openai.parameters(tool, True)[0]) for tool in agent_registry]
    assert [(t.name, t.description, t.params_json_schema) for t in shown] == expected
    assert all(t.strict_json_schema for t in shown)
    for _, _, schema in expected:  # the SDK's own strict pass leaves ours as it is
        assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema
    # the Responses request's `tools`, as the SDK's OpenAIResponsesModel builds it
    wire = Converter.convert_tools(list(shown), []).tools
    assert [(t["name"], t["parameters"], t["strict"]) for t in wire] == [(n, s, True) for n, _, s in expected]
    read_file = next(t for t in shown if t.name == "read_file").params_json_schema
    assert read_file["required"] == ["absolute_path", "offset", "limit"]  # optional: required but nullable
    assert {"type": "null"} in read_file["properties"]["offset"]["anyOf"]


def test_strict_false_shows_the_canonical_schemas(agent_registry):
    made = agent_registry.to_openai_agents(strict=False)
    assert [(t.name, t.description, t.params_json_schema) for t in made] == [
        (d["name"], d["description"], d["parameters"]) for d in agent_registry.definitions("json-schema")]
    assert not any(t.strict_json_schema for t in made)


def test_the_run_shows_the_model_our_texts_errors_and_images(agent_registry, agent_workspace: Path, spans: Spans):
    ws = agent_workspace
    model = ScriptedModel([
        [function_call("read_file", {"absolute_path": f"{ws}/a.txt"}, call_id="ok"),
         function_call("read_file", {"absolute_path": f"{ws}/a.txt", "offset": None, "limit": None}, call_id="nulls"),
         function_call("read_file", {"absolute_path": f"{ws}/missing.txt"}, call_id="bad"),
         function_call("read_file", {"absolute_path": f"{ws}/img.png"}, call_id="img"),
         function_call("read_file", {"absolute_path": 7}, call_id="args"),
         function_call("read_file", '{"absolute_path": ', call_id="json")],
        [assistant_message("done")],
    ])
    result = asyncio.run(Runner.run(Agent(name="a", model=model, tools=agent_registry.to_openai_agents()), "go"))
    model.assert_complete()
    assert result.final_output == "done"
    shown = outputs(model, 1)
    assert shown["ok"] == shown["nulls"] == "hello\n"  # a null is the parameter's default
    assert shown["bad"] == f"File not found: {ws / 'missing.txt'}"
    assert shown["args"] == "Error: Invalid parameters provided. Reason: params/absolute_path must be string"
    assert shown["json"] == ("Error: Invalid parameters provided. Reason: arguments are not valid JSON: "
                             "Expecting value: line 1 column 19 (char 18)")
    assert shown["img"] == [
        {"type": "input_text", "text": "Binary content of type image/png was processed."},
        {"type": "input_image", "image_url": "data:image/png;base64," + base64.b64encode(tiny_png()).decode()}]
    # the SDK's own mark for a handled tool error: the function span fails, the run goes on
    marked = [error for error in spans.errors["read_file"] if error]
    assert len(spans.errors["read_file"]) == 6
    assert {error["message"] for error in marked} == {"Error running tool (non-fatal)"}
    assert sorted(error["data"]["error"] for error in marked) == sorted([shown["bad"], shown["args"], shown["json"]])


def test_the_span_keeps_error_details_out_when_traces_exclude_sensitive_data(agent_registry, agent_workspace, spans):
    model = ScriptedModel([[function_call("read_file", {"absolute_path": f"{agent_workspace}/missing.txt"}, call_id="bad")],
                           [assistant_message("done")]])
    agent = Agent(name="a", model=model, tools=agent_registry.to_openai_agents())
    asyncio.run(Runner.run(agent, "go", run_config=RunConfig(trace_include_sensitive_data=False)))
    assert outputs(model, 1) == {"bad": f"File not found: {agent_workspace / 'missing.txt'}"}
    assert spans.errors["read_file"] == [{"message": "Error running tool (non-fatal)",
                                          "data": {"tool_name": "read_file", "error": "Error details are redacted."}}]


def test_destructive_tools_wait_for_approval(agent_registry, agent_workspace: Path):
    made = agent_registry.to_openai_agents(needs_approval=lambda tool: tool.is_destructive)
    assert {t.name for t in made if t.needs_approval} == {t.name for t in agent_registry if t.is_destructive}
    target = agent_workspace / "new.txt"
    model = ScriptedModel([
        [function_call("write_file", {"file_path": str(target), "content": "x"}, call_id="w"),
         function_call("read_file", {"absolute_path": str(agent_workspace / "a.txt")}, call_id="r")],
        [assistant_message("done")],
    ])
    agent = Agent(name="a", model=model, tools=made)

    async def main() -> tuple[Any, Any]:
        first = await Runner.run(agent, "go")
        assert [item.raw_item.name for item in first.interruptions] == ["write_file"]
        assert not target.exists()  # nothing ran before the decision
        state = first.to_state()
        state.approve(first.interruptions[0])
        return first, await Runner.run(agent, state)

    _, resumed = asyncio.run(main())
    assert resumed.final_output == "done" and target.read_text() == "x"
    model.assert_complete()
    shown = outputs(model, 1)
    assert shown["r"] == "hello\n" and "new.txt" in shown["w"]


def test_a_rejected_call_does_not_run(agent_registry, agent_workspace: Path):
    target = agent_workspace / "new.txt"
    model = ScriptedModel([[function_call("write_file", {"file_path": str(target), "content": "x"}, call_id="w")],
                           [assistant_message("ok")]])
    agent = Agent(name="a", model=model, tools=agent_registry.to_openai_agents(needs_approval=True))

    async def main() -> Any:
        first = await Runner.run(agent, "go")
        state = first.to_state()
        state.reject(first.interruptions[0], rejection_message="not now")
        return await Runner.run(agent, state)

    assert asyncio.run(main()).final_output == "ok"
    assert outputs(model, 1) == {"w": "not now"} and not target.exists()


def test_a_timeout_cancels_the_call_and_kills_the_command(agent_registry, agent_workspace: Path):
    pid_file = agent_workspace / "pid"
    model = ScriptedModel([
        [function_call("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"}, call_id="t")],
        [assistant_message("done")],
    ])
    agent = Agent(name="a", model=model, tools=agent_registry.to_openai_agents(timeout_seconds=2))
    result = asyncio.run(Runner.run(agent, "go"))
    assert result.final_output == "done"
    assert outputs(model, 1) == {"t": "Tool 'run_shell_command' timed out after 2 seconds."}
    assert wait_gone(read_pid(pid_file, timeout=1))


def test_cancelling_the_run_kills_the_command(agent_workspace: Path):
    pid_file = agent_workspace / "pid"
    model = ScriptedModel([[function_call("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"},
                                          call_id="slow")]])

    async def main() -> int:
        with agenttools.toolset("gemini", root=str(agent_workspace)) as reg:
            task = asyncio.ensure_future(Runner.run(Agent(name="a", model=model, tools=reg.to_openai_agents()), "wait"))
            pid = await asyncio.to_thread(read_pid, pid_file)
            assert process_alive(pid)
            await cancel_and_wait_gone(task, pid)
            return pid

    pid = asyncio.run(asyncio.wait_for(main(), 60))
    assert not process_alive(pid)


def test_without_the_sdk_the_error_names_the_extra(agent_registry, monkeypatch):
    monkeypatch.setitem(sys.modules, "agents", None)
    with pytest.raises(ImportError, match=r"pip install 'agenttools\[openai-agents\]'"):
        agent_registry.to_openai_agents()


def test_the_example_runs_offline(tmp_path):
    (tmp_path / "notes.txt").write_text("x\n")
    example = load_example("openai_agents_agent")
    model = example.scripted_model()
    try:
        answer = example.run(model, str(tmp_path), "What is in this project?")
    finally:  # the example's Runner.run_sync ran on a loop it made current and keeps: close it, as asyncio.run does
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            loop = asyncio.get_event_loop()
        loop.close()
        asyncio.set_event_loop(None)
    model.assert_complete()
    assert answer.startswith("(scripted model) The tool answered:") and "notes.txt" in answer
