"""shell family: real processes, process groups, timeouts, bounded output."""

from __future__ import annotations

import os
import signal
import time

import pytest

from agenttools.shell import run_shell, strip_ansi
from conftest import process_alive


def test_streams_exit_code_and_group(tmp_path):
    result = run_shell("echo out; echo err >&2; exit 7", cwd=tmp_path)
    assert (result.stdout, result.stderr, result.exit_code, result.signal) == ("out\n", "err\n", 7, None)
    assert result.pgid is not None
    assert result.cwd == tmp_path


def test_stdin_is_dev_null(tmp_path):
    start = time.monotonic()
    result = run_shell("cat; read x; echo done", cwd=tmp_path, timeout=20)
    assert result.stdout == "done\n"
    assert time.monotonic() - start < 10


def test_timeout_kills_the_whole_group(tmp_path):
    result = run_shell("sleep 60 & sleep 60 & echo $! > pid; wait", cwd=tmp_path, timeout=1)
    assert result.timed_out
    assert result.signal == signal.SIGTERM
    child = int((tmp_path / "pid").read_text())
    deadline = time.monotonic() + 5
    while process_alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(child)


def test_background_pids_are_reported_and_not_waited_for(tmp_path):
    start = time.monotonic()
    result = run_shell("sleep 3 & echo started", cwd=tmp_path)
    assert time.monotonic() - start < 2.5
    assert result.stdout == "started\n"
    assert len(result.background_pids) == 1
    os.kill(result.background_pids[0], signal.SIGKILL)


def test_output_is_capped_head_and_tail(tmp_path):
    result = run_shell("seq 1 200000", cwd=tmp_path, max_output=1000)
    assert result.stdout_truncated
    assert result.stdout.startswith("1\n2\n3\n")
    assert result.stdout.endswith("199999\n200000\n")
    assert "bytes of output omitted" in result.stdout
    assert len(result.stdout) < 1100


def test_killed_by_signal(tmp_path):
    result = run_shell("kill -9 $$", cwd=tmp_path)
    assert (result.exit_code, result.signal, result.signal_name) == (None, 9, "SIGKILL")


def test_missing_shell(tmp_path):
    result = run_shell("true", cwd=tmp_path, shell="/nonexistent/bash")
    assert result.error is not None
    assert result.error.startswith("FileNotFoundError")
    assert result.pgid is None


def test_non_interactive_environment(tmp_path):
    result = run_shell("echo $GIT_TERMINAL_PROMPT $PAGER", cwd=tmp_path)
    assert result.stdout == "0 cat\n"


def test_strip_ansi():
    assert strip_ansi("\x1b[31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07") == "red link"


@pytest.mark.parametrize("limit", [200, 1000, 1 << 20])
def test_a_cut_stream_with_its_marker_stays_within_the_limit(tmp_path, limit):
    result = run_shell("head -c 3000000 /dev/zero | tr '\\0' x", cwd=tmp_path, max_output=limit)
    assert result.stdout_truncated
    assert "bytes of output omitted" in result.stdout
    assert len(result.stdout.encode()) <= limit
    omitted = int(result.stdout.split("[... ")[1].split(" bytes")[0])
    assert omitted + result.stdout.count("x") == 3_000_000  # every byte is shown or counted
