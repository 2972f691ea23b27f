"""A sort key that reproduces ICU's root collation (JavaScript ``localeCompare``) for ASCII names.

Punctuation and symbols sort before digits, digits before letters; letters compare case-insensitively first,
and on a tie lowercase sorts before uppercase. Non-ASCII characters sort after ASCII letters by case-folded code
point (an approximation: full ICU tables are out of scope).
"""

from __future__ import annotations

__all__ = ["locale_key"]

# CLDR root order of ASCII punctuation and symbols (variable characters, not ignored by default in ICU).
_SYMBOLS = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PRIMARY: dict[str, int] = {char: rank for rank, char in enumerate(_SYMBOLS)}
for _digit in "0123456789":
    _PRIMARY[_digit] = 100 + int(_digit)
for _offset, _letter in enumerate("abcdefghijklmnopqrstuvwxyz"):
    _PRIMARY[_letter] = _PRIMARY[_letter.upper()] = 200 + _offset
_CONTROL = -1


def _primary(char: str) -> int:
    weight = _PRIMARY.get(char)
    if weight is not None:
        return weight
    if ord(char) < 32 or ord(char) == 127:
        return _CONTROL
    return 1000 + ord(char.casefold()[0])


def locale_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Key for ``sorted(names, key=locale_key)`` that orders like ``a.localeCompare(b)`` in Node (ICU root)."""
    primary = tuple(_primary(c) for c in text)
    tertiary = tuple(1 if c.isupper() else 0 for c in text)
    return primary, tertiary
