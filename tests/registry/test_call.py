"""Registry.call / acall: validation of every bad-argument shape, null defaults, errors as output, async."""

from __future__ import annotations

import asyncio
import enum
import json
import os
import pathlib
from typing import Any, Literal

import pytest

import agenttools
from agenttools import ArgumentsError, ImageBlock, TextBlock, ToolOutput
from conftest import search_files


def test_null_for_optional_means_python_default(reg):
    out = reg.call("search_files", {"query": "x", "paths": ["."], "max_results": None, "mode": None, "since": None})
    assert not out.is_error
    assert out.data == ["x|['.']|10|glob|None"]
    assert out.text == json.dumps(out.data, ensure_ascii=False)


def test_json_string_arguments(reg):
    out = reg.call("search_files", '{"query": "é", "paths": ["a", "b"], "max_results": 3, "mode": "regex"}')
    assert out.text == '["é|[\'a\', \'b\']|3|regex|None"]'
    assert out.content == (TextBlock(text=out.text),)


def test_str_return_is_the_text():
    reg = agenttools.Registry()

    @reg.tool
    def hello(name: str) -> str:
        """Say hello.

        Args:
            name: Who to greet.
        """
        return f"Hello, {name}!"

    out = reg.call("hello", {"name": "Ada"})
    assert out == ToolOutput(text="Hello, Ada!", data="Hello, Ada!")


@pytest.mark.parametrize(
    ("arguments", "issue"),
    [
        ({"paths": ["."]}, ("required", (), "must have required property 'query'")),
        ({"query": "x", "paths": ["."], "colour": 1},
         ("additionalProperties", (), "must NOT have additional properties")),
        ({"query": 5, "paths": ["."]}, ("type", ("query",), "must be string")),
        ({"query": "x", "paths": "."}, ("type", ("paths",), "must be array")),
        ({"query": "x", "paths": [1]}, ("type", ("paths", 0), "must be string")),
        ({"query": "x", "paths": ["."], "max_results": "3"}, ("type", ("max_results",), "must be integer")),
        ({"query": "x", "paths": ["."], "max_results": 2.5}, ("type", ("max_results",), "must be integer")),
        ({"query": "x", "paths": ["."], "max_results": True}, ("type", ("max_results",), "must be integer")),
        ({"query": "x", "paths": ["."], "mode": "fuzzy"},
         ("enum", ("mode",), "must be equal to one of the allowed values")),
        ({"query": "x", "paths": ["."], "since": 3}, ("anyOf", ("since",), "must match a schema in anyOf")),
        ({"query": None, "paths": ["."]}, ("type", ("query",), "must be string")),
    ],
)
def test_bad_arguments_are_rejected_before_the_function_runs(arguments, issue):
    calls: list[tuple[Any, ...]] = []
    reg = agenttools.Registry()

    @reg.tool
    def search_files(query: str, paths: list[str], max_results: int = 10,
                     mode: Literal["glob", "regex"] = "glob", since: str | None = None) -> str:
        """Search files.

        Args:
            query: Text.
            paths: Where.
            max_results: How many.
            mode: How.
            since: When.
        """
        calls.append((query, paths, max_results, mode, since))
        return "ran"

    out = reg.call("search_files", arguments)
    assert out.is_error
    assert calls == []
    assert isinstance(out.data, ArgumentsError)
    first = out.data.issues[0]
    assert (first.keyword, first.path, first.message) == issue
    assert out.text.startswith("Error: invalid arguments for search_files: ")
    assert "\n" not in out.text and "Traceback" not in out.text


def test_default_error_text_names_arguments_plainly(reg):
    out = reg.call("search_files", {"query": 5, "mode": "fuzzy", "extra": True})
    assert out.text == (
        "Error: invalid arguments for search_files: missing required argument 'paths'; "
        "unknown argument 'extra'; argument 'query' must be string, got integer; "
        'argument \'mode\' must be one of "glob", "regex", got "fuzzy"'
    )


