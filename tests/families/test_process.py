"""The process family: background commands in their own process groups, read while they run, bounded, killed."""

from __future__ import annotations

import signal
import time

import pytest

from agenttools.errors import ProcessLimitError, UnknownProcessError
from agenttools.process import ProcessManager, ProcessTable
from conftest import gone, read_pid


def _wait_finished(table: ProcessTable, process_id: str, within: float = 10.0):
    deadline = time.monotonic() + within
    while (status := table.status(process_id)).running:
        assert time.monotonic() < deadline, "the process did not finish"
        time.sleep(0.02)
    return status


def test_start_read_and_finish(tmp_path):
    with ProcessTable() as table:
        started = table.start("echo out; echo err >&2; exit 3", cwd=tmp_path)
        assert started.command == "echo out; echo err >&2; exit 3" and started.cwd == tmp_path
        status = _wait_finished(table, started.id)
        assert (status.exit_code, status.signal, status.stdout, status.stderr) == (3, None, "out\n", "err\n")
        assert status.finished is not None and status.finished >= status.started
        assert [s.id for s in table.list()] == [started.id]
        assert table.remove(started.id).id == started.id
        with pytest.raises(UnknownProcessError) as info:
            table.status(started.id)
        assert info.value.process_id == started.id


def test_kill_ends_the_whole_process_group(tmp_path):
    with ProcessTable() as table:
        status = table.start(f"sleep 60 & echo $! > {tmp_path}/child; wait", cwd=tmp_path)
        child = read_pid(tmp_path / "child")
        killed = table.kill(status.id)
        assert killed.killed and not killed.running
        assert gone(child), "the background child outlived the kill"


def test_close_kills_everything_it_started(tmp_path):
    table = ProcessTable()
    table.start(f"sleep 60 & echo $! > {tmp_path}/child; wait", cwd=tmp_path)
    child = read_pid(tmp_path / "child")
    table.close()
    assert table.closed
    assert gone(child)
    with pytest.raises(ProcessLimitError):
        table.start("true", cwd=tmp_path)


def test_limits_on_records_and_running_processes(tmp_path):
    with ProcessTable(max_processes=2) as table:
        table.start("sleep 30", cwd=tmp_path)
        table.start("sleep 30", cwd=tmp_path)
        with pytest.raises(ProcessLimitError) as held:
            table.start("sleep 30", cwd=tmp_path)
        assert held.value.limit == 2
    with ProcessTable(max_processes=10, max_running=1) as table:
        table.start("sleep 30", cwd=tmp_path)
        with pytest.raises(ProcessLimitError) as running:
            table.start("sleep 30", cwd=tmp_path)
        assert running.value.limit == 1


def test_output_is_bounded_head_and_tail_or_ring(tmp_path):
    script = "head -c 100000 /dev/zero | tr '\\0' a; echo; echo END"
    with ProcessTable(max_output=1000) as table:
        status = _wait_finished(table, table.start(script, cwd=tmp_path).id)
        assert len(status.stdout) < 1200 and status.stdout.startswith("a") and status.stdout.endswith("END\n")
    with ProcessTable(max_output=1000, ring=True) as table:
        process_id = table.start(script, cwd=tmp_path).id
        _wait_finished(table, process_id)
        out, _ = table.tail(process_id, 4)
        assert out == b"END\n"


def test_a_timeout_kills_the_group(tmp_path):
    with ProcessTable(timeout=0.5) as table:
        status = _wait_finished(table, table.start("sleep 30", cwd=tmp_path).id)
        assert status.timed_out and not status.running and status.exit_code is None


def test_signal_reaches_the_process(tmp_path):
    with ProcessTable() as table:
        process_id = table.start("sleep 30", cwd=tmp_path).id
        assert table.signal(process_id, signal.SIGTERM)
        status = _wait_finished(table, process_id)
        assert status.signal == signal.SIGTERM and status.exit_code is None


def test_the_manager_numbers_its_processes_and_limits_how_many_run(tmp_path):
    with ProcessManager(max_running=1) as manager:
        first = manager.start("sleep 30", cwd=tmp_path)
        assert first.id == "proc-1"
        with pytest.raises(ProcessLimitError):
            manager.start("true", cwd=tmp_path)
        manager.kill(first.id)
        assert manager.start("true", cwd=tmp_path).id == "proc-2"
