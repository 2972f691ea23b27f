"""From a typed Python function to a canonical JSON Schema and a caller that converts JSON back to Python.

Supported annotations: ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any``, ``list[T]``, ``tuple[T, ...]``,
``tuple[A, B]``, ``dict[str, T]``, ``Literal[...]`` (str/int/bool values), ``Enum`` subclasses, ``pathlib.Path``,
``X | Y`` / ``Optional[X]`` / ``Union[...]``, and ``Annotated[T, "description"]``.
"""

from __future__ import annotations

import enum
import inspect
import json
import pathlib
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from agenttools.schema._docstring import parse_docstring
from agenttools.schema._validate import validate

__all__ = ["FunctionSchema", "function_schema"]

Converter = Callable[[Any], Any]
_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NoneType = type(None)


def _literal_type(values: Sequence[Any]) -> str | None:
    kinds = {_SCALARS.get(type(v)) for v in values}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


class _Compiler:
    def __init__(self, where: str, problems: list[str]) -> None:
        self.where = where
        self.problems = problems

    def fail(self, message: str) -> tuple[dict[str, Any], Converter | None]:
        self.problems.append(f"{self.where}: {message}")
        return {}, None

    def compile(self, tp: Any) -> tuple[dict[str, Any], Converter | None]:
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            schema, conv = self.compile(args[0])
            texts = [m for m in args[1:] if isinstance(m, str)]
            if texts:
                schema = {**schema, "description": texts[0]}
            return schema, conv
        if tp is Any:
            return {}, None
        if tp is None or tp is _NoneType:
            return {"type": "null"}, None
        if tp in _SCALARS:
            schema = {"type": _SCALARS[tp]}
            if tp is float:
                return schema, float
            if tp is int:
                return schema, int
            return schema, None
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            values = [m.value for m in tp]
            kind = _literal_type(values)
            if kind is None:
                return self.fail(f"enum {tp.__name__} must have str, int or bool values of one type")
            return {"type": kind, "enum": values}, tp
        if isinstance(tp, type) and issubclass(tp, pathlib.PurePath):
            return {"type": "string"}, tp
        if origin is typing.Literal:
            values = list(args)
            if any(v is not None and type(v) not in _SCALARS for v in values):
                return self.fail(f"Literal values must be str, int, bool or None, got {tp!r}")
            kind = _literal_type(values)
            return ({"type": kind, "enum": values} if kind else {"enum": values}), None
        if origin in (typing.Union, types.UnionType):
            return self._union(args)
        if tp in (list, tuple) or origin in (list, tuple, Sequence):
            return self._array(tp, origin, args)
        if tp is dict or origin in (dict, Mapping):
            if args and args[0] is not str:
                return self.fail(f"dict keys must be str, got {args[0]!r}")
            if not args:
                return {"type": "object"}, None
            value_schema, conv = self.compile(args[1])
            convert = None if conv is None else (lambda v: {k: conv(x) for k, x in v.items()})
            return {"type": "object", "additionalProperties": value_schema}, convert
        label = tp.__name__ if isinstance(tp, type) else repr(tp)
        return self.fail(f"unsupported type {label}")

    def _union(self, args: tuple[Any, ...]) -> tuple[dict[str, Any], Converter | None]:
        compiled = [self.compile(a) for a in args]
        schemas = [s for s, _ in compiled]
        if any(s == {} for s in schemas):
            return {}, None
        if all(c is None for _, c in compiled):
            return {"anyOf": schemas}, None
        branches = [(s, c) for s, c in compiled]

        def convert(value: Any) -> Any:
            for schema, conv in branches:
                if not validate(schema, value, all_errors=False):
                    return conv(value) if conv else value
            return value

        return {"anyOf": schemas}, convert

    def _array(self, tp: Any, origin: Any, args: tuple[Any, ...]) -> tuple[dict[str, Any], Converter | None]:
        is_tuple = tp is tuple or origin is tuple
        if not args:
            return {"type": "array", "items": {}}, (tuple if is_tuple else None)
        if is_tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if args == ((),):
                return {"type": "array", "maxItems": 0}, tuple
            compiled = [self.compile(a) for a in args]
            n = len(args)
            convs = [c for _, c in compiled]

            def convert_fixed(value: Any) -> Any:
                return tuple(c(v) if c else v for c, v in zip(convs, value, strict=True))

            schema = {"type": "array", "prefixItems": [s for s, _ in compiled], "minItems": n, "maxItems": n}
            return schema, convert_fixed
        item_schema, conv = self.compile(args[0])
        wrap: Callable[[Any], Any] = tuple if is_tuple else list

        def convert(value: Any) -> Any:
            return wrap(conv(v) for v in value) if conv else wrap(value)

        return {"type": "array", "items": item_schema}, (convert if conv or is_tuple else None)


