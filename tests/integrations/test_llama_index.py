"""LlamaIndex's own agent loop (``FunctionAgent``) over ``reg.to_llama_index()``, with a scripted function-calling LLM."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent, ReActAgent, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage, ImageBlock, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms import MockFunctionCallingLLM
from llama_index.core.workflow.errors import WorkflowCancelledByUser

import agenttools
from agenttools.sdk import openai as openai_sdk
from conftest import GONE_WITHIN, cancel_and_wait_gone, load_example, process_alive, read_pid, tiny_png

# The workflows runtime finds an agent's steps with inspect.getmembers(agent), which reads the pydantic model's
# deprecated attributes (__fields__, model_fields on the instance...): pydantic's warnings, raised from inspect.
pytestmark = [pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince20:inspect"),
              pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince211:inspect")]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llama_index_agent.py"


class Scripted(MockFunctionCallingLLM):
    """Plays a script (a tool call, or the final text); records the tool specs and messages it was sent.

    The specs are built as the OpenAI integration (llama-index-llms-openai) builds them.
    """

    def __init__(self, *script: tuple[str, dict[str, Any]] | str) -> None:
        super().__init__(response_generator=self._respond)
        self._script = list(script)
        self._seen: list[list[ChatMessage]] = []
        self._specs: list[list[dict[str, Any]]] = []

    def _prepare_chat_with_tools(self, tools: Any, user_msg: Any = None, chat_history: Any = None,
                                 **kwargs: Any) -> dict[str, Any]:
        prepared = super()._prepare_chat_with_tools(tools, user_msg=user_msg, chat_history=chat_history, **kwargs)
        prepared["tools"] = [tool.metadata.to_openai_tool(skip_length_check=True) for tool in tools]
        return prepared

    def _respond(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        self._seen.append(list(messages))
        self._specs.append(kwargs.get("tools") or [])
        step = self._script.pop(0)
        if isinstance(step, str):
            return ChatMessage(role=MessageRole.ASSISTANT, content=step)
        name, arguments = step
        block = ToolCallBlock(tool_call_id=f"call_{len(self._seen)}", tool_name=name, tool_kwargs=arguments)
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])

    def tool_message(self, turn: int) -> ChatMessage:
        """The tool's answer as the model sees it on ``turn`` (the last message)."""
        message = self._seen[turn][-1]
        assert message.role == MessageRole.TOOL
        assert message.additional_kwargs == {"tool_call_id": f"call_{turn}"}
        return message


def _run(tools: list[Any], llm: Scripted) -> tuple[str, list[Any]]:
    """The agent's answer and the ``ToolCallResult`` events of the run."""

    async def main() -> tuple[str, list[Any]]:
        handler = FunctionAgent(tools=tools, llm=llm).run(user_msg="go")
        results = [event async for event in handler.stream_events() if isinstance(event, ToolCallResult)]
        return str((await handler).response.content), results

    return asyncio.run(asyncio.wait_for(main(), 60))


def test_a_successful_call_shows_our_text(agent_registry, agent_workspace: Path):
    llm = Scripted(("read_file", {"absolute_path": str(agent_workspace / "a.txt")}), "done")
    answer, results = _run(agent_registry.to_llama_index(), llm)
    assert answer == "done"
    message = llm.tool_message(1)
    assert message.blocks == [TextBlock(text="hello\n")]
    assert results[0].tool_output.is_error is False
    assert results[0].tool_output.raw_output == "hello\n"


def test_a_failed_call_shows_our_error_text_marked_as_an_error(agent_registry, agent_workspace: Path):
    llm = Scripted(("read_file", {"absolute_path": str(agent_workspace / "missing.txt")}), "done")
    answer, results = _run(agent_registry.to_llama_index(), llm)
    assert answer == "done"  # the run goes on
    assert llm.tool_message(1).blocks == [TextBlock(text=f"File not found: {agent_workspace / 'missing.txt'}")]
    assert results[0].tool_output.is_error is True  # the app sees it; the tool ChatMessage has no such field
    assert results[0].tool_output.content == f"File not found: {agent_workspace / 'missing.txt'}"


def test_bad_arguments_show_our_text(agent_registry):
    llm = Scripted(("read_file", {"absolute_path": 7}), "done")  # LlamaIndex does not check arguments itself
    _, results = _run(agent_registry.to_llama_index(), llm)
    assert llm.tool_message(1).blocks == [
        TextBlock(text="Error: Invalid parameters provided. Reason: params/absolute_path must be string")]
    assert results[0].tool_output.is_error is True


def test_an_image_is_an_image_block_with_the_png_after_our_text(agent_registry, agent_workspace: Path):
    llm = Scripted(("read_file", {"absolute_path": str(agent_workspace / "img.png")}), "done")
    _run(agent_registry.to_llama_index(), llm)
    text, image = llm.tool_message(1).blocks
    assert text == TextBlock(text="Binary content of type image/png was processed.")
    assert isinstance(image, ImageBlock)
    assert image.image_mimetype == "image/png"
    assert image.resolve_image().read() == tiny_png()


