"""A JSON Schema validator for tool arguments that reports issues the way Ajv does.

It covers the subset tool schemas use: ``type`` (also type arrays), ``enum``, ``const``, ``anyOf``/``oneOf``/
``allOf``/``not``, number, string, array and object limits, ``pattern``, ``properties``, ``required``,
``additionalProperties``, ``items``/``prefixItems`` and local ``$ref`` into ``$defs``/``definitions``.
``format`` is an annotation here (not asserted), as in Ajv without ajv-formats. Keywords are checked in Ajv's
order, so the first issue is the one Ajv (``allErrors: false``) reports.
"""

from __future__ import annotations

import json
import math
import operator
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from agenttools._lazy import lazy_module

if TYPE_CHECKING:
    import regex
else:
    regex = lazy_module("regex")  # only a schema ``pattern`` needs it

__all__ = ["ValidationIssue", "compile_check", "is_nullable", "json_type", "validate", "without_null_defaults"]

_JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_NUMBER_LIMITS: tuple[tuple[str, str, Callable[[Any, Any], bool]], ...] = (
    ("maximum", "<=", operator.le),
    ("minimum", ">=", operator.ge),
    ("exclusiveMaximum", "<", operator.lt),
    ("exclusiveMinimum", ">", operator.gt),
)

Path = tuple[str | int, ...]
_MAX_DOUBLE = sys.float_info.max
_PATTERN_TIMEOUT = 1.0
"""Seconds a ``pattern`` check may take before the value is refused (the ``regex`` module's timeout)."""


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (``integer`` for integral floats too, as JavaScript sees them)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


_BOUND_KEYWORDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})


@attrs.frozen(kw_only=True)
class ValidationIssue:
    """One way arguments failed their schema, in the terms JSON Schema validators use.

    ``path`` and ``keyword`` follow Ajv so that toolsets can reproduce upstream texts exactly.
    """

    path: tuple[str | int, ...]
    """Where in the arguments: ``()`` for the arguments object itself, ``("paths", 0)`` for an item."""
    keyword: str
    """The failing rule: ``json``, ``type``, ``required``, ``additionalProperties``, ``enum``, ``minimum``, ..."""
    message: str
    """Ajv's wording without the location, e.g. ``must be string`` or ``must have required property 'q'``."""
    params: dict[str, Any] = attrs.field(factory=dict)
    """Keyword details: ``{"missingProperty": "q"}``, ``{"type": "string"}``, ``{"allowedValues": [...]}``."""
    value: Any = attrs.field(default=None, repr=False)
    """The offending value (the object itself for ``required`` and ``additionalProperties``)."""

    @property
    def pointer(self) -> str:
        """The location as a JSON pointer (``/paths/0``; ``""`` for the root)."""
        return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in self.path)

    @property
    def argument(self) -> str | None:
        """The top-level argument concerned, if any (the missing or unknown one for those keywords)."""
        if self.keyword == "required":
            return str(self.params["missingProperty"])
        if self.keyword == "additionalProperties":
            return str(self.params["additionalProperty"])
        return str(self.path[0]) if self.path else None

    def ajv_text(self, data_var: str = "params") -> str:
        """Ajv's ``errorsText`` form for this issue, e.g. ``params/path must be string``."""
        return f"{data_var}{self.pointer} {self.message}"

    def describe(self) -> str:
        """A plain-words sentence naming the argument, for the default error text."""
        where = ".".join(str(p) for p in self.path)
        if self.keyword == "required":
            name = ".".join([*map(str, self.path), str(self.params["missingProperty"])])
            return f"missing required argument {name!r}"
        if self.keyword == "additionalProperties":
            name = ".".join([*map(str, self.path), str(self.params["additionalProperty"])])
            return f"unknown argument {name!r}"
        if self.keyword == "json":
            return self.message
        subject = f"argument {where!r}" if where else "arguments"
        if self.keyword == "type":
            kinds = str(self.params["type"]).split(",")
            got = json_type(self.value)
            if got in kinds or (got == "integer" and "number" in kinds):  # a number no double holds
                return f"{subject} is out of range, got {_short(self.value)}"
            return f"{subject} must be {' or '.join(kinds)}, got {got}"
        if self.keyword == "enum":
            allowed = ", ".join(_short(v) for v in self.params["allowedValues"])
            return f"{subject} must be one of {allowed}, got {_short(self.value)}"
        if self.keyword == "anyOf":
            branches = self.params.get("branches", [])
            if branches and all(b.keyword == "type" and b.path == self.path for b in branches):
                expected = " or ".join(str(b.params["type"]) for b in branches)
                return f"{subject} must be {expected}, got {json_type(self.value)}"
        if self.keyword in ("anyOf", "oneOf"):
            meant = self._meant_branch()
            if meant:
                return "; ".join(issue.describe() for issue in meant)
        if self.keyword in _BOUND_KEYWORDS and isinstance(self.value, int | float) and \
                not isinstance(self.value, bool):
            return f"{subject} {self.message}, got {_short(self.value)}"
        return f"{subject} {self.message}"

    def _meant_branch(self) -> list[ValidationIssue]:
        """The issues of the one branch of a failed ``anyOf``/``oneOf`` the value was meant for, if one stands out.

        ``User | None`` given an object: the object's own problems. Nothing when no branch, or several, stand out.
        """
        groups: list[list[ValidationIssue]] = self.params.get("by_branch") or []
        meant = [issues for issues in groups if issues and not _missed(issues, self.path)]
        return meant[0] if len(meant) == 1 else []




