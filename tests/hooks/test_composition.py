"""select, without, prefixed, renamed and combine: new registries over the same tools, state, hooks and close()."""

from __future__ import annotations

import attrs
import pytest

import agenttools
from agenttools import Registry, ToolCall, ToolOutput


class Tag:
    def __init__(self, tag: str) -> None:
        self.tag = tag

    def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        return attrs.evolve(output, text=f"{output.text}[{self.tag}]")


def _definitions(reg: Registry, fmt: str = "json-schema") -> dict[str, dict]:
    return {d.get("name") or d["function"]["name"]: d for d in reg.definitions(fmt)}  # type: ignore[index]


def test_select_and_without_keep_the_definitions_hooks_and_state(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    reg = agenttools.toolset("gemini", root=str(tmp_path)).with_hooks(Tag("h"))
    reads = reg.select(["read_file", "list_directory"])
    assert reads.names() == ("list_directory", "read_file")  # the registry's order, not the argument's
    assert _definitions(reads) == {k: v for k, v in _definitions(reg).items() if k in reads}
    assert reads.call("read_file", {"absolute_path": str(tmp_path / "a.txt")}).text == "hello\n[h]"
    rest = reg.without(["run_shell_command"])
    assert "run_shell_command" not in rest and len(rest) == len(reg) - 1
    with pytest.raises(agenttools.ToolDefinitionError, match="no tool named 'nope'"):
        reg.select(["nope"])
    with pytest.raises(agenttools.ToolDefinitionError, match="no tool named 'nope'"):
        reg.without("nope")


def test_prefixed_and_renamed_rename_the_tools_and_the_texts_that_quote_them(tmp_path):
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    fs = reg.prefixed("fs_")
    assert fs.names() == tuple("fs_" + name for name in reg.names())
    for fmt in ("openai", "anthropic", "gemini", "mcp"):
        ours, theirs = reg.definitions(fmt), fs.definitions(fmt)
        assert [str(d).replace("'fs_", "'") for d in theirs] == [str(d) for d in ours]
    assert fs.call("fs_read_file", {}).text == reg.call("read_file", {}).text  # gemini's texts name no tool
    plain = Registry()

    @plain.tool
    def echo(text: str) -> str:
        """Echo.

        Args:
            text: What to say.
        """
        return text

    x = plain.prefixed("x_")
    assert x.call("x_echo", {}).text == "Error: invalid arguments for x_echo: missing required argument 'text'"
    assert x.call("echo", {}).text == "Error: unknown tool 'echo'; available tools: x_echo"
    opened = reg.renamed({"read_file": "open"})
    assert "open" in opened and "read_file" not in opened and "glob" in opened
    with pytest.raises(agenttools.ToolDefinitionError, match="would be named 'glob'"):
        reg.renamed({"read_file": "glob"})
    with pytest.raises(agenttools.ToolDefinitionError, match="'bad name'"):
        reg.renamed({"read_file": "bad name"})


def test_combine_keeps_each_tools_hooks_and_names_both_sources_on_a_clash(tmp_path):
    a = Registry()

    @a.tool
    def one() -> str:
        """One."""
        return "1"

    b = Registry()

    @b.tool
    def two() -> str:
        """Two."""
        return "2"

    both = Registry.combine(a.with_hooks(Tag("a")), b)
    assert both.call("one").text == "1[a]" and both.call("two").text == "2"
    assert both.with_hooks(Tag("all")).call("one").text == "1[all][a]"  # added later: inner
    with pytest.raises(agenttools.ToolDefinitionError, match=r"'one' is already registered: in registry 1 and in "
                                                             r"registry 2"):
        Registry.combine(a, a.select(["one"]))


def test_views_share_the_state_and_closing_one_closes_it(tmp_path):
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    closed: list[str] = []
    reg.on_close(lambda: closed.append("state"))
    view = reg.with_hooks(Tag("x")).select(["glob"])
    view.close()
    assert closed == ["state"]
    reg.close()
    assert closed == ["state"]  # once
    combined = Registry.combine(Registry(), Registry())
    combined.close()
