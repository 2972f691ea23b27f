"""Structured results: output schemas, ``structured`` values, and MCP ``outputSchema``/``structuredContent``."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from pathlib import Path
from typing import TypedDict

import mcp.types
import pydantic
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import agenttools
from agenttools.output import jsonable
from schema.typed_results_fixture import build


@pytest.fixture
def reg():
    return build()


def test_a_structured_result_has_an_output_schema_a_value_and_the_same_json_as_text(reg):
    out = reg.call("report", {"n": 2})
    assert out.structured == {"count": 2, "names": ["n0", "n1"]}
    assert json.loads(out.text) == out.structured and out.text == '{"count": 2, "names": ["n0", "n1"]}'
    assert reg["report"].output_schema == {
        "type": "object", "properties": {"count": {"type": "integer"},
                                         "names": {"type": "array", "items": {"type": "string"}}},
        "required": ["count", "names"], "additionalProperties": False}
    assert reg.call("numbers", {"n": 3}).structured == [0, 1, 2]
    assert reg.call("span").structured == {"start": 1, "end": 2}  # a NamedTuple is an object, as its parameter
    assert reg["plain"].output_schema is None and reg.call("plain").structured is None


def test_values_json_has_no_type_for_get_one_conversion_each(reg):
    out = reg.call("odd")
    assert out.structured == {"when": "2026-11-27T09:30:00+00:00", "path": "/a/b", "raw": "AP8=", "color": "red",
                              "tags": ["a", "b"]}
    assert list(json.loads(out.text)) == ["when", "path", "raw", "color", "tags"]  # the order of the value


def test_mcp_definitions_wrap_a_result_that_is_not_an_object(reg):
    definitions = {d["name"]: d for d in reg.definitions("mcp")}
    assert definitions["report"]["outputSchema"] == reg["report"].output_schema
    assert definitions["numbers"]["outputSchema"] == {
        "type": "object", "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
        "required": ["result"], "additionalProperties": False}
    assert "outputSchema" not in definitions["plain"]
    for definition in definitions.values():
        mcp.types.Tool.model_validate(definition)
    assert reg.call("numbers", {"n": 2}).to_mcp()["structuredContent"] == {"result": [0, 1]}
    assert "structuredContent" not in reg.call("plain").to_mcp()


def test_a_real_mcp_client_validates_the_structured_content(tmp_path):
    tests_dir = str(Path(__file__).parents[1])
    params = StdioServerParameters(command=sys.executable, args=["-m", "agenttools", "serve", "--toolset",
                                                                   "schema.typed_results_fixture:build"],
                                   cwd=tests_dir)

    async def main() -> dict[str, object]:
        seen: dict[str, object] = {}
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            numbers = tools["numbers"]  # mcp 2.x names it output_schema, 1.x outputSchema
            seen["schema"] = getattr(numbers, "output_schema", None) or getattr(numbers, "outputSchema", None)
            for name, args in (("report", {"n": 1}), ("numbers", {"n": 2}), ("stats", {"values": [1.0, 3.0]}),
                               ("plain", {}), ("maybe", {"n": 0}), ("maybe", {"n": 2})):
                result = await session.call_tool(name, args)  # the client checks structuredContent's schema
                structured = getattr(result, "structured_content", getattr(result, "structuredContent", None))
                error = getattr(result, "is_error", getattr(result, "isError", None))
                seen[f"{name}{args.get('n', '')}" if name == "maybe" else name] = (structured, result.content[0].text,
                                                                                    error)
        return seen

    seen = asyncio.run(asyncio.wait_for(main(), 60))
    assert seen["report"] == ({"count": 1, "names": ["n0"]}, '{"count": 1, "names": ["n0"]}', False)
    assert seen["numbers"] == ({"result": [0, 1]}, "[0, 1]", False)
    assert seen["stats"] == ({"total": 2, "mean": 2.0}, '{"total": 2, "mean": 2.0}', False)
    assert seen["plain"] == (None, "just text", False)
    assert seen["maybe0"] == ({"result": None}, "null", False)  # None is a value of the wrapped schema
    assert seen["maybe2"] == ({"result": {"count": 2, "names": []}}, '{"count": 2, "names": []}', False)
    assert seen["schema"]["required"] == ["result"]


def test_keys_json_dumps_would_write_are_written_the_same_way():
    assert jsonable({1: "a", 2.5: "b", None: "c", False: "d"}) == {"1": "a", "2.5": "b", "null": "c", "false": "d"}
    with pytest.raises(TypeError, match="keys must be strings"):
        jsonable({(1, 2): "x"})


class Aliased(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)
    item_id: int = pydantic.Field(alias="itemId")

    @pydantic.computed_field  # type: ignore[prop-decorator]
    @property
    def label(self) -> str:
        return f"#{self.item_id}"


class Backwards(TypedDict):
    b: int
    a: int


@dataclasses.dataclass
class Ratio:
    ratio: float


def test_a_result_matches_its_output_schema_as_written():
    import jsonschema

    reg = agenttools.Registry()

    @reg.tool
    def item(n: int) -> Aliased:
        """An item.

        Args:
            n: Its id.
        """
        return Aliased(item_id=n)

    @reg.tool
    def order() -> Backwards:
        """Keys written in another order than the type's."""
        return {"a": 1, "b": 2}  # type: ignore[typeddict-item]

    @reg.tool
    def ratio() -> Ratio:
        """Not a number."""
        return Ratio(ratio=float("nan"))

    out = reg.call("item", {"n": 3})
    assert out.structured == {"itemId": 3, "label": "#3"}  # by alias, computed fields included: what pydantic writes
    jsonschema.validate(out.structured, reg["item"].output_schema)
    assert reg.call("order").text == '{"b": 2, "a": 1}'  # the type's order
    refused = reg.call("ratio")
    assert refused.is_error and refused.text == "Error: TypeError: nan is not a JSON number"
