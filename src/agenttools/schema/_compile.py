r"""From a typed Python function to a canonical JSON Schema and a caller that converts JSON back to Python.

Supported annotations: ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any``, ``list[T]``, ``tuple[T, ...]``,
``tuple[A, B]``, ``dict[str, T]``, ``Literal[...]`` (str/int/bool values), ``Enum`` subclasses, ``pathlib.Path``,
``X | Y`` / ``Optional[X]`` / ``Union[...]``; objects: standard dataclasses, attrs classes, ``TypedDict``\ s (with
``Required``/``NotRequired``), ``NamedTuple``\ s and pydantic models, nested in each other and in the above; and
``Annotated[T, ...]`` with a description string, pydantic's ``Field(description=..., ge=..., pattern=...)`` or
``annotated-types`` constraints (``Ge``, ``Lt``, ``MinLen``, ``MultipleOf``, ...), which land in the schema.

The JSON a model sends is turned into those objects before the function is called. pydantic is optional: a
pydantic model's schema and conversion are pydantic's own (``model_json_schema`` and ``model_validate``); the other
object kinds are ours, with or without pydantic, since pydantic refuses ``typing.TypedDict`` before Python 3.12
and does not know attrs classes. A recursive type cannot be described to a model and is refused.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import enum
import importlib.util
import inspect
import json
import pathlib
import types
import typing
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from agenttools._jsonable import jsonable
from agenttools._lazy import lazy_module
from agenttools.blocks import DataBlock, ImageBlock, TextBlock
from agenttools.errors import ArgumentsError
from agenttools.schema._docstring import parse_docstring
from agenttools.schema._validate import ValidationIssue, validate
from agenttools.schema.transform import canonicalize, inline_refs

__all__ = ["FunctionSchema", "function_schema"]

Converter = Callable[[Any], Any]
_pydantic_module: Any = lazy_module("pydantic")

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NoneType = type(None)


def _literal_type(values: Sequence[Any]) -> str | None:
    kinds = {_SCALARS.get(type(v)) for v in values}
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


_BOUNDS = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum",
           "multiple_of": "multipleOf", "pattern": "pattern"}
_LENGTHS = {"min_length": ("minLength", "minItems", "minProperties"),
            "max_length": ("maxLength", "maxItems", "maxProperties")}
_MISSING = object()


def _is_field_info(value: Any) -> bool:
    """The ``FieldInfo`` of pydantic (what ``Field(...)`` returns), known without importing pydantic."""
    return type(value).__name__ == "FieldInfo" and hasattr(value, "metadata") and hasattr(value, "description")


def _constrained(schema: dict[str, Any], metadata: Sequence[Any]) -> dict[str, Any]:
    """``schema`` with the description and the constraints ``Annotated`` metadata carries."""
    out = dict(schema)
    for item in metadata:
        if isinstance(item, str):
            out.setdefault("description", item)
            continue
        if _is_field_info(item):
            if item.description:
                out["description"] = item.description
            out = _constrained(out, list(item.metadata))
            continue
        kind = out.get("type")
        for attribute, keyword in _BOUNDS.items():
            value = getattr(item, attribute, None)
            if value is not None and not callable(value):
                out[keyword] = value
        for attribute, (text, array, mapping) in _LENGTHS.items():
            value = getattr(item, attribute, None)
            if isinstance(value, int) and not isinstance(value, bool):
                out[array if kind == "array" else mapping if kind == "object" else text] = value
    return out


class _Compiler:
    def __init__(self, where: str, problems: list[str], tool: str = "",
                 mode: Literal["validation", "serialization"] = "validation") -> None:
        self.where = where
        self.problems = problems
        self.tool = tool
        self.mode = mode  # pydantic's schema of what it reads, or of what it writes (a result)
        self.stack: list[Any] = []  # the object types being compiled, to refuse a recursive one

    def fail(self, message: str) -> tuple[dict[str, Any], Converter | None]:
        self.problems.append(f"{self.where}: {message}")
        return {}, None

    def compile(self, tp: Any) -> tuple[dict[str, Any], Converter | None]:
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is typing.Annotated:
            schema, conv = self.compile(args[0])
            return _constrained(schema, args[1:]), conv
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
        if tp in _FORMATS:
            return _formatted(*_FORMATS[tp])
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
            convert = None if conv is None else (lambda v: {k: _at(k, conv, x) for k, x in v.items()})
            return {"type": "object", "additionalProperties": value_schema}, convert
        if isinstance(tp, type):
            if tp in self.stack:
                return self.fail(f"type {tp.__name__} refers to itself: a recursive type cannot be described "
                                 "to a model")
            self.stack.append(tp)
            try:
                compiled = self._object(tp)
            finally:
                self.stack.pop()
            if compiled is not None:
                return compiled
        label = tp.__name__ if isinstance(tp, type) else repr(tp)
        adapted = self._adapted(tp)
        return adapted if adapted is not None else self.fail(f"unsupported type {label}")

    def _adapted(self, tp: Any) -> tuple[dict[str, Any], Converter | None] | None:
        """A type pydantic knows (``Decimal``, ``timedelta``, ``EmailStr``, ...), through its ``TypeAdapter``."""
        if importlib.util.find_spec("pydantic") is None:
            return None
        try:
            adapter = _pydantic_module.TypeAdapter(tp)
            schema = canonicalize(inline_refs(adapter.json_schema(mode=self.mode)))
        except Exception:  # noqa: BLE001 - pydantic does not know it either: "unsupported type"
            return None
        if not schema:  # ``object`` and the like: anything at all, most likely a mistake (``Any`` says it)
            return None

        return schema, _validated_by(adapter.validate_python)

    def _object(self, tp: type) -> tuple[dict[str, Any], Converter | None] | None:
        """A class whose instances are JSON objects: a pydantic model, dataclass, attrs class, TypedDict, NamedTuple."""
        if hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate"):
            return self._pydantic(tp)
        if dataclasses.is_dataclass(tp) and hasattr(tp, "__pydantic_validator__"):  # a pydantic dataclass
            return self._adapted(tp) or self.fail(f"pydantic cannot describe {tp.__name__}")
        if dataclasses.is_dataclass(tp):
            hints = self._hints(tp)
            return self._fields(tp, [
                (f.name, hints.get(f.name, Any), f.default is dataclasses.MISSING and
                 f.default_factory is dataclasses.MISSING, f.default, f.metadata.get("description"), f.name)
                for f in dataclasses.fields(tp) if f.init], lambda kwargs: tp(**kwargs))
        if attrs.has(tp):
            hints = self._hints(tp)
            return self._fields(tp, [
                (a.name, hints.get(a.name, a.type if a.type is not None else Any), a.default is attrs.NOTHING,
                 _MISSING if isinstance(a.default, attrs.Factory) else a.default,  # type: ignore[arg-type]
                 a.metadata.get("description"), a.alias or a.name)
                for a in attrs.fields(tp) if a.init], lambda kwargs: tp(**kwargs))
        if _is_typeddict(tp):
            hints = self._hints(tp)
            required = getattr(tp, "__required_keys__", frozenset(hints))
            return self._fields(tp, [(name, _unrequired(hint), _required_key(name, hint, required), _MISSING, None,
                                      name) for name, hint in hints.items()], dict)
        if issubclass(tp, tuple) and hasattr(tp, "_fields"):  # a NamedTuple: an object, named fields for a model
            hints = self._hints(tp)
            defaults = getattr(tp, "_field_defaults", {})
            return self._fields(tp, [(name, hints.get(name, Any), name not in defaults, defaults.get(name, _MISSING),
                                      None, name) for name in tp._fields], lambda kwargs: tp(**kwargs))
        return None

    def _hints(self, tp: type) -> dict[str, Any]:
        try:
            return typing.get_type_hints(tp, include_extras=True)
        except (NameError, TypeError) as exc:
            self.fail(f"cannot read the annotations of {tp.__name__}: {exc}")
            return {}

    def _fields(self, tp: type, fields: list[tuple[str, Any, bool, Any, Any, str]],
                build: Callable[[dict[str, Any]], Any]) -> tuple[dict[str, Any], Converter | None]:
        """The object schema of ``(name, type, required, default, description, init name)`` fields."""
        properties: dict[str, Any] = {}
        required: list[str] = []
        converters: dict[str, tuple[str, Converter | None]] = {}
        for name, hint, is_required, default, description, init_name in fields:
            schema, conv = self.compile(hint)
            if isinstance(description, str) and description and "description" not in schema:
                schema = {**schema, "description": description}
            if is_required:
                required.append(name)
            elif default is not _MISSING and default is not dataclasses.MISSING:
                value = _shown_default(default)
                try:
                    json.dumps(value, allow_nan=False)
                    schema = {**schema, "default": value}
                except (TypeError, ValueError):
                    pass  # a default the model cannot be shown is still the default
            properties[name] = schema
            converters[name] = (init_name, conv)

        def convert(value: Any) -> Any:
            kwargs = {}
            for key, item in value.items():
                if key in converters:
                    init_name, conv = converters[key]
                    kwargs[init_name] = _at(key, conv, item) if conv is not None else item
            try:
                return build(kwargs)
            except (TypeError, ValueError) as exc:  # __post_init__, an attrs validator: the value is refused
                text = " ".join(str(exc).split()) or type(exc).__name__
                raise _Invalid([ValidationIssue(path=(), keyword="value", message=f"is invalid: {text}",
                                                value=value)]) from None

        return ({"type": "object", "properties": properties, "required": required, "additionalProperties": False},
                convert)

    def _pydantic(self, model: Any) -> tuple[dict[str, Any], Converter | None]:
        try:
            schema = canonicalize(inline_refs(model.model_json_schema(mode=self.mode)))
        except Exception as exc:  # noqa: BLE001 - pydantic refuses the model, or it is recursive
            return self.fail(f"the schema of {model.__name__} cannot be built: {' '.join(str(exc).split())}")
        return schema, _validated_by(model.model_validate)

    def _union(self, args: tuple[Any, ...]) -> tuple[dict[str, Any], Converter | None]:
        compiled = [self.compile(a) for a in args]
        schemas = [s for s, _ in compiled]
        if any(s == {} for s in schemas):
            return {}, None
        if all(c is None for _, c in compiled):
            return {"anyOf": schemas}, None
        branches = [(s, c) for s, c in compiled]

        def convert(value: Any) -> Any:
            valid = [(schema, conv) for schema, conv in branches if not validate(schema, value, all_errors=False)]
            # of the members the value satisfies, the first that keeps all of it: an object's keys none ignores
            chosen = next((b for b in valid if _keeps(b[0], value)), valid[0] if valid else None)
            if chosen is None:
                return value
            return chosen[1](value) if chosen[1] else value

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
                return tuple(_at(i, c, v) if c else v for i, (c, v) in enumerate(zip(convs, value, strict=True)))

            schema = {"type": "array", "prefixItems": [s for s, _ in compiled], "minItems": n, "maxItems": n}
            return schema, convert_fixed
        item_schema, conv = self.compile(args[0])
        wrap: Callable[[Any], Any] = tuple if is_tuple else list

        def convert(value: Any) -> Any:
            return wrap(_at(index, conv, v) for index, v in enumerate(value)) if conv else wrap(value)

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
    output_schema: dict[str, Any] | None = None
    """The JSON Schema of the return annotation when it is structured (an object class, a dict or a list)."""


class _Invalid(Exception):  # noqa: N818 - internal: never escapes function_schema's caller
    """A value the schema accepted that its class refused on conversion, with where it was."""

    def __init__(self, issues: list[ValidationIssue]) -> None:
        super().__init__(issues)
        self.issues = issues


def _at(key: str | int, convert: Converter, value: Any) -> Any:
    """``convert(value)``, a refusal's issues placed under ``key`` in the argument's path."""
    try:
        return convert(value)
    except _Invalid as invalid:
        raise _Invalid([attrs.evolve(issue, path=(key, *issue.path)) for issue in invalid.issues]) from None


def _is_typeddict(tp: type) -> bool:
    """A ``TypedDict`` class, the standard library's or ``typing_extensions``' (which ``typing`` does not know)."""
    return typing.is_typeddict(tp) or (issubclass(tp, dict) and hasattr(tp, "__required_keys__")
                                       and hasattr(tp, "__total__"))


def _required_key(name: str, hint: Any, required: frozenset[str]) -> bool:
    """Whether a TypedDict key is required: its own ``Required``/``NotRequired``, else the class's totality.

    The class's own record misses the wrappers when its annotations are strings (``from __future__ import
    annotations``), so the resolved hint is read first.
    """
    origin = typing.get_origin(hint)
    if origin is typing.Required:
        return True
    if origin is typing.NotRequired:
        return False
    return name in required


def _unrequired(hint: Any) -> Any:
    """A TypedDict key's type without its ``Required[...]``/``NotRequired[...]`` wrapper."""
    while typing.get_origin(hint) in (typing.Required, typing.NotRequired):
        hint = typing.get_args(hint)[0]
    return hint