def _missed(issues: list[ValidationIssue], path: Path) -> bool:
    """Whether a branch's issues say the value is not of the branch's kind at all.

    That is another type at ``path``, or another value of a key that tells the branches apart (a ``const`` or
    ``enum`` one level down: a discriminator).
    """
    return any((i.keyword == "type" and i.path == path) or
               (i.keyword in ("const", "enum") and len(i.path) == len(path) + 1 and i.path[:len(path)] == path)
               for i in issues)


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _finite(value: Any) -> bool:
    """Whether a number is finite as JavaScript sees it.

    ``1e999`` parses to Infinity, as does an integer past the double range; Ajv (``strictNumbers``, its default)
    refuses both for ``number`` and ``integer``.
    """
    if isinstance(value, float):
        return math.isfinite(value)
    return not isinstance(value, int) or -_MAX_DOUBLE <= value <= _MAX_DOUBLE


def _is_type(value: Any, name: str) -> bool:
    actual = json_type(value)
    if actual in ("integer", "number") and not _finite(value):
        return False
    return actual == name or (name == "number" and actual == "integer")


def _num(value: Any) -> str:
    """Format a number as JavaScript prints it (``1`` not ``1.0``)."""
    if isinstance(value, float) and value.is_integer() and math.isfinite(value):
        return str(int(value))
    return str(value)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0`` but ``True != 1``; lists and objects compared deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    numbers = isinstance(a, int | float) and isinstance(b, int | float)
    return (type(a) is type(b) or numbers) and bool(a == b)


def is_nullable(schema: Mapping[str, Any]) -> bool:
    """Whether a schema admits ``null`` at its top level (type, type array, enum, anyOf/oneOf branch)."""
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("nullable") is True:
        return True
    if "enum" in schema and None in schema["enum"]:
        return True
    return any(is_nullable(branch) for key in ("anyOf", "oneOf") for branch in schema.get(key, ()))


def without_null_defaults(schema: Mapping[str, Any], value: Any) -> Any:
    """``value`` without the ``null``s given for optional properties whose schema does not admit null, at any depth.

    A model writing for an OpenAI-strict schema (every property required, optional ones made nullable) sends
    ``null`` for "not given": dropping the key lets the property's default apply. Followed through ``properties``,
    ``additionalProperties``, ``items``, ``prefixItems`` and an ``anyOf`` with one non-null branch; ``value`` is
    returned as it is where nothing changes.
    """
    if isinstance(value, dict):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        if isinstance(props, Mapping):
            required = set(schema.get("required", ()))
            out: dict[str, Any] = {}
            for key, item in value.items():
                sub = props.get(key, extra if isinstance(extra, Mapping) else None)
                if sub is None:
                    out[key] = item
                elif item is None and key not in required and key in props and not is_nullable(sub):
                    continue
                else:
                    out[key] = without_null_defaults(sub, item)
            return out
        if isinstance(extra, Mapping):
            return {key: without_null_defaults(extra, item) for key, item in value.items()}
    elif isinstance(value, list):
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(prefix, list) or isinstance(items, Mapping):
            head = prefix if isinstance(prefix, list) else []
            return [without_null_defaults(head[i], item) if i < len(head) else
                    without_null_defaults(items, item) if isinstance(items, Mapping) else item
                    for i, item in enumerate(value)]
    if value is not None:
        branches = [b for b in schema.get("anyOf", ()) if isinstance(b, Mapping) and b.get("type") != "null"]
        if len(branches) == 1:
            return without_null_defaults(branches[0], value)
    return value


