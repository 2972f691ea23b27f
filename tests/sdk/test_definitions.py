"""Golden definitions for every target, and the SDKs' own types accepting them."""

from __future__ import annotations

import enum
import json
import warnings
from typing import Annotated, Any, Literal

import anthropic.types
import mcp.types
import openai.types.chat
import openai.types.responses
import openai.types.shared
import pydantic
import pytest
from google.genai import types as gtypes

import agenttools
from conftest import ping, search_files

D = "Search files for a text query."
C = json.loads(
    '{"type":"object","properties":{"query":{"type":"string","description":"Text to search for."},"paths":{"type":'
    '"array","items":{"type":"string"},"description":"Directories to search."},"max_results":{"type":"integer",'
    '"description":"Maximum number of hits to return.","default":10},"mode":{"type":"string","enum":["glob",'
    '"regex"],"description":"Matching mode.","default":"glob"},"since":{"anyOf":[{"type":"string"},{"type":"null"}'
    '],"description":"Only files modified after this ISO date.","default":null}},"required":["query","paths"],'
    '"additionalProperties":false}'
)
S = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Text to search for."},
        "paths": {"type": "array", "items": {"type": "string"}, "description": "Directories to search."},
        "max_results": {"anyOf": [{"type": "integer"}, {"type": "null"}],
                        "description": "Maximum number of hits to return. Default: 10."},
        "mode": {"anyOf": [{"type": "string", "enum": ["glob", "regex"]}, {"type": "null"}],
                 "description": 'Matching mode. Default: "glob".'},
        "since": {"anyOf": [{"type": "string"}, {"type": "null"}],
                  "description": "Only files modified after this ISO date."},
    },
    "required": ["query", "paths", "max_results", "mode", "since"],
    "additionalProperties": False,
}


def test_canonical_schema_is_byte_exact(reg):
    (definition,) = reg.definitions("json-schema")
    assert definition == {"name": "search_files", "description": D, "parameters": C}
    # key order too: the canonical schema serialises exactly like the issue's text
    assert json.dumps(definition["parameters"], separators=(",", ":")) == json.dumps(C, separators=(",", ":"))


def test_openai_chat_non_strict(reg):
    expected = [{"type": "function", "function": {"name": "search_files", "description": D, "parameters": C,
                                                  "strict": False}}]
    assert reg.definitions("openai", strict=False) == expected


def test_openai_default_is_explicit_non_strict(reg):
    (definition,) = reg.definitions("openai")
    assert definition["function"]["strict"] is False


def test_openai_responses_non_strict(reg):
    expected = [{"type": "function", "name": "search_files", "description": D, "parameters": C, "strict": False}]
    assert reg.definitions("openai-responses", strict=False) == expected


def test_openai_strict(reg):
    (chat,) = reg.definitions("openai", strict=True)
    assert chat == {"type": "function", "function": {"name": "search_files", "description": D, "parameters": S,
                                                     "strict": True}}
    (responses,) = reg.definitions("openai-responses", strict=True)
    assert responses == {"type": "function", "name": "search_files", "description": D, "parameters": S,
                         "strict": True}


def test_strict_is_a_fixed_point_of_openai_agents_rules(reg):
    """Every object closed, every key required, no default anywhere."""
    (chat,) = reg.definitions("openai", strict=True)
    text = json.dumps(chat)
    assert '"default"' not in text
    params = chat["function"]["parameters"]
    assert params["required"] == list(params["properties"])


def test_anthropic_default(reg):
    assert reg.definitions("anthropic") == [{"name": "search_files", "description": D, "input_schema": C}]


def test_anthropic_strict(reg):
    a = json.loads(json.dumps(C))
    a["properties"]["since"] = {"type": "string", "description": "Only files modified after this ISO date."}
    assert reg.definitions("anthropic", strict=True) == [
        {"name": "search_files", "description": D, "strict": True, "input_schema": a}]