def _validated_by(validate: Callable[[Any], Any]) -> Converter:
    """A converter running pydantic's ``validate``; its refusal is our issues, naming the argument's path."""
    def convert(value: Any) -> Any:
        try:
            return validate(value)
        except ValueError as exc:  # pydantic's ValidationError
            raise _Invalid(_pydantic_issues(exc)) from None

    return convert


def _lower_first(text: str) -> str:
    """``Input should be ...`` -> ``input should be ...``, leaving ``URL`` and the rest of the text as written."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _pydantic_issues(error: Any) -> list[ValidationIssue]:
    """The errors of pydantic as our issues (path, message), so a failure reads as every other argument error."""
    errors = error.errors() if callable(getattr(error, "errors", None)) else []
    issues = [ValidationIssue(path=tuple(item.get("loc", ())), keyword=str(item.get("type", "pydantic")),
                              message=_lower_first(" ".join(str(item.get("msg", "is invalid")).split())))
              for item in errors]
    return issues or [ValidationIssue(path=(), keyword="pydantic", message=" ".join(str(error).split()))]


def _keeps(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether converting ``value`` by ``schema`` keeps every key of it (an object schema names them all)."""
    props = schema.get("properties")
    return not (isinstance(value, dict) and isinstance(props, Mapping) and not set(value) <= set(props))


