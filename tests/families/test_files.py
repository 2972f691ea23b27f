"""files family: decoding without loss, streamed ranges, classification, byte-faithful atomic writes."""

from __future__ import annotations

import codecs
import os
import stat

import pytest

from agenttools import EncodingError, FileTooLargeError, IsDirectoryError, OutsideWorkspaceError, Workspace
from agenttools.files import list_dir, read_file, write_file


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path)


def test_text_lines_split_on_newline_only(ws, tmp_path):
    (tmp_path / "t.txt").write_bytes("a\x0cb\r\nc\u2028d\n".encode())
    result = read_file(ws, "t.txt")
    assert result.kind == "text"
    assert result.lines == ("a\x0cb\r", "c\u2028d", "")
    assert result.total_lines == 3
    assert result.format.encoding == "utf-8"


def test_range_is_streamed_and_counted(ws, tmp_path):
    (tmp_path / "big.txt").write_text("".join(f"line {i}\n" for i in range(100_000)))
    result = read_file(ws, "big.txt", offset=50_000, limit=3)
    assert result.lines == ("line 50000", "line 50001", "line 50002")
    assert (result.start_line, result.end_line, result.total_lines) == (50_000, 50_003, 100_001)


def test_long_lines_are_cut(ws, tmp_path):
    (tmp_path / "long.txt").write_text("x" * 5000 + "\nshort\n")
    result = read_file(ws, "long.txt", max_line_chars=10)
    assert result.lines == ("x" * 10, "short", "")
    assert result.cut_lines == (0,)


@pytest.mark.parametrize(
    ("raw", "encoding", "bom", "text"),
    [
        (codecs.BOM_UTF8 + b"with bom\n", "utf-8", codecs.BOM_UTF8, "with bom"),
        ("hello utf-16\n".encode("utf-16"), "utf-16-le", codecs.BOM_UTF16_LE, "hello utf-16"),
        ("caf\xe9 na\xefve\n".encode("latin-1") * 5, "cp1252", b"", "caf\xe9 na\xefve"),
        ("h\u00e9llo w\u00f6rld\n".encode(), "utf-8", b"", "h\u00e9llo w\u00f6rld"),
    ],
)
def test_encodings(ws, tmp_path, raw, encoding, bom, text):
    (tmp_path / "e.txt").write_bytes(raw)
    result = read_file(ws, "e.txt")
    assert result.lines[0] == text
    assert result.format.encoding == encoding
    assert result.format.bom == bom


@pytest.mark.parametrize(
    ("name", "raw", "kind", "mime"),
    [
        ("image.png", b"\x89PNG\r\n\x1a\n" + bytes(100), "image", "image/png"),
        ("doc.pdf", b"%PDF-1.4\n", "pdf", "application/pdf"),
        ("a.svg", b"<svg/>", "svg", "image/svg+xml"),
        ("song.mp3", b"ID3", "audio", "audio/mpeg"),
        ("program.bin", b"text but .bin", "binary", None),
        ("data", b"ab\x00cd", "binary", None),
        ("elf", b"\x7fELF" + bytes(range(1, 9)) * 50, "binary", None),
        ("BM_not_an_image.txt", b"BM is a band\n", "text", None),
        ("code.ts", b"\x00 still text by extension", "text", None),
        ("empty.txt", b"", "text", None),
    ],
)
def test_classification(ws, tmp_path, name, raw, kind, mime):
    (tmp_path / name).write_bytes(raw)
    result = read_file(ws, name)
    assert (result.kind, result.mime_type) == (kind, mime)
    if kind in ("image", "pdf", "audio", "svg"):
        assert result.data == raw


def test_size_limit(ws, tmp_path):
    (tmp_path / "big.bin").write_bytes(b"x" * 2048)
    with pytest.raises(FileTooLargeError):
        read_file(ws, "big.bin", max_size=1024)


def test_undecodable_text_is_refused(ws, tmp_path):
    (tmp_path / "bad.txt").write_bytes(codecs.BOM_UTF8 + b"\xff\xfe\xfa broken")
    with pytest.raises(EncodingError):
        read_file(ws, "bad.txt")