@attrs.frozen(kw_only=True)
class FunctionSchema:
    """A function's tool description, canonical parameters schema, and a JSON-to-Python caller."""

    name: str
    """The function's ``__name__``."""
    description: str
    """The docstring's text before its first section."""
    parameters: dict[str, Any]
    """Canonical JSON Schema of the arguments object."""
    call: Callable[[Mapping[str, Any]], Any]
    """Calls the function with validated JSON arguments, converted to the annotated Python types."""
    is_async: bool
    """Whether ``call`` returns an awaitable."""


def _jsonable_default(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_jsonable_default(v) for v in value]
    if isinstance(value, pathlib.PurePath):
        return str(value)
    return value


def function_schema(fn: Callable[..., Any], problems: list[str]) -> FunctionSchema | None:
    """Compile ``fn``'s signature and docstring; append every problem found to ``problems``.

    Returns None when there were problems (the caller raises one error listing them all).
    """
    name = getattr(fn, "__name__", type(fn).__name__)
    doc = parse_docstring(inspect.getdoc(fn))
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn, include_extras=True)
    except (TypeError, ValueError, NameError) as exc:
        problems.append(f"cannot read the signature: {exc}")
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    converters: dict[str, Converter] = {}
    positional: list[str] = []
    for param in signature.parameters.values():
        where = f"parameter {param.name!r}"
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            problems.append(f"{where}: *args and **kwargs cannot be described to a model")
            continue
        if param.name.startswith("_"):
            problems.append(f"{where}: names starting with '_' are private and cannot be tool parameters")
            continue
        if param.name not in hints:
            problems.append(f"{where}: has no type annotation")
            continue
        schema, conv = _Compiler(where, problems).compile(hints[param.name])
        if "description" not in schema and param.name in doc.params:
            schema = {**schema, "description": doc.params[param.name]}
        if param.default is param.empty:
            required.append(param.name)
        else:
            default = _jsonable_default(param.default)
            try:
                json.dumps(default, allow_nan=False)
            except (TypeError, ValueError):
                problems.append(f"{where}: default {param.default!r} is not JSON-serializable")
            schema = {**schema, "default": default}
        properties[param.name] = schema
        if conv is not None:
            converters[param.name] = conv
        if param.kind is param.POSITIONAL_ONLY:
            positional.append(param.name)
    problems.extend(f"docstring documents {p!r}, which is not a parameter"
                    for p in doc.params if p not in signature.parameters)
    problems.extend(f"docstring: cannot read its Google-style parameter section: {m}" for m in doc.malformed)
    if problems:
        return None
    parameters = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    defaults = {p.name: p.default for p in signature.parameters.values() if p.default is not p.empty}

    def call(arguments: Mapping[str, Any]) -> Any:
        values = {k: (converters[k](v) if k in converters else v) for k, v in arguments.items()}
        given = [i for i, p in enumerate(positional) if p in values]
        args = [values.pop(p) if p in values else defaults[p] for p in positional[: given[-1] + 1 if given else 0]]
        return fn(*args, **values)

    return FunctionSchema(
        name=name,
        description=doc.description,
        parameters=parameters,
        call=call,
        is_async=inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__),
    )
