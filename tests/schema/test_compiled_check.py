"""schema.compile_check: the compiled fast path may only ever say "valid" when the full validator agrees."""

from __future__ import annotations

import itertools
import random

import pytest

import agenttools
from agenttools.schema import compile_check, validate
from agenttools.toolsets import BUILTIN

VALUES = [None, True, False, 0, 1, -1, 7, 1.5, 2.0, -0.0, float("inf"), float("nan"), 2 ** 1100, "", "a", "é" * 3,
          "x" * 5000, "\U0001f600", [], ["a"], [1, 2], [[]], {}, {"a": 1}, {"path": "x"}, {1: "not a str key"}]


def _schemas() -> list[tuple[str, dict]]:
    found = []
    for name in BUILTIN:
        options = {"root": "."} if name != "content" else {}
        with agenttools.toolset(name, **options) as reg:
            found.extend((f"{name}.{tool.name}", tool.parameters) for tool in reg)
    found += [
        ("anyOf", {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 3}]}),
        ("allOf", {"allOf": [{"type": "number"}, {"maximum": 5, "exclusiveMinimum": 0}]}),
        ("enum", {"enum": [1, "a", None, [1], {"k": True}]}),
        ("const", {"const": 2}),
        ("nullable", {"type": "string", "nullable": True, "maxLength": 2}),
        ("types", {"type": ["integer", "null"]}),
        ("array", {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 2}),
        ("object", {"type": "object", "properties": {"a": {"type": "boolean"}}, "additionalProperties":
                    {"type": "integer"}, "minProperties": 1, "maxProperties": 2, "required": ["a"]}),
        ("pattern", {"type": "string", "pattern": "^a"}),
        ("ref", {"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s"}),
    ]
    return found


SCHEMAS = _schemas()


@pytest.mark.parametrize(("name", "schema"), SCHEMAS, ids=[name for name, _ in SCHEMAS])
def test_certainly_valid_means_valid(name, schema):
    check = compile_check(schema)
    rng = random.Random(name)  # noqa: S311 - test data, seeded per schema
    props = [*schema.get("properties", {}), "unknown"]
    candidates = list(VALUES)
    for _ in range(400):  # argument objects: the schema's own names (and an unknown one) with any values
        keys = rng.sample(props, rng.randint(0, len(props)))
        candidates.append({key: rng.choice(VALUES) for key in keys})
    for value in candidates:
        if check(value):
            assert validate(schema, value) == [], (name, value)


def test_the_fast_path_takes_ordinary_arguments():
    schema = {"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "integer", "minimum": 0}},
              "required": ["text"], "additionalProperties": False}
    check = compile_check(schema)
    assert check({"text": "hi"}) and check({"text": "hi", "n": 3.0})
    assert not any(check(v) for v in ({}, {"text": 1}, {"text": "x", "n": -1}, {"text": "x", "more": 1},
                                      {"text": "x", "n": True}, {"text": "x", "n": float("inf")}))
    for value in itertools.product(["hi", 1, None], [0, -1, 1.5, "2"]):
        args = {"text": value[0], "n": value[1]}
        assert check(args) == (validate(schema, args) == [])
