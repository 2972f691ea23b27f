"""The registry's hooks run for calls made through every framework adapter, and an answering hook is obeyed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

import agenttools


class Recorder:
    """Records every call; refuses ``write_file`` (a before-hook answering for the tool)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def before(self, call: agenttools.ToolCall) -> agenttools.ToolOutput | None:
        self.seen.append(call.name)
        if call.name == "write_file":
            return agenttools.ToolOutput(text="refused by policy", is_error=True)
        return None


def _by_name(tools: list[Any], name: str) -> Any:
    return next(tool for tool in tools if (getattr(getattr(tool, "metadata", None), "name", None) or tool.name) == name)


def _langchain(reg: agenttools.Registry, read: dict[str, Any], write: dict[str, Any]) -> list[str]:
    tools = reg.to_langchain()
    return [_by_name(tools, "read_file").invoke(read), _by_name(tools, "write_file").invoke(write)]


def _openai_agents(reg: agenttools.Registry, read: dict[str, Any], write: dict[str, Any]) -> list[str]:
    tools = reg.to_openai_agents()

    async def main() -> list[str]:
        return [await _by_name(tools, "read_file").on_invoke_tool(None, json.dumps(read)),
                await _by_name(tools, "write_file").on_invoke_tool(None, json.dumps(write))]

    return asyncio.run(main())


def _smolagents(reg: agenttools.Registry, read: dict[str, Any], write: dict[str, Any]) -> list[str]:
    from agenttools.errors import ToolFailure

    tools = reg.to_smolagents()
    out = [_by_name(tools, "read_file").forward(**read)]
    with pytest.raises(ToolFailure) as failed:
        _by_name(tools, "write_file").forward(**write)
    return [*out, failed.value.text]


def _llama_index(reg: agenttools.Registry, read: dict[str, Any], write: dict[str, Any]) -> list[str]:
    tools = reg.to_llama_index()

    async def main() -> list[str]:
        done = [await _by_name(tools, "read_file").acall(**read), _by_name(tools, "write_file").call(**write)]
        assert [d.is_error for d in done] == [False, True]
        return [str(d.content) for d in done]

    return asyncio.run(main())


def _google_adk(reg: agenttools.Registry, read: dict[str, Any], write: dict[str, Any]) -> list[str]:
    tools = reg.to_google_adk()

    async def main() -> list[str]:
        ok = await _by_name(tools, "read_file").run_async(args=read, tool_context=None)
        refused = await _by_name(tools, "write_file").run_async(args=write, tool_context=None)
        return [ok["result"], refused["error"]]

    return asyncio.run(main())


def _pydantic_ai(reg: agenttools.Registry, read: dict[str, Any], write: dict[str, Any]) -> list[str]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    def model(messages: list[Any], info: Any) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("read_file", read, "r"), ToolCallPart("write_file", write, "w")])
        return ModelResponse(parts=[TextPart("done")])

    async def main() -> list[Any]:
        result = await Agent(FunctionModel(model), toolsets=[reg.to_pydantic_ai()]).run("go")
        return result.all_messages()

    returns = {part.tool_call_id: part for message in asyncio.run(main()) if isinstance(message, ModelRequest)
               for part in message.parts if isinstance(part, ToolReturnPart)}
    assert (returns["r"].outcome, returns["w"].outcome) == ("success", "failed")
    return [returns["r"].content, returns["w"].content]


ADAPTERS = {"langchain": _langchain, "openai-agents": _openai_agents, "smolagents": _smolagents,
            "llama-index": _llama_index, "google-adk": _google_adk, "pydantic-ai": _pydantic_ai}


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_every_adapter_calls_through_the_hooks(adapter: str, agent_workspace: Path):
    recorder = Recorder()
    with agenttools.toolset("gemini", root=str(agent_workspace)) as base:
        reg = base.with_hooks(recorder)
        read = {"absolute_path": str(agent_workspace / "a.txt")}
        write = {"file_path": str(agent_workspace / "new.txt"), "content": "x"}
        texts = ADAPTERS[adapter](reg, read, write)
    assert recorder.seen == ["read_file", "write_file"]
    assert texts == ["hello\n", "refused by policy"]
    assert not (agent_workspace / "new.txt").exists()  # the hook's answer stood for the call


def test_every_adapter_is_covered():
    methods = {name.removeprefix("to_").replace("_", "-") for name in dir(agenttools.Registry)
               if name.startswith("to_")}
    assert methods - set(ADAPTERS) == {"crewai"}  # its own venv: tests/integrations/crewai_e2e.py