def test_list_dir(ws, tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f.txt").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "dlink").symlink_to(tmp_path / "d")
    listing = list_dir(ws, ".")
    names = {e.name: e for e in listing.entries}
    assert set(names) == {"d", "f.txt", ".hidden", "dlink"}
    assert listing.total == 5
    assert names["dlink"].is_dir and names["dlink"].is_symlink
    assert not names["f.txt"].is_dir


# --- writes ----------------------------------------------------------------------------------------------------

def test_write_creates_parents_and_reports(ws, tmp_path):
    result = write_file(ws, "a/b/c.txt", "hi\n")
    assert result.created
    assert (tmp_path / "a" / "b" / "c.txt").read_bytes() == b"hi\n"
    again = write_file(ws, "a/b/c.txt", "bye\n")
    assert not again.created
    assert (tmp_path / "a" / "b" / "c.txt").read_bytes() == b"bye\n"


def test_overwrite_keeps_mode_bom_encoding_and_crlf(ws, tmp_path):
    target = tmp_path / "win.txt"
    target.write_bytes(codecs.BOM_UTF8 + b"one\r\ntwo\r\n")
    os.chmod(target, 0o755)
    write_file(ws, "win.txt", "uno\ndos\n")
    assert target.read_bytes() == codecs.BOM_UTF8 + b"uno\r\ndos\r\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o755
    legacy = tmp_path / "latin.txt"
    legacy.write_bytes("caf\xe9\n".encode("cp1252") * 4)
    write_file(ws, "latin.txt", "na\xefve\n")
    assert legacy.read_bytes() == "na\xefve\n".encode("cp1252")


def test_overwrite_refuses_characters_the_encoding_cannot_hold(ws, tmp_path):
    legacy = tmp_path / "latin.txt"
    original = "caf\xe9\n".encode("cp1252") * 4
    legacy.write_bytes(original)
    with pytest.raises(EncodingError, match="cannot be encoded as cp1252"):
        write_file(ws, "latin.txt", "\u4e2d\u6587\n")
    assert legacy.read_bytes() == original


def test_write_through_symlink_keeps_the_link(ws, tmp_path):
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    write_file(ws, "link.txt", "new")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new"


def test_write_refuses_directories_and_escapes(ws, tmp_path, tmp_path_factory):
    (tmp_path / "d").mkdir()
    with pytest.raises(IsDirectoryError):
        write_file(ws, "d", "x")
    outside = tmp_path_factory.mktemp("outside")
    (tmp_path / "out").symlink_to(outside, target_is_directory=True)
    with pytest.raises(OutsideWorkspaceError):
        write_file(ws, "out/evil.txt", "x")
    assert not (outside / "evil.txt").exists()


def test_no_temp_files_left_behind(ws, tmp_path):
    write_file(ws, "x.txt", "1")
    write_file(ws, "x.txt", "2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.txt"]


def test_stat_path(ws, tmp_path):
    from agenttools import NotFoundError
    from agenttools.files import stat_path

    (tmp_path / "f.txt").write_text("abc")
    os.chmod(tmp_path / "f.txt", 0o640)
    (tmp_path / "link").symlink_to(tmp_path / "f.txt")
    os.mkfifo(tmp_path / "pipe")
    info = stat_path(ws, "link")
    assert (info.kind, info.size, info.mode, info.is_symlink) == ("file", 3, 0o640, True)
    assert info.path == tmp_path / "f.txt"
    assert stat_path(ws, ".").kind == "dir"
    assert stat_path(ws, "pipe").kind == "fifo"
    with pytest.raises(NotFoundError):
        stat_path(ws, "missing")


def test_remove(ws, tmp_path, tmp_path_factory):
    from agenttools import NotFoundError
    from agenttools.files import remove

    outside = tmp_path_factory.mktemp("outside") / "keep.txt"
    outside.write_text("keep")
    (tmp_path / "link").symlink_to(outside)
    (tmp_path / "empty").mkdir()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("")
    assert remove(ws, "link") == tmp_path / "link"
    assert outside.read_text() == "keep"  # the target survives
    assert remove(ws, "empty") == tmp_path / "empty"
    with pytest.raises(OSError, match="not empty"):
        remove(ws, "full")
    with pytest.raises(NotFoundError):
        remove(ws, "missing")
    with pytest.raises(OutsideWorkspaceError):
        remove(ws, ".")
    with pytest.raises(OutsideWorkspaceError):
        remove(ws, str(outside))


def test_bytes_without_a_bom_are_never_guessed_as_utf16(tmp_path):
    """NUL-laden binary decodes as "valid" UTF-16 noise; without a byte-order mark it is refused instead."""
    path = tmp_path / "data.ts"  # .ts is text by name, so the binary sniff does not stop it first
    path.write_bytes(b"\x00\x01\x02\x03binary\xff\xfe")
    with pytest.raises(EncodingError, match="not UTF-8 and no legacy encoding fits"):
        read_file(Workspace(tmp_path), str(path))


def test_list_dir_can_keep_dangling_symlinks(ws, tmp_path):
    (tmp_path / "a.txt").write_text("a")
    os.symlink("missing", tmp_path / "dangling")
    assert [e.name for e in list_dir(ws, ".").entries] == ["a.txt"]
    kept = {e.name: e for e in list_dir(ws, ".", broken=True).entries}
    assert set(kept) == {"a.txt", "dangling"}
    assert (kept["dangling"].is_dir, kept["dangling"].is_symlink, kept["dangling"].size) == (False, True, 0)


def test_move_renames_and_never_replaces(ws, tmp_path):
    from agenttools import AlreadyExistsError, ProtectedPathError
    from agenttools.files import move

    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").write_text("b")
    os.symlink("a.txt", tmp_path / "link")
    assert move(ws, "a.txt", "sub-missing.txt") == tmp_path / "sub-missing.txt"
    assert (tmp_path / "sub-missing.txt").read_text() == "a" and not (tmp_path / "a.txt").exists()
    with pytest.raises(AlreadyExistsError):
        move(ws, "sub-missing.txt", "b.txt")
    assert (tmp_path / "b.txt").read_text() == "b"
    move(ws, "link", "link2")  # the entry itself: a symlink moves as a symlink
    assert os.readlink(tmp_path / "link2") == "a.txt"
    with pytest.raises(OutsideWorkspaceError):
        move(ws, "b.txt", "../outside.txt")
    with pytest.raises(OutsideWorkspaceError):
        move(ws, ".", "elsewhere")
    (tmp_path / ".git").mkdir()
    with pytest.raises(ProtectedPathError):
        move(ws, "b.txt", ".git/b.txt")


# --- write_bytes: raw bytes, written as write_file writes (atomic, locked, metadata kept, refusals) -----------


def test_write_bytes_writes_raw_bytes_and_keeps_the_mode(ws, tmp_path):
    from agenttools.files import write_bytes

    target = tmp_path / "f.bin"
    target.write_bytes(b"\xef\xbb\xbfold\r\n")
    os.chmod(target, 0o750)
    data = b"new\n\xff\x00 bytes as given, no BOM or CRLF added"
    assert write_bytes(ws, "f.bin", data) == target
    assert target.read_bytes() == data
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750
    made = write_bytes(ws, "sub/dir/new.bin", b"x", new_file_mode=0o604, new_dir_mode=0o711)
    assert stat.S_IMODE(os.stat(made).st_mode) == 0o604
    assert stat.S_IMODE(os.stat(tmp_path / "sub" / "dir").st_mode) == 0o711
    with pytest.raises(FileNotFoundError):
        write_bytes(ws, "other/new.bin", b"x", create_parents=False)


def test_write_bytes_refuses_what_write_file_refuses(ws, tmp_path, tmp_path_factory):
    from agenttools import HardLinkError, ProtectedPathError, SpecialFileError
    from agenttools.files import write_bytes

    (tmp_path / "d").mkdir()
    with pytest.raises(IsDirectoryError):
        write_bytes(ws, "d", b"x")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(SpecialFileError):
        write_bytes(ws, "fifo", b"x")
    (tmp_path / "a.txt").write_bytes(b"shared\n")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    with pytest.raises(HardLinkError):
        write_bytes(ws, "a.txt", b"x")
    assert (tmp_path / "b.txt").read_bytes() == b"shared\n"
    (tmp_path / ".git").mkdir()
    with pytest.raises(ProtectedPathError):
        write_bytes(ws, ".git/config", b"x")
    outside = tmp_path_factory.mktemp("outside")
    with pytest.raises(OutsideWorkspaceError):
        write_bytes(ws, str(outside / "f"), b"x")
    assert list(outside.iterdir()) == []
    with pytest.raises(FileTooLargeError):
        write_bytes(ws, "big.bin", b"x" * 11, max_size=10)
    assert not (tmp_path / "big.bin").exists()


def test_write_bytes_is_atomic_and_refuses_a_stale_file(ws, tmp_path, monkeypatch):
    from agenttools import StaleFileError
    from agenttools.files import write_bytes

    target = tmp_path / "f.txt"
    target.write_bytes(b"original\n")
    st = os.stat(target)

    def failing_replace(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_bytes(ws, "f.txt", b"new\n" * 1000)
    monkeypatch.undo()
    assert target.read_bytes() == b"original\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]  # no temporary file left
    target.write_bytes(b"changed by someone else\n")
    with pytest.raises(StaleFileError):
        write_bytes(ws, "f.txt", b"mine\n", expect=st)
    assert target.read_bytes() == b"changed by someone else\n"
    write_bytes(ws, "f.txt", b"mine\n", expect=os.stat(target))
    assert target.read_bytes() == b"mine\n"


def test_write_bytes_inside_a_held_path_lock(ws, tmp_path):
    import threading

    from agenttools._text import path_lock
    from agenttools.files import write_bytes

    def read_modify_write() -> None:
        with path_lock(str(tmp_path / "f.txt")):  # a toolset's read-modify-write holds the lock across its write
            write_bytes(ws, "f.txt", b"x")

    worker = threading.Thread(target=read_modify_write, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "the write waited for a lock its own thread holds"
    assert (tmp_path / "f.txt").read_bytes() == b"x"