class _Validator:
    def __init__(self, root: Mapping[str, Any], all_errors: bool) -> None:
        self.root = root
        self.all_errors = all_errors

    def resolve(self, ref: str) -> Mapping[str, Any]:
        if not ref.startswith("#"):
            raise ValueError(f"only local $ref is supported, got {ref!r}")
        node: Any = self.root
        for part in ref[1:].split("/")[1:] if ref != "#" else []:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node  # type: ignore[no-any-return]

    def check(self, schema: Any, value: Any, path: Path) -> list[ValidationIssue]:
        if schema is True or schema == {}:
            return []
        if schema is False:
            return [ValidationIssue(path=path, keyword="false schema", message="boolean schema is false")]
        out: list[ValidationIssue] = []
        for step in (self._ref, self._type, self._any, self._number, self._string, self._array, self._object):
            out.extend(step(schema, value, path))
            if out and (not self.all_errors or step in (self._ref, self._type)):
                return out
        return out

    def _issue(self, path: Path, keyword: str, message: str, value: Any = None, **params: Any) -> ValidationIssue:
        return ValidationIssue(path=path, keyword=keyword, message=message, params=params, value=value)

    def _ref(self, schema: Mapping[str, Any], value: Any, path: Path) -> list[ValidationIssue]:
        return self.check(self.resolve(schema["$ref"]), value, path) if "$ref" in schema else []

    def _type(self, schema: Mapping[str, Any], value: Any, path: Path) -> list[ValidationIssue]:
        kind = schema.get("type")
        if kind is None:
            return []
        kinds = kind if isinstance(kind, list) else [kind]
        if schema.get("nullable") is True:
            kinds = [*kinds, "null"]
        if any(_is_type(value, k) for k in kinds):
            return []
        return [self._issue(path, "type", f"must be {','.join(kinds)}", value, type=",".join(kinds))]

    def _any(self, schema: Mapping[str, Any], value: Any, path: Path) -> list[ValidationIssue]:
        out: list[ValidationIssue] = []
        if "const" in schema and not _equal(value, schema["const"]):
            out.append(self._issue(path, "const", "must be equal to constant", allowedValue=schema["const"]))
        if "enum" in schema and not any(_equal(value, e) for e in schema["enum"]):
            out.append(self._issue(path, "enum", "must be equal to one of the allowed values", value,
                                   allowedValues=list(schema["enum"])))
        if "not" in schema and not self.check(schema["not"], value, path):
            out.append(self._issue(path, "not", "must NOT be valid"))
        if "anyOf" in schema:
            branches = [self.check(b, value, path) for b in schema["anyOf"]]
            if all(branches):
                out.append(self._issue(path, "anyOf", "must match a schema in anyOf", value,
                                       branches=[issue for b in branches for issue in b], by_branch=branches))
        if "oneOf" in schema:
            checked = [self.check(b, value, path) for b in schema["oneOf"]]
            passing = [i for i, issues in enumerate(checked) if not issues]
            if len(passing) != 1:
                out.append(self._issue(path, "oneOf", "must match exactly one schema in oneOf", value,
                                       passingSchemas=passing or None, by_branch=checked))
        for sub in schema.get("allOf", ()):
            out.extend(self.check(sub, value, path))
        return out

    def _number(self, schema: Mapping[str, Any], value: Any, path: Path) -> list[ValidationIssue]:
        if not _is_type(value, "number"):
            return []
        out = [
            self._issue(path, key, f"must be {op} {_num(schema[key])}", value, comparison=op, limit=schema[key])
            for key, op, ok in _NUMBER_LIMITS
            if key in schema and not isinstance(schema[key], bool) and not ok(value, schema[key])
        ]
        step = schema.get("multipleOf")
        if step and not math.isclose(value / step, round(value / step), rel_tol=0, abs_tol=1e-9):
            out.append(self._issue(path, "multipleOf", f"must be multiple of {_num(step)}", value, multipleOf=step))
        return out

    def _string(self, schema: Mapping[str, Any], value: Any, path: Path) -> list[ValidationIssue]:
        if not isinstance(value, str):
            return []
        out: list[ValidationIssue] = []
        length = _js_length(value)  # JavaScript counts UTF-16 code units
        if "maxLength" in schema and length > schema["maxLength"]:
            out.append(self._issue(path, "maxLength", f"must NOT have more than {schema['maxLength']} characters",
                                   limit=schema["maxLength"]))
        if "minLength" in schema and length < schema["minLength"]:
            out.append(self._issue(path, "minLength", f"must NOT have fewer than {schema['minLength']} characters",
                                   limit=schema["minLength"]))
        if "pattern" in schema:
            try:
                matched = regex.search(schema["pattern"], value, timeout=_PATTERN_TIMEOUT,
                                       concurrent=True) is not None
            except TimeoutError:
                matched = False  # a pathological value or pattern: refuse rather than hang
            if not matched:
                out.append(self._issue(path, "pattern", f'must match pattern "{schema["pattern"]}"', value,
                                       pattern=schema["pattern"]))
        return out

    def _array(self, schema: Mapping[str, Any], value: Any, path: Path) -> list[ValidationIssue]:
        if not isinstance(value, list | tuple):
            return []
        out: list[ValidationIssue] = []
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(self._issue(path, "maxItems", f"must NOT have more than {schema['maxItems']} items",
                                   limit=schema["maxItems"]))
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(self._issue(path, "minItems", f"must NOT have fewer than {schema['minItems']} items",
                                   limit=schema["minItems"]))
        if schema.get("uniqueItems"):
            for j in range(len(value)):
                dup = next((i for i in range(j + 1, len(value)) if _equal(value[i], value[j])), None)
                if dup is not None:
                    out.append(self._issue(path, "uniqueItems",
                                           f"must NOT have duplicate items (items ## {j} and {dup} are identical)",
                                           i=dup, j=j))
                    break
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items", True)
            if sub is False:
                out.append(self._issue(path, "items", f"must NOT have more than {len(prefix)} items",
                                       limit=len(prefix)))
                break
            out.extend(self.check(sub, item, (*path, i)))
            if out and not self.all_errors:
                return out
        return out

    def _object(self, schema: Mapping[str, Any], value: Any, path: Path) -> list[ValidationIssue]:
        if not isinstance(value, Mapping):
            return []
        out: list[ValidationIssue] = []
        for key, word, cmp in (("maxProperties", "more", int.__gt__), ("minProperties", "fewer", int.__lt__)):
            if key in schema and cmp(len(value), schema[key]):
                out.append(self._issue(path, key, f"must NOT have {word} than {schema[key]} properties",
                                       limit=schema[key]))
        out.extend(self._issue(path, "required", f"must have required property '{name}'", missingProperty=name)
                   for name in schema.get("required", ()) if name not in value)
        if out and not self.all_errors:
            return out
        props: Mapping[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key in value:
            if key in props:
                continue
            if extra is False or not isinstance(key, str):
                out.append(self._issue(path, "additionalProperties", "must NOT have additional properties",
                                       additionalProperty=key))
            elif extra is not True:
                out.extend(self.check(extra, value[key], (*path, key)))
            if out and not self.all_errors:
                return out
        for key, sub in props.items():
            if key in value:
                out.extend(self.check(sub, value[key], (*path, key)))
                if out and not self.all_errors:
                    return out
        return out


def validate(
    schema: Mapping[str, Any], value: Any, *, all_errors: bool = True, root: Mapping[str, Any] | None = None
) -> list[ValidationIssue]:
    """Validate ``value`` against ``schema``; return every issue found (empty when valid).

    Args:
        schema: The JSON Schema.
        value: The JSON value (dicts, lists, str, int, float, bool, None).
        all_errors: Collect every issue (True) or stop at the first, like Ajv's default (False).
        root: The document ``$ref`` pointers resolve against (default: ``schema``).
    """
    return _Validator(root if root is not None else schema, all_errors).check(schema, value, ())


# --- the fast path: a compiled "certainly valid" check ---------------------------------------------------------------

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "format", "$comment", "deprecated",
                          "readOnly", "writeOnly", "nullable", "$schema", "$id", "$defs", "definitions"})
