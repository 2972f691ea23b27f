"""CrewAI's own agent loop (``Agent`` + ``Task`` + ``Crew``) over ``reg.to_crewai()``, offline, with a scripted LLM.

Not collected by the main test run (CrewAI cannot share its environment): tests/integrations/test_crewai.py runs
this file with a Python that has crewai. By hand: ``python -m pytest -q tests/integrations/crewai_e2e.py``.

Both of CrewAI's tool-calling paths run: ReAct text (a custom ``BaseLLM`` without native function calling, CrewAI's
default for one) and native function calling (``supports_function_calling() -> True``, as CrewAI's provider LLMs).
The scripted LLM records every message list (and tool list) CrewAI sends it; the asserts read them.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import os
import signal
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field

import agenttools
from agenttools.sdk import openai
from agenttools.sdk.crewai import crewai_name
from conftest import GONE_WITHIN, cancel_and_wait_gone, load_example, process_alive, read_pid, tiny_png

for _flag in ("CREWAI_DISABLE_TELEMETRY", "OTEL_SDK_DISABLED", "CREWAI_DISABLE_VERSION_CHECK"):  # no network
    os.environ.setdefault(_flag, "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")

with warnings.catch_warnings():  # crewai's own imports raise an ImportWarning (crewai.rag forbids setattr)
    warnings.simplefilter("ignore", ImportWarning)
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM
    from crewai.tools.tool_failure import ToolFailure, ToolFailureReason

# CrewAI's Agent and Crew read their own deprecated fields (function_calling_llm, allow_code_execution, multimodal)
# while they set up; CrewAI renames the modules doing so (__name__ "crewai.agents.agent_builder.base_agent")
pytestmark = pytest.mark.filterwarnings(r"ignore::DeprecationWarning:crewai\.")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "crewai_agent.py"


class Scripted(BaseLLM):
    """Answers each model call from a script; records every message list and tool list CrewAI sends."""

    script: list[Any]
    native: bool = False
    seen: list[list[dict[str, Any]]] = Field(default_factory=list)
    tools_seen: list[Any] = Field(default_factory=list)

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        self.seen.append(copy.deepcopy(messages))
        self.tools_seen.append(copy.deepcopy(tools))
        return self.script[len(self.seen) - 1]

    def supports_function_calling(self) -> bool:
        return self.native

    def get_input_tokens_count(self, messages: Any, tools: Any = None, response_model: Any = None) -> int:
        return 0  # else CrewAI logs that it estimates


@pytest.fixture
def workspace(agent_workspace: Path) -> Path:
    return agent_workspace  # tests/conftest.py's, as every framework's tests use


@pytest.fixture
def reg(workspace: Path):
    with agenttools.toolset("gemini", root=str(workspace)) as registry:

        @registry.tool(name="add-ints")
        def add(a: int, b: int = 2) -> int:
            """Add two numbers.

            Args:
                a: First.
                b: Second.
            """
            return a + b

        yield registry


def _crew(reg: agenttools.Registry, llm: Scripted) -> Crew:
    agent = Agent(role="coder", goal="use the tools", backstory="tests", llm=llm, tools=reg.to_crewai())
    return Crew(agents=[agent], tasks=[Task(description="go", expected_output="done", agent=agent)])


def _calls(workspace: Path) -> list[tuple[str, dict[str, Any], str]]:
    """(the name the model calls, its arguments, what the model must be shown)."""
    return [
        ("read_file", {"absolute_path": str(workspace / "a.txt")}, "hello\n"),
        ("read_file", {"absolute_path": str(workspace / "missing.txt")}, f"File not found: {workspace / 'missing.txt'}"),
        ("add_ints", {"a": "one"}, "Error: Invalid parameters provided. Reason: params/a must be integer"),
        ("read_file", {"absolute_path": str(workspace / "img.png")}, "Binary content of type image/png was processed."),
    ]


def _assert_failures_recorded(result: Any, workspace: Path) -> None:
    """CrewAI's own record of the failed calls: ToolFailures with our texts and codes."""
    records = result.tasks_output[0].tool_failures
    assert [(r.tool_name, r.failure.reason, r.failure.details) for r in records] == [
        ("read_file", ToolFailureReason.TOOL_REPORTED, {"code": "tool_failure"}),
        ("add_ints", ToolFailureReason.INVALID_INPUT, {"code": "invalid_arguments"})]
    assert [r.failure.as_agent_message() for r in records] == [
        f"File not found: {workspace / 'missing.txt'}",
        "Error: Invalid parameters provided. Reason: params/a must be integer"]


def test_react_prompt_shows_our_schema_and_observations_carry_our_texts(reg, workspace: Path):
    calls = _calls(workspace)
    llm = Scripted(model="scripted", script=[
        *(f"Thought: step {i}\nAction: {name}\nAction Input: {json.dumps(args)}"
          for i, (name, args, _) in enumerate(calls)),
        "Thought: done\nFinal Answer: done"])
    result = _crew(reg, llm).kickoff()
    assert result.raw == "done"

    # the system prompt lists every tool in CrewAI's layout, with our canonical JSON Schema verbatim
    system = llm.seen[0][0]["content"]
    for definition in reg.definitions("json-schema"):
        assert (f"Tool Name: {crewai_name(definition['name'])}\n"
                f"Tool Arguments: {json.dumps(definition['parameters'], indent=2)}\n"
                f"Tool Description: {definition['description']}") in system, definition["name"]

    # after each call, CrewAI's text observation: our text (errors included: ReAct has no error flag)
    for i, (_, _, text) in enumerate(calls):
        observation = llm.seen[i + 1][-2]["content"]
        assert f"\nObservation: {text.rstrip()}" in observation, observation
    assert base64.b64encode(tiny_png()).decode()[:20] not in json.dumps(llm.seen)  # tool results are text only
    _assert_failures_recorded(result, workspace)


