"""ToolSpec and build_registry: a toolset is a list of specs, and adding a tool is adding one spec."""

from __future__ import annotations

import importlib

import attrs
import pytest

import agenttools
from agenttools import ToolDefinitionError, ToolFailure
from agenttools.toolsets import BUILTIN
from agenttools.toolsets._spec import READ, Hints, ToolSpec, build_registry


@attrs.define
class Counter:
    count: int = 0
    closed: bool = False


def _bump(state: Counter, args: dict) -> str:
    state.count += args.get("by", 1)
    return f"count={state.count}"


def _shout(state: Counter, args: dict) -> str:
    if args["text"] == "":
        raise ToolFailure("Nothing to shout.", code="empty")
    if args["text"] == "boom":
        raise ValueError("exploded")
    return args["text"].upper()


BUMP = ToolSpec(name="bump", description="Add to the counter.", handler=_bump, hints=Hints(title="Bump"),
                parameters={"type": "object", "properties": {"by": {"type": "integer", "minimum": 1}}})
SHOUT = ToolSpec(name="shout", description="Shout the text.", handler=_shout, hints=READ,
                 parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                 paths={})


def _render(tool: str, error: BaseException) -> str:
    return f"{tool} failed: {error}"


def test_one_spec_is_one_tool_with_its_contract_hints_and_shared_state():
    state = Counter()
    reg = build_registry([BUMP, SHOUT], state, render_error=_render)
    assert reg.names() == ("bump", "shout")
    assert reg.call("bump", {"by": 2}).text == "count=2"
    assert reg.call("bump", {}).text == "count=3"
    assert state.count == 3
    bump, shout = reg.definitions("mcp")
    assert bump["title"] == "Bump"
    assert bump["annotations"] == {"title": "Bump", "readOnlyHint": False, "destructiveHint": True,
                                   "idempotentHint": False, "openWorldHint": True}
    assert shout["title"] == "Shout"  # a tool without one is titled from its name
    assert shout["annotations"] == {"title": "Shout", "readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                                    "openWorldHint": False}
    assert shout["description"] == "Shout the text."


def test_adding_a_tool_is_adding_one_spec():
    extra = ToolSpec(name="reset", description="Reset the counter.", parameters={"type": "object"},
                     handler=lambda state, args: f"was {state.count}")
    state = Counter(count=5)
    reg = build_registry([BUMP, SHOUT, extra], state, render_error=_render)
    assert reg.names() == ("bump", "shout", "reset")
    assert reg.call("reset").text == "was 5"


def test_errors_validation_and_renderers():
    reg = build_registry([BUMP, SHOUT, SHOUT._replace(name="raw", validate=False,
                                                render_error=lambda tool, error: "own words")],
                         Counter(), render_error=_render)
    assert reg.call("shout", {"text": ""}).text == "Nothing to shout."  # ToolFailure: exact, no renderer
    assert reg.call("shout", {"text": "boom"}).text == "shout failed: exploded"  # the toolset's renderer
    out = reg.call("bump", {"by": 0})
    assert out.is_error and out.text.startswith("bump failed: invalid arguments for bump")
    assert reg.call("raw", {"text": "boom"}).text == "own words"  # a spec's own renderer wins
    assert reg.call("raw", {"text": 3}).is_error  # not validated: the handler meets the bad value itself


def test_on_close_runs_when_the_registry_closes():
    state = Counter()
    reg = build_registry([BUMP], state, render_error=_render, on_close=[lambda: setattr(state, "closed", True)])
    assert not state.closed
    reg.close()
    assert state.closed


def test_malformed_specs_and_repeated_names_are_refused():
    with pytest.raises(ToolDefinitionError, match="already registered"):
        build_registry([BUMP, BUMP], Counter(), render_error=_render)
    with pytest.raises(ToolDefinitionError, match="no description"):
        build_registry([BUMP._replace(description=" ")], Counter(), render_error=_render)
    with pytest.raises(ToolDefinitionError, match="must match"):
        build_registry([BUMP._replace(name="two words")], Counter(), render_error=_render)


def test_specs_are_frozen_and_replaced_field_by_field():
    spec = SHOUT._replace(paths={"file": "path"})
    assert spec.paths == {"file": "path"} and SHOUT.paths == {}
    assert spec.name == SHOUT.name and spec.handler is SHOUT.handler
    with pytest.raises(AttributeError):
        spec.name = "changed"  # type: ignore[misc]


def _package(name: str):
    return importlib.import_module(BUILTIN[name].partition(":")[0])


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_builtin_toolset_is_exactly_its_specs(name, tmp_path):
    specs = _package(name).TOOLS
    options = {"docroot": str(tmp_path), "categories": [{"name": "docs", "dir": ".", "patterns": ["*.md"]}]} \
        if name == "content" else {"root": str(tmp_path)}
    with agenttools.toolset(name, **options) as reg:
        assert reg.names() == tuple(spec.name for spec in specs)
        for spec, definition in zip(specs, reg.definitions("mcp"), strict=True):
            assert definition["description"] == spec.description
            assert definition["annotations"]["readOnlyHint"] == spec.hints.read_only
            properties = spec.parameters.get("properties", {})
            assert set(spec.paths) <= set(properties), spec.name
            assert set(spec.paths.values()) <= {"path", "paths", "args", "patch"}


def test_every_path_toolset_marks_its_path_parameters():
    """The security suite builds its escape matrix from these marks: a path toolset without them is untested."""
    for name in ("gemini", "editor", "assistant", "coder"):
        marked = {spec.name for spec in _package(name).TOOLS if spec.paths}
        assert len(marked) >= 3, (name, marked)


@pytest.mark.parametrize(("name", "text"), [
    ("gemini", 'Tool "nope" not found in registry.'),  # Gemini CLI 0.1.13's tool scheduler
    ("editor", 'unknown tool "nope"'),  # the MCP Go SDK (v1.3.1) boris runs on
    ("assistant", "ERROR: tool not found: nope"),
    ("coder", "Error: tool not found: nope"),
    ("content", "Unknown tool: nope"),  # the MCP Python SDK mcp-guide runs on
])
def test_an_unknown_tool_is_answered_in_the_contracts_words(name, text, tmp_path):
    options = {} if name == "content" else {"root": str(tmp_path)}
    with agenttools.toolset(name, **options) as reg:
        out = reg.call("nope", {})
    assert (out.is_error, out.text) == (True, text)
