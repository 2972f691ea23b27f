"""Go's ``encoding/json`` as ``todowrite`` meets it: scanner syntax errors and ``json.Unmarshal`` type errors.

The words are Go 1.22's, for ``json.Unmarshal`` into ``[]session.TodoItem``.

Upstream decodes ``todos_json`` with ``json.Unmarshal``; a model reads the error to repair its JSON, so the words
are Go's: ``unexpected end of JSON input``, ``invalid character '}' after array element``,
``json: cannot unmarshal number into Go struct field TodoItem.content of type string``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

__all__ = ["GoJSONError", "decode_todos", "syntax_error"]

_MAX_DEPTH = 10000  # encoding/json's maxNestingDepth
_FIELDS = ("id", "content", "status", "priority")


class GoJSONError(ValueError):
    """What ``json.Unmarshal`` returns, as Go words it."""


def _quote_char(byte: int) -> str:
    """scanner.go's ``quoteChar``: the byte as a single-quoted Go character literal."""
    if byte == 0x27:
        return "'\\''"
    if byte == 0x22:
        return "'\"'"
    char = chr(byte)  # string(c) of a byte: U+0000..U+00FF
    escapes = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
               "\\": "\\\\"}
    if char in escapes:
        return f"'{escapes[char]}'"
    if byte < 0x20 or byte == 0x7F:
        return f"'\\x{byte:02x}'"
    if char == " " or (byte < 0x7F) or unicodedata.category(char)[0] not in "CZ":
        return f"'{char}'"
    return f"'\\u{byte:04x}'"


_SPACE = frozenset(b" \t\r\n")
_DIGITS = frozenset(b"0123456789")
_HEXDIGITS = frozenset(b"0123456789abcdefABCDEF")
_LITERALS = {"t": "true", "f": "false", "n": "null"}
_ESCAPES = frozenset(b'bfnrtu\\/"')


class _Scanner:
    """encoding/json's scanner, one byte at a time; ``step`` answers the error message, if any."""

    def __init__(self) -> None:
        self.stack: list[str] = []  # "key" or "value" (inside an object) or "array"
        self.state = "begin"
        self.literal = ""
        self.position = 0

    @staticmethod
    def _error(byte: int, context: str) -> str:
        return f"invalid character {_quote_char(byte)} {context}"

    def _push(self, kind: str, byte: int, state: str) -> str | None:
        self.stack.append(kind)
        self.state = state
        return None if len(self.stack) <= _MAX_DEPTH else self._error(byte, "exceeded max depth")

    def _pop(self) -> None:
        self.stack.pop()
        self.state = "end" if self.stack else "top"

    def step(self, byte: int) -> str | None:
        """Feed one byte: None, or the syntax error it causes."""
        state = self.state
        if state in ("begin", "begin_or_empty"):
            if byte in _SPACE:
                return None
            if state == "begin_or_empty" and byte == 0x5D:  # ]
                return self._end(byte)
            if byte == 0x7B:  # {
                return self._push("key", byte, "key_or_empty")
            if byte == 0x5B:  # [
                return self._push("array", byte, "begin_or_empty")
            if byte == 0x22:
                self.state = "string"
            elif byte == 0x2D:
                self.state = "neg"
            elif byte == 0x30:
                self.state = "zero"
            elif byte in _DIGITS:
                self.state = "int"
            elif chr(byte) in _LITERALS:
                self.literal, self.position, self.state = _LITERALS[chr(byte)], 1, "literal"
            else:
                return self._error(byte, "looking for beginning of value")
            return None
        if state in ("key_or_empty", "key"):
            if byte in _SPACE:
                return None
            if state == "key_or_empty" and byte == 0x7D:  # }
                self.stack[-1] = "value"
                return self._end(byte)
            if byte != 0x22:
                return self._error(byte, "looking for beginning of object key string")
            self.state = "string"
            return None
        if state == "string":
            if byte == 0x22:
                self.state = "end"
            elif byte == 0x5C:
                self.state = "esc"
            elif byte < 0x20:
                return self._error(byte, "in string literal")
            return None
        if state == "esc":
            if byte not in _ESCAPES:
                return self._error(byte, "in string escape code")
            self.state = "u0" if byte == 0x75 else "string"
            return None
        if state in ("u0", "u1", "u2", "u3"):
            if byte not in _HEXDIGITS:
                return self._error(byte, "in \\u hexadecimal character escape")
            self.state = "string" if state == "u3" else "u" + str(int(state[1]) + 1)
            return None
        if state == "neg":
            if byte not in _DIGITS:
                return self._error(byte, "in numeric literal")
            self.state = "zero" if byte == 0x30 else "int"
            return None
        if state in ("int", "zero", "frac", "exp_digits"):
            if byte in _DIGITS and state != "zero":
                return None
            if byte == 0x2E and state in ("int", "zero"):  # .
                self.state = "dot"
                return None
            if byte in b"eE" and state in ("int", "zero", "frac"):
                self.state = "exp"
                return None
            return self._end(byte)
        if state == "dot":
            if byte not in _DIGITS:
                return self._error(byte, "after decimal point in numeric literal")
            self.state = "frac"
            return None
        if state in ("exp", "exp_sign"):
            if state == "exp" and byte in b"+-":
                self.state = "exp_sign"
            elif byte in _DIGITS:
                self.state = "exp_digits"
            else:
                return self._error(byte, "in exponent of numeric literal")
            return None
        if state == "literal":
            expected = self.literal[self.position]
            if byte != ord(expected):
                return self._error(byte, f"in literal {self.literal} (expecting '{expected}')")
            self.position += 1
            if self.position == len(self.literal):
                self.state = "end"
            return None
        if state == "end":
            return self._end(byte)
        if byte not in _SPACE:  # top: only space may follow the value
            return self._error(byte, "after top-level value")
        return None

    def _end(self, byte: int) -> str | None:
        """stateEndValue: what may follow a complete value."""
        if not self.stack:
            self.state = "top"
            return self.step(byte)
        self.state = "end"
        if byte in _SPACE:
            return None
        top = self.stack[-1]
        if top == "key":
            if byte != 0x3A:  # :
                return self._error(byte, "after object key")
            self.stack[-1], self.state = "value", "begin"
        elif top == "value":
            if byte == 0x2C:  # ,
                self.stack[-1], self.state = "key", "key"
            elif byte == 0x7D:  # }
                self._pop()
            else:
                return self._error(byte, "after object key:value pair")
        elif byte == 0x2C:
            self.state = "begin"
        elif byte == 0x5D:  # ]
            self._pop()
        else:
            return self._error(byte, "after array element")
        return None


