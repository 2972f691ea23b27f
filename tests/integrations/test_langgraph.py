"""LangGraph's own agent loop (``create_react_agent``) over ``reg.to_langchain()``, with a scripted chat model."""

from __future__ import annotations

import asyncio
import base64
import warnings
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

import agenttools
from conftest import cancel_and_wait_gone, load_example, process_alive, read_pid, tiny_png


class Scripted(GenericFakeChatModel):
    """LangChain's own fake chat model, answering from its script, which records what it was shown and which
    tools were bound (the fake model alone cannot bind tools, which ``create_react_agent`` needs)."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)
    bound: list[dict[str, Any]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Scripted:  # type: ignore[override]
        self.bound = [convert_to_openai_tool(tool) for tool in tools]
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def _agent(model: Scripted, reg: agenttools.Registry) -> Any:
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # LangGraph 1.x points to langchain.agents.create_agent; still supported
        warnings.simplefilter("ignore", DeprecationWarning)
        return create_react_agent(model, tools=reg.to_langchain())


def _call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": arguments, "id": call_id, "type": "tool_call"}


def test_the_react_agent_shows_the_model_our_texts_errors_and_images(agent_registry, agent_workspace: Path):
    model = Scripted(messages=iter([
        AIMessage(content="", tool_calls=[
            _call("read_file", {"absolute_path": str(agent_workspace / "a.txt")}, "ok"),
            _call("read_file", {"absolute_path": str(agent_workspace / "missing.txt")}, "bad"),
            _call("read_file", {"absolute_path": str(agent_workspace / "img.png")}, "img"),
            _call("read_file", {"absolute_path": 7}, "args")]),
        AIMessage(content="done")]))
    final = _agent(model, agent_registry).invoke({"messages": [("user", "read them")]})
    assert final["messages"][-1].content == "done"
    assert model.bound == [{"type": "function", "function": {"name": d["name"], "description": d["description"],
                                                             "parameters": d["parameters"]}}
                           for d in agent_registry.definitions("json-schema")]  # our schemas, verbatim
    shown = {m.tool_call_id: m for m in model.seen[1] if isinstance(m, ToolMessage)}
    assert (shown["ok"].status, shown["ok"].content) == ("success", "hello\n")
    assert (shown["bad"].status, shown["bad"].content) == ("error", f"File not found: {agent_workspace / 'missing.txt'}")
    assert shown["img"].status == "success"
    assert shown["img"].content == [{"type": "image", "base64": base64.b64encode(tiny_png()).decode(),
                                     "mime_type": "image/png"}]
    assert shown["args"].status == "error"
    assert shown["args"].content == "Error: Invalid parameters provided. Reason: params/absolute_path must be string"


def test_cancelling_the_agent_run_kills_the_command(agent_workspace: Path):
    pid_file = agent_workspace / "pid"
    model = Scripted(messages=iter([AIMessage(content="", tool_calls=[
        _call("run_shell_command", {"command": f"echo $$ > {pid_file}; exec sleep 30"}, "slow")])]))

    async def main() -> int:
        with agenttools.toolset("gemini", root=str(agent_workspace)) as reg:
            task = asyncio.ensure_future(_agent(model, reg).ainvoke({"messages": [("user", "wait")]}))
            pid = await asyncio.to_thread(read_pid, pid_file)
            await cancel_and_wait_gone(task, pid)
            return pid

    pid = asyncio.run(asyncio.wait_for(main(), 60))
    assert not process_alive(pid)


def test_the_example_runs_offline(agent_workspace: Path):
    module = load_example("langgraph_agent")
    root = str(agent_workspace)
    answer = module.run(module.scripted_model(root), root, "What is in this project?")
    assert answer == f"(scripted model) The project holds:\nDirectory listing for {root}:\na.txt\nimg.png"