def test_optional_union_message(reg):
    out = reg.call("search_files", {"query": "x", "paths": [], "since": 3})
    assert out.text == "Error: invalid arguments for search_files: argument 'since' must be string or null, got integer"


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("{bad", "Error: invalid arguments for search_files: arguments are not valid JSON: Expecting property name "
                 "enclosed in double quotes: line 1 column 2 (char 1)"),
        ("[1, 2]", "Error: invalid arguments for search_files: arguments must be object, got array"),
        ('"text"', "Error: invalid arguments for search_files: arguments must be object, got string"),
        ("null", "Error: invalid arguments for search_files: arguments must be object, got null"),
        ('{"query": NaN, "paths": []}', "Error: invalid arguments for search_files: arguments are not valid JSON: "
                                        "NaN is not valid JSON"),
        (b"\xff", "Error: invalid arguments for search_files: arguments are not valid UTF-8: 'utf-8' codec can't "
                  "decode byte 0xff in position 0: invalid start byte"),
        (42, "Error: invalid arguments for search_files: arguments must be object, got integer"),
    ],
)
def test_arguments_that_are_not_an_object(reg, raw, text):
    out = reg.call("search_files", raw)
    assert out.is_error
    assert out.text == text


def test_empty_argument_string_means_no_arguments():
    reg = agenttools.Registry()

    @reg.tool
    def ping() -> str:
        """Ping."""
        return "pong"

    assert reg.call("ping", "").text == "pong"
    assert reg.call("ping").text == "pong"
    assert reg.call("ping", "  ").text == "pong"


def test_unknown_tool(reg):
    out = reg.call("nope", {})
    assert out.is_error
    assert out.text == "Error: unknown tool 'nope'; available tools: search_files"
    assert isinstance(out.data, agenttools.UnknownToolError)
    assert isinstance(out.data, LookupError)


def test_exceptions_become_error_output_without_traceback():
    reg = agenttools.Registry()

    @reg.tool
    def divide(a: int, b: int) -> float:
        """Divide a by b.

        Args:
            a: Dividend.
            b: Divisor.
        """
        return a / b

    @reg.tool
    def fail() -> str:
        """Fail on purpose."""
        raise agenttools.NotFoundError(path="/w/x")

    @reg.tool
    def leave() -> str:
        """Call sys.exit."""
        raise SystemExit(3)

    out = reg.call("divide", {"a": 1, "b": 0})
    assert out.is_error
    assert out.text == "Error: ZeroDivisionError: division by zero"
    assert isinstance(out.data, ZeroDivisionError)
    assert reg.call("fail").text == "Error: /w/x does not exist"
    assert reg.call("leave").text == "Error: SystemExit: 3"


def test_unserialisable_return_is_an_error_not_a_raise():
    reg = agenttools.Registry()

    @reg.tool
    def weird() -> object:
        """Return something odd."""
        return object()

    out = reg.call("weird")
    assert out.is_error
    assert out.text == "Error: TypeError: Object of type object is not JSON serializable"


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


def test_conversions_to_annotated_python_types():
    seen: dict[str, Any] = {}
    reg = agenttools.Registry()

    @reg.tool
    def convert(mode: Mode, pair: tuple[int, str], many: tuple[float, ...], where: pathlib.Path,
                ratio: float, maybe: Mode | None = None, table: dict[str, tuple[int, ...]] | None = None) -> str:
        """Convert arguments.

        Args:
            mode: A mode.
            pair: A pair.
            many: Numbers.
            where: A path.
            ratio: A ratio.
            maybe: Maybe a mode.
            table: A table.
        """
        seen.update(locals())
        return "ok"

    out = reg.call("convert", {"mode": "fast", "pair": [1, "a"], "many": [1, 2.5], "where": "a/b", "ratio": 2,
                               "maybe": "slow", "table": {"k": [1, 2]}})
    assert out.text == "ok", out.text
    assert seen["mode"] is Mode.FAST
    assert seen["pair"] == (1, "a")
    assert seen["many"] == (1.0, 2.5)
    assert seen["where"] == pathlib.Path("a/b")
    assert seen["ratio"] == 2.0 and isinstance(seen["ratio"], float)
    assert seen["maybe"] is Mode.SLOW
    assert seen["table"] == {"k": (1, 2)}


def test_integral_float_is_an_integer():
    reg = agenttools.Registry()

    @reg.tool
    def count(n: int) -> str:
        """Count.

        Args:
            n: How many.
        """
        return repr(n)

    assert reg.call("count", '{"n": 3.0}').text == "3"


def test_content_blocks_and_images():
    reg = agenttools.Registry()
    png = b"\x89PNG\r\n\x1a\n"

    @reg.tool
    def snap() -> list[object]:
        """Take a picture."""
        return [TextBlock(text="here:"), ImageBlock.from_bytes(png, "image/png")]

    out = reg.call("snap")
    assert out.content == (TextBlock(text="here:"), ImageBlock(data="iVBORw0KGgo=", mime_type="image/png"))
    assert out.text == "here:\n[image: image/png]"
    assert out.content[1].to_bytes() == png  # type: ignore[union-attr]


