"""Writes: git metadata is read-only, edits keep every bit of a file's metadata or refuse, sizes are checked before
anything is read, nothing blocks on a FIFO, and a directory swapped for a symlink cannot redirect a read or write.

Every toolset's write, edit and delete tools are driven through ``Registry.call`` on real files; the refusals of
files the user could not write in place run in a child process whose capabilities are dropped (uid 0 without
``CAP_DAC_OVERRIDE``, ``CAP_CHOWN``, ``CAP_FOWNER``: an ordinary user for the kernel's permission checks) when the
tests run as root, as in CI, and directly otherwise.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools import _text
from agenttools.workspace import Workspace

MARK = "MARK-3c1e"
SECRET = "TOPSECRET-91b2"  # noqa: S105 - a marker text, not a credential
TOOLSETS = ("gemini", "editor", "assistant", "coder")


def _call(reg: agenttools.Registry, toolset: str, root: Path, tool: str, args: dict[str, Any]) -> Any:
    """Call a tool; gemini takes absolute paths, the others paths relative to the root."""
    if toolset == "gemini":
        for key in ("file_path", "absolute_path", "path"):
            if key in args:
                args = {**args, key: os.path.join(root, args[key])}
    return reg.call(tool, args)


def _snapshot(top: Path) -> dict[str, tuple[bytes, int, int, int]]:
    """Content (or link target), mode, owner and mtime of everything under ``top``."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                data = os.readlink(path).encode()
            elif stat.S_ISREG(st.st_mode):
                data = Path(path).read_bytes()
            else:
                data = b""
            found[path] = (data, st.st_mode, st.st_uid, st.st_mtime_ns)
    return found


