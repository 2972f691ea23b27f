"""_text.atomic_write: new files get the usual mode without the process umask ever being changed."""

from __future__ import annotations

import builtins
import os
import stat
import threading

import pytest

from agenttools._text import atomic_write


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def test_a_new_file_gets_0666_less_the_umask(tmp_path, umask_027):
    target = tmp_path / "new.txt"
    atomic_write(str(target), b"data")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert target.read_bytes() == b"data"


def test_an_explicit_mode_is_exact_and_an_existing_file_keeps_its_mode(tmp_path, umask_027):
    atomic_write(str(tmp_path / "exact"), b"x", mode=0o755)
    assert stat.S_IMODE(os.stat(tmp_path / "exact").st_mode) == 0o755
    kept = tmp_path / "kept"
    kept.write_bytes(b"old")
    os.chmod(kept, 0o604)
    atomic_write(str(kept), b"new")
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o604


def test_the_umask_is_never_set_while_other_threads_create_files(tmp_path, monkeypatch, umask_027):
    """os.umask is process-wide: setting it, even briefly, changes the files other threads create meanwhile.

    Also where /proc does not say what the umask is (macOS, BSD, a container without /proc).
    """
    calls = []
    real_umask, real_open = os.umask, builtins.open

    def no_proc(file, *args, **kwargs):
        if str(file).startswith("/proc/"):
            raise FileNotFoundError(2, "no /proc here", file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "umask", lambda mask: calls.append(mask) or real_umask(mask))
    monkeypatch.setattr(builtins, "open", no_proc)
    workers = [threading.Thread(target=atomic_write, args=(str(tmp_path / f"f{i}"), b"x")) for i in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert calls == []
    assert {stat.S_IMODE(os.stat(tmp_path / f"f{i}").st_mode) for i in range(8)} == {0o640}
