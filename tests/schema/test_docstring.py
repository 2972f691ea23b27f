"""Docstrings in the four styles docstring-parser reads give a tool its description and parameter texts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import docstring_parser
import pytest

import agenttools
from agenttools import ToolDefinitionError
from agenttools.schema import function_schema, parse_docstring

DESCRIPTION = "Find files by name.\n\nOnly regular files are listed;\ndirectories are walked, never returned."
PARAMS = {"pattern": "A glob, matched against the file name only.", "limit": "How many names to return."}


def google(pattern: str, limit: int = 10) -> list[str]:
    """Find files by name.

    Only regular files are listed;
    directories are walked, never returned.

    Args:
        pattern: A glob, matched against the file name
            only.
        limit (int): How many names to return.

    Returns:
        The names.
    """
    return []


def numpy(pattern: str, limit: int = 10) -> list[str]:
    """Find files by name.

    Only regular files are listed;
    directories are walked, never returned.

    Parameters
    ----------
    pattern : str
        A glob, matched against the file name
        only.
    limit : int, optional
        How many names to return.

    Returns
    -------
    list of str
        The names.
    """
    return []


def sphinx(pattern: str, limit: int = 10) -> list[str]:
    """Find files by name.

    Only regular files are listed;
    directories are walked, never returned.

    :param pattern: A glob, matched against the file name
        only.
    :param int limit: How many names to return.
    :returns: The names.
    """
    return []


def epydoc(pattern: str, limit: int = 10) -> list[str]:
    """Find files by name.

    Only regular files are listed;
    directories are walked, never returned.

    @param pattern: A glob, matched against the file name
        only.
    @param limit: How many names to return.
    @type limit: int
    @return: The names.
    """
    return []


@pytest.mark.parametrize("fn", [google, numpy, sphinx, epydoc])
def test_every_style_gives_the_description_and_each_parameter_text(fn: Callable[..., Any]) -> None:
    problems: list[str] = []
    compiled = function_schema(fn, problems)
    assert problems == []
    assert compiled is not None
    assert compiled.description == DESCRIPTION
    assert compiled.parameters == {
        "type": "object", "properties": {
            "pattern": {"type": "string", "description": PARAMS["pattern"]},
            "limit": {"type": "integer", "description": PARAMS["limit"], "default": 10}},
        "required": ["pattern"], "additionalProperties": False}
    reg = agenttools.Registry()
    reg.tool(fn)
    [definition] = reg.definitions("openai")
    assert definition["function"]["description"] == DESCRIPTION
    properties = definition["function"]["parameters"]["properties"]
    assert {name: p["description"] for name, p in properties.items()} == PARAMS


def test_a_type_in_the_docstring_does_not_override_the_annotation() -> None:
    def google_typed(count: int, names: list[str]) -> str:
        """Count.

        Args:
            count (str): How many.
            names (dict): Which.
        """
        return ""

    def numpy_typed(count: int, names: list[str]) -> str:
        """Count.

        Parameters
        ----------
        count : str
            How many.
        names : dict
            Which.
        """
        return ""

    def sphinx_typed(count: int, names: list[str]) -> str:
        """Count.

        :param str count: How many.
        :param names: Which.
        :type names: dict
        """
        return ""

    def epydoc_typed(count: int, names: list[str]) -> str:
        """Count.

        @param count: How many.
        @type count: str
        @param names: Which.
        @type names: dict
        """
        return ""

    for fn in (google_typed, numpy_typed, sphinx_typed, epydoc_typed):
        reg = agenttools.Registry()
        reg.tool(fn)
        assert reg[fn.__name__].parameters["properties"] == {
            "count": {"type": "integer", "description": "How many."},
            "names": {"type": "array", "items": {"type": "string"}, "description": "Which."}}, fn.__name__
        assert reg.call(fn.__name__, {"count": 2, "names": ["a"]}).text == ""


def test_the_description_is_the_text_before_the_sections_byte_for_byte() -> None:
    # docstring-parser's own description keeps one blank line after the summary; ours keeps the text as written
    doc = parse_docstring("Summary.\n\n\nBody, after two blank lines.\n  Indented.\n\nArgs:\n    x: X.\n")
    assert doc.description == "Summary.\n\n\nBody, after two blank lines.\n  Indented."
    assert docstring_parser.parse(doc.description).description == "Summary.\n\nBody, after two blank lines.\n  Indented."


@pytest.mark.parametrize("title", ["Note", "Notes", "See Also", "Warning", "Todo", "References", "Methods",
                                   "Return", "Yield", "Exception", "Example", "Warns", "Attributes"])
def test_the_description_ends_at_every_google_section_it_always_ended_at(title: str) -> None:
    doc = parse_docstring(f"Do it.\n\n{title}:\n    Something: else.\n")
    assert doc.description == "Do it."
    assert doc.params == {}  # none of these documents a parameter


def test_keyword_and_other_parameter_sections_document_parameters() -> None:
    doc = parse_docstring("Do it.\n\nArgs:\n    a: A.\n\nKeyword Args:\n    b: B.\n\nOther Parameters:\n    c: C.\n")
    assert doc.params == {"a": "A.", "b": "B.", "c": "C."}


def test_attributes_are_not_parameters() -> None:
    assert parse_docstring("Do it.\n\n:ivar cache: C.\n:param x: X.\n").params == {"x": "X."}
    assert parse_docstring("Do it.\n\n@ivar cache: C.\n@param x: X.\n").params == {"x": "X."}
    numpy_doc = parse_docstring("Do it.\n\nParameters\n----------\nx\n    X.\n\nAttributes\n----------\ncache\n    C.\n")
    assert numpy_doc.params == {"x": "X."}


def test_star_names_shared_entries_and_roles_in_google_types() -> None:
    doc = parse_docstring('''Do it.

    Args:
        *paths: Where.
        **options: How.
        first, second: Both ends.
        console (:obj:`Console`, optional): Where to
            print.
    ''')
    assert doc.params == {"paths": "Where.", "options": "How.", "first": "Both ends.", "second": "Both ends.",
                          "console": "Where to print."}
    numpy_doc = parse_docstring("Do it.\n\nParameters\n----------\nx1, x2 : int\n    Ends.\n")
    assert numpy_doc.params == {"x1": "Ends.", "x2": "Ends."}


def test_without_sections_the_whole_docstring_is_the_description_whatever_its_lines_start_with() -> None:
    text = "Run a command.\n\n:class:`Shell` runs it; see\n@decorators in the guide."
    assert parse_docstring(text) == parse_docstring(text)
    assert parse_docstring(text).description == text
    assert parse_docstring(text).params == {}


def test_the_style_with_the_most_parameters_wins_not_the_one_with_the_most_fields() -> None:
    # docstring-parser's AUTO counts every field, so two lines starting with a role make this reST, without params
    text = "Search.\n\n:func:`grep` is used.\n:data:`LIMIT` applies.\n\nArgs:\n    query: What to find.\n"
    assert docstring_parser.parse(text).params == []
    doc = parse_docstring(text)
    assert doc.params == {"query": "What to find."}
    assert doc.description == "Search.\n\n:func:`grep` is used.\n:data:`LIMIT` applies."


def test_with_no_parameters_the_style_with_known_fields_wins() -> None:
    assert parse_docstring("Now.\n\n:returns: The time.\n").description == "Now."
    assert parse_docstring("Now.\n\n@return: The time.\n").description == "Now."
    assert parse_docstring("Now.\n\nReturns\n-------\nstr\n    The time.\n").description == "Now."
    assert parse_docstring("Now.\n\nReturns:\n    The time.\n").description == "Now."


def test_a_google_parameter_section_that_cannot_be_read_is_reported() -> None:
    def tool(path: str) -> str:
        """Read a file.

        Args:
            path: The file
            to read.
        """
        return path

    doc = parse_docstring(tool.__doc__)
    assert doc.description == "Read a file."
    assert doc.params == {}
    assert doc.malformed == ("Expected a colon in 'to read.'.",)
    with pytest.raises(ToolDefinitionError) as info:
        agenttools.Registry().tool(tool)
    assert info.value.problems == (
        "docstring: cannot read its Google-style parameter section: Expected a colon in 'to read.'.",)


def test_a_stray_line_that_breaks_only_rest_or_epydoc_is_not_a_problem() -> None:
    doc = parse_docstring("Tag it.\n\n: not a field\n@ not a tag\n\nArgs:\n    tag: The tag.\n")
    assert doc.params == {"tag": "The tag."}
    assert doc.malformed == ()
    assert parse_docstring("Odd.\n\n: :meta private:\n").description == "Odd.\n\n: :meta private:"


@pytest.mark.parametrize("doc", ["", None, "   "])
def test_no_docstring(doc: str | None) -> None:
    assert parse_docstring(doc) == parse_docstring("")
    assert parse_docstring(doc).description == ""
    assert parse_docstring(doc).params == {}
