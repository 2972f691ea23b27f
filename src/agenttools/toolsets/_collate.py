"""A sort key that reproduces ICU's root collation (JavaScript ``localeCompare``) for ASCII names.

Used by the toolsets whose upstreams sort names with ``localeCompare`` (gemini, filesystem).

Punctuation and symbols sort before digits, digits before letters; letters compare case-insensitively first,
and on a tie lowercase sorts before uppercase. Non-ASCII characters sort after ASCII letters by case-folded code
point (an approximation: full ICU tables are out of scope).

The key is one ``bytes`` object, so that sorting thousands of paths (gemini's ``glob``) compares with ``memcmp``:
each character's *primary weight* as one byte (three for a non-ASCII character), a ``\\0``, then one byte per
character for the tie-break on case. An ASCII text, nearly every path, costs two ``bytes.translate`` calls.
"""

from __future__ import annotations

__all__ = ["locale_key"]

# CLDR root order of ASCII punctuation and symbols (variable characters, not ignored by default in ICU).
_SYMBOLS = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

# Primary weights, ascending: ASCII controls (all equal), the symbols above, digits, letters (either case), then
# non-ASCII characters by the code point of their case folding's first character. An ASCII weight is one byte
# below 0x80; a non-ASCII weight is three bytes, the first at or above 0x80. Comparing keys bytewise compares the
# weight sequences: at the first difference, both keys are at the start of a weight.
_CONTROL = 1
_primary = bytearray([_CONTROL]) * 256
for _rank, _char in enumerate(_SYMBOLS):
    _primary[ord(_char)] = 2 + _rank
for _digit in range(10):
    _primary[ord("0") + _digit] = 2 + len(_SYMBOLS) + _digit
for _offset in range(26):
    _primary[ord("a") + _offset] = _primary[ord("A") + _offset] = 12 + len(_SYMBOLS) + _offset
_PRIMARY = bytes(_primary)
_TERTIARY = bytes(2 if chr(code).isupper() else 1 for code in range(256))  # on a tie, lowercase first


def _weight(char: str) -> bytes:
    code = ord(char)
    if code < 0x80:
        return _PRIMARY[code:code + 1]
    folded = ord(char.casefold()[0])  # at most 0x10FFFF: 21 bits, the top 7 in a byte at or above 0x80
    return bytes((0x80 | folded >> 14, folded >> 7 & 0x7F, folded & 0x7F))


def locale_key(text: str) -> bytes:
    """Key for ``sorted(names, key=locale_key)`` that orders like ``a.localeCompare(b)`` in Node (ICU root)."""
    if text.isascii():
        raw = text.encode("ascii")
        return raw.translate(_PRIMARY) + b"\0" + raw.translate(_TERTIARY)
    primary = b"".join(map(_weight, text))
    return primary + b"\0" + bytes(2 if c.isupper() else 1 for c in text)