def test_gemini_legacy(reg):
    expected_params = {
        "type": "OBJECT",
        "properties": {
            "query": {"type": "STRING", "description": "Text to search for."},
            "paths": {"type": "ARRAY", "items": {"type": "STRING"}, "description": "Directories to search."},
            "max_results": {"type": "INTEGER", "description": "Maximum number of hits to return.", "default": 10},
            "mode": {"type": "STRING", "enum": ["glob", "regex"], "description": "Matching mode.",
                     "default": "glob"},
            "since": {"type": "STRING", "nullable": True,
                      "description": "Only files modified after this ISO date."},
        },
        "required": ["query", "paths"],
    }
    assert reg.definitions("gemini") == [{"name": "search_files", "description": D, "parameters": expected_params}]


def test_mcp_with_annotations():
    reg = agenttools.Registry()
    reg.tool(title="Search files", read_only=True, idempotent=True, open_world=False)(search_files)
    assert reg.definitions("mcp") == [{
        "name": "search_files", "title": "Search files", "description": D, "inputSchema": C,
        # it returns list[str]: a structured result, sent wrapped (MCP wants an object at the root)
        "outputSchema": {"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}},
                         "required": ["result"], "additionalProperties": False},
        "annotations": {"title": "Search files", "readOnlyHint": True, "destructiveHint": False,
                        "idempotentHint": True, "openWorldHint": False},
    }]


def test_mcp_annotations_always_present_with_defaults(reg):
    (definition,) = reg.definitions("mcp")
    assert definition["annotations"] == {"title": definition["title"], "readOnlyHint": False,
                                         "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


@pytest.mark.parametrize(("name", "title"), [("read_file", "Read file"), ("readFile", "Read file"),
                                             ("getHTTPResponse", "Get HTTP response"), ("get_URL", "Get URL"),
                                             ("fetch-page", "Fetch page"), ("x", "X"), ("__", "__")])
def test_an_untitled_tool_is_titled_from_its_name_for_mcp(name, title):
    reg = agenttools.Registry()
    reg.add(agenttools.Registry.function_tool(ping, name=name))
    (definition,) = reg.definitions("mcp")
    assert (definition["title"], definition["annotations"]["title"]) == (title, title)
    assert reg[name].title is None  # the tool itself keeps "none given"


def test_no_parameters():
    reg = agenttools.Registry()
    reg.tool(ping)
    empty = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert reg.definitions("openai", strict=True)[0]["function"]["parameters"] == empty
    assert reg.definitions("openai", strict=False)[0]["function"]["parameters"] == empty
    assert reg.definitions("gemini") == [{"name": "ping", "description": "Check that the tools respond."}]
    assert reg.definitions("mcp")[0]["inputSchema"] == empty


def test_definitions_are_fresh_copies(reg):
    first = reg.definitions("openai")
    first[0]["function"]["parameters"]["properties"].clear()
    assert reg.definitions("openai")[0]["function"]["parameters"] == C


def test_unknown_format(reg):
    with pytest.raises(ValueError, match="unknown definitions format 'bedrock'"):
        reg.definitions("bedrock")


# --- the edge-case fixtures of the schema research, per target -------------------------------------------------

class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def edge(n: int | None, color: Color, weights: tuple[float, float], tags: dict[str, int],
         level: Literal[1, 2, 3] = 1, label: Annotated[str, "A short label."] = "x") -> str:
    """Exercise edge cases.

    Args:
        n: A nullable required number.
        color: Fill color.
        weights: Two weights.
        tags: Free-form counters.
        level: Verbosity level.
    """
    return f"{n}|{color!r}|{weights!r}|{tags}|{level}|{label}"


@pytest.fixture
def edge_reg():
    reg = agenttools.Registry()
    reg.tool(edge)
    return reg


def test_edge_canonical(edge_reg):
    props = edge_reg.definitions("json-schema")[0]["parameters"]["properties"]
    assert props["n"] == {"anyOf": [{"type": "integer"}, {"type": "null"}],
                          "description": "A nullable required number."}
    assert props["color"] == {"type": "string", "enum": ["red", "blue"], "description": "Fill color."}
    assert props["weights"] == {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}],
                                "minItems": 2, "maxItems": 2, "description": "Two weights."}
    assert props["tags"] == {"type": "object", "additionalProperties": {"type": "integer"},
                             "description": "Free-form counters."}
    assert props["level"] == {"type": "integer", "enum": [1, 2, 3], "description": "Verbosity level.", "default": 1}
    assert props["label"] == {"type": "string", "description": "A short label.", "default": "x"}


