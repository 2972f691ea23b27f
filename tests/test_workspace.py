"""Workspace: every escape shape is caught on real paths; deny rules, cwd, kinds and sizes."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from agenttools import (
    ConfigError,
    DeniedPathError,
    FileTooLargeError,
    IsDirectoryError,
    NotDirectoryError,
    NotFoundError,
    OutsideWorkspaceError,
    PathError,
    SpecialFileError,
    Workspace,
)
from agenttools.workspace import parse_size


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "root"
    evil = tmp_path / "root-evil"
    outside = tmp_path / "outside"
    for d in (root / "src", evil, outside):
        d.mkdir(parents=True)
    (root / "src" / "a.py").write_text("print('a')\n")
    (evil / "secret.txt").write_text("evil")
    (outside / "secret.txt").write_text("secret")
    return {"root": root, "evil": evil, "outside": outside}


@pytest.fixture
def ws(tree) -> Workspace:
    return Workspace(tree["root"])


def test_plain_paths_resolve(ws, tree):
    assert ws.resolve("src/a.py") == tree["root"].resolve() / "src" / "a.py"
    assert ws.resolve(str(tree["root"] / "src" / "a.py"), expect="file").name == "a.py"
    assert ws.resolve(".") == ws.root
    assert ws.resolve("src/new/deeper.txt") == ws.root / "src" / "new" / "deeper.txt"


def test_dotdot_escape(ws):
    with pytest.raises(OutsideWorkspaceError) as info:
        ws.resolve("../outside/secret.txt")
    assert info.value.given == "../outside/secret.txt"
    assert info.value.path.endswith("/outside/secret.txt")
    assert isinstance(info.value, PermissionError)
    assert info.value.code == "outside_root"
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("src/../../outside")


def test_dotdot_that_stays_inside(ws):
    assert ws.resolve("src/../src/a.py") == ws.root / "src" / "a.py"


def test_sibling_prefix_is_outside(ws, tree):
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve(str(tree["evil"] / "secret.txt"))
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("../root-evil/secret.txt")


def test_absolute_outside(ws):
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("/etc/passwd")


def test_symlink_leaf_escape(ws, tree):
    (tree["root"] / "link.txt").symlink_to(tree["outside"] / "secret.txt")
    with pytest.raises(OutsideWorkspaceError) as info:
        ws.resolve("link.txt")
    assert info.value.path == str((tree["outside"] / "secret.txt").resolve())


def test_symlink_parent_escape(ws, tree):
    (tree["root"] / "out").symlink_to(tree["outside"], target_is_directory=True)
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("out/secret.txt")


def test_new_file_under_symlinked_parent(ws, tree):
    (tree["root"] / "out").symlink_to(tree["outside"], target_is_directory=True)
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("out/created-later.txt")
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("out/new-dir/deep/file.txt")


def test_dangling_symlink_pointing_outside(ws, tree):
    (tree["root"] / "dangling").symlink_to(tree["outside"] / "not-yet")
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("dangling")


def test_symlink_inside_is_followed(ws, tree):
    (tree["root"] / "alias.py").symlink_to(tree["root"] / "src" / "a.py")
    assert ws.resolve("alias.py") == ws.root / "src" / "a.py"


def test_symlink_loop(ws, tree):
    (tree["root"] / "loop1").symlink_to(tree["root"] / "loop2")
    (tree["root"] / "loop2").symlink_to(tree["root"] / "loop1")
    with pytest.raises(PathError, match="too many levels of symbolic links"):
        ws.resolve("loop1")


def test_symlinked_root_is_resolved_once(tree, tmp_path):
    alias = tmp_path / "alias-root"
    alias.symlink_to(tree["root"], target_is_directory=True)
    ws = Workspace(alias)
    assert ws.root == tree["root"].resolve()
    assert ws.resolve(str(alias / "src" / "a.py")) == ws.root / "src" / "a.py"


@pytest.mark.parametrize("bad", ["", "a\x00b", b"bytes", 3, None])
def test_not_a_path(ws, bad):
    with pytest.raises(PathError) as info:
        ws.resolve(bad)
    assert isinstance(info.value, ValueError)


def test_nul_byte_message(ws):
    with pytest.raises(PathError, match="path contains a NUL byte"):
        ws.resolve("src/a.py\x00.txt")


def test_tilde_is_not_expanded(ws):
    assert ws.resolve("~/x") == ws.root / "~" / "x"


def test_expect_kinds(ws, tree):
    with pytest.raises(NotFoundError) as info:
        ws.resolve("missing.txt", expect="file")
    assert isinstance(info.value, FileNotFoundError)
    assert str(info.value) == f"{ws.root / 'missing.txt'} does not exist"
    with pytest.raises(IsDirectoryError):
        ws.resolve("src", expect="file")
    with pytest.raises(NotDirectoryError):
        ws.resolve("src/a.py", expect="dir")
    with pytest.raises(NotFoundError):
        ws.resolve("src/a.py/x", expect="exists")
    assert ws.resolve("src", expect="exists") == ws.root / "src"


def test_fifo_and_socket_are_refused(ws, tree):
    os.mkfifo(tree["root"] / "pipe")
    with pytest.raises(SpecialFileError) as info:
        ws.resolve("pipe", expect="file")
    assert info.value.kind == "fifo"
    assert str(info.value).endswith("pipe is a fifo, not a regular file")
    sock = socket.socket(socket.AF_UNIX)
    path = tree["root"] / "s.sock"
    try:
        sock.bind(str(path))
        with pytest.raises(SpecialFileError, match="socket"):
            ws.resolve("s.sock", expect="file")
    finally:
        sock.close()


def test_device_is_refused(tmp_path):
    ws = Workspace("/dev")
    with pytest.raises(SpecialFileError, match="character device"):
        ws.resolve("null", expect="file")


def test_deny_patterns(tree):
    (tree["root"] / ".env").write_text("KEY=1")
    (tree["root"] / "secrets").mkdir()
    (tree["root"] / "secrets" / "k.pem").write_text("k")
    ws = Workspace(tree["root"], deny=["**/.env", "secrets", "*.key"])
    with pytest.raises(DeniedPathError) as info:
        ws.resolve(".env")
    assert info.value.pattern == "**/.env"
    assert str(info.value) == f"path '{ws.root / '.env'}' matches deny pattern '**/.env'"
    with pytest.raises(DeniedPathError, match="'secrets'"):
        ws.resolve("secrets/k.pem")  # a parent directory is denied
    with pytest.raises(DeniedPathError):
        ws.resolve("src/deep/new.key")  # unanchored patterns match at any depth, new files too
    assert ws.resolve("src/a.py").name == "a.py"


def test_deny_applies_to_symlink_and_target(tree):
    (tree["root"] / ".env").write_text("KEY=1")
    (tree["root"] / "config").symlink_to(tree["root"] / ".env")
    (tree["root"] / "ok.txt").write_text("fine")
    (tree["root"] / "harmless.env").symlink_to(tree["root"] / "ok.txt")
    ws = Workspace(tree["root"], deny=[".env", "*.env"])
    with pytest.raises(DeniedPathError):
        ws.resolve("config")  # the real path is denied
    with pytest.raises(DeniedPathError):
        ws.resolve("harmless.env")  # the name as given is denied


def test_invalid_deny_pattern(tree):
    with pytest.raises(ConfigError, match="invalid deny pattern"):
        Workspace(tree["root"], deny=["[abc"])
    with pytest.raises(ConfigError, match="non-empty"):
        Workspace(tree["root"], deny=[""])


def test_allow_dirs(tree):
    ws = Workspace(tree["root"], allow_dirs=[tree["root"] / "src", tree["outside"]])
    assert ws.resolve(str(tree["outside"] / "secret.txt"), expect="file").name == "secret.txt"
    assert ws.resolve("src/a.py").name == "a.py"
    with pytest.raises(OutsideWorkspaceError) as info:
        ws.resolve("top-level.txt")
    assert info.value.roots == (str(tree["root"].resolve() / "src"), str(tree["outside"].resolve()))
    assert ws.root == tree["root"].resolve()


def test_missing_root_and_dirs(tmp_path):
    with pytest.raises(ConfigError, match="is not an existing directory"):
        Workspace(tmp_path / "nope")
    with pytest.raises(ConfigError, match="allowed directory"):
        Workspace(tmp_path, allow_dirs=[tmp_path / "nope"])
    with pytest.raises(ConfigError, match="at least one"):
        Workspace(tmp_path, allow_dirs=[])


def test_session_cwd(ws, tree):
    assert ws.cwd == ws.root
    ws.chdir("src")
    assert ws.cwd == ws.root / "src"
    assert ws.resolve("a.py", expect="file") == ws.root / "src" / "a.py"
    with pytest.raises(OutsideWorkspaceError):
        ws.chdir("../..")
    with pytest.raises(NotDirectoryError):
        ws.chdir("a.py")
    assert ws.cwd == ws.root / "src"  # a failed chdir changes nothing
    ws2 = Workspace(tree["root"], cwd="src")
    assert ws2.relative(ws2.resolve("a.py")) == "src/a.py"
    assert ws2.relative(ws2.root) == "."


def test_sizes(ws, tree):
    big = tree["root"] / "big.bin"
    big.write_bytes(b"x" * 2048)
    assert ws.check_size(big) == 2048
    with pytest.raises(FileTooLargeError) as info:
        ws.check_size(big, limit=1024)
    assert (info.value.size, info.value.limit) == (2048, 1024)
    assert str(info.value) == f"file {big} is 2048 bytes, exceeds maximum 1024 bytes"
    small = Workspace(tree["root"], max_file_size="1KB")
    assert small.max_file_size == 1024
    with pytest.raises(FileTooLargeError):
        small.check_size(big)


@pytest.mark.parametrize(
    ("text", "value"),
    [(0, 0), (10, 10), ("10MB", 10 * 1024**2), ("10 MiB", 10 * 1024**2), ("512k", 512 * 1024),
     ("1.5G", 3 * 1024**3 // 2), ("100", 100), ("2kb", 2048)],
)
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("bad", ["ten", "-1", -1, "1XB", True, 1.5])
def test_parse_size_rejects(bad):
    with pytest.raises(ConfigError):
        parse_size(bad)


def test_git_metadata_is_refused_for_writes_only(tmp_path):
    from agenttools import DeniedPathError, ProtectedPathError

    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "pkg").mkdir()
    ws = Workspace(tmp_path)
    for path in (".git", ".git/config", ".git/hooks/new", ".GIT/config", "pkg/../.git/x", "pkg/.git/config"):
        ws.resolve(path)  # reading, or resolving to read, is allowed
        with pytest.raises(ProtectedPathError) as info:
            ws.resolve(path, write=True)
        assert isinstance(info.value, DeniedPathError) and info.value.pattern == ".git"
        with pytest.raises(ProtectedPathError):
            ws.resolve_entry(path, write=True)
    for path in (".gitignore", ".github/x", "git/config", "pkg/x.git"):
        ws.resolve(path, write=True)
    assert ws.protected_by(tmp_path) is None  # the root is the caller's choice, whatever it is


def test_root_of_is_the_innermost_allowed_directory(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    ws = Workspace(tmp_path, allow_dirs=[tmp_path, tmp_path / "a" / "b"])
    assert ws.root_of(tmp_path / "a" / "b" / "x") == str(tmp_path / "a" / "b")
    assert ws.root_of(tmp_path / "a" / "x") == str(tmp_path)
    assert ws.root_of(tmp_path.parent / "elsewhere") is None
