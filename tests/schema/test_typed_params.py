"""Parameters typed as people write tools for pydantic-ai, FastMCP and the Agents SDK: objects, constraints."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import ipaddress
import uuid
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


def _fielded() -> agenttools.Registry:
    """Tools written as FastMCP's and pydantic's docs also write them: ``Field`` as the default value."""
    reg = agenttools.Registry()

    @reg.tool
    def tag(x: int = pydantic.Field(default=5, ge=0, description="A number"),
            tags: list[str] = pydantic.Field(default_factory=list, description="Labels"),
            name: str = pydantic.Field(description="Who"),
            box: dict[str, int] = pydantic.Field(default={"a": 1})) -> dict[str, Any]:
        """Tag things.

        Args:
            x: Loses to the Field's description.
            tags: Labels.
            name: Who.
            box: A box.
        """
        tags.append("seen")  # a fresh list per call, as pydantic makes one
        box["a"] += 1  # a copy of the default per call, as pydantic makes one
        return {"x": x, "tags": tags, "name": name, "box": box}

    return reg


def test_a_field_as_the_default_value_is_an_annotated_field():
    reg = _fielded()
    props = reg["tag"].parameters["properties"]
    assert reg["tag"].parameters["required"] == ["name"]  # Field() with no default: required
    assert props["x"] == {"type": "integer", "description": "A number", "minimum": 0, "default": 5}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}, "description": "Labels"}
    assert props["box"]["default"] == {"a": 1}
    first = reg.call("tag", {"name": "n"})
    second = reg.call("tag", {"name": "n"})
    assert first.structured == second.structured == {"x": 5, "tags": ["seen"], "name": "n", "box": {"a": 2}}
    refused = reg.call("tag", {"name": "n", "x": -1})
    assert refused.text == "Error: invalid arguments for tag: argument 'x' must be >= 0, got -1"
    assert reg.call("tag", {}).text == "Error: invalid arguments for tag: missing required argument 'name'"


def test_dates_times_and_uuids_arrive_as_objects_from_iso_strings():
    reg = agenttools.Registry()

    @reg.tool
    def book(day: datetime.date, at: datetime.datetime | None = None, start: datetime.time = datetime.time(9, 30),
             ref: uuid.UUID | None = None) -> str:
        """Book.

        Args:
            day: The day.
            at: When exactly.
            start: Opening time.
            ref: A booking reference.
        """
        return f"{day!r} {at!r} {start!r} {ref!r}"

    props = reg["book"].parameters["properties"]
    assert props["day"] == {"type": "string", "format": "date", "description": "The day."}
    assert props["at"]["anyOf"][0] == {"type": "string", "format": "date-time"}
    assert props["start"]["default"] == "09:30:00" and props["ref"]["anyOf"][0]["format"] == "uuid"
    out = reg.call("book", {"day": "2026-11-27", "at": "2026-11-27T10:00:00Z",
                            "ref": "12345678-1234-5678-1234-567812345678"})
    assert out.text == ("datetime.date(2026, 11, 27) datetime.datetime(2026, 11, 27, 10, 0, "
                        "tzinfo=datetime.timezone.utc) datetime.time(9, 30) "
                        "UUID('12345678-1234-5678-1234-567812345678')")
    bad = reg.call("book", {"day": "27/11/2026"})
    assert bad.text == 'Error: invalid arguments for book: argument \'day\' must match format "date"'
    assert reg.call("book", {"day": "2026-11-27", "ref": "nope"}).text.endswith("argument 'ref' must match format "
                                                                                  '"uuid"')
    strict = reg.definitions("openai", strict=True)[0]
    openai.types.chat.ChatCompletionFunctionTool.model_validate(strict)
    gtypes.FunctionDeclaration.model_validate(reg.definitions("gemini")[0])


def test_other_types_pydantic_knows_go_through_its_type_adapter():
    reg = agenttools.Registry()

    @reg.tool
    def pay(amount: decimal.Decimal, host: ipaddress.IPv4Address,
            score: pydantic.conint(ge=0, le=10) = 5) -> str:  # type: ignore[valid-type]
        """Pay.

        Args:
            amount: How much.
            host: Where.
            score: How well.
        """
        return f"{amount!r} {host!r} {score!r}"

    params = reg["pay"].parameters
    assert params["properties"]["host"]["format"] == "ipv4"
    assert params["properties"]["score"]["maximum"] == 10
    assert reg.call("pay", {"amount": "1.10", "host": "127.0.0.1"}).text == ("Decimal('1.10') "
                                                                             "IPv4Address('127.0.0.1') 5")
    bad = reg.call("pay", {"amount": "1.10", "host": "300.1.1.1"})
    assert bad.is_error and bad.text.startswith("Error: invalid arguments for pay: argument 'host' ")
    assert "\n" not in bad.text


class Opaque:
    def __init__(self, secret: object) -> None:
        self.secret = secret


def test_a_type_nobody_knows_is_refused_when_the_tool_is_defined():
    def use(thing: Opaque) -> str:
        """Use.

        Args:
            thing: A thing.
        """
        return ""

    with pytest.raises(agenttools.ToolDefinitionError, match="parameter 'thing': unsupported type Opaque"):
        agenttools.Registry().tool(use)


def _strict_nulls(schema: dict[str, Any], original: dict[str, Any] | None) -> Any:
    """Arguments as a model writes them for an OpenAI-strict schema: null for every optional property."""
    if schema.get("type") == "object":
        given = original or {}
        return {key: (_strict_nulls(sub, given.get(key)) if key in given else None)
                for key, sub in schema["properties"].items()}
    if "anyOf" in schema and original is not None:
        branch = next(b for b in schema["anyOf"] if b.get("type") != "null")
        return _strict_nulls(branch, original)
    if schema.get("type") == "array" and isinstance(original, list):
        return [_strict_nulls(schema["items"], item) for item in original]
    return original


def test_nulls_a_model_writes_for_a_strict_schema_mean_the_defaults_at_every_depth():
    reg = _registry()
    strict = reg.definitions("openai", strict=True)[0]["function"]["parameters"]
    arguments = _strict_nulls(strict, GOOD)
    assert arguments["home"]["zip_code"] is None and arguments["count"] is None  # nulls at two depths
    assert arguments["options"]["depth"] is None and arguments["span"]["end"] is None
    strict_out = reg.call("plan", arguments)
    assert not strict_out.is_error, strict_out.text
    assert strict_out.data == reg.call("plan", GOOD).data  # the same call as with the keys left out
    refused = reg.call("plan", {**GOOD, "home": {"city": None}})  # null for a required field is still wrong
    assert refused.text == "Error: invalid arguments for plan: argument 'home.city' must be string, got null"


class Tagged(pydantic.BaseModel):
    weight: int


class Basic(pydantic.BaseModel):
    query: str


class Advanced(pydantic.BaseModel):
    query: str
    filters: list[str]
    limit: int


class Cat(pydantic.BaseModel):
    kind: te.Literal["cat"]
    meow: int


class Dog(pydantic.BaseModel):
    kind: te.Literal["dog"]
    bark: int


class Pets(pydantic.BaseModel):
    pets: list[Annotated[Cat | Dog, pydantic.Field(discriminator="kind")]]


@pydantic.dataclasses.dataclass
class PydanticPerson:
    name: str
    age: int = pydantic.Field(ge=0, description="Age in years")


@dataclasses.dataclass
class Checked:
    x: int

    def __post_init__(self) -> None:
        if self.x < 0:
            raise ValueError("x must be >= 0")


@attrs.define
class Guarded:
    x: int = attrs.field(validator=attrs.validators.ge(0))


class Blank(pydantic.BaseModel):
    name: str

    @pydantic.field_validator("name")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("Name must not be blank (see the URL)")
        return value


def _edges() -> agenttools.Registry:
    reg = agenttools.Registry()

    @reg.tool
    def pick(user: User | None = None, tags: list[Tagged] | None = None, req: Basic | Advanced | None = None,
             pets: Pets | None = None, person: PydanticPerson | None = None, checked: Checked | None = None,
             guarded: Guarded | None = None, blank: Blank | None = None) -> str:
        """Pick.

        Args:
            user: A user.
            tags: Tags.
            req: A request.
            pets: Pets.
            person: A person.
            checked: Checked by __post_init__.
            guarded: Checked by attrs.
            blank: Checked by a pydantic validator.
        """
        return repr([v for v in (user, tags, req, pets, person, checked, guarded, blank) if v is not None])

    return reg


@pytest.mark.parametrize(("arguments", "text"), [
    ({"user": {"name": "a", "age": -5}}, "argument 'user.age' must be >= 0, got -5"),  # inside an Optional
    ({"tags": [{"weight": 1}, {"weight": "x"}]}, "argument 'tags.1.weight' must be integer, got string"),
    ({"pets": {"pets": [{"kind": "dog", "bark": "x"}]}}, "argument 'pets.pets.0.bark' must be integer, got string"),
    ({"person": {"name": "a"}}, "missing required argument 'person.age'"),  # a pydantic dataclass: pydantic's rules
    ({"person": {"name": "a", "age": -1}}, "argument 'person.age' must be >= 0, got -1"),
    ({"checked": {"x": -1}}, "argument 'checked' is invalid: x must be >= 0"),
    ({"guarded": {"x": -1}}, "argument 'guarded' is invalid: 'x' must be >= 0: -1"),
    ({"blank": {"name": " "}}, "argument 'blank.name' value error, Name must not be blank (see the URL)"),
])
def test_errors_name_the_field_that_is_wrong_wherever_it_sits(arguments, text):
    out = _edges().call("pick", arguments)
    assert out.text == f"Error: invalid arguments for pick: {text}"


def test_a_union_of_models_takes_the_member_that_keeps_the_whole_value():
    reg = _edges()
    assert reg.call("pick", {"req": {"query": "q", "filters": ["a"], "limit": 5}}).text == \
        "[Advanced(query='q', filters=['a'], limit=5)]"
    assert reg.call("pick", {"req": {"query": "q"}}).text == "[Basic(query='q')]"
    person = reg["pick"].parameters["properties"]["person"]["anyOf"][0]
    assert person["required"] == ["name", "age"] and person["properties"]["age"]["minimum"] == 0


def test_defaults_of_types_pydantic_knows_are_shown_as_json():
    reg = agenttools.Registry()

    @reg.tool
    def wait(amount: decimal.Decimal = decimal.Decimal("1.5"),
             pause: datetime.timedelta = datetime.timedelta(seconds=5), ids: frozenset[int] = frozenset({3, 1}),
             seen: set[str] = set()) -> str:  # noqa: B006 - the default is shown, never changed
        """Wait.

        Args:
            amount: How much.
            pause: How long.
            ids: Which.
            seen: Seen.
        """
        return repr((amount, pause, sorted(ids), seen))

    props = wait_props = reg["wait"].parameters["properties"]
    assert [props[k]["default"] for k in ("amount", "pause", "ids", "seen")] == ["1.5", "PT5S", [1, 3], []]
    assert wait_props["pause"]["type"] == "string"
    assert reg.call("wait", {}).text == "(Decimal('1.5'), datetime.timedelta(seconds=5), [1, 3], set())"
    assert reg.call("wait", {"pause": "PT1M"}).text.startswith("(Decimal('1.5'), datetime.timedelta(seconds=60)")
