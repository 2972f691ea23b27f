"""Cell edits of a Jupyter notebook's JSON text that change nothing outside the cell.

A notebook is not parsed and written back whole (which would re-indent it, re-order keys or change escapes to
the writer's taste): the JSON text is scanned for the spans of the ``cells`` array, of each cell and of the
members of the cell being changed, and only those characters are replaced. New JSON (a source, a whole cell) is
written in the style the file already has: its indentation unit, separators, ASCII escapes and line breaks, the
style nbformat itself writes being the usual one (``indent=1``, sorted keys, a source as a list of lines).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import attrs

__all__ = ["NotebookError", "delete_cell", "edit_cell", "insert_cell"]

_DECODER = json.JSONDecoder()
_WS = " \t\n\r"
_ESCAPED_NON_ASCII = re.compile(r"\\u(?:00[89a-fA-F]|0[1-9a-fA-F]|[1-9a-fA-F])")


class NotebookError(ValueError):
    """The text is not a notebook, or the cell asked for is not in it."""


@attrs.frozen
class _Member:
    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int
    value: Any


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _members(text: str, pos: int) -> list[_Member]:
    """The members of the JSON object starting at ``pos`` (a ``{``), with their spans."""
    members: list[_Member] = []
    pos = _skip(text, pos + 1)
    if text[pos] == "}":
        return members
    while True:
        key_start = pos
        key, key_end = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
        pos = _skip(text, _skip(text, key_end) + 1)  # past the colon
        value, end = _DECODER.raw_decode(text, pos)
        members.append(_Member(key, key_start, key_end, pos, end, value))
        pos = _skip(text, end)
        if text[pos] == "}":
            return members
        pos = _skip(text, pos + 1)  # past the comma


def _items(text: str, pos: int) -> list[tuple[int, int, Any]]:
    """The items of the JSON array starting at ``pos`` (a ``[``): ``(start, end, value)`` each."""
    items: list[tuple[int, int, Any]] = []
    pos = _skip(text, pos + 1)
    if text[pos] == "]":
        return items
    while True:
        value, end = _DECODER.raw_decode(text, pos)
        items.append((pos, end, value))
        pos = _skip(text, end)
        if text[pos] == "]":
            return items
        pos = _skip(text, pos + 1)


@attrs.frozen(kw_only=True)
class _Style:
    """How the file writes JSON."""

    unit: str | None
    """The indentation unit, or None for a one-line file."""
    key_sep: str
    item_sep: str
    ascii: bool
    newline: str

    def dumps(self, value: Any, base: str) -> str:
        """``value`` as the file would write it, on a line indented by ``base``."""
        if self.unit is None:
            return json.dumps(value, ensure_ascii=self.ascii, separators=(self.item_sep, self.key_sep))
        text = json.dumps(value, ensure_ascii=self.ascii, indent=self.unit, separators=(",", self.key_sep))
        return text.replace("\n", self.newline + base)


@attrs.frozen(kw_only=True)
class _Notebook:
    text: str
    style: _Style
    meta: dict[str, Any]
    array_start: int
    array_end: int
    cells_key_start: int
    cells: list[tuple[int, int, Any]]


def _line_indent(text: str, pos: int) -> str:
    """The whitespace between the start of ``pos``'s line and ``pos``."""
    start = max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1
    indent = text[start:pos]
    return indent if not indent.strip() else ""


_CELL_TYPES = ("code", "markdown", "raw")
_CELL_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # nbformat 4.5's schema for a cell id


def _check_type(cell_type: str) -> None:
    if cell_type not in _CELL_TYPES:
        raise NotebookError(f"cell type {cell_type!r} is not one of {', '.join(_CELL_TYPES)}")


def _parse(text: str) -> _Notebook:
    try:
        top = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"not a notebook: invalid JSON ({exc})") from None
    except RecursionError:
        raise NotebookError("not a notebook: JSON nested too deeply") from None
    if isinstance(top, dict) and "worksheets" in top and "cells" not in top:
        raise NotebookError(f"notebook format {top.get('nbformat')} (cells in worksheets) is not supported: "
                            "convert it to format 4 first (jupyter nbconvert --to notebook)")
    if not isinstance(top, dict) or not isinstance(top.get("cells"), list) or \
            not all(isinstance(c, dict) for c in top["cells"]):
        raise NotebookError('not a notebook: no "cells" list of cell objects')
    pos = _skip(text, 0)
    members = _members(text, pos)
    cells = next(m for m in reversed(members) if m.key == "cells")  # the last duplicate wins, as in json.loads
    first = members[0]
    after_open = text[pos + 1:first.key_start]
    unit = after_open.lstrip("\r\n") if ("\n" in after_open or "\r" in after_open) else None
    key_sep = text[first.key_end:first.value_start]
    item_sep = ", "
    if len(members) > 1:
        item_sep = text[first.value_end:members[1].key_start]
    non_ascii = any(ord(c) > 127 for c in text)
    style = _Style(unit=unit, key_sep=key_sep, item_sep=item_sep if unit is None else ",",
                   ascii=not non_ascii and bool(_ESCAPED_NON_ASCII.search(text)),
                   newline="\r\n" if "\r\n" in text else "\n")
    return _Notebook(text=text, style=style, meta=top, array_start=cells.value_start, array_end=cells.value_end,
                     cells_key_start=cells.key_start, cells=_items(text, cells.value_start))


def _source_value(source: str, like: Any) -> Any:
    """``source`` stored as nbformat stores it: a list of lines, or one string when the cell had one."""
    if isinstance(like, str):
        return source
    return source.splitlines(keepends=True)


def _find(nb: _Notebook, index: int | None, cell_id: str | None) -> int:
    if (index is None) == (cell_id is None):
        raise NotebookError("give the cell's index or its id" if index is None else
                            "give the cell's index or its id, not both")
    if cell_id is not None:
        found = [i for i, (_, _, cell) in enumerate(nb.cells) if cell.get("id") == cell_id]
        if len(found) > 1:
            raise NotebookError(f"{len(found)} cells have id {cell_id!r} (cells {', '.join(map(str, found))}): "
                                "give the cell's index")
        if not found:
            raise NotebookError(f"no cell has id {cell_id!r}")
        return found[0]
    assert index is not None  # noqa: S101 - checked above
    _check_index(index)
    if not 0 <= index < len(nb.cells):
        raise NotebookError(f"cell index {index} is out of range (the notebook has {len(nb.cells)} cells)")
    return index


def _check_index(index: object) -> None:
    if isinstance(index, bool) or not isinstance(index, int):
        raise NotebookError(f"a cell index is an integer, not {index!r}")


def _splice(text: str, replacements: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(replacements, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _cell_base(nb: _Notebook) -> str:
    """The indentation a cell starts at."""
    if nb.cells:
        return _line_indent(nb.text, nb.cells[0][0])
    return _line_indent(nb.text, nb.cells_key_start) + (nb.style.unit or "")


def _rebuilt(cell: dict[str, Any], cell_type: str) -> dict[str, Any]:
    """``cell`` turned into a ``cell_type`` cell: outputs kept only by code cells, attachments never by them."""
    out = {k: v for k, v in cell.items()
           if not (cell_type != "code" and k in ("outputs", "execution_count"))
           and not (cell_type == "code" and k == "attachments")}
    out["cell_type"] = cell_type
    if cell_type == "code":
        out.setdefault("execution_count", None)
        out.setdefault("outputs", [])
    keys = list(cell)
    if keys == sorted(keys):
        out = dict(sorted(out.items()))
    return out


def edit_cell(text: str, source: str, *, index: int | None, cell_id: str | None, cell_type: str | None,
              clear_outputs: bool) -> tuple[str, int]:
    """The notebook with one cell's source replaced; and where that cell starts in it."""
    if cell_type is not None:
        _check_type(cell_type)
    nb = _parse(text)
    i = _find(nb, index, cell_id)
    start, end, cell = nb.cells[i]
    base = _line_indent(text, start)
    if cell_type is not None and cell_type != cell.get("cell_type"):
        new_cell = _rebuilt(cell, cell_type)
        new_cell["source"] = _source_value(source, cell.get("source"))
        return _splice(text, [(start, end, nb.style.dumps(new_cell, base))]), start
    replacements = []
    members = {m.key: m for m in _members(text, start)}
    for key, value in (("source", _source_value(source, cell.get("source"))),
                       *((("outputs", []), ("execution_count", None))
                         if clear_outputs and cell.get("cell_type") == "code" else ())):
        member = members.get(key)
        if member is None:
            if key == "source":
                raise NotebookError(f"cell {i} has no source")
            continue
        if member.value != value or key == "source":
            replacements.append((member.value_start, member.value_end,
                                 nb.style.dumps(value, _line_indent(text, member.key_start))))
    return _splice(text, replacements), start


def insert_cell(text: str, source: str, *, index: int | None, after_id: str | None, cell_type: str,
                cell_id: str | None) -> tuple[str, int]:
    """The notebook with a new cell at ``index`` (or after the cell ``after_id``); and where it starts in it."""
    _check_type(cell_type)
    if cell_id is not None and not (isinstance(cell_id, str) and _CELL_ID.fullmatch(cell_id)):
        raise NotebookError(f"cell id {cell_id!r} is not 1 to 64 letters, digits, '-' or '_' (nbformat's rule)")
    nb = _parse(text)
    if index is not None and after_id is not None:
        raise NotebookError("give the index to insert at or the id of the cell to insert after, not both")
    if index is not None:
        _check_index(index)
    if after_id is not None:
        position = _find(nb, None, after_id) + 1
    elif index is None:
        position = len(nb.cells)
    elif 0 <= index <= len(nb.cells):
        position = index
    else:
        raise NotebookError(f"insert index {index} is out of range (0 to {len(nb.cells)})")
    ids = {c.get("id") for _, _, c in nb.cells}
    if cell_id is not None and cell_id in ids:
        raise NotebookError(f"a cell already has id {cell_id!r}")
    cell: dict[str, Any] = {"cell_type": cell_type}
    if cell_type == "code":
        cell["execution_count"] = None
    with_ids = cell_id is not None or any("id" in c for _, _, c in nb.cells) or (
        nb.meta.get("nbformat") == 4 and isinstance(nb.meta.get("nbformat_minor"), int)
        and nb.meta["nbformat_minor"] >= 5)
    if with_ids:
        new_id = cell_id
        while new_id is None or new_id in ids:
            new_id = os.urandom(4).hex()
        cell["id"] = new_id
    cell["metadata"] = {}
    if cell_type == "code":
        cell["outputs"] = []
    cell["source"] = source.splitlines(keepends=True)
    style, base = nb.style, _cell_base(nb)
    dumped = style.dumps(cell, base)
    if not nb.cells:
        if style.unit is None:
            new = "[" + dumped + "]"
            offset = nb.array_start + 1
        else:
            closing = _line_indent(text, nb.cells_key_start)
            new = "[" + style.newline + base + dumped + style.newline + closing + "]"
            offset = nb.array_start + 1 + len(style.newline) + len(base)
        return _splice(text, [(nb.array_start, nb.array_end, new)]), offset
    if len(nb.cells) > 1:
        between = text[nb.cells[0][1]:nb.cells[1][0]]
    else:
        between = style.item_sep if style.unit is None else "," + style.newline + base
    if position < len(nb.cells):
        at = nb.cells[position][0]
        return _splice(text, [(at, at, dumped + between)]), at
    at = nb.cells[-1][1]
    return _splice(text, [(at, at, between + dumped)]), at + len(between)


def delete_cell(text: str, *, index: int | None, cell_id: str | None) -> tuple[str, int]:
    """The notebook without one cell; and where the cell after it (or the array's end) now starts."""
    nb = _parse(text)
    i = _find(nb, index, cell_id)
    if len(nb.cells) == 1:
        return _splice(text, [(nb.array_start, nb.array_end, "[]")]), nb.array_start
    if i < len(nb.cells) - 1:
        start, next_start = nb.cells[i][0], nb.cells[i + 1][0]
        return _splice(text, [(start, next_start, "")]), start
    previous_end, end = nb.cells[i - 1][1], nb.cells[i][1]
    return _splice(text, [(previous_end, end, "")]), previous_end
