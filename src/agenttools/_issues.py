"""ValidationIssue: one way tool arguments failed their schema, in Ajv's terms (re-exported by errors)."""

from __future__ import annotations

import json
from typing import Any

import attrs

__all__ = ["ValidationIssue"]


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
            expected = " or ".join(str(self.params["type"]).split(","))
            return f"{subject} must be {expected}, got {_json_kind(self.value)}"
        if self.keyword == "enum":
            allowed = ", ".join(_short(v) for v in self.params["allowedValues"])
            return f"{subject} must be one of {allowed}, got {_short(self.value)}"
        if self.keyword == "anyOf":
            branches = self.params.get("branches", [])
            if branches and all(b.keyword == "type" and b.path == self.path for b in branches):
                expected = " or ".join(str(b.params["type"]) for b in branches)
                return f"{subject} must be {expected}, got {_json_kind(self.value)}"
        return f"{subject} {self.message}"


def _json_kind(value: Any) -> str:
    from agenttools.schema import json_type

    return json_type(value)


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
