"""edit family: literal, counted, CRLF-aware replacement that touches only the edited span."""

from __future__ import annotations

import codecs
import os
import stat

import pytest

from agenttools import AlreadyExistsError, MatchCountError, NoMatchError, NotFoundError, Workspace
from agenttools.edit import replace_text


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path)


def test_single_replacement(ws, tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    result = replace_text(ws, "a.py", "y = 2", "y = 3")
    assert (result.occurrences, result.lines, result.created) == (1, (2,), False)
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3\n"


def test_replacement_is_literal(ws, tmp_path):
    (tmp_path / "a.js").write_text("price = X;\n")
    replace_text(ws, "a.js", "X", "$& $$ $1 \\1 \\g<0>")
    assert (tmp_path / "a.js").read_text() == "price = $& $$ $1 \\1 \\g<0>;\n"


def test_count_mismatch_lists_lines_and_changes_nothing(ws, tmp_path):
    (tmp_path / "a.txt").write_text("a\nb\na\n")
    with pytest.raises(MatchCountError) as info:
        replace_text(ws, "a.txt", "a", "z")
    assert (info.value.expected, info.value.found, info.value.lines) == (1, 2, (1, 3))
    assert (tmp_path / "a.txt").read_text() == "a\nb\na\n"
    assert replace_text(ws, "a.txt", "a", "z", expected=2).occurrences == 2
    assert (tmp_path / "a.txt").read_text() == "z\nb\nz\n"
    assert replace_text(ws, "a.txt", "z", "q", expected=None).occurrences == 2


def test_no_match(ws, tmp_path):
    (tmp_path / "a.txt").write_text("abc")
    with pytest.raises(NoMatchError):
        replace_text(ws, "a.txt", "zzz", "y")


def test_create_with_empty_old(ws, tmp_path):
    result = replace_text(ws, "new/dir/f.txt", "", "hello\n")
    assert result.created
    assert (tmp_path / "new" / "dir" / "f.txt").read_text() == "hello\n"
    with pytest.raises(AlreadyExistsError):
        replace_text(ws, "new/dir/f.txt", "", "again")
    with pytest.raises(NotFoundError):
        replace_text(ws, "missing.txt", "x", "y")


def test_crlf_file_stays_crlf(ws, tmp_path):
    target = tmp_path / "win.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    replace_text(ws, "win.txt", "one\ntwo\n", "uno\ndos\n")
    assert target.read_bytes() == b"uno\r\ndos\r\nthree\r\n"
    replace_text(ws, "win.txt", "three\r\n", "tres\r\n")
    assert target.read_bytes() == b"uno\r\ndos\r\ntres\r\n"


def test_everything_outside_the_edit_is_byte_identical(ws, tmp_path):
    target = tmp_path / "mixed.txt"
    original = codecs.BOM_UTF8 + b"\tindent\r\nlf only\nno final newline \xc3\xa9"
    target.write_bytes(original)
    os.chmod(target, 0o750)
    replace_text(ws, "mixed.txt", "lf only", "LF ONLY")
    assert target.read_bytes() == original.replace(b"lf only", b"LF ONLY")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750


def test_legacy_encoding_round_trips(ws, tmp_path):
    target = tmp_path / "latin.txt"
    target.write_bytes("caf\xe9 cr\xe8me br\xfbl\xe9e\n".encode("cp1252") * 3)
    replace_text(ws, "latin.txt", "cr\xe8me", "CR\xc8ME", expected=3)
    assert target.read_bytes() == "caf\xe9 CR\xc8ME br\xfbl\xe9e\n".encode("cp1252") * 3


def test_a_name_of_many_multibyte_characters_can_be_edited(tmp_path):
    """The temporary file's name is cut in bytes: 120 x 'é' is 240 bytes, under the 255-byte limit, and editable."""
    name = "\u00e9" * 120 + ".txt"
    (tmp_path / name).write_text("old\n")
    replace_text(Workspace(str(tmp_path)), name, "old", "new")
    assert (tmp_path / name).read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
