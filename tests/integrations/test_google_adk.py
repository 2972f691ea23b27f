"""Google ADK's own agent loop (``LlmAgent`` + ``InMemoryRunner``) over ``reg.to_google_adk()``, offline.

ADK ships no test model, so a ``BaseLlm`` subclass answers from a script and records every ``LlmRequest``: the asserts
read what ADK put in front of the model (the declarations, and the ``FunctionResponse`` after each call).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field

import agenttools
from conftest import GONE_WITHIN, load_example, process_alive, read_pid, tiny_png

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "google_adk_agent.py"


class Scripted(BaseLlm):
    """Answers each model turn from a script; records every request ADK sends."""

    script: list[types.Content]
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request.model_copy(deep=True))
        yield LlmResponse(content=self.script[len(self.requests) - 1], partial=False)


def _calls(*calls: tuple[str, dict[str, Any], str]) -> types.Content:
    return types.Content(role="model", parts=[
        types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args)) for name, args, call_id in calls])


def _text(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


async def _run(runner: InMemoryRunner, session_id: str, message: types.Content, **kwargs: Any) -> list[Any]:
    return [event async for event in runner.run_async(user_id="u", session_id=session_id, new_message=message,
                                                      **kwargs)]


async def _runner(model: Scripted, tools: list[Any]) -> tuple[InMemoryRunner, str]:
    runner = InMemoryRunner(agent=LlmAgent(name="coder", model=model, instruction="Use the tools.", tools=tools),
                            app_name="tests")
    session = await runner.session_service.create_session(app_name="tests", user_id="u")
    return runner, session.id


def _responses(request: LlmRequest) -> dict[str, types.FunctionResponse]:
    """The function responses in the last message the model is sent, by call id."""
    return {part.function_response.id: part.function_response for part in request.contents[-1].parts
            if part.function_response is not None}


def test_the_agent_shows_the_model_our_schema_texts_errors_and_images(agent_registry, agent_workspace: Path):
    model = Scripted(model="scripted", script=[
        _calls(("read_file", {"absolute_path": str(agent_workspace / "a.txt")}, "ok"),
               ("read_file", {"absolute_path": str(agent_workspace / "missing.txt")}, "bad"),
               ("read_file", {"absolute_path": 7}, "args"),
               ("read_file", {"absolute_path": str(agent_workspace / "img.png")}, "img")),
        _text("done")])

    async def main() -> list[Any]:
        runner, session_id = await _runner(model, agent_registry.to_google_adk())
        return await _run(runner, session_id, types.UserContent("read them"))

    events = asyncio.run(main())
    assert events[-1].is_final_response() and events[-1].content.parts[0].text == "done"
    first, second = model.requests

    # the declarations: our canonical JSON Schema, verbatim, in parameters_json_schema (no strict mode in Gemini)
    declared = [d.model_dump(exclude_none=True) for tool in first.config.tools for d in tool.function_declarations]
    assert declared == [{"name": d["name"], "description": d["description"], "parameters_json_schema": d["parameters"]}
                        for d in agent_registry.definitions("json-schema")]

    shown = _responses(second)
    assert list(shown) == ["ok", "bad", "args", "img"]
    assert shown["ok"].name == "read_file"
    assert shown["ok"].response == {"result": "hello\n"}  # ADK's own wrapper for a plain result
    assert shown["bad"].response == {"error": f"File not found: {agent_workspace / 'missing.txt'}"}
    assert shown["args"].response == {
        "error": "Error: Invalid parameters provided. Reason: params/absolute_path must be string"}
    # the image: our text in the response, the PNG as a multimodal function response part
    assert shown["img"].response == {"result": "Binary content of type image/png was processed."}
    assert [(p.inline_data.mime_type, p.inline_data.data) for p in shown["img"].parts] == [("image/png", tiny_png())]
    assert not any(r.parts for key, r in shown.items() if key != "img")

    # ADK's telemetry reads a failed call the way it reads a FunctionTool's: TOOL_ERROR
    tool = first.tools_dict["read_file"]
    assert [tool._detect_error_in_response(shown[key].response) for key in shown] == [
        None, "TOOL_ERROR", "TOOL_ERROR", None]


def test_hints_are_the_tools_custom_metadata(agent_registry):
    tools = {tool.name: tool for tool in agent_registry.to_google_adk()}
    assert list(tools) == [tool.name for tool in agent_registry]
    assert tools["read_file"].custom_metadata == {"agenttools": {
        "title": agent_registry["read_file"].title, "read_only": True, "destructive": False,
        "idempotent": agent_registry["read_file"].idempotent, "open_world": agent_registry["read_file"].open_world}}
    assert tools["write_file"].custom_metadata["agenttools"]["destructive"] is True
    assert tools["read_file"].tool is agent_registry["read_file"]
    assert not any(tool.is_long_running for tool in tools.values())


@pytest.mark.parametrize("approve", [True, False])
def test_confirmation_holds_a_destructive_call_until_the_client_answers(agent_registry, agent_workspace: Path,
                                                                        approve: bool):
    target = agent_workspace / "new.txt"
    model = Scripted(model="scripted", script=[
        _calls(("write_file", {"file_path": str(target), "content": "approved\n"}, "w1"),
               ("read_file", {"absolute_path": str(agent_workspace / "a.txt")}, "r1")),
        _text("finished")])
    tools = agent_registry.to_google_adk(require_confirmation=lambda tool, args: bool(tool.is_destructive))

    async def main() -> tuple[list[Any], list[Any]]:
        runner, session_id = await _runner(model, tools)
        held = await _run(runner, session_id, types.UserContent("write"))
        asks = [call for event in held for call in event.get_function_calls()
                if call.name == "adk_request_confirmation"]
        assert len(asks) == 1 and asks[0].args["originalFunctionCall"]["id"] == "w1"
        assert not target.exists() and len(model.requests) == 1  # held: nothing written, the model not asked
        answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            id=asks[0].id, name="adk_request_confirmation", response={"confirmed": approve}))])
        return held, await _run(runner, session_id, answer)

    held, after = asyncio.run(main())
    responses = {r.id: r.response for event in held for r in event.get_function_responses()}
    assert responses["w1"] == {"error": "This tool call requires confirmation, please approve or reject."}
    assert responses["r1"] == {"result": "hello\n"}  # a read-only call in the same turn is not held
    assert after[-1].content.parts[0].text == "finished"
    shown = _responses(model.requests[-1])
    if approve:
        assert target.read_text() == "approved\n"
        assert set(shown["w1"].response) == {"result"}
    else:
        assert not target.exists()
        assert shown["w1"].response == {"error": "This tool call is rejected."}


@pytest.mark.parametrize("how", ["task.cancel()", "abort_signal"])
def test_cancelling_the_agent_run_kills_the_command(agent_workspace: Path, how: str):
    pid_file = agent_workspace / "pid"
    model = Scripted(model="scripted", script=[
        _calls(("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"}, "slow")), _text("never")])

    async def main() -> int:
        with agenttools.toolset("gemini", root=str(agent_workspace)) as reg:
            runner, session_id = await _runner(model, reg.to_google_adk())
            abort = asyncio.Event()
            task = asyncio.ensure_future(_run(runner, session_id, types.UserContent("wait"), abort_signal=abort))
            pid = await asyncio.to_thread(read_pid, pid_file)
            assert process_alive(pid)
            started = time.monotonic()
            if how == "task.cancel()":
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            else:  # ADK's own abort: it answers the interrupted call itself, the session stays well formed
                abort.set()
                events = await asyncio.wait_for(task, GONE_WITHIN)
                assert events[-1].error_code == "INVOCATION_ABORTED"
                assert events[-1].content.parts[0].function_response.response == {
                    "error": "Invocation was aborted by client."}
            while process_alive(pid) and time.monotonic() - started < GONE_WITHIN:
                await asyncio.sleep(0.05)
            return pid

    pid = asyncio.run(asyncio.wait_for(main(), 60))
    assert not process_alive(pid)
    assert len(model.requests) == 1  # the model was not asked again


def test_without_google_adk_the_error_names_the_extra(agent_registry, monkeypatch):
    monkeypatch.setitem(sys.modules, "google.adk.tools.base_tool", None)
    with pytest.raises(ImportError, match=r"pip install 'agenttools\[google-adk\]'"):
        agent_registry.to_google_adk()


def test_the_example_runs_offline(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hi from the file\n")
    example = load_example("google_adk_agent")
    model = example.ScriptedModel.listing(str(tmp_path))
    answer = example.run(model, str(tmp_path), "What is in this project?")
    assert answer == "(scripted model) The tool answered 2 line(s); the first: Directory listing for " + str(tmp_path) + ":"


def test_the_example_runs_as_a_script_without_a_key(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hi from the file\n")
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    done = subprocess.run([sys.executable, str(EXAMPLE)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "(GOOGLE_API_KEY is not set: a scripted model plays the model)",
        f"(scripted model) The tool answered 2 line(s); the first: Directory listing for {tmp_path}:"]
