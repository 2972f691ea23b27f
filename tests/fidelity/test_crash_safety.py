"""Crash safety: a write that fails at any step leaves the old file as it was (and no temporary file behind);
edits of one file from many threads at once never lose an edit nor corrupt the file."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools import _text

ORIGINAL = "line one\r\nMARK\r\nline three é\r\n".encode()


class DiskFullError(OSError):
    def __init__(self) -> None:
        super().__init__(errno.ENOSPC, "No space left on device (injected)")


def _failing_write(monkeypatch: pytest.MonkeyPatch) -> None:
    real_fdopen = os.fdopen

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        handle = real_fdopen(fd, *args, **kwargs)

        def write(data: bytes) -> int:
            handle.raw.write(data[: len(data) // 2])  # half of it reaches the temporary file, then the disk fills
            raise DiskFullError

        handle.write = write
        return handle

    monkeypatch.setattr(_text.os, "fdopen", fdopen)


STEPS = {
    "create-temp": lambda mp: mp.setattr(_text, "_make_temp", _raise(DiskFullError)),
    "write": _failing_write,
    "fsync": lambda mp: mp.setattr(_text.os, "fsync", _raise(DiskFullError)),
    "chmod": lambda mp: mp.setattr(_text.os, "fchmod", _raise(DiskFullError)),
    "chown": lambda mp: mp.setattr(_text.os, "fchown", _raise(PermissionError)),
    "xattr": lambda mp: mp.setattr(_text, "_copy_xattrs", _raise(DiskFullError)),
    "replace": lambda mp: mp.setattr(_text.os, "replace", _raise(DiskFullError)),
    "interrupt-before-replace": lambda mp: mp.setattr(_text.os, "replace", _raise(KeyboardInterrupt)),
}


def _raise(error: type[BaseException]) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error()

    return fail


OPERATIONS = {
    "files.write_file": lambda ws: agenttools.files.write_file(ws, "f.txt", "new content\n"),
    "edit.replace_text": lambda ws: agenttools.edit.replace_text(ws, "f.txt", "MARK", "changed"),
    "edit.replace_lines": lambda ws: agenttools.edit.replace_lines(ws, "f.txt", 2, 2, "changed"),
}


@pytest.mark.parametrize("step", sorted(STEPS))
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_a_failed_write_leaves_the_old_file(tmp_path, monkeypatch, step, operation):
    target = tmp_path / "f.txt"
    target.write_bytes(ORIGINAL)
    os.chmod(target, 0o640)
    if step == "chown":  # the owner is only set when it differs from the writer's
        if os.geteuid() != 0:
            pytest.skip("giving a file to another owner needs root")
        os.chown(target, 65534, 65534)
    ws = agenttools.Workspace(tmp_path)
    STEPS[step](monkeypatch)
    with pytest.raises((OSError, KeyboardInterrupt)):
        OPERATIONS[operation](ws)
    monkeypatch.undo()
    assert target.read_bytes() == ORIGINAL
    assert os.stat(target).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]  # no temporary file left behind


EDITORS = {
    "gemini": lambda root, old, new: ("replace", {"file_path": str(root / "f.txt"), "old_string": old,
                                                  "new_string": new}),
    "editor": lambda root, old, new: ("str_replace", {"path": "f.txt", "old_str": old, "new_str": new}),
    "assistant": lambda root, old, new: ("edit", {"path": "f.txt", "old_text": old, "new_text": new}),
    "coder": lambda root, old, new: ("edit_file", {"path": "f.txt", "old_str": old, "new_str": new}),
}


@pytest.mark.parametrize("toolset", sorted(EDITORS))
def test_a_failed_write_is_an_error_text_and_the_old_file_stays(tmp_path, monkeypatch, toolset):
    target = tmp_path / "f.txt"
    target.write_bytes(ORIGINAL)
    reg = agenttools.toolset(toolset, root=str(tmp_path))
    monkeypatch.setattr(_text.os, "replace", _raise(DiskFullError))
    tool, args = EDITORS[toolset](tmp_path, "MARK", "changed")
    out = reg.call(tool, args)
    monkeypatch.undo()
    reg.close()
    assert out.is_error and "no space left on device" in out.text.lower(), out.text
    assert target.read_bytes() == ORIGINAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.txt"]


def _markers(count: int) -> str:
    return "".join(f"slot {i:03d}: M{i:03d}\n" for i in range(count))


def test_threads_editing_one_file_lose_no_edit(tmp_path):
    count, threads = 64, 8
    target = tmp_path / "f.txt"
    target.write_text(_markers(count))
    ws = agenttools.Workspace(tmp_path)
    errors: list[BaseException] = []

    def work(first: int) -> None:
        try:
            for i in range(first, count, threads):
                agenttools.edit.replace_text(ws, "f.txt", f"M{i:03d}\n", f"done by {first}\n")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert errors == []
    assert target.read_text() == "".join(f"slot {i:03d}: done by {i % threads}\n" for i in range(count))


def test_every_toolset_editing_one_file_at_once_loses_no_edit(tmp_path):
    count = 48
    target = tmp_path / "f.txt"
    target.write_text(_markers(count))
    regs = {name: agenttools.toolset(name, root=str(tmp_path)) for name in EDITORS}
    names = sorted(EDITORS)
    failures: list[str] = []

    def work(k: int) -> None:
        name = names[k]
        for i in range(k, count, len(names)):
            tool, args = EDITORS[name](tmp_path, f"M{i:03d}\n", f"{name}\n")
            out = regs[name].call(tool, args)
            if out.is_error:
                failures.append(out.text)

    pool = [threading.Thread(target=work, args=(k,)) for k in range(len(names))]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    for reg in regs.values():
        reg.close()
    assert failures == []
    assert target.read_text() == "".join(f"slot {i:03d}: {names[i % len(names)]}\n" for i in range(count))


def test_path_locks_are_released(tmp_path):
    ws = agenttools.Workspace(tmp_path)
    for i in range(20):
        agenttools.files.write_file(ws, f"f{i}.txt", "x")
    assert _text._LOCKS == {}


def test_a_write_and_a_failed_write_never_leave_a_partial_file(tmp_path: Path, monkeypatch):
    target = tmp_path / "f.txt"
    target.write_bytes(ORIGINAL)
    _failing_write(monkeypatch)
    with pytest.raises(OSError):
        agenttools.files.write_file(agenttools.Workspace(tmp_path), "f.txt", "x" * 100_000)
    monkeypatch.undo()
    assert target.read_bytes() == ORIGINAL