def _formatted(fmt: str, parse: Callable[[str], Any]) -> tuple[dict[str, Any], Converter]:
    """A string of a JSON Schema ``format`` that arrives as the object ``parse`` makes of it."""
    def convert(value: Any) -> Any:
        try:
            return parse(value)
        except (TypeError, ValueError):
            raise _Invalid([ValidationIssue(path=(), keyword="format", message=f'must match format "{fmt}"',
                                            params={"format": fmt}, value=value)]) from None

    return {"type": "string", "format": fmt}, convert


_FORMATS: dict[Any, tuple[str, Callable[[str], Any]]] = {
    datetime.datetime: ("date-time", datetime.datetime.fromisoformat),
    datetime.date: ("date", datetime.date.fromisoformat),
    datetime.time: ("time", datetime.time.fromisoformat),
    uuid.UUID: ("uuid", uuid.UUID),
}
"""Standard-library values the model writes as strings (ISO 8601, RFC 4122), and how each is read."""


def _shown_default(value: Any) -> Any:
    """A default as the schema shows it (its JSON value), or the value itself when it has none (a problem)."""
    try:
        return jsonable(value)
    except TypeError:
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
    defaults: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}  # pydantic ``Field(default_factory=...)`` defaults
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
        hint, default_given = hints[param.name], param.default
        if _is_field_info(default_given):  # ``x: int = Field(5, ge=0)``: pydantic's other way to write Annotated
            hint = typing.Annotated[hint, default_given]
            if default_given.is_required():
                default_given = param.empty
            elif default_given.default_factory is not None:
                factories[param.name] = default_given.default_factory
                default_given = _MISSING
            else:
                default_given = default_given.default
        schema, conv = _Compiler(where, problems, name).compile(hint)
        if "description" not in schema and param.name in doc.params:
            schema = {**schema, "description": doc.params[param.name]}
        if default_given is param.empty:
            required.append(param.name)
        elif default_given is not _MISSING:  # a factory's value is made at each call, and not shown
            defaults[param.name] = default_given
            default = _shown_default(default_given)
            try:
                json.dumps(default, allow_nan=False)
            except (TypeError, ValueError):
                problems.append(f"{where}: default {default_given!r} is not JSON-serializable")
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
    fielded = [p.name for p in signature.parameters.values() if _is_field_info(p.default) and p.name in properties
               and p.name not in required]

    def default_of(parameter: str) -> Any:
        if parameter in factories:
            return factories[parameter]()
        return copy.deepcopy(defaults[parameter]) if parameter in fielded else defaults[parameter]

    def call(arguments: Mapping[str, Any]) -> Any:
        try:
            values = {k: (_at(k, converters[k], v) if k in converters else v) for k, v in arguments.items()}
        except _Invalid as invalid:  # a pydantic model refused a value our schema let through (its validators)
            raise ArgumentsError(name, invalid.issues) from None
        for missing in fielded:  # the function's own default is the FieldInfo: pass the value it stands for
            if missing not in values:
                values[missing] = default_of(missing)
        given = [i for i, p in enumerate(positional) if p in values]
        args = [values.pop(p) if p in values else default_of(p) for p in positional[: given[-1] + 1 if given else 0]]
        return fn(*args, **values)

    return FunctionSchema(
        name=name,
        description=doc.description,
        parameters=parameters,
        call=call,
        is_async=inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__),
        output_schema=_output_schema(hints.get("return", inspect.Signature.empty), name),
    )