_COMPILED = frozenset({"type", "properties", "required", "additionalProperties", "enum", "const", "minimum",
                       "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "items",
                       "minItems", "maxItems", "minProperties", "maxProperties", "anyOf", "allOf"})


def _never(value: Any) -> bool:
    return False


def _always(value: Any) -> bool:
    return True


def _finite_int(value: int) -> bool:
    return -_MAX_DOUBLE <= value <= _MAX_DOUBLE


_TYPE_CHECKS: dict[str, Check] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list | tuple),
    "object": lambda v: isinstance(v, Mapping),
    "integer": lambda v: (type(v) is int and _finite_int(v))
    or (type(v) is float and math.isfinite(v) and v.is_integer()),
    "number": lambda v: (type(v) is int and _finite_int(v)) or (type(v) is float and math.isfinite(v)),
}


def _js_length(value: str) -> int:
    """The length JavaScript gives a string: UTF-16 code units (a lone surrogate, which JSON allows, counts one)."""
    if value.isascii():
        return len(value)
    return len(value.encode("utf-16-le", "surrogatepass")) // 2


def compile_check(schema: Any) -> Check:
    """A predicate that is True only for a value :func:`validate` finds no issue with.

    It is compiled once per schema and costs a few attribute tests per argument, where :func:`validate` walks
    every keyword family of every node. It may answer False for a valid value (a keyword it does not compile,
    such as ``pattern`` or ``$ref``); the caller then runs :func:`validate`, which decides and words the issues.
    """
    if schema is True or schema == {}:
        return _always
    if not isinstance(schema, Mapping) or not set(schema) <= _COMPILED | _ANNOTATIONS:
        return _never
    checks: list[Check] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = list(kind) if isinstance(kind, list) else [kind]
        if schema.get("nullable") is True:
            kinds.append("null")
        if not all(k in _TYPE_CHECKS for k in kinds):
            return _never
        tests = [_TYPE_CHECKS[k] for k in kinds]

        def of_type(v: Any) -> bool:
            return any(t(v) for t in tests)

        checks.append(tests[0] if len(tests) == 1 else of_type)
    if "const" in schema:
        const = schema["const"]
        checks.append(lambda v: _equal(v, const))
    if "enum" in schema:
        allowed = list(schema["enum"])
        checks.append(lambda v: any(_equal(v, e) for e in allowed))
    branches = [compile_check(b) for b in schema.get("anyOf", ())]
    if "anyOf" in schema:
        checks.append(lambda v: any(b(v) for b in branches))
    every = [compile_check(b) for b in schema.get("allOf", ())]
    if every:
        checks.append(lambda v: all(b(v) for b in every))
    limits = [(ok, schema[key]) for key, _, ok in _NUMBER_LIMITS if key in schema and not isinstance(schema[key], bool)]
    if limits:
        checks.append(lambda v: not _TYPE_CHECKS["number"](v) or all(ok(v, limit) for ok, limit in limits))
    if "minLength" in schema or "maxLength" in schema:
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        checks.append(lambda v: not isinstance(v, str) or (
            low <= _js_length(v) and (high is None or _js_length(v) <= high)))
    _compile_array(schema, checks)
    _compile_object(schema, checks)
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)


