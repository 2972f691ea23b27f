"""A parser for Google-style docstrings: the description, and one text per documented parameter."""

from __future__ import annotations

import inspect
import re

import attrs

__all__ = ["Docstring", "parse_docstring"]

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|Returns?|Yields?|"
    r"Raises|Exceptions?|Examples?|Notes?|Attributes|See Also|Warnings?|Warns|Todo|References|Methods)\s*:\s*$",
)
_PARAM_SECTIONS = {"Args", "Arguments", "Parameters", "Params", "Keyword Args", "Keyword Arguments",
                   "Other Parameters"}
_ENTRY = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?:\((?P<type>[^)]*)\))?\s*:(?P<text>.*)$")


@attrs.frozen(kw_only=True)
class Docstring:
    """What a docstring says, split into the parts a tool definition uses."""

    description: str
    """Everything before the first section (summary and extended description), whitespace-trimmed."""
    params: dict[str, str]
    """Parameter name to its description, continuation lines joined with single spaces."""
    malformed: tuple[str, ...] = ()
    """Lines inside a parameter section that are not ``name: text`` entries."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def parse_docstring(doc: str | None) -> Docstring:
    """Parse a Google-style docstring (``Args:`` entries as ``name: text`` or ``name (type): text``)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    malformed: list[str] = []
    section: str | None = None
    entry_indent: int | None = None
    current: str | None = None
    for line in lines:
        header = _SECTION.match(line)
        if header and _indent(line) == 0:
            section = header.group(1)
            entry_indent = None
            current = None
            continue
        if section is None:
            description.append(line)
            continue
        if section not in _PARAM_SECTIONS or not line.strip():
            continue
        indent = _indent(line)
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent:
            entry = _ENTRY.match(line.strip())
            if entry is None:
                malformed.append(line.strip())
                current = None
                continue
            current = entry.group("name")
            params[current] = entry.group("text").strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    return Docstring(description="\n".join(description).strip(), params=params, malformed=tuple(malformed))