def test_native_calls_get_our_strict_schema_and_tool_messages_with_our_texts(reg, workspace: Path):
    calls = _calls(workspace)
    strict = {tool.name: openai.parameters(tool, True)[0] for tool in reg}
    script: list[Any] = []
    for i, (name, args, _) in enumerate(calls):
        full = dict.fromkeys(strict["add-ints" if name == "add_ints" else name]["properties"]) | args  # null: default
        script.append([{"id": f"c{i}", "type": "function",
                        "function": {"name": name, "arguments": json.dumps(full)}}])
    llm = Scripted(model="scripted", native=True, script=[*script, "done"])
    result = _crew(reg, llm).kickoff()
    assert result.raw == "done"

    # CrewAI sends our OpenAI-strict schema unchanged, with its own "strict": true, under its sanitized names
    assert llm.tools_seen[0] == [{"type": "function", "function": {
        "name": crewai_name(tool.name), "description": tool.description, "strict": True,
        "parameters": strict[tool.name]}} for tool in reg]

    # after each call, a role=tool message whose content is our text (tool messages have no error flag)
    for i, (name, _, text) in enumerate(calls):
        assert llm.seen[i + 1][-1] == {"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": text}
    assert base64.b64encode(tiny_png()).decode()[:20] not in json.dumps(llm.seen)
    _assert_failures_recorded(result, workspace)


def test_names_hints_and_caching(reg):
    tools = {tool.name: tool for tool in reg.to_crewai()}
    assert list(tools) == [tool.name for tool in reg]  # CrewAI shows the model crewai_name(name)
    assert crewai_name("add-ints") == "add_ints" and crewai_name("readFile") == "read_file"
    assert tools["write_file"].tool is reg["write_file"] and tools["write_file"].tool.is_destructive
    # a read-only tool's successful results may be cached (Crew(cache=True)); failures and other tools never
    failure = ToolFailure(message="no", reason=ToolFailureReason.TOOL_REPORTED)
    assert tools["read_file"].cache_function({}, "hello\n") is True
    assert tools["read_file"].cache_function({}, failure) is False
    assert tools["write_file"].cache_function({}, "ok") is False

    clash = agenttools.Registry()
    for name in ("my-tool", "my_tool"):
        clash.tool(name=name, description="A tool.")(lambda: "ok")
    with pytest.raises(ValueError, match="'my-tool' and 'my_tool' would both be called 'my_tool'"):
        clash.to_crewai()


def test_cancelling_the_crew_run_cannot_stop_a_running_tool(reg, workspace: Path):
    """CrewAI runs tools synchronously in a worker thread: akickoff() ends at once, the command runs on."""
    pid_file = workspace / "pid"
    command = f"echo $$ > {pid_file}; exec sleep 30"
    llm = Scripted(model="scripted", native=True, script=[[{"id": "s1", "type": "function", "function": {
        "name": "run_shell_command", "arguments": json.dumps({"command": command, "description": None,
                                                              "directory": None})}}], "done"])

    async def main() -> int:
        run = asyncio.ensure_future(_crew(reg, llm).akickoff())
        pid = await asyncio.to_thread(read_pid, pid_file)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(run, 5)
        await asyncio.sleep(1)
        assert process_alive(pid), "CrewAI cancelled its tool after all: the adapter and the docs must say so"
        os.kill(pid, signal.SIGKILL)  # our own command; the worker thread then ends
        return pid

    pid = asyncio.run(asyncio.wait_for(main(), 60))
    deadline = time.monotonic() + GONE_WITHIN
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid)


def test_cancelling_the_tools_arun_kills_the_command(reg, workspace: Path):
    """Outside CrewAI's loop, the tool's async path (``arun`` -> ``acall``) is cancellable."""
    pid_file = workspace / "pid"
    shell = next(tool for tool in reg.to_crewai() if tool.name == "run_shell_command")

    async def main() -> int:
        task = asyncio.ensure_future(shell.arun(command=f"echo $$ > {pid_file}; exec sleep 30"))
        pid = await asyncio.to_thread(read_pid, pid_file)
        await cancel_and_wait_gone(task, pid)
        return pid

    pid = asyncio.run(asyncio.wait_for(main(), 60))
    assert not process_alive(pid)


def test_without_crewai_the_error_names_the_extra(reg, monkeypatch):
    monkeypatch.setitem(sys.modules, "crewai.tools", None)
    with pytest.raises(ImportError, match=r"pip install 'agenttools\[crewai\]'"):
        reg.to_crewai()


def test_the_example_runs_offline(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hi from the file\n")
    example = load_example("crewai_agent")
    answer = example.run(example.ScriptedLLM.listing(str(tmp_path)), str(tmp_path), "What is in this project?")
    assert answer == f"(scripted model) The tool answered 2 line(s); the first: Directory listing for {tmp_path}:"


def test_the_registrys_hooks_run_for_crewai_calls(workspace: Path):
    seen: list[str] = []

    class Recorder:
        def before(self, call: agenttools.ToolCall) -> agenttools.ToolOutput | None:
            seen.append(call.name)
            return agenttools.ToolOutput(text="refused by policy", is_error=True) if call.name == "write_file" else None

    with agenttools.toolset("gemini", root=str(workspace)) as base:
        tools = {t.name: t for t in base.with_hooks(Recorder()).to_crewai()}
        read = tools["read_file"].run(absolute_path=str(workspace / "a.txt"))
        refused = tools["write_file"].run(file_path=str(workspace / "new.txt"), content="x")
    assert seen == ["read_file", "write_file"]
    assert read == "hello\n" and refused.message == "refused by policy"
    assert not (workspace / "new.txt").exists()
