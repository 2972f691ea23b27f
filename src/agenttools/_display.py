"""Notebook display for result classes: a Markdown table of their fields."""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["MarkdownRepr"]

_MAX_CELL = 120


def _cell(value: Any) -> str:
    if isinstance(value, bytes):
        text = f"<{len(value)} bytes>"
    elif isinstance(value, tuple | list) and len(value) > 5:
        text = f"[{len(value)} items]"
    else:
        text = repr(value)
    if len(text) > _MAX_CELL:
        text = text[: _MAX_CELL - 3] + "..."
    return text.replace("|", "\\|").replace("\n", "\\n")


class MarkdownRepr:
    """Mixin: ``_repr_markdown_`` shows an attrs result as a two-column table (long values shortened)."""

    __slots__ = ()

    def _repr_markdown_(self) -> str:
        rows = [f"**{type(self).__name__}**", "", "| field | value |", "|---|---|"]
        rows += [f"| {field.name} | `{_cell(getattr(self, field.name))}` |"
                 for field in attrs.fields(type(self))]  # type: ignore[arg-type]
        return "\n".join(rows)