def test_tool_may_return_a_tooloutput():
    reg = agenttools.Registry()

    @reg.tool
    def shaped() -> ToolOutput:
        """Return a ready output."""
        return ToolOutput(text="Binary content of type image/png was processed.",
                          content=(ImageBlock(data="AA==", mime_type="image/png"),), data={"k": 1})

    out = reg.call("shaped")
    assert out.text == "Binary content of type image/png was processed."
    assert out.content == (ImageBlock(data="AA==", mime_type="image/png"),)


def test_explicit_schema_tool_keeps_extra_keys_and_renders_its_own_errors():
    received: list[dict[str, Any]] = []

    def render(tool: str, error: BaseException) -> str:
        if isinstance(error, ArgumentsError):
            return f"Error: Invalid parameters provided. Reason: {error.issues[0].ajv_text()}"
        return f"Error: {error}"

    tool = agenttools.Tool.from_schema(
        name="glob", description="Find files.", render_error=render,
        parameters={"type": "object", "properties": {
            "pattern": {"type": "string"}, "path": {"type": "string"},
            "case_sensitive": {"type": "boolean"}}, "required": ["pattern"]},
        handler=lambda args: received.append(args) or "found")
    reg = agenttools.Registry([tool])
    assert reg.call("glob", {"pattern": "*.py", "extra": 1}).text == "found"
    assert received == [{"pattern": "*.py", "extra": 1}]
    assert reg.call("glob", {}).text == ("Error: Invalid parameters provided. Reason: "
                                         "params must have required property 'pattern'")
    assert reg.call("glob", {"pattern": "x", "path": 3}).text == ("Error: Invalid parameters provided. Reason: "
                                                                  "params/path must be string")
    assert reg.call("glob", {"pattern": "x", "case_sensitive": "yes"}).text == (
        "Error: Invalid parameters provided. Reason: params/case_sensitive must be boolean")
    # null for an optional non-nullable property means "absent"
    assert reg.call("glob", {"pattern": "x", "path": None}).text == "found"
    assert received[-1] == {"pattern": "x"}


def test_registry_level_renderer_and_renderer_failures():
    reg = agenttools.Registry(render_error=lambda name, e: f"[{getattr(e, 'code', 'BUG')}] {e}")

    @reg.tool
    def boom() -> str:
        """Explode."""
        raise RuntimeError("kaput")

    assert reg.call("boom").text == "[BUG] kaput"
    assert reg.call("nope").text.startswith("[unknown_tool] unknown tool 'nope'")

    def broken(name: str, error: BaseException) -> str:
        raise ValueError("renderer bug")

    reg2 = agenttools.Registry(render_error=broken)
    reg2.tool(boom)
    assert reg2.call("boom").text == "Error: RuntimeError: kaput"


# --- composition ---------------------------------------------------------------------------------------------

def test_composition_keeps_order_and_each_tools_renderer():
    a = agenttools.Registry(render_error=lambda n, e: "A-style")
    b = agenttools.Registry(render_error=lambda n, e: "B-style")

    @a.tool
    def one() -> str:
        """One."""
        raise ValueError

    @b.tool
    def two() -> str:
        """Two."""
        raise ValueError

    both = a | b
    assert both.names() == ("one", "two")
    assert both.call("one").text == "A-style"
    assert both.call("two").text == "B-style"
    assert a.names() == ("one",)  # operands unchanged


def test_composition_name_clash_raises(reg):
    other = agenttools.Registry()
    other.tool(search_files)
    with pytest.raises(agenttools.ToolDefinitionError, match="already registered"):
        reg | other


def test_or_with_non_registry_is_type_error(reg):
    with pytest.raises(TypeError):
        reg | 3


# --- async -----------------------------------------------------------------------------------------------------

def _async_registry() -> agenttools.Registry:
    reg = agenttools.Registry()

    @reg.tool
    async def slow_echo(text: str, delay: float = 0.0) -> str:
        """Echo after a delay.

        Args:
            text: What to echo.
            delay: Seconds to wait.
        """
        await asyncio.sleep(delay)
        return text

    reg.tool(search_files)
    return reg