@pytest.mark.filterwarnings("ignore:is_running called from within a step:DeprecationWarning")  # ReActAgent's own
def test_a_react_agent_sees_our_texts_as_observations(agent_registry, agent_workspace: Path):
    prompts: list[list[ChatMessage]] = []
    script = [f'Thought: I need the file.\nAction: read_file\nAction Input: {{"absolute_path": "{agent_workspace / "missing.txt"}"}}',
              f'Thought: Another one.\nAction: read_file\nAction Input: {{"absolute_path": "{agent_workspace / "a.txt"}"}}',
              "Thought: I can answer without using any more tools.\nAnswer: done"]

    def respond(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        prompts.append(list(messages))
        return ChatMessage(role=MessageRole.ASSISTANT, content=script.pop(0))

    llm = MockFunctionCallingLLM(response_generator=respond, is_chat_model=True)

    async def main() -> tuple[str, list[Any]]:
        handler = ReActAgent(tools=agent_registry.to_llama_index(), llm=llm).run(user_msg="go")
        results = [event async for event in handler.stream_events() if isinstance(event, ToolCallResult)]
        return str((await handler).response.content), results

    answer, results = asyncio.run(asyncio.wait_for(main(), 60))
    assert answer == "done"
    assert [r.tool_output.is_error for r in results] == [True, False]
    # ReAct shows a plain-text observation: the error is only in the words
    assert prompts[1][-1].content == f"Observation: File not found: {agent_workspace / 'missing.txt'}"
    assert prompts[2][-1].content == "Observation: hello\n"
    schema = json.dumps(agent_registry["read_file"].parameters)
    assert f"> Tool Name: read_file\nTool Description: {agent_registry['read_file'].description}\nTool Args: {schema}" \
        in str(prompts[0][0].content)


def test_the_model_is_shown_our_definitions_verbatim(agent_registry):
    llm = Scripted("done")
    tools = agent_registry.to_llama_index()
    _run(tools, llm)
    definitions = agent_registry.definitions("json-schema")
    assert llm._specs[0] == [{"type": "function", "function": d} for d in definitions]
    for tool, definition in zip(tools, definitions, strict=True):  # what Anthropic/Bedrock and Gemini read
        assert tool.metadata.get_parameters_dict() == definition["parameters"]
        assert tool.metadata.fn_schema.model_json_schema() == definition["parameters"]


def test_strict_definitions(agent_registry, agent_workspace: Path):
    # a strict model sends every argument, null for "use the default"
    call = {"absolute_path": str(agent_workspace / "a.txt"), "offset": None, "limit": None}
    llm = Scripted(("read_file", call), "done")
    _run(agent_registry.to_llama_index(strict=True), llm)
    assert llm.tool_message(1).blocks == [TextBlock(text="hello\n")]
    assert llm._specs[0] == [
        {"type": "function", "function": {"name": tool.name, "description": tool.description,
                                          "parameters": openai_sdk.parameters(tool, True)[0]}}
        for tool in agent_registry]


def test_return_direct_ends_the_run_with_our_text(agent_registry, agent_workspace: Path):
    llm = Scripted(("read_file", {"absolute_path": str(agent_workspace / "a.txt")}), "never")
    answer, _ = _run(agent_registry.to_llama_index(return_direct=True), llm)
    assert answer == "hello\n"
    assert len(llm._seen) == 1  # the model was not asked again


def test_hints_stay_on_the_tools(agent_registry):
    tools = {tool.metadata.name: tool for tool in agent_registry.to_llama_index()}
    assert tools["read_file"].agenttools_tool.read_only is True  # LlamaIndex has no place for them
    assert tools["run_shell_command"].agenttools_tool.destructive is True


def _sleeper(pid_file: Path) -> Scripted:
    return Scripted(("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"}), "never")


def test_cancelling_the_run_kills_the_command(agent_workspace: Path):
    pid_file = agent_workspace / "pid"
    llm = _sleeper(pid_file)

    async def main() -> int:
        with agenttools.toolset("gemini", root=str(agent_workspace)) as reg:
            handler = FunctionAgent(tools=reg.to_llama_index(), llm=llm).run(user_msg="wait")
            pid = await asyncio.to_thread(read_pid, pid_file)
            await handler.cancel_run()
            with pytest.raises(WorkflowCancelledByUser):
                await handler
            started = time.monotonic()
            while process_alive(pid) and time.monotonic() - started < GONE_WITHIN:
                await asyncio.sleep(0.05)
            return pid

    pid = asyncio.run(asyncio.wait_for(main(), 60))
    assert not process_alive(pid)
    assert len(llm._seen) == 1  # the model was not asked again


def test_cancelling_the_awaiting_task_kills_the_command(agent_workspace: Path):
    pid_file = agent_workspace / "pid"

    async def main() -> int:
        with agenttools.toolset("gemini", root=str(agent_workspace)) as reg:
            agent = FunctionAgent(tools=reg.to_llama_index(), llm=_sleeper(pid_file))

            async def run() -> Any:
                return await agent.run(user_msg="wait")

            task = asyncio.ensure_future(run())
            pid = await asyncio.to_thread(read_pid, pid_file)
            await cancel_and_wait_gone(task, pid)
            return pid

    assert not process_alive(asyncio.run(asyncio.wait_for(main(), 60)))


def test_a_missing_llama_index_names_the_extra(agent_registry, monkeypatch):
    for name in [name for name in sys.modules if name == "llama_index" or name.startswith("llama_index.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install 'agenttools\[llama-index\]'"):
        agent_registry.to_llama_index()


def _example() -> Any:
    return load_example("llama_index_agent")


def test_the_example_answers_with_what_the_tool_returned(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hi\n")
    example = _example()
    answer = example.run(example.scripted_llm(str(tmp_path)), str(tmp_path), "What is in this project?")
    assert answer.startswith("(scripted model) The tool answered 1 line(s); the first: {")
    assert '"name":"a.txt"' in answer


def test_the_example_runs_offline_without_an_api_key(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hi\n")
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    env.update(HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")  # no download may succeed
    done = subprocess.run([sys.executable, str(EXAMPLE), str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "OPENAI_API_KEY is not set" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("(scripted model) The tool answered 1 line(s)")