def test_edge_openai_strict_falls_back_for_free_form_dict(edge_reg):
    with pytest.warns(UserWarning, match="cannot be OpenAI-strict"):
        (definition,) = edge_reg.definitions("openai", strict=True)
    assert definition["function"]["strict"] is False
    assert definition["function"]["parameters"] == edge_reg.definitions("json-schema")[0]["parameters"]


def test_tuple_and_literal_under_openai_strict():
    reg = agenttools.Registry()

    @reg.tool
    def weigh(weights: tuple[float, float], level: Literal[1, 2, 3] = 1) -> str:
        """Weigh things.

        Args:
            weights: Two weights.
            level: Verbosity level.
        """
        return "ok"

    params = reg.definitions("openai", strict=True)[0]["function"]["parameters"]
    assert params["properties"]["weights"] == {"type": "array", "items": {"type": "number"}, "minItems": 2,
                                               "maxItems": 2, "description": "Two weights."}
    assert params["properties"]["level"] == {"anyOf": [{"type": "integer", "enum": [1, 2, 3]}, {"type": "null"}],
                                             "description": "Verbosity level. Default: 1."}


def test_edge_anthropic_strict(edge_reg):
    with pytest.warns(UserWarning, match="cannot be Anthropic-strict"):
        (definition,) = edge_reg.definitions("anthropic", strict=True)
    assert "strict" not in definition
    assert definition["input_schema"] == edge_reg.definitions("json-schema")[0]["parameters"]


def test_anthropic_strict_moves_unsupported_constraints_to_description():
    tool = agenttools.Tool.from_schema(
        name="pick", description="Pick.", handler=lambda a: "ok",
        parameters={"type": "object", "properties": {
            "k": {"type": "integer", "minimum": 1, "description": "Count."},
            "xs": {"type": "array", "items": {"type": "string"}, "minItems": 3}},
            "required": ["k", "xs"]})
    (definition,) = agenttools.Registry([tool]).definitions("anthropic", strict=True)
    props = definition["input_schema"]["properties"]
    assert props["k"] == {"type": "integer", "description": "Count. (minimum=1)"}
    assert props["xs"] == {"type": "array", "items": {"type": "string"}, "minItems": 1,
                           "description": "(minItems=3)"}


def test_anthropic_strict_budget_falls_back_per_tool():
    tools = [agenttools.Tool.from_schema(
        name=f"t{i}", description="T.", handler=lambda a: "ok",
        parameters={"type": "object", "properties": {f"o{j}": {"type": "string"} for j in range(10)}})
        for i in range(3)]
    with pytest.warns(UserWarning, match="'t2': over Anthropic's strict budget"):
        definitions = agenttools.Registry(tools).definitions("anthropic", strict=True)
    assert [d.get("strict") for d in definitions] == [True, True, None]


def test_edge_gemini(edge_reg):
    props = edge_reg.definitions("gemini")[0]["parameters"]["properties"]
    assert props["n"] == {"type": "INTEGER", "nullable": True, "description": "A nullable required number."}
    assert props["level"] == {"type": "INTEGER", "description": "Verbosity level. Allowed values: 1, 2, 3.",
                              "default": 1}
    assert props["weights"] == {"type": "ARRAY", "items": {"type": "NUMBER"}, "minItems": 2, "maxItems": 2,
                                "description": "Two weights."}
    assert "additionalProperties" not in json.dumps(props)
    assert props["tags"]["type"] == "OBJECT"


# --- the SDKs' own types accept every definition we emit ------------------------------------------------------

def _all_registries() -> list[agenttools.Registry]:
    reg = agenttools.Registry()
    reg.tool(title="Search files", read_only=True)(search_files)
    reg.tool(ping)
    reg.tool(edge)
    explicit = agenttools.Registry([agenttools.Tool.from_schema(
        name="read_file", description="Read a file.",
        parameters={"type": "object", "properties": {"absolute_path": {"type": "string", "description": "Path."},
                                                     "offset": {"type": "number", "minimum": 0}},
                    "required": ["absolute_path"]},
        handler=lambda args: "x")])
    return [reg, explicit]