# --- git metadata is read-only ------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A work tree with git metadata in every shape: ``.git/``, a nested repository, a worktree's ``.git`` file,
    a bare repository (a git directory by content) and a symlink to ``.git``."""
    root = tmp_path / "repo"
    for git in (root / ".git", root / "sub" / ".git", root / "bare.git"):
        (git / "hooks").mkdir(parents=True)
        (git / "objects").mkdir()
        (git / "refs" / "heads").mkdir(parents=True)
        (git / "HEAD").write_text("ref: refs/heads/main\n")
        (git / "config").write_text(f"[core]\n\t{MARK} = true\n")
    (root / "wt").mkdir()
    (root / "wt" / ".git").write_text(f"gitdir: ../.git/worktrees/wt\n# {MARK}\n")
    (root / "link").symlink_to(".git", target_is_directory=True)
    (root / "a.txt").write_text(f"{MARK}\n")
    return root


EXISTING = [".git/config", "sub/.git/config", "wt/.git", "link/config", "sub/../.git/config",
            "bare.git/config", ".git/HEAD"]
NEW = [".git/hooks/pre-commit", ".git/newdir/x", "sub/.git/hooks/post-checkout", "bare.git/hooks/update",
       "link/hooks/pre-push"]

GEMINI = r"inside git metadata"
EDITOR = r"^\[ACCESS_DENIED\] .*inside git metadata"
ASSISTANT = r"^ERROR: path not allowed: .* \(inside \.git: git metadata is read-only\)$"
CODER_EDIT = r"^Error: path not allowed: "
CODER_DELETE = r"^Error: path not allowed: "

Args = Callable[[str], dict[str, Any]]
# (toolset, tool, arguments for a path, paths, refusal)
GIT_WRITES: list[tuple[str, str, Args, list[str], str]] = [
    ("gemini", "write_file", lambda p: {"file_path": p, "content": "pwned"}, EXISTING + NEW, GEMINI),
    ("gemini", "replace", lambda p: {"file_path": p, "old_string": MARK, "new_string": "pwned"}, EXISTING,
     GEMINI),
    ("gemini", "replace", lambda p: {"file_path": p, "old_string": "", "new_string": "pwned"}, NEW, GEMINI),
    ("editor", "str_replace", lambda p: {"path": p, "old_str": MARK, "new_str": "pwned"}, EXISTING, EDITOR),
    ("editor", "create_file", lambda p: {"path": p, "content": "pwned"}, EXISTING + NEW, EDITOR),
    ("assistant", "write", lambda p: {"path": p, "content": "pwned"}, EXISTING + NEW, ASSISTANT),
    ("assistant", "edit", lambda p: {"path": p, "old_text": MARK, "new_text": "pwned"}, EXISTING, ASSISTANT),
    ("assistant", "delete", lambda p: {"path": p}, EXISTING, ASSISTANT),
    ("assistant", "file", lambda p: {"operation": "write_file", "path": p, "content": "pwned"}, EXISTING + NEW,
     ASSISTANT),
    ("assistant", "file", lambda p: {"operation": "delete_file", "path": p}, EXISTING, ASSISTANT),
    ("coder", "edit_file", lambda p: {"path": p, "old_str": MARK, "new_str": "pwned"}, EXISTING, CODER_EDIT),
    ("coder", "edit_file", lambda p: {"path": p, "old_str": "", "new_str": "pwned"}, NEW, CODER_EDIT),
    ("coder", "delete_file", lambda p: {"path": p}, EXISTING, CODER_DELETE),
]
GIT_PARAMS = [
    pytest.param(toolset, tool, args, path, refusal, id=f"{toolset}.{tool}-{path}")
    for toolset, tool, args, paths, refusal in GIT_WRITES for path in paths
]


@pytest.mark.parametrize(("toolset", "tool", "args", "path", "refusal"), GIT_PARAMS)
def test_git_metadata_is_never_written(repo, toolset, tool, args, path, refusal):
    before = _snapshot(repo)
    reg = agenttools.toolset(toolset, root=str(repo))
    out = _call(reg, toolset, repo, tool, args(path))
    reg.close()
    assert out.is_error, out.text
    assert re.search(refusal, out.text), out.text
    assert "Traceback" not in out.text
    assert _snapshot(repo) == before


READS = [
    ("gemini", "read_file", {"absolute_path": ".git/config"}),
    ("editor", "view", {"path": ".git/config"}),
    ("assistant", "read", {"path": ".git/config"}),
    ("coder", "read_file", {"path": ".git/config"}),
    ("coder", "read_file", {"path": "link/config"}),
]


@pytest.mark.parametrize(("toolset", "tool", "args"), READS, ids=[f"{t}.{n}" for t, n, _ in READS])
def test_git_metadata_stays_readable(repo, toolset, tool, args):
    reg = agenttools.toolset(toolset, root=str(repo))
    out = _call(reg, toolset, repo, tool, args)
    reg.close()
    assert not out.is_error, out.text
    assert MARK in out.text


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_ordinary_files_next_to_git_metadata_are_still_written(repo, toolset):
    edits = {"gemini": ("replace", {"file_path": "a.txt", "old_string": MARK, "new_string": "ok"}),
             "editor": ("str_replace", {"path": "a.txt", "old_str": MARK, "new_str": "ok"}),
             "assistant": ("edit", {"path": "a.txt", "old_text": MARK, "new_text": "ok"}),
             "coder": ("edit_file", {"path": "a.txt", "old_str": MARK, "new_str": "ok"})}
    reg = agenttools.toolset(toolset, root=str(repo))
    tool, args = edits[toolset]
    out = _call(reg, toolset, repo, tool, args)
    reg.close()
    assert not out.is_error, out.text
    assert (repo / "a.txt").read_text() == "ok\n"


def test_the_families_raise_a_typed_error_and_resolve_reports_the_metadata(repo):
    ws = Workspace(repo)
    cases = {".git/config": ".git", "link/config": ".git", "sub/.git/config": "sub/.git", "wt/.git": "wt/.git",
             "bare.git/hooks/update": "bare.git", ".git": ".git"}
    for path, directory in cases.items():
        with pytest.raises(agenttools.ProtectedPathError) as info:
            ws.resolve(path, write=True)
        assert info.value.code == "protected_path"
        assert isinstance(info.value, agenttools.DeniedPathError | PermissionError)
        assert info.value.directory == str(repo / directory), path
        ws.resolve(path)  # reading is allowed
    assert ws.protected_by(repo / "a.txt") is None
    assert ws.protected_by(repo / ".gitignore") is None
    assert ws.protected_by(repo / "sub" / "git" / "x") is None
    with pytest.raises(agenttools.ProtectedPathError):
        agenttools.files.write_file(ws, ".git/config", "x")
    with pytest.raises(agenttools.ProtectedPathError):
        agenttools.edit.replace_text(ws, ".git/config", MARK, "x")
    with pytest.raises(agenttools.ProtectedPathError):
        agenttools.edit.replace_lines(ws, ".git/config", 1, 1, "x")
    with pytest.raises(agenttools.ProtectedPathError):
        agenttools.files.remove(ws, "sub/.git/config")
    with pytest.raises(agenttools.ProtectedPathError):
        agenttools.files.make_dirs(repo / ".git" / "new", ws=ws)
    assert not (repo / ".git" / "new").exists()
    assert (repo / ".git" / "config").read_text() == f"[core]\n\t{MARK} = true\n"


def test_a_root_inside_git_metadata_is_the_callers_choice(repo):
    ws = Workspace(repo / ".git")
    agenttools.files.write_file(ws, "description", "mine\n")
    assert (repo / ".git" / "description").read_text() == "mine\n"


# --- metadata is kept, or the edit is refused ---------------------------------------------------------------

EDITS: dict[str, tuple[str, Callable[[str], dict[str, Any]]]] = {
    "gemini.replace": ("replace", lambda p: {"file_path": p, "old_string": MARK, "new_string": "changed"}),
    "gemini.write_file": ("write_file", lambda p: {"file_path": p, "content": "changed\n"}),
    "editor.str_replace": ("str_replace", lambda p: {"path": p, "old_str": MARK, "new_str": "changed"}),
    "editor.create_file": ("create_file", lambda p: {"path": p, "content": "changed\n"}),
    "assistant.edit": ("edit", lambda p: {"path": p, "old_text": MARK, "new_text": "changed"}),
    "assistant.write": ("write", lambda p: {"path": p, "content": "changed\n"}),
    "coder.edit_file": ("edit_file", lambda p: {"path": p, "old_str": MARK, "new_str": "changed"}),
}


def _edit(root: Path, name: str, path: str = "f.txt") -> Any:
    toolset = name.split(".")[0]
    tool, args = EDITS[name]
    reg = agenttools.toolset(toolset, root=str(root))
    out = _call(reg, toolset, root, tool, args(path))
    reg.close()
    return out


@pytest.mark.parametrize("name", sorted(EDITS))
@pytest.mark.parametrize("mode", [0o6755, 0o4700, 0o2750, 0o1644], ids=oct)
def test_every_mode_bit_is_kept(tmp_path, name, mode):
    target = tmp_path / "f.txt"
    target.write_text(f"{MARK}\n")
    os.chmod(target, mode)
    out = _edit(tmp_path, name)
    assert not out.is_error, out.text
    assert target.read_text() == "changed\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == mode


def _xattrs_supported(path: Path) -> bool:
    try:
        os.setxattr(path, "user.agenttools-probe", b"1")
        os.removexattr(path, "user.agenttools-probe")
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
            return False
        raise
    return True


@pytest.mark.parametrize("name", sorted(EDITS))
def test_extended_attributes_are_kept(tmp_path, name):
    target = tmp_path / "f.txt"
    target.write_text(f"{MARK}\n")
    if not hasattr(os, "setxattr") or not _xattrs_supported(target):
        pytest.skip("the file system of tmp_path has no user extended attributes")
    os.setxattr(target, "user.origin", b"https://example.invalid/f.txt")
    os.setxattr(target, "user.empty", b"")
    out = _edit(tmp_path, name)
    assert not out.is_error, out.text
    assert target.read_text() == "changed\n"
    assert sorted(os.listxattr(target)) == ["user.empty", "user.origin"]
    assert os.getxattr(target, "user.origin") == b"https://example.invalid/f.txt"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root")
@pytest.mark.parametrize("name", sorted(EDITS))
def test_owner_and_group_are_kept_by_root(tmp_path, name):
    target = tmp_path / "f.txt"
    target.write_text(f"{MARK}\n")
    os.chown(target, 65534, 65534)
    os.chmod(target, 0o6750)  # chown clears setuid/setgid: set after it, and kept after the edit's chown
    out = _edit(tmp_path, name)
    assert not out.is_error, out.text
    st = os.stat(target)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (65534, 65534, 0o6750)
    assert target.read_text() == "changed\n"


_DROP_CAPS = r"""
import json, os, sys
import agenttools
root, name, tool, args = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
reg = agenttools.toolset(name, root=root)
out = reg.call(tool, args)
reg.close()
print(json.dumps({"is_error": out.is_error, "text": out.text}))
"""


def _drop_capabilities() -> None:  # pragma: no cover - runs in the child, before exec
    """Empty the capability bounding set: after exec, uid 0 has no capabilities (an ordinary user's checks)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(64):
        if libc.prctl(24, cap, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _call_unprivileged(root: Path, name: str) -> dict[str, Any]:
    """Run one edit as a user without privileges: in a child without capabilities when we are root."""
    toolset = name.split(".")[0]
    tool, args = EDITS[name]
    arguments = args(str(root / "f.txt") if toolset == "gemini" else "f.txt")
    if os.geteuid() != 0:
        reg = agenttools.toolset(toolset, root=str(root))
        out = reg.call(tool, arguments)
        reg.close()
        return {"is_error": out.is_error, "text": out.text}
    done = subprocess.run([sys.executable, "-c", _DROP_CAPS, str(root), toolset, tool, json.dumps(arguments)],
                          preexec_fn=_drop_capabilities, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


PERMISSION = {
    "gemini": r"^Error (writing to file .*: Error writing to file|executing edit): (EACCES: permission denied, "
              r"open '.*f\.txt'|\[Errno 1\] Operation not permitted)",
    "editor": r"^\[IO_ERROR\] could not write .*f\.txt: open .*f\.txt: (permission denied|operation not permitted)$",
    "assistant": r"^ERROR: failed to write file: (open .*f\.txt: permission denied|\[Errno 1\] Operation not "
                 r"permitted)",
    "coder": r"^Error: EDIT_FILE_RENAME_ERROR: failed to write file \(f\.txt\): \[Errno (13\] Permission denied|"
             r"1\] Operation not permitted)",
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="capabilities are Linux's")
@pytest.mark.parametrize("name", sorted(EDITS))
@pytest.mark.parametrize("case", ["read-only", "owned-by-another-user"])
def test_a_file_the_user_could_not_write_in_place_is_refused(tmp_path, name, case):
    target = tmp_path / "f.txt"
    target.write_text(f"{MARK}\n")
    if case == "read-only":
        os.chmod(target, 0o444)
    else:
        if os.geteuid() != 0:
            pytest.skip("giving a file to another user needs root")
        os.chown(target, 65534, 65534)
        os.chmod(target, 0o666)  # writable in place by anyone, but a replacement would belong to the writer
    before = _snapshot(tmp_path)
    out = _call_unprivileged(tmp_path, name)
    assert out["is_error"], out["text"]
    assert re.search(PERMISSION[name.split(".")[0]], out["text"]), out["text"]
    assert _snapshot(tmp_path) == before  # nothing replaced, re-owned or re-permissioned; no temporary file


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="capabilities are Linux's")
@pytest.mark.parametrize(("tool", "args", "expected"), [
    ("read_file", {"absolute_path": "{f}"}, "Error reading file {f}: EACCES: permission denied, open '{f}'"),
    ("write_file", {"file_path": "{f}", "content": "x"},
     "Error checking existing file {f}: EACCES: permission denied, open '{f}'"),
    ("replace", {"file_path": "{f}", "old_string": "a", "new_string": "b"},
     "Error preparing edit: EACCES: permission denied, open '{f}'"),
])
def test_gemini_words_an_unreadable_file_as_node_does(tmp_path, tool, args, expected):
    """Upstream's texts for a file the user may not read (ported from Gemini CLI 0.1.13's read/write/edit)."""
    target = tmp_path / "f.txt"
    target.write_text(f"{MARK}\n")
    os.chmod(target, 0o000)
    arguments = {k: v.replace("{f}", str(target)) for k, v in args.items()}
    if os.geteuid() != 0:
        reg = agenttools.toolset("gemini", root=str(tmp_path))
        out = reg.call(tool, arguments)
        reg.close()
        result = {"is_error": out.is_error, "text": out.text}
    else:
        done = subprocess.run([sys.executable, "-c", _DROP_CAPS, str(tmp_path), "gemini", tool,
                               json.dumps(arguments)], preexec_fn=_drop_capabilities, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
    os.chmod(target, 0o644)
    assert result == {"is_error": True, "text": expected.replace("{f}", str(target))}
    assert target.read_text() == f"{MARK}\n"


# --- sizes are checked before anything is read --------------------------------------------------------------

BIG = 200 * 1024 * 1024

EDIT_TOOLS = {
    "gemini": ("replace", {"file_path": "big.txt", "old_string": "x", "new_string": "y"},
               r"^Error preparing edit: File size exceeds the 20MB limit: .*big\.txt \(200\.00MB\)$"),
    "editor": ("str_replace", {"path": "big.txt", "old_str": "x", "new_str": "y"},
               r"^\[FILE_TOO_LARGE\] file .*big\.txt is 209715200 bytes, exceeds maximum 10485760 bytes$"),
    "assistant": ("edit", {"path": "big.txt", "old_text": "x", "new_text": "y"},
                  r"^ERROR: failed to read file: file .*big\.txt is 209715200 bytes, exceeds maximum 10485760"),
    "coder": ("edit_file", {"path": "big.txt", "old_str": "x", "new_str": "y"},
              r"^Error: .*file .*big\.txt is 209715200 bytes, exceeds maximum 10485760 bytes$"),
}


def _measured(action: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        result = action()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.mark.parametrize("toolset", TOOLSETS)
def test_an_edit_of_a_huge_file_is_refused_before_it_is_read(tmp_path, toolset):
    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:
        handle.truncate(BIG)  # sparse: 200 MiB of NUL bytes that take no disk
    reg = agenttools.toolset(toolset, root=str(tmp_path))
    tool, args, refusal = EDIT_TOOLS[toolset]
    out, peak = _measured(lambda: _call(reg, toolset, tmp_path, tool, args))
    reg.close()
    assert out.is_error and re.search(refusal, out.text), out.text
    assert peak < 8 * 1024 * 1024, peak
    assert big.stat().st_size == BIG


def test_overwriting_a_huge_file_does_not_read_it(tmp_path):
    big = tmp_path / "big.txt"
    with open(big, "wb") as handle:
        handle.write(b"first line\r\n")
        handle.truncate(BIG)
    for toolset, tool, args in [("gemini", "write_file", {"file_path": "big.txt", "content": "a\nb\n"}),
                                ("assistant", "write", {"path": "big.txt", "content": "a\nb\n"})]:
        reg = agenttools.toolset(toolset, root=str(tmp_path))
        out, peak = _measured(lambda: _call(reg, toolset, tmp_path, tool, args))  # noqa: B023
        reg.close()
        assert not out.is_error, out.text
        assert peak < 8 * 1024 * 1024, (toolset, peak)
        assert big.read_bytes() == b"a\r\nb\r\n"  # the CRLF style was sniffed from the first bytes
        with open(big, "wb") as handle:
            handle.write(b"first line\r\n")
            handle.truncate(BIG)


WRITES_OVER_LIMIT = {
    "editor": ("create_file", {"path": "new.txt", "content": "y" * 2000},
               r"^\[FILE_TOO_LARGE\] content is 2000 bytes, exceeds maximum 1000 bytes$"),
    "assistant": ("write", {"path": "new.txt", "content": "y" * 2000},
                  r"^ERROR: failed to write file: file .*new\.txt is 2000 bytes, exceeds maximum 1000 bytes$"),
    "coder": ("edit_file", {"path": "new.txt", "old_str": "", "new_str": "y" * 2000},
              r"^Error: .*new\.txt is 2000 bytes, exceeds maximum 1000 bytes$"),
}


@pytest.mark.parametrize("toolset", sorted(WRITES_OVER_LIMIT))
def test_content_over_the_limit_is_never_written(tmp_path, toolset):
    reg = agenttools.toolset(toolset, root=str(tmp_path), max_file_size=1000)
    tool, args, refusal = WRITES_OVER_LIMIT[toolset]
    out = reg.call(tool, args)
    reg.close()
    assert out.is_error and re.search(refusal, out.text), out.text
    assert list(tmp_path.iterdir()) == []


def test_gemini_writes_are_bounded_by_its_read_limit(tmp_path):
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    out = reg.call("write_file", {"file_path": str(tmp_path / "new.txt"), "content": "y" * (20 * 1024 * 1024 + 1)})
    reg.close()
    assert out.is_error and "exceeds maximum 20971520 bytes" in out.text, out.text[:300]
    assert list(tmp_path.iterdir()) == []


def test_an_edit_that_would_grow_past_the_limit_is_refused(tmp_path):
    target = tmp_path / "f.txt"
    target.write_text(f"{MARK}\n")
    ws = Workspace(tmp_path, max_file_size=100)
    with pytest.raises(agenttools.FileTooLargeError) as info:
        agenttools.edit.replace_text(ws, "f.txt", MARK, "z" * 200)
    assert (info.value.size, info.value.limit) == (201, 100)
    with pytest.raises(agenttools.FileTooLargeError):
        agenttools.edit.replace_lines(ws, "f.txt", 1, 1, "z" * 200)
    assert target.read_text() == f"{MARK}\n"


# --- nothing blocks on a FIFO or reads a device -------------------------------------------------------------


def _finishes(action: Callable[[], Any], fifo: Path | None = None, seconds: float = 10.0) -> Any:
    """Run ``action`` in a thread; fail if it is still blocked after ``seconds`` (then unblock it via ``fifo``)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = action()
        except BaseException as exc:  # noqa: BLE001 - handed back below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if fifo is not None:  # let the blocked open() return so the thread ends
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        thread.join(5)
        pytest.fail(f"still blocked after {time.monotonic() - started:.0f} s")
    if "error" in box:
        raise box["error"]
    return box.get("result")


def test_the_open_helper_refuses_fifos_and_devices_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(agenttools.SpecialFileError) as info:
        _finishes(lambda: _text.open_file(str(fifo)), fifo)
    assert info.value.kind == "fifo"
    with pytest.raises(agenttools.SpecialFileError) as info:
        _finishes(lambda: _text.open_file(str(fifo), root=str(tmp_path)), fifo)
    if os.path.exists("/dev/zero"):
        with pytest.raises(agenttools.SpecialFileError) as info:
            _text.open_file("/dev/zero")
        assert info.value.kind == "character device"
    assert _text.read_regular(str(fifo)) is None


SWAPPED_READS: dict[str, Callable[[Workspace], Any]] = {
    "files.read_file": lambda ws: agenttools.files.read_file(ws, "f.txt"),
    "files.read_text": lambda ws: agenttools.files.read_text(ws, "f.txt"),
    "edit.replace_text": lambda ws: agenttools.edit.replace_text(ws, "f.txt", "a", "b"),
    "edit.replace_lines": lambda ws: agenttools.edit.replace_lines(ws, "f.txt", 1, 1, "b"),
    "files.write_file": lambda ws: agenttools.files.write_file(ws, "f.txt", "b"),
}


@pytest.mark.parametrize("operation", sorted(SWAPPED_READS))
def test_a_fifo_swapped_in_after_the_check_does_not_block(tmp_path, monkeypatch, operation):
    fifo = tmp_path / "f.txt"
    os.mkfifo(fifo)
    monkeypatch.setattr(Workspace, "_check_kind", staticmethod(lambda real, expect: None))  # the check passed
    monkeypatch.setattr("agenttools.files.os.stat", _regular_stat, raising=True)  # ... and so did a family's stat
    with pytest.raises(agenttools.SpecialFileError):
        _finishes(lambda: SWAPPED_READS[operation](Workspace(tmp_path)), fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


_real_stat = os.stat


def _regular_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
    """``os.stat`` that reports a FIFO as the regular file it was when it was checked."""
    st = _real_stat(path, *args, **kwargs)
    if stat.S_ISFIFO(st.st_mode):
        fields = list(st)
        fields[0] = stat.S_IFREG | 0o644
        return os.stat_result(fields)
    return st


TOOLSET_READS = [
    ("editor", "view", {"path": "f.txt"}, "[IO_ERROR] could not read "),
    ("coder", "read_file", {"path": "f.txt"}, "Error: read f.txt: not a regular file"),
    ("coder", "head", {"args": "-n 1 f.txt"}, "'f.txt' is not a regular file"),
    ("coder", "tail", {"args": "-n 1 f.txt"}, "'f.txt' is not a regular file"),
    ("coder", "html_to_markdown", {"path": "f.txt"}, "Error: cannot read f.txt: "),
]


@pytest.mark.parametrize(("toolset", "tool", "args", "expected"), TOOLSET_READS,
                         ids=[f"{t}.{n}" for t, n, _, _ in TOOLSET_READS])
def test_toolset_reads_do_not_block_on_a_fifo_swapped_in_after_the_check(tmp_path, monkeypatch, toolset, tool,
                                                                           args, expected):
    fifo = tmp_path / "f.txt"
    os.mkfifo(fifo)
    reg = agenttools.toolset(toolset, root=str(tmp_path))
    monkeypatch.setattr(Workspace, "_check_kind", staticmethod(lambda real, expect: None))  # the check passed
    monkeypatch.setattr("os.stat", _regular_stat)  # ... and so did every stat the tool made before opening
    try:
        out = _finishes(lambda: reg.call(tool, args), fifo)
    finally:
        reg.close()
    assert out.is_error, out.text
    assert expected in out.text, out.text
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_gemini_does_not_block_on_a_geminiignore_fifo(tmp_path):
    os.mkfifo(tmp_path / ".geminiignore")
    (tmp_path / "a.txt").write_text("hello\n")
    reg = agenttools.toolset("gemini", root=str(tmp_path))
    out = _finishes(lambda: reg.call("read_file", {"absolute_path": str(tmp_path / "a.txt")}),
                    tmp_path / ".geminiignore")
    reg.close()
    assert not out.is_error and "hello" in out.text, out.text


# --- a directory swapped for a symlink cannot redirect a read or a write -------------------------------------


@pytest.fixture
def swap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``root/d`` is a real directory when resolved; as the family takes the path lock, another process swaps it
    for a symlink to ``outside/``."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside a\n")
    outside.mkdir()
    (outside / "f.txt").write_text(f"{SECRET} a\n")
    real_lock = _text.path_lock

    def swapping_lock(path: str) -> Any:
        if os.path.isdir(root / "d") and not os.path.islink(root / "d"):
            os.rename(root / "d", root / "d-old")
            os.symlink(outside, root / "d")
        return real_lock(path)

    for module in ("agenttools.files", "agenttools.edit"):
        monkeypatch.setattr(f"{module}.path_lock", swapping_lock)
    return root, outside


SWAPS: dict[str, Callable[[Workspace], Any]] = {
    "write_file": lambda ws: agenttools.files.write_file(ws, "d/f.txt", "pwned\n"),
    "write_file-new": lambda ws: agenttools.files.write_file(ws, "d/new.txt", "pwned\n"),
    "replace_text": lambda ws: agenttools.edit.replace_text(ws, "d/f.txt", "a", "pwned"),
    "replace_text-create": lambda ws: agenttools.edit.replace_text(ws, "d/new.txt", "", "pwned"),
    "replace_lines": lambda ws: agenttools.edit.replace_lines(ws, "d/f.txt", 1, 1, "pwned"),
}


@pytest.mark.parametrize("operation", sorted(SWAPS))
def test_a_directory_swapped_for_a_symlink_cannot_redirect_a_write(swap, operation):
    root, outside = swap
    before = _snapshot(outside)
    with pytest.raises(OSError) as info:
        SWAPS[operation](Workspace(root))
    assert info.value.errno in (errno.ELOOP, errno.ENOTDIR), info.value
    assert _snapshot(outside) == before


def test_a_directory_swapped_for_a_symlink_cannot_redirect_a_read_or_a_delete(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside\n")
    outside.mkdir()
    (outside / "f.txt").write_text(f"{SECRET}\n")
    ws = Workspace(root)
    real = str(ws.resolve("d/f.txt", expect="file"))
    os.rename(root / "d", root / "d-old")  # swapped between resolve() and open()
    os.symlink(outside, root / "d")
    with pytest.raises(OSError) as info:
        _text.open_file(real, root=str(root))
    assert info.value.errno in (errno.ELOOP, errno.ENOTDIR)
    with pytest.raises(OSError):
        _text.atomic_write(real, b"pwned", root=str(root))
    assert (outside / "f.txt").read_text() == f"{SECRET}\n"


def test_a_file_swapped_for_a_symlink_is_neither_read_nor_replaced(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "f.txt").write_text(f"{SECRET}\n")
    (root / "f.txt").write_text("inside\n")
    real = str(Workspace(root).resolve("f.txt", expect="file"))
    os.unlink(real)
    os.symlink(outside / "f.txt", real)
    for opener in (lambda: _text.open_file(real, root=str(root)), lambda: _text.open_file(real)):
        with pytest.raises(OSError) as info:
            opener()
        assert info.value.errno == errno.ELOOP
    with pytest.raises(OSError) as info:
        _text.atomic_write(real, b"pwned", root=str(root))
    assert info.value.errno == errno.ELOOP
    assert os.path.islink(real)
    assert (outside / "f.txt").read_text() == f"{SECRET}\n"


def test_a_delete_through_a_swapped_directory_removes_nothing_outside(tmp_path, monkeypatch):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    (root / "d" / "f.txt").write_text("inside\n")
    outside.mkdir()
    (outside / "f.txt").write_text(f"{SECRET}\n")
    ws = Workspace(root)
    real_entry = Workspace.resolve_entry

    def swapped(self: Workspace, path: Any, **kwargs: Any) -> Path:
        found = real_entry(self, path, **kwargs)
        os.rename(root / "d", root / "d-old")
        os.symlink(outside, root / "d")
        return found

    monkeypatch.setattr(Workspace, "resolve_entry", swapped)
    with pytest.raises(OSError):
        agenttools.files.remove(ws, "d/f.txt")
    assert (outside / "f.txt").read_text() == f"{SECRET}\n"
