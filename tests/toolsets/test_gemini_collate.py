"""gemini's locale order (``localeCompare`` under ICU's root collation) as a sort key."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from agenttools.toolsets._collate import locale_key

_SYMBOLS = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"  # CLDR root order of ASCII punctuation and symbols


def _primary(char: str) -> tuple[int, int]:
    """The rules, spelled out: controls, symbols, digits, letters (either case), then non-ASCII by case folding."""
    if char in _SYMBOLS:
        return 1, _SYMBOLS.index(char)
    if char.isascii() and char.isdigit():
        return 2, int(char)
    if char.isascii() and char.isalpha():
        return 3, ord(char.lower())
    if char.isascii():
        return 0, 0
    return 4, ord(char.casefold()[0])


def _reference(a: str, b: str) -> int:
    """Primary weights first (a prefix first); on a tie, the first character where lowercase meets uppercase."""
    pa, pb = [_primary(c) for c in a], [_primary(c) for c in b]
    if pa != pb:
        return -1 if pa < pb else 1
    ta, tb = [c.isupper() for c in a], [c.isupper() for c in b]
    return (ta > tb) - (ta < tb)


def test_icu_root_order_of_ascii_names():
    names = ["b.py", "B.py", "a.py", "A.py", "_init.py", "1.py", "10.py", "2.py", "-x", ".hidden", "Z", "é.py", "~a"]
    assert sorted(names, key=locale_key) == [
        "_init.py", "-x", ".hidden", "~a", "1.py", "10.py", "2.py", "a.py", "A.py", "b.py", "B.py", "Z", "é.py"]


def test_non_ascii_after_letters_by_case_folding():
    # U+212A KELVIN SIGN folds to "k": it sorts with the non-ASCII characters, among them as "k" (before "é")
    assert sorted(["é", "\u212a", "z", "ß", "\U0010ffff", "\udc80"], key=locale_key) == [
        "z", "\u212a", "ß", "é", "\udc80", "\U0010ffff"]


CHARS = st.one_of(st.characters(max_codepoint=127), st.characters(), st.sampled_from("aAbBsSß\u212a\u017fİ\x00\x7f"))


@settings(max_examples=2000, deadline=None)
@given(a=st.text(CHARS, max_size=8), b=st.text(CHARS, max_size=8))
def test_key_orders_as_the_rules(a, b):
    ka, kb = locale_key(a), locale_key(b)
    assert (ka > kb) - (ka < kb) == _reference(a, b)


@settings(max_examples=300, deadline=None)
@given(names=st.lists(st.text(CHARS, max_size=6), max_size=12))
def test_sort_is_the_rules_sort(names):
    assert sorted(names, key=locale_key) == sorted(names, key=functools.cmp_to_key(_reference))