def _roundtrip(model: type[pydantic.BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    return model.model_validate(data).model_dump(by_alias=True, exclude_none=True, mode="json")


@pytest.mark.parametrize("strict", [False, True])
def test_openai_types_accept(strict):
    for reg in _all_registries():
        with pytest.warns(UserWarning, match="'edge'") if strict and "edge" in reg else _nothing():
            chat = reg.definitions("openai", strict=strict)
        for definition in chat:
            assert _roundtrip(openai.types.chat.ChatCompletionFunctionTool, definition) == definition
            assert _roundtrip(openai.types.shared.FunctionDefinition, definition["function"]) == \
                definition["function"]
        with pytest.warns(UserWarning, match="'edge'") if strict and "edge" in reg else _nothing():
            responses = reg.definitions("openai-responses", strict=strict)
        for definition in responses:
            assert _roundtrip(openai.types.responses.FunctionTool, definition) == definition


class _nothing:  # noqa: N801 - a no-op context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_anthropic_types_accept():
    adapter = pydantic.TypeAdapter(anthropic.types.ToolParam)
    for reg in _all_registries():
        for strict in (None, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # 'edge' cannot be strict: checked in its own test
                definitions = reg.definitions("anthropic", strict=strict)
            for definition in definitions:
                assert adapter.validate_python(definition) == definition
                assert definition["input_schema"]["type"] == "object"
                assert not {"anyOf", "oneOf", "allOf"} & set(definition["input_schema"])


def test_gemini_types_accept():
    for reg in _all_registries():
        for definition in reg.definitions("gemini"):
            declaration = gtypes.FunctionDeclaration.model_validate(definition)
            assert declaration.name == definition["name"]
            dumped = declaration.model_dump(by_alias=True, exclude_none=True, mode="json")
            assert dumped == definition
        tool = gtypes.Tool(function_declarations=reg.definitions("gemini"))
        assert len(tool.function_declarations or []) == len(reg)


def test_mcp_types_accept():
    for reg in _all_registries():
        for definition in reg.definitions("mcp"):
            assert _roundtrip(mcp.types.Tool, definition) == definition


def _ref_tool(recursive: bool) -> agenttools.Tool:
    node = ({"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}} if recursive
            else {"type": "string", "enum": ["a", "b"]})
    return agenttools.Tool.from_schema(
        name="refs", description="Use refs.", handler=lambda a: "ok",
        parameters={"type": "object", "$defs": {"Node": node},
                    "properties": {"node": {"$ref": "#/$defs/Node", "description": "A node."}},
                    "required": ["node"]})


def test_refs_are_inlined_for_strict_and_gemini():
    reg = agenttools.Registry([_ref_tool(recursive=False)])
    strict = reg.definitions("openai", strict=True)[0]["function"]["parameters"]
    assert strict == {"type": "object", "properties": {"node": {"type": "string", "enum": ["a", "b"],
                                                                 "description": "A node."}},
                      "required": ["node"], "additionalProperties": False}
    gemini = reg.definitions("gemini")[0]["parameters"]
    assert gemini == {"type": "OBJECT", "properties": {"node": {"type": "STRING", "enum": ["a", "b"],
                                                                "description": "A node."}},
                      "required": ["node"]}
    assert reg.call("refs", {"node": "c"}).is_error
    assert reg.call("refs", {"node": "a"}).text == "ok"


def test_recursive_refs():
    reg = agenttools.Registry([_ref_tool(recursive=True)])
    with pytest.raises(agenttools.ToolDefinitionError, match="recursive"):
        reg.definitions("gemini")
    with pytest.warns(UserWarning, match="cannot be OpenAI-strict"):
        assert reg.definitions("openai", strict=True)[0]["function"]["strict"] is False
    assert reg.definitions("mcp")[0]["inputSchema"]["$defs"]  # MCP keeps the canonical schema
    assert reg.call("refs", {"node": {"child": {"child": {}}}}).text == "ok"
    assert reg.call("refs", {"node": {"child": 3}}).text == (
        "Error: invalid arguments for refs: argument 'node.child' must be object, got integer")
