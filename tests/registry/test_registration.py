"""Registering tools: what becomes the description and schema, and every definition mistake, listed at once."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any

import pytest

import agenttools
from agenttools import Tool, ToolDefinitionError
from agenttools.schema import parse_docstring
from conftest import search_files


def test_decorator_returns_the_function_unchanged():
    reg = agenttools.Registry()
    assert reg.tool(search_files) is search_files
    assert search_files("q", ["."]) == ["q|['.']|10|glob|None"]
    assert reg.names() == ("search_files",)


def test_decorator_with_options():
    reg = agenttools.Registry()

    @reg.tool(name="add-numbers", description="Add two numbers together.", read_only=True, strict=True)
    def add(a: int, b: int = 2) -> int:
        return a + b

    tool = reg["add-numbers"]
    assert tool.description == "Add two numbers together."
    assert tool.read_only and tool.strict and not tool.is_destructive
    assert reg.call("add-numbers", {"a": 1}).text == "3"
    assert reg.definitions("openai")[0]["function"]["strict"] is True  # the tool's own preference


def test_readme_example():
    reg = agenttools.Registry()

    @reg.tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers.

        Args:
            a: First addend.
            b: Second addend.
        """
        return a + b

    assert reg.definitions("json-schema") == [{
        "name": "add", "description": "Add two numbers.",
        "parameters": {"type": "object", "properties": {
            "a": {"type": "integer", "description": "First addend."},
            "b": {"type": "integer", "description": "Second addend.", "default": 2}},
            "required": ["a"], "additionalProperties": False}}]
    assert reg.call("add", {"a": 40}).text == "42"


def test_description_is_the_text_before_the_sections():
    def tool(x: str) -> str:
        """Summarise a file.

        Long files are summarised section by section;
        binary files are refused.

        Args:
            x: The file.

        Returns:
            The summary.
        """
        return x

    reg = agenttools.Registry()
    reg.tool(tool)
    assert reg["tool"].description == ("Summarise a file.\n\nLong files are summarised section by section;\n"
                                       "binary files are refused.")


def test_annotated_description_and_multiline_arg_docs():
    def tool(path: Annotated[str, "Where to look."], depth: int = 1) -> str:
        """Look around.

        Args:
            path: Ignored because Annotated wins.
            depth (int, optional): How deep to look,
                counted in directories.
        """
        return path

    reg = agenttools.Registry()
    reg.tool(tool)
    props = reg["tool"].parameters["properties"]
    assert props["path"] == {"type": "string", "description": "Where to look."}
    assert props["depth"]["description"] == "How deep to look, counted in directories."


def test_parse_docstring_sections():
    doc = parse_docstring('''Do a thing.

    Args:
        *args: Ignored star.
        flag: On or off.

    Raises:
        ValueError: never documented as a parameter.
    ''')
    assert doc.description == "Do a thing."
    assert doc.params == {"args": "Ignored star.", "flag": "On or off."}


def _lambda_tool() -> Callable[..., Any]:
    return lambda x: x


class _Unsupported:
    pass


def bad_tool(a, b: _Unsupported, *rest: int, _private: int = 0, c: dict[int, str] | None = None,
             d: list[Any] = [], e: object = 1, **extra: int) -> None:  # noqa: B006
    """Do bad things.

    Args:
        a: No annotation.
        ghost: Not a parameter.
    """


def test_every_problem_is_listed_at_once():
    reg = agenttools.Registry()
    with pytest.raises(ToolDefinitionError) as info:
        reg.tool(bad_tool)
    problems = info.value.problems
    assert problems == (
        "parameter 'a': has no type annotation",
        "parameter 'b': unsupported type _Unsupported",
        "parameter 'rest': *args and **kwargs cannot be described to a model",
        "parameter '_private': names starting with '_' are private and cannot be tool parameters",
        "parameter 'c': dict keys must be str, got <class 'int'>",
        "parameter 'e': unsupported type object",
        "parameter 'extra': *args and **kwargs cannot be described to a model",
        "docstring documents 'ghost', which is not a parameter",
    )
    assert str(info.value).startswith("cannot define tool 'bad_tool':\n  parameter 'a'")
    assert isinstance(info.value, TypeError)
    assert reg.names() == ()


def test_no_description_and_bad_name_together():
    def f(x: int) -> int:
        return x

    with pytest.raises(ToolDefinitionError) as info:
        agenttools.Registry().tool(name="has space")(f)
    assert len(info.value.problems) == 2
    assert "name 'has space' must match" in info.value.problems[0]
    assert info.value.problems[1].startswith("no description")


@pytest.mark.parametrize("name", ["1abc", "a.b", "", "x" * 65, "é"])
def test_names_outside_the_portable_pattern(name):
    with pytest.raises(ToolDefinitionError, match="must match"):
        agenttools.Registry().tool(name=name, description="D.")(search_files)


def test_sixty_four_characters_is_fine():
    reg = agenttools.Registry()
    reg.tool(name="a" * 64)(search_files)
    assert reg.names() == ("a" * 64,)


def test_lambda_needs_a_name_and_a_description():
    with pytest.raises(ToolDefinitionError, match="lambda or callable object needs an explicit name="):
        agenttools.Registry().tool(_lambda_tool())
    reg = agenttools.Registry()
    with pytest.raises(ToolDefinitionError, match="no description"):
        reg.tool(name="ident")(_lambda_tool())


def test_partial_needs_a_name():
    part = functools.partial(search_files, "fixed")
    with pytest.raises(ToolDefinitionError, match="explicit name="):
        agenttools.Registry().tool(part)


def test_duplicate_name_raises(reg):
    with pytest.raises(ToolDefinitionError, match="already registered"):
        reg.tool(search_files)


def test_non_json_default():
    def f(when: str = object()) -> str:  # type: ignore[assignment]
        """F.

        Args:
            when: W.
        """
        return when

    with pytest.raises(ToolDefinitionError, match=r"default <object object at .*> is not JSON-serializable"):
        agenttools.Registry().tool(f)


@pytest.mark.parametrize(
    ("parameters", "problem"),
    [
        ([], "parameters must be a JSON Schema object, got list"),
        ({"type": "array"}, 'parameters must have "type": "object" at the root'),
        ({"type": "object", "anyOf": [{}]}, "must not combine schemas (anyOf/oneOf/allOf) at the root"),
        ({"type": "object", "properties": {"a": {}}, "required": ["b"]}, "required property 'b' is not in"),
        ({"type": "object", "properties": []}, "parameters.properties must map names to schemas"),
        ({"type": "object", "properties": {"a": {"default": float("nan")}}}, "parameters are not JSON"),
    ],
)
def test_explicit_schema_problems(parameters, problem):
    with pytest.raises(ToolDefinitionError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        Tool.from_schema(name="t", description="T.", parameters=parameters, handler=lambda a: None)


def test_explicit_schema_drops_titles_but_not_a_property_named_title():
    tool = Tool.from_schema(
        name="t", description="T.", handler=lambda a: None,
        parameters={"title": "TArgs", "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                    "properties": {"title": {"type": "string", "title": "Title"}}, "required": ["title"]})
    assert tool.parameters == {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    reg = agenttools.Registry([tool])
    assert reg.definitions("gemini")[0]["parameters"] == {
        "type": "OBJECT", "properties": {"title": {"type": "STRING"}}, "required": ["title"]}
