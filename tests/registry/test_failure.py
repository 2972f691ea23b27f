"""ToolFailure: the one way for any tool to fail with exact text, rendered by the registry in one place."""

from __future__ import annotations

import asyncio
import pickle

import agenttools
from agenttools import Registry, ToolFailure


def _registry() -> Registry:
    reg = Registry(render_error=lambda tool, error: f"REWORDED by the registry: {error}")

    @reg.tool
    def refuse(reason: str) -> str:
        """Fail with the reason as the exact text.

        Args:
            reason: What the model sees.
        """
        raise ToolFailure(reason, code="refused")

    @reg.tool
    def refuse_with_data(reason: str) -> str:
        """Fail with data attached.

        Args:
            reason: What the model sees.
        """
        raise ToolFailure(reason, data={"why": reason})

    @reg.tool
    async def refuse_later(reason: str) -> str:
        """Fail from a coroutine.

        Args:
            reason: What the model sees.
        """
        await asyncio.sleep(0)
        raise ToolFailure(reason)

    @reg.tool
    def crash() -> str:
        """Fail with an ordinary exception."""
        raise ValueError("boom")

    return reg


def test_the_text_is_exactly_what_the_model_sees_and_no_renderer_rewords_it():
    text = "  line one\n\tline two with trailing spaces  \n"
    out = _registry().call("refuse", {"reason": text})
    assert out.is_error
    assert out.text == text
    assert isinstance(out.data, ToolFailure)
    assert out.data.code == "refused"
    assert _registry().call("crash").text == "REWORDED by the registry: boom"  # other errors still use it


def test_data_and_the_default_code():
    out = _registry().call("refuse_with_data", {"reason": "no"})
    assert (out.text, out.is_error, out.data) == ("no", True, {"why": "no"})
    assert ToolFailure("x").code == "tool_failure"
    assert ToolFailure("x").text == str(ToolFailure("x")) == "x"


def test_async_tools_and_acall_answer_the_same():
    reg = _registry()
    assert reg.call("refuse_later", {"reason": "later"}).text == "later"
    out = asyncio.run(reg.acall("refuse_later", {"reason": "later"}))
    assert (out.text, out.is_error) == ("later", True)
    assert asyncio.run(reg.acall("refuse", {"reason": "sync in a thread"})).text == "sync in a thread"


def test_sdk_results_carry_the_exact_text_as_an_error():
    reg = _registry()
    block = reg.run({"type": "tool_use", "id": "t1", "name": "refuse", "input": {"reason": "exact"}})
    assert block == {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "exact"}],
                     "is_error": True}
    part = reg.run({"function_call": {"name": "refuse", "args": {"reason": "exact"}}})
    assert part["function_response"]["response"] == {"error": "exact"}


def test_it_is_public_an_agenttools_error_and_pickles():
    assert agenttools.ToolFailure is ToolFailure
    assert issubclass(ToolFailure, agenttools.AgentToolsError)
    error = ToolFailure("exact", code="refused", data=[1, 2])
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
    assert (copy.text, copy.code, copy.data) == ("exact", "refused", [1, 2])
