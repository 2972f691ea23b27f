"""Fidelity: for random contents every edit tool of every toolset changes only the edited span.

Contents are UTF-8, UTF-8 with a BOM, latin-1 or UTF-16, with LF, CRLF or mixed line endings, with or without a
final newline, with tabs and trailing spaces. A marker is placed somewhere and replaced; the file's bytes must be
exactly the old bytes with the marker's bytes swapped for the new text in the file's encoding (and, in an
all-CRLF file, ``\\n`` written as ``\\r\\n``). The file's mode and a symlink to it are kept; a file that cannot be
decoded safely is refused and left as it was. Seeded; ``AGENTTOOLS_FIDELITY_EXAMPLES`` runs more.
"""

from __future__ import annotations

import itertools
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenttools

EXAMPLES = int(os.environ.get("AGENTTOOLS_FIDELITY_EXAMPLES", "500"))
MARK = "QMARKQ"  # Q is in no generated text, so the marker is unique

EDITORS: dict[str, tuple[str, Callable[[str, str, str], dict[str, Any]]]] = {
    "gemini": ("replace", lambda p, o, n: {"file_path": p, "old_string": o, "new_string": n}),
    "editor": ("str_replace", lambda p, o, n: {"path": p, "old_str": o, "new_str": n}),
    "assistant": ("edit", lambda p, o, n: {"path": p, "old_text": o, "new_text": n}),
    "coder": ("edit_file", lambda p, o, n: {"path": p, "old_str": o, "new_str": n}),
}
ENCODINGS = {  # name -> (codec, characters the text may use beyond ASCII)
    "utf-8": ("utf-8", "é世😀ßü"),
    "utf-8-bom": ("utf-8-sig", "é世😀ßü"),
    "latin-1": ("latin-1", ""),  # the ASCII body keeps detection certain; the accents sit in fixed words
    "utf-16": ("utf-16", "é世ßü"),
}
LATIN_WORDS = ["café", "über", "straße", "naïve"]


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, str, str, str]:
    """(encoding name, newline style, text with the marker, replacement text)."""
    name = draw(st.sampled_from(sorted(ENCODINGS)))
    extra = ENCODINGS[name][1]
    alphabet = st.sampled_from(list("abc xyz\t") + list("(){};=#") + list(extra))
    words = st.text(alphabet, max_size=12)
    if name == "latin-1":
        words = st.one_of(words, st.sampled_from(LATIN_WORDS))
    lines = draw(st.lists(words, min_size=1, max_size=12))
    style = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    if style == "mixed":
        endings = draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines)))
        if len(set(endings[:-1])) < 2 and len(lines) > 2:
            endings[0], endings[1] = "\n", "\r\n"
    else:
        endings = [style] * len(lines)
    if not draw(st.booleans()):
        endings[-1] = ""  # no final newline
    where = draw(st.integers(0, len(lines) - 1))
    column = draw(st.integers(0, len(lines[where])))
    lines[where] = lines[where][:column] + MARK + lines[where][column:]
    text = "".join(itertools.chain.from_iterable(zip(lines, endings, strict=True)))
    new_alphabet = st.sampled_from(list("mnop 42\t") + list(extra if name != "latin-1" else ""))
    new = draw(st.text(new_alphabet, max_size=10))
    if style != "mixed" and draw(st.booleans()):
        new += "\n" + draw(st.text(new_alphabet, max_size=5))
    return name, style, text, new


def _encode(text: str, name: str) -> bytes:
    return text.encode(ENCODINGS[name][0])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> tuple[Path, dict[str, agenttools.Registry]]:
    root = tmp_path_factory.mktemp("fidelity")
    regs = {name: agenttools.toolset(name, root=str(root)) for name in EDITORS}
    yield root, regs
    for reg in regs.values():
        reg.close()


counter = itertools.count()


@pytest.mark.parametrize("toolset", sorted(EDITORS))
def test_an_edit_changes_only_its_span(workdir, toolset):
    root, regs = workdir
    tool, arguments = EDITORS[toolset]

    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(document=documents(), mode=st.sampled_from([0o600, 0o640, 0o755]), via_link=st.booleans())
    def check(document: tuple[str, str, str, str], mode: int, via_link: bool) -> None:
        name, _style, text, new = document
        target = root / f"f{next(counter)}.txt"
        target.write_bytes(_encode(text, name))
        os.chmod(target, mode)
        given_path = target
        if via_link:
            given_path = root / f"link{next(counter)}.txt"
            given_path.symlink_to(target.name)
        path = str(given_path) if toolset == "gemini" else given_path.name
        out = regs[toolset].call(tool, arguments(path, MARK, new))
        assert not out.is_error, out.text
        all_crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
        inserted = new.replace("\n", "\r\n") if all_crlf else new
        assert target.read_bytes() == _encode(text.replace(MARK, inserted), name)
        assert stat.S_IMODE(os.stat(target).st_mode) == mode
        if via_link:
            assert given_path.is_symlink() and os.readlink(given_path) == target.name

    check()


def test_a_legacy_guess_with_no_clear_winner_still_decodes(workdir):
    # charset-normalizer found no candidate both least chaotic and most coherent: the choice came back empty
    root, regs = workdir
    data = "QMARKQc\naaacc\nüber\nstraße\nstraße".encode("latin-1")
    target = root / "guess.txt"
    target.write_bytes(data)
    out = regs["editor"].call("str_replace", {"path": "guess.txt", "old_str": MARK, "new_str": "x"})
    assert not out.is_error, out.text
    assert target.read_bytes() == data.replace(MARK.encode(), b"x")


UNDECODABLE = [
    b"\x00\x01binary QMARKQ \xff\xfe\x00",  # NUL bytes: binary
    b"\xff\xfe" + b"QMARKQ".decode().encode("utf-16-le") + b"\x00\xd8",  # a UTF-16 BOM, then a lone surrogate
    b"\xef\xbb\xbfQMARKQ \xff\xfe\xfd",  # a UTF-8 BOM, then bytes that are not UTF-8
]


@pytest.mark.parametrize("toolset", sorted(EDITORS))
@pytest.mark.parametrize("data", UNDECODABLE, ids=["nul", "utf16-surrogate", "utf8-bom-invalid"])
def test_a_file_that_cannot_be_decoded_safely_is_refused_and_kept(workdir, toolset, data):
    root, regs = workdir
    tool, arguments = EDITORS[toolset]
    target = root / f"bin{next(counter)}.dat"
    target.write_bytes(data)
    path = str(target) if toolset == "gemini" else target.name
    out = regs[toolset].call(tool, arguments(path, MARK, "new"))
    assert out.is_error, out.text
    assert target.read_bytes() == data


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(document=documents(), data=st.data())
def test_a_line_range_edit_changes_only_those_lines(workdir, document, data):
    """assistant ``edit`` by line range: the lines are ``content.split("\\n")`` (the contract), all else stays."""
    root, regs = workdir
    name, _style, text, new = document
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    view = text.replace("\r\n", "\n") if crlf else text
    lines = view.split("\n")
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    target = root / f"r{next(counter)}.txt"
    target.write_bytes(_encode(text, name))
    out = regs["assistant"].call("edit", {"path": target.name, "new_text": new, "start_line": start,
                                          "end_line": end})
    updated = "\n".join(lines[: start - 1] + new.split("\n") + lines[end:])
    if updated == view:
        assert out.is_error and "no changes" in out.text, out.text
        assert target.read_bytes() == _encode(text, name)
        return
    assert not out.is_error, out.text
    assert target.read_bytes() == _encode(updated.replace("\n", "\r\n") if crlf else updated, name)
