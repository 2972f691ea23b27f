"""Parameters typed as people write tools for pydantic-ai, FastMCP and the Agents SDK: objects, constraints."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Annotated, Any, NamedTuple, NotRequired, Required, TypedDict

import annotated_types as at
import anthropic.types
import attrs
import mcp.types
import openai.types.chat
import pydantic
import pytest
import typing_extensions as te
from google.genai import types as gtypes

import agenttools


class User(pydantic.BaseModel):
    name: str
    age: Annotated[int, pydantic.Field(ge=0, description="Age in years")]

    @pydantic.field_validator("name")
    @classmethod
    def no_root(cls, value: str) -> str:
        if value == "root":
            raise ValueError("root is not a person")
        return value


@dataclasses.dataclass
class Address:
    city: str
    zip_code: Annotated[str, pydantic.Field(pattern=r"^[0-9]{5}$")] = "00000"
    tags: list[str] = dataclasses.field(default_factory=list)


@attrs.define
class Point:
    x: int
    y: int = attrs.field(default=0, metadata={"description": "Height"})
    label: str = attrs.field(factory=str, alias="label")


class Options(TypedDict, total=False):
    verbose: Required[bool]
    depth: int
    where: NotRequired[Address]


class Span(NamedTuple):
    start: int
    end: int = 10


def _registry() -> agenttools.Registry:
    reg = agenttools.Registry()

    @reg.tool
    def plan(users: list[User], home: Address, at_point: Point, options: Options, span: Span,
             fallback: Address | None = None,
             count: Annotated[int, pydantic.Field(ge=1, le=5, description="How many, 1 to 5")] = 1,
             ratio: Annotated[float, at.Gt(0), at.Lt(1)] = 0.5,
             names: Annotated[list[str], at.MinLen(1)] | None = None) -> dict[str, Any]:
        """Plan a visit.

        Parameters
        ----------
        users : list of User
            Who comes.
        home : Address
            Where from.
        at_point : Point
            Where to.
        options : Options
            How.
        span : Span
            When.
        fallback : Address, optional
            Another address.
        count : int
            Ignored: the Field's description wins.
        ratio : float
            A share.
        names : list of str, optional
            Names.
        """
        return {"users": [type(u).__name__ for u in users], "home": repr(home), "point": repr(at_point),
                "options": repr(options), "span": repr(span), "fallback": repr(fallback), "count": count}

    return reg


GOOD = {"users": [{"name": "ada", "age": 36}], "home": {"city": "Paris"}, "at_point": {"x": 1},
        "options": {"verbose": True, "where": {"city": "Lyon", "zip_code": "69001"}}, "span": {"start": 3}}


def test_objects_arrive_as_the_annotated_classes():
    result = _registry().call("plan", GOOD)
    assert not result.is_error, result.text
    data = result.data
    assert data["users"] == ["User"]
    assert data["home"] == "Address(city='Paris', zip_code='00000', tags=[])"  # defaults and default_factory
    assert data["point"] == "Point(x=1, y=0, label='')"
    assert data["options"] == repr({"verbose": True, "where": Address(city="Lyon", zip_code="69001", tags=[])})
    assert data["span"] == "Span(start=3, end=10)" and data["fallback"] == "None" and data["count"] == 1


def test_the_schema_holds_fields_defaults_descriptions_and_constraints():
    params = _registry()["plan"].parameters
    props = params["properties"]
    assert params["required"] == ["users", "home", "at_point", "options", "span"]
    user = props["users"]["items"]
    assert user["properties"]["age"] == {"description": "Age in years", "minimum": 0, "type": "integer"}
    assert props["users"]["description"] == "Who comes."  # NumPy-style docstrings
    home = props["home"]
    assert home["required"] == ["city"] and home["additionalProperties"] is False
    assert home["properties"]["zip_code"] == {"type": "string", "pattern": "^[0-9]{5}$", "default": "00000"}
    assert "default" not in home["properties"]["tags"]  # a factory's value is made per call, not shown
    assert props["at_point"]["properties"]["y"] == {"type": "integer", "description": "Height", "default": 0}
    assert props["options"]["required"] == ["verbose"]
    assert set(props["options"]["properties"]) == {"verbose", "depth", "where"}
    assert props["span"]["properties"]["end"]["default"] == 10 and props["span"]["required"] == ["start"]
    assert props["count"] == {"type": "integer", "description": "How many, 1 to 5", "minimum": 1, "maximum": 5,
                              "default": 1}
    assert props["ratio"]["exclusiveMinimum"] == 0 and props["ratio"]["exclusiveMaximum"] == 1
    assert props["names"]["anyOf"][0]["minItems"] == 1


@pytest.mark.parametrize(("change", "text"), [
    ({"users": [{"name": "ada", "age": -1}]}, "argument 'users.0.age' must be >= 0, got -1"),
    ({"count": 9}, "argument 'count' must be <= 5, got 9"),
    ({"home": {"city": "x", "zip_code": "abc"}}, "argument 'home.zip_code' must match pattern"),
    ({"home": {"city": "x", "country": "FR"}}, "unknown argument 'home.country'"),
    ({"options": {"depth": 1}}, "missing required argument 'options.verbose'"),
    ({"users": [{"name": "root", "age": 1}]}, "argument 'users.0.name' value error, root is not a person"),
])
def test_a_bad_argument_is_one_line_naming_its_path(change, text):
    out = _registry().call("plan", {**GOOD, **change})
    assert out.is_error and text in out.text and "\n" not in out.text, out.text
    assert out.text.startswith("Error: invalid arguments for plan: ")


def test_every_sdk_takes_the_definitions():
    reg = _registry()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        strict = reg.definitions("openai", strict=True)
    for definition in reg.definitions("openai") + strict:
        openai.types.chat.ChatCompletionFunctionTool.model_validate(definition)
    pydantic.TypeAdapter(anthropic.types.ToolParam).validate_python(reg.definitions("anthropic")[0])
    gtypes.FunctionDeclaration.model_validate(reg.definitions("gemini")[0])
    mcp.types.Tool.model_validate(reg.definitions("mcp")[0])

    def closed(schema: dict[str, Any]) -> None:  # OpenAI strict: every object closed, every key required
        if schema.get("type") == "object":
            assert schema["additionalProperties"] is False and schema["required"] == list(schema["properties"])
        for child in [*schema.get("properties", {}).values(), *schema.get("anyOf", []), schema.get("items")]:
            if child:
                closed(child)

    closed(strict[0]["function"]["parameters"])


@dataclasses.dataclass
class Node:
    value: int
    children: list[Node]


def test_a_recursive_type_is_refused_when_the_tool_is_defined():
    reg = agenttools.Registry()

    def walk(tree: Node) -> int:
        """Walk.

        Args:
            tree: A tree.
        """
        return 0

    with pytest.raises(agenttools.ToolDefinitionError, match="Node refers to itself"):
        reg.tool(walk)


class Query(te.TypedDict, total=False):
    text: te.Required[str]
    limit: int


def test_a_typing_extensions_typeddict_is_one_too():
    reg = agenttools.Registry()

    def find(query: Query) -> str:
        """Find.

        Args:
            query: What.
        """
        return repr(query)

    reg.tool(find)
    assert reg["find"].parameters["properties"]["query"]["required"] == ["text"]
    assert reg.call("find", {"query": {"text": "a", "limit": 2}}).text == "{'text': 'a', 'limit': 2}"
