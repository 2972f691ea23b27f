"""The validator reports issues in Ajv's words and order (first issue = what Ajv reports)."""

from __future__ import annotations

import pytest

from agenttools.schema import validate


def first(schema, value):
    issues = validate(schema, value, all_errors=False)
    return issues[0].ajv_text() if issues else None


OBJ = {"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"},
                                        "n": {"type": "number", "minimum": 1}},
       "required": ["pattern"]}


@pytest.mark.parametrize(
    ("schema", "value", "text"),
    [
        (OBJ, {}, "params must have required property 'pattern'"),
        (OBJ, {"path": 1}, "params must have required property 'pattern'"),
        (OBJ, {"pattern": "x", "path": 1}, "params/path must be string"),
        (OBJ, {"pattern": "x", "n": 0}, "params/n must be >= 1"),
        (OBJ, {"pattern": "x", "n": 1.0}, None),
        (OBJ, {"pattern": "x", "extra": 1}, None),
        (OBJ, [], "params must be object"),
        ({"type": "object", "additionalProperties": False}, {"x": 1}, "params must NOT have additional properties"),
        ({"type": "integer", "exclusiveMinimum": 0}, 0, "params must be > 0"),
        ({"type": "integer", "maximum": 5}, 6, "params must be <= 5"),
        ({"type": "number", "exclusiveMaximum": 1.5}, 1.5, "params must be < 1.5"),
        ({"type": "number", "multipleOf": 0.5}, 0.75, "params must be multiple of 0.5"),
        ({"type": "string", "minLength": 2}, "a", "params must NOT have fewer than 2 characters"),
        ({"type": "string", "maxLength": 1}, "😀", "params must NOT have more than 1 characters"),
        ({"type": "string", "pattern": "^a"}, "b", 'params must match pattern "^a"'),
        ({"type": "array", "minItems": 1}, [], "params must NOT have fewer than 1 items"),
        ({"type": "array", "maxItems": 1}, [1, 2], "params must NOT have more than 1 items"),
        ({"type": "array", "uniqueItems": True}, [1, 2, 1],
         "params must NOT have duplicate items (items ## 0 and 2 are identical)"),
        ({"type": "array", "prefixItems": [{"type": "string"}], "items": False}, ["a", 1],
         "params must NOT have more than 1 items"),
        ({"enum": ["a", "b"]}, "c", "params must be equal to one of the allowed values"),
        ({"const": 1}, True, "params must be equal to constant"),
        ({"type": ["string", "null"]}, 1, "params must be string,null"),
        ({"type": "string", "nullable": True}, None, None),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, "params must match exactly one schema in oneOf"),
        ({"not": {"type": "string"}}, "x", "params must NOT be valid"),
        ({"allOf": [{"type": "integer"}, {"minimum": 3}]}, 2, "params must be >= 3"),
        ({"$defs": {"P": {"type": "integer"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}},
         {"p": "x"}, "params/p must be integer"),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, {"a": 1, "b": "x"},
         "params/b must be integer"),
        ({"type": "boolean"}, 1, "params must be boolean"),
        ({"type": "integer"}, True, "params must be integer"),
        ({"type": "null"}, 0, "params must be null"),
        (False, 1, "params boolean schema is false"),
        (True, 1, None),
    ],
)
def test_ajv_texts(schema, value, text):
    assert first(schema, value) == text


def test_all_errors_collects_everything_in_order():
    issues = validate(OBJ, {"path": 1, "n": 0, "zz": 1})
    assert [i.ajv_text() for i in issues] == ["params must have required property 'pattern'",
                                              "params/path must be string", "params/n must be >= 1"]


def test_enum_compares_json_values():
    assert validate({"enum": [1]}, 1.0) == []
    assert validate({"enum": [1]}, True) != []
    assert validate({"enum": [[1, {"a": None}]]}, [1, {"a": None}]) == []


def test_pathological_pattern_is_refused_not_hung():
    import time

    start = time.monotonic()
    issues = validate({"type": "string", "pattern": "^(a+)+$"}, "a" * 40 + "!")
    assert time.monotonic() - start < 30
    assert [i.keyword for i in issues] == ["pattern"]


@pytest.mark.parametrize("kind", ["number", "integer"])
@pytest.mark.parametrize("value", [float("inf"), float("-inf"), float("nan"), 10**309, -(10**309)])
def test_non_finite_numbers_are_not_numbers(kind, value):
    # JSON has no Infinity, but JSON.parse("1e999") gives one (and Python's json.loads gives inf); Ajv's default
    # strictNumbers refuses it for number and integer, as an integer past the double range (Infinity in JavaScript)
    assert first({"type": kind}, value) == f"params must be {kind}"
    assert first({"type": "object", "properties": {"n": {"type": kind}}}, {"n": value}) == f"params/n must be {kind}"


@pytest.mark.parametrize(("kind", "value"), [("integer", 1e308), ("integer", 2**70), ("integer", -0.0),
                                              ("integer", 3.0), ("number", 1e-320), ("number", 1.7976931348623157e308),
                                              ("integer", 2**1023)])
def test_big_finite_numbers_stay_numbers(kind, value):
    assert first({"type": kind}, value) is None


def test_infinity_from_json_text_is_a_clean_validation_error():
    import agenttools

    reg = agenttools.Registry()

    @reg.tool
    def count(n: int) -> str:
        """Count.

        Args:
            n: How many.
        """
        return str(n)

    out = reg.call("count", '{"n": 1e999}')  # JSON text read as JavaScript reads it: Infinity, not an integer
    assert out.text == "Error: invalid arguments for count: argument 'n' must be integer, got number"

    @reg.tool
    def scale(x: float) -> str:
        """Scale.

        Args:
            x: By how much.
        """
        return str(x)

    assert reg.call("scale", '{"x": 1e999}').text == ("Error: invalid arguments for scale: argument 'x' is out of "
                                                      "range, got Infinity")
    assert reg.call("count", {"n": 10**400}).text.startswith("Error: invalid arguments for count: argument 'n' is "
                                                             "out of range, got 1000")
    deep = '{"n": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert reg.call("count", deep).text == "Error: invalid arguments for count: arguments are nested too deeply"