def test_acall_runs_async_and_sync_tools():
    reg = _async_registry()

    async def main() -> list[ToolOutput]:
        return await asyncio.gather(reg.acall("slow_echo", {"text": "a", "delay": 0.01}),
                                    reg.acall("search_files", {"query": "q", "paths": []}),
                                    reg.acall("slow_echo", '{"text": 1}'))

    echo, search, bad = asyncio.run(main())
    assert echo.text == "a"
    assert search.data == ["q|[]|10|glob|None"]
    assert bad.is_error and "argument 'text' must be string" in bad.text


def test_acall_does_not_block_the_loop():
    reg = agenttools.Registry()
    import time

    @reg.tool
    def block(seconds: float) -> str:
        """Block the thread.

        Args:
            seconds: How long.
        """
        time.sleep(seconds)
        return "done"

    async def main() -> int:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        task = asyncio.create_task(ticker())
        out = await reg.acall("block", {"seconds": 0.3})
        task.cancel()
        assert out.text == "done"
        return ticks

    assert asyncio.run(main()) >= 5


def test_sync_call_of_async_tool_inside_and_outside_a_loop():
    reg = _async_registry()
    assert reg.call("slow_echo", {"text": "outside"}).text == "outside"

    async def inside() -> str:
        return reg.call("slow_echo", {"text": "inside"}).text

    assert asyncio.run(inside()) == "inside"


def test_async_tool_errors_are_outputs():
    reg = agenttools.Registry()

    @reg.tool
    async def bad() -> str:
        """Fail."""
        raise KeyError("k")

    assert reg.call("bad").text == "Error: KeyError: 'k'"
    assert asyncio.run(reg.acall("bad")).text == "Error: KeyError: 'k'"


def test_multiline_exception_messages_render_on_one_line():
    reg = agenttools.Registry()

    @reg.tool
    def noisy() -> str:
        """Fail with a multi-line message."""
        raise RuntimeError("first line\n  second line\n\nthird")

    assert reg.call("noisy").text == "Error: RuntimeError: first line second line third"


def test_context_variables_reach_async_tools_called_synchronously_inside_a_loop():
    import contextvars

    current: contextvars.ContextVar[str] = contextvars.ContextVar("current", default="none")
    reg = agenttools.Registry()

    @reg.tool
    async def which() -> str:
        """Report the current session."""
        return current.get()

    async def main() -> tuple[str, str]:
        current.set("project-a")
        return reg.call("which").text, (await reg.acall("which")).text

    assert asyncio.run(main()) == ("project-a", "project-a")


def test_a_registry_shows_its_tools():
    assert repr(agenttools.Registry()) == "<Registry: no tools>"
    reg = agenttools.toolset("content")
    assert repr(reg) == "<Registry 3 tools: get_content, get_category_content, get_collection_content>"


def test_every_answer_is_well_formed_unicode(tmp_path):
    """A name that is not UTF-8 reaches a tool as lone surrogates; no answer may carry them (httpx, MCP refuse)."""
    name = os.fsdecode(b"bad\xff\xfe.txt")
    (tmp_path / name).write_text("x")
    reg = agenttools.Registry()

    @reg.tool
    def echo(text: str) -> str:
        """Echo.

        Args:
            text: What to say.
        """
        return text + name

    @reg.tool
    def fail() -> str:
        """Fail with a path in the message."""
        raise agenttools.NotFoundError(path=str(tmp_path / name))

    out = reg.call("echo", {"text": "\ud83d\ude00 and a lone \ud83d "})
    assert out.text == "\U0001f600 and a lone \ufffd bad\ufffd\ufffd.txt"
    assert out.content[0].text == out.text
    assert fail_text(reg).encode("utf-8")
    for shape in (reg.run({"id": "c", "type": "function", "function": {"name": "echo", "arguments": '{"text": "a"}'}}),
                  reg.run({"type": "tool_use", "id": "t", "name": "fail", "input": {}})):
        json.dumps(shape, ensure_ascii=False).encode("utf-8")  # what httpx sends
    with agenttools.toolset("gemini", root=str(tmp_path)) as gem:
        listing = gem.call("list_directory", {"path": str(tmp_path)}).text
    assert "bad\ufffd\ufffd.txt" in listing and listing.encode("utf-8")


def fail_text(reg: agenttools.Registry) -> str:
    out = reg.call("fail")
    assert out.is_error and "\ufffd\ufffd" in out.text
    return out.text
