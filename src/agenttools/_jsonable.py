"""The JSON value of a Python value, deterministically: what a structured result or a parameter's default is shown as.

One documented conversion per type that JSON has no place for; used by structured results
(:func:`agenttools.output.structured_output`) and by the schemas of typed parameters (their defaults).
"""

from __future__ import annotations

import enum
import json
import math
import pathlib
from typing import TYPE_CHECKING, Any

import attrs

from agenttools._lazy import lazy_module

if TYPE_CHECKING:
    import base64
    import dataclasses
    import datetime
    import decimal
    import uuid
else:  # only a structured result needs them: a listing loads none
    base64 = lazy_module("base64")
    dataclasses = lazy_module("dataclasses")
    datetime = lazy_module("datetime")
    decimal = lazy_module("decimal")
    uuid = lazy_module("uuid")

__all__ = ["jsonable"]


def jsonable(value: Any) -> Any:
    """``value`` as a JSON value, deterministically: objects keep the key order of their type.

    Dataclasses, attrs classes and ``NamedTuple``\\ s become objects of their fields in declaration order; a pydantic
    model is its ``model_dump(mode="json", by_alias=True)``; tuples and lists are arrays, sets sorted arrays (by each
    item's JSON); enums their value; paths, UUIDs and ``Decimal``\\ s strings; ``datetime``, ``date`` and ``time`` ISO
    8601 text, a ``timedelta`` an ISO 8601 duration as pydantic writes it (``PT5S``, ``P1DT0.5S``); ``bytes``
    standard base64. A dict's keys are strings: an enum key becomes its value, a number, a boolean or None is
    written as ``json.dumps`` writes it (``1``, ``true``, ``null``).

    Raises:
        TypeError: A value of another type, a dict key that is not a string, or NaN or an infinity (JSON has none).
    """
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"{value} is not a JSON number")
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key = key.value if isinstance(key, enum.Enum) else key
            if not isinstance(key, str):  # numbers, booleans and None as json.dumps writes them
                if key is not None and not isinstance(key, int | float):
                    raise TypeError(f"a result's object keys must be strings, got {type(key).__name__}")
                key = json.dumps(key)
            out[key] = jsonable(item)
        return out
    if hasattr(type(value), "model_dump") and hasattr(type(value), "model_json_schema"):  # a pydantic model
        return value.model_dump(mode="json", by_alias=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: jsonable(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if attrs.has(type(value)):
        return {field.name: jsonable(getattr(value, field.name)) for field in attrs.fields(type(value))}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: jsonable(item) for key, item in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if isinstance(value, set | frozenset):
        items = [jsonable(item) for item in value]
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if isinstance(value, pathlib.PurePath | uuid.UUID | decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return _duration(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _duration(delta: datetime.timedelta) -> str:
    """An ISO 8601 duration, as pydantic writes one: ``PT5S``, ``P1D``, ``-PT23H59M57S``, ``PT0S``."""
    sign = "-" if delta.days < 0 else ""
    if sign:
        delta = -delta
    hours, rest = divmod(delta.seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if seconds or delta.microseconds:
        clock += (f"{seconds}.{delta.microseconds:06d}".rstrip("0") if delta.microseconds else str(seconds)) + "S"
    days = f"{delta.days}D" if delta.days else ""
    return f"{sign}P{days}" + (f"T{clock}" if clock else "" if days else "T0S")
