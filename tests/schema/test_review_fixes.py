"""Bugs found in review of the argument validator, each reproduced; every test failed before its fix."""

from __future__ import annotations

import json

from agenttools.schema import compile_check, validate

SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "maxLength": 5}, "n": {"type": "integer"}},
          "required": ["q"]}


# Found in review, now fixed: JSON arguments may hold a lone surrogate ("\ud800" parses to one); _validate.py counts a string's
# UTF-16 length with str.encode("utf-16-le"), which raises UnicodeEncodeError on it: validate() crashes for every
# string value (the length is computed even without min/maxLength), and compile_check's _js_length too, so a tool
# call fails with an internal error instead of running or getting an ArgumentsError. JavaScript counts a lone
# surrogate as one code unit.
def test_lone_surrogate_string_is_validated_not_crashed() -> None:
    args = json.loads('{"q": "a\\ud800"}')
    assert validate(SCHEMA, args) == []
    assert compile_check(SCHEMA)(args) is True
    too_long = json.loads('{"q": "abcde\\ud800"}')
    assert [issue.keyword for issue in validate(SCHEMA, too_long)] == ["maxLength"]
    assert compile_check(SCHEMA)(too_long) is False
    bad_other = json.loads('{"q": "\\ud800", "n": "x"}')
    assert [issue.keyword for issue in validate(SCHEMA, bad_other)] == ["type"]