def _compile_array(schema: Mapping[str, Any], checks: list[Check]) -> None:
    if not {"items", "minItems", "maxItems"} & set(schema):
        return
    item = compile_check(schema.get("items", True))
    low, high = schema.get("minItems", 0), schema.get("maxItems")

    def array(v: Any) -> bool:
        if not isinstance(v, list | tuple):
            return True
        return low <= len(v) and (high is None or len(v) <= high) and all(item(x) for x in v)

    checks.append(array)


def _compile_object(schema: Mapping[str, Any], checks: list[Check]) -> None:
    keys = {"properties", "required", "additionalProperties", "minProperties", "maxProperties"}
    if not keys & set(schema):
        return
    props = {key: compile_check(sub) for key, sub in schema.get("properties", {}).items()}
    required = tuple(schema.get("required", ()))
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is False else compile_check(extra)
    low, high = schema.get("minProperties", 0), schema.get("maxProperties")

    def obj(v: Any) -> bool:
        if not isinstance(v, Mapping):
            return True
        if len(v) < low or (high is not None and len(v) > high):
            return False
        for name in required:
            if name not in v:
                return False
        for key, item in v.items():
            check = props.get(key)
            if check is None:
                if extra_check is None or not isinstance(key, str) or not extra_check(item):
                    return False
            elif not check(item):
                return False
        return True

    checks.append(obj)
