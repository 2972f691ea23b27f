"""Hooks around every call: order, answers, rewrites, failures, and every entry point of a registry."""

from __future__ import annotations

import asyncio
import json
import threading

import attrs
import pytest

import agenttools
from agenttools import Registry, ToolCall, ToolOutput


def _registry() -> Registry:
    reg = Registry()

    @reg.tool(read_only=True)
    def echo(text: str, times: int = 1) -> str:
        """Repeat a text.

        Args:
            text: What to say.
            times: How often.
        """
        return text * times

    @reg.tool(destructive=True)
    def boom() -> str:
        """Always fails."""
        raise ValueError("kaboom")

    @reg.tool
    async def later(text: str) -> str:
        """An async tool.

        Args:
            text: What to say.
        """
        await asyncio.sleep(0)
        return text.upper()

    return reg


class Recorder:
    """Records what it sees; optionally answers, rewrites or raises."""

    def __init__(self, label: str, seen: list[str], *, answer: ToolOutput | None = None,
                 rewrite: dict[str, object] | None = None, fail: str = "") -> None:
        self.label, self.seen, self.answer, self.rewrite, self.fail = label, seen, answer, rewrite, fail

    def before(self, call: ToolCall) -> ToolCall | ToolOutput | None:
        self.seen.append(f"{self.label}.before({call.name},{json.dumps(call.arguments, sort_keys=True)})")
        if self.fail == "before":
            raise RuntimeError(f"{self.label} refused")
        if self.rewrite is not None:
            return attrs.evolve(call, arguments={**call.arguments, **self.rewrite})
        return self.answer

    def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        self.seen.append(f"{self.label}.after({output.text})")
        if self.fail == "after":
            raise RuntimeError(f"{self.label} broke")
        return attrs.evolve(output, text=f"{output.text}+{self.label}")


def test_hooks_run_in_order_around_the_call_and_the_original_is_unchanged():
    reg = _registry()
    seen: list[str] = []
    hooked = reg.with_hooks(Recorder("a", seen), Recorder("b", seen))
    assert hooked.call("echo", {"text": "hi", "times": 2}).text == "hihi+b+a"
    assert seen == ['a.before(echo,{"text": "hi", "times": 2})', 'b.before(echo,{"text": "hi", "times": 2})',
                    "b.after(hihi)", "a.after(hihi+b)"]
    assert reg.call("echo", {"text": "hi"}).text == "hi"  # the original registry has no hooks
    assert hooked.definitions("openai") == reg.definitions("openai")
    assert hooked.names() == reg.names() and len(hooked) == 3 and "echo" in hooked and hooked["echo"].read_only


def test_a_before_that_answers_skips_the_tool_and_the_later_befores_but_every_after_runs():
    seen: list[str] = []
    hooked = _registry().with_hooks(Recorder("a", seen), Recorder("b", seen, answer=ToolOutput(text="cached")),
                                    Recorder("c", seen))
    assert hooked.call("boom").text == "cached+c+b+a"
    assert [s.partition("(")[0] for s in seen] == ["a.before", "b.before", "c.after", "b.after", "a.after"]


def test_a_rewrite_is_validated_again_and_reaches_the_tool():
    seen: list[str] = []
    hooked = _registry().with_hooks(Recorder("a", seen, rewrite={"times": 3}))
    assert hooked.call("echo", {"text": "x"}).text == "xxx+a"
    bad = _registry().with_hooks(Recorder("a", seen, rewrite={"times": "many"}))
    out = bad.call("echo", {"text": "x"})
    assert out.is_error and "times" in out.text and out.text.endswith("+a")  # the after still saw the failure


def test_a_hook_that_raises_becomes_the_calls_error_text():
    seen: list[str] = []
    out = _registry().with_hooks(Recorder("a", seen, fail="before")).call("echo", {"text": "x"})
    assert out.is_error and "a refused" in out.text and seen[-1].startswith("a.after(")
    out = _registry().with_hooks(Recorder("a", seen, fail="after")).call("echo", {"text": "x"})
    assert out.is_error and "a broke" in out.text and "\n" not in out.text

    class Wrong:
        def after(self, call: ToolCall, output: ToolOutput) -> str:
            return "not an output"

    out = _registry().with_hooks(Wrong()).call("echo", {"text": "x"})
    assert out.is_error and "expected a ToolOutput" in out.text


def test_invalid_calls_and_unknown_tools_reach_the_afters():
    seen: list[str] = []
    hooked = _registry().with_hooks(Recorder("a", seen))
    out = hooked.call("echo", '{"text": 5}')
    assert out.is_error and seen == ['a.after(' + out.text.removesuffix("+a") + ")"]
    calls: list[ToolCall] = []

    class Keep:
        def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
            calls.append(call)
            return output

    _registry().with_hooks(Keep()).call("missing", '{"q": 1}')
    assert calls[0].tool is None and calls[0].arguments == {"q": 1} and calls[0].name == "missing"


def test_a_hook_needs_one_of_the_four_methods():
    with pytest.raises(agenttools.ToolDefinitionError, match="none of before, after, abefore, aafter"):
        _registry().with_hooks(object())


def test_acall_awaits_the_async_twins_and_runs_plain_methods_too():
    seen: list[str] = []

    class Twin:
        async def abefore(self, call: ToolCall) -> None:
            seen.append(f"abefore:{call.call_id}")

        async def aafter(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
            seen.append("aafter")
            return attrs.evolve(output, text=output.text + "!")

        def before(self, call: ToolCall) -> None:  # never used by acall: the twin is
            seen.append("before")

    hooked = _registry().with_hooks(Twin(), Recorder("p", seen))
    out = asyncio.run(hooked.acall("later", {"text": "x"}, call_id="id-7"))
    assert out.text == "X+p!"
    assert seen == ["abefore:id-7", 'p.before(later,{"text": "x"})', "p.after(X)", "aafter"]


def test_run_and_arun_hand_the_sdks_call_id_to_the_hooks():
    ids: list[str] = []

    class Ids:
        def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
            ids.append(call.call_id)
            return output

    hooked = _registry().with_hooks(Ids())
    openai = {"id": "call_oa", "type": "function", "function": {"name": "echo", "arguments": '{"text": "a"}'}}
    anthropic = {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"text": "b"}}
    gemini = {"function_call": {"id": "g-1", "name": "echo", "args": {"text": "c"}}}
    assert hooked.run(openai)["content"] == "a"
    assert hooked.run(anthropic)["content"] == [{"type": "text", "text": "b"}]
    hooked.run(gemini)
    asyncio.run(hooked.arun(openai))
    hooked.call("echo", {"text": "d"})
    assert ids[:4] == ["call_oa", "toolu_1", "g-1", "call_oa"]
    assert ids[4].startswith("call_") and ids[4] not in ids[:4]


def test_calls_from_many_threads_each_see_their_own_call():
    seen: list[tuple[str, str]] = []
    lock = threading.Lock()

    class Pair:
        def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
            with lock:
                seen.append((call.arguments["text"], output.text))
            return output

    hooked = _registry().with_hooks(Pair())
    threads = [threading.Thread(target=hooked.call, args=("echo", {"text": str(i)})) for i in range(32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == sorted((str(i), str(i)) for i in range(32))


def test_the_langchain_tools_pass_through_the_hooks():
    seen: list[str] = []
    tools = {tool.name: tool for tool in _registry().with_hooks(Recorder("lc", seen)).to_langchain()}
    assert "+lc" in str(tools["echo"].invoke({"text": "hey"}))
    assert seen and seen[0].startswith("lc.before(echo")