def syntax_error(data: bytes) -> str | None:
    """The message of encoding/json's ``checkValid`` for ``data``, or None when it is valid JSON."""
    scanner = _Scanner()
    for byte in data:
        message = scanner.step(byte)
        if message is not None:
            return message
    if scanner.state == "top":
        return None
    message = scanner.step(0x20)  # scanner.eof: a space ends a number, and fails a half-read literal
    if message is not None:
        return message
    return None if scanner.state == "top" else "unexpected end of JSON input"


class _Object(list):  # type: ignore[type-arg]
    """A JSON object as its (key, value) pairs in order, duplicates kept, as Go's decoder walks them."""


def _kind(value: Any) -> str:
    if isinstance(value, _Object):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, str):
        return "string"
    return "number"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _field_name(key: str) -> str | None:
    if key in _FIELDS:
        return key
    folded = key.casefold()
    return next((name for name in _FIELDS if name == folded), None)


def decode_todos(text: str) -> list[dict[str, str]]:
    """``json.Unmarshal(text, &[]session.TodoItem)``: the items as ``{id, content, status, priority}`` strings.

    Raises:
        GoJSONError: Go's message: a syntax error, or ``json: cannot unmarshal ...`` for the first value of the
            wrong type (unknown keys are ignored, a ``null`` leaves a field or an item empty).
    """
    data = text.encode("utf-8", errors="surrogatepass")
    message = syntax_error(data)
    if message is not None:
        raise GoJSONError(message)
    try:
        value = json.loads(text, object_pairs_hook=_Object)
    except RecursionError:
        raise GoJSONError("exceeded max depth") from None
    if value is None:
        return []
    if not isinstance(value, list) or isinstance(value, _Object):
        raise GoJSONError(f"json: cannot unmarshal {_kind(value)} into Go value of type []session.TodoItem")
    items = []
    for raw in value:
        item = dict.fromkeys(_FIELDS, "")
        if raw is not None and not isinstance(raw, _Object):
            raise GoJSONError(f"json: cannot unmarshal {_kind(raw)} into Go value of type session.TodoItem")
        for key, field_value in raw or ():
            name = _field_name(key)
            if name is None or field_value is None:
                continue
            if not isinstance(field_value, str):
                raise GoJSONError(f"json: cannot unmarshal {_kind(field_value)} into Go struct field "
                                  f"TodoItem.{name} of type string")
            item[name] = _SURROGATE.sub("\ufffd", field_value)
        items.append(item)
    return items
