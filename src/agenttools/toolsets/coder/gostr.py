"""Go's ``strconv.Unquote`` for double-quoted literals, all or nothing (the coder toolset's ``edit_file``)."""

from __future__ import annotations

__all__ = ["unescape_go_string", "unquote_go"]

_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\", '"': '"'}
_HEX = set("0123456789abcdefABCDEF")


def unquote_go(body: str) -> str:
    """Interpret ``body`` as the inside of a Go ``"..."`` literal.

    Raises:
        ValueError: The literal is invalid (unknown escape, raw ``"`` or newline, bad code point, ``\\'``).
    """
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        ch = body[i]
        if ch == '"' or ch == "\n":
            raise ValueError(f"raw {ch!r} in a Go string literal")
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError("trailing backslash")
        esc = body[i + 1]
        if esc in _SIMPLE:
            out.append(_SIMPLE[esc])
            i += 2
        elif esc in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = body[i + 2:i + 2 + width]
            if len(digits) != width or not set(digits) <= _HEX:
                raise ValueError(f"bad \\{esc} escape")
            value = int(digits, 16)
            if esc == "x":
                out.append(chr(value))  # a byte; our strings are text, so bytes >= 0x80 become U+0080..U+00FF
            else:
                if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
                    raise ValueError("invalid code point")
                out.append(chr(value))
            i += 2 + width
        elif esc in "01234567":
            digits = body[i + 1:i + 4]
            if len(digits) != 3 or not set(digits) <= set("01234567"):
                raise ValueError("bad octal escape")
            value = int(digits, 8)
            if value > 255:
                raise ValueError("octal escape above 255")
            out.append(chr(value))
            i += 4
        else:
            raise ValueError(f"unknown escape \\{esc}")
    return "".join(out)


def unescape_go_string(text: str) -> str:
    """``UnescapeGoString``: the unquoted text, or ``text`` unchanged when it is not a valid Go literal body."""
    try:
        return unquote_go(text)
    except ValueError:
        return text