def _structured(tp: Any) -> bool:
    """Whether a return annotation is a structured type: an object class, a dict or a list (maybe optional).

    Content blocks (text, images, data), and lists of them, are an answer's content, not a structured value.
    """
    if _blocks(tp):
        return False
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _structured(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(tp) if a is not _NoneType]
        return bool(members) and all(_structured(a) for a in members)
    if tp in (list, tuple, dict) or origin in (list, tuple, dict, Sequence, Mapping):
        return True
    return isinstance(tp, type) and (dataclasses.is_dataclass(tp) or attrs.has(tp) or _is_typeddict(tp)
                                     or (issubclass(tp, tuple) and hasattr(tp, "_fields"))
                                     or (hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate")))


def _blocks(tp: Any) -> bool:
    """Whether an annotation is a content block, a union of them, or a sequence of those."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _blocks(typing.get_args(tp)[0])
    if origin in (typing.Union, types.UnionType, list, tuple, Sequence):
        members = [a for a in typing.get_args(tp) if a is not _NoneType and a is not Ellipsis]
        return bool(members) and all(_blocks(a) for a in members)
    return tp in _BLOCK_TYPES


_BLOCK_TYPES = frozenset({TextBlock, ImageBlock, DataBlock})


def _output_schema(tp: Any, name: str) -> dict[str, Any] | None:
    """The output schema of a structured return annotation; None for others, or one that cannot be described."""
    if tp is inspect.Signature.empty or not _structured(tp):
        return None
    problems: list[str] = []
    schema, _ = _Compiler("return", problems, name, mode="serialization").compile(tp)
    return None if problems else schema
