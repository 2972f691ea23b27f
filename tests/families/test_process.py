"""The process family: background commands in their own process groups, read while they run, bounded, killed.

Every test starts real ``bash`` processes in ``tmp_path``; "killed" is checked on the pids themselves
(``/proc``), not on what the table reports.
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time

import pytest

from agenttools.errors import ProcessLimitError, UnknownProcessError
from agenttools.process import ProcessManager, ProcessStatus, ProcessTable
from conftest import gone, process_alive, read_pid


def _finished(table: ProcessTable, process_id: str, within: float = 10.0) -> ProcessStatus:
    """The status once the process has finished (fails after ``within`` seconds)."""
    status = table.wait(process_id, timeout=within)
    assert not status.running, f"{status.command!r} did not finish within {within} s"
    return status


def _until(check, within: float = 10.0) -> None:
    """Poll ``check()`` until it is true (fails after ``within`` seconds)."""
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "condition never became true"
        time.sleep(0.02)


# --- start, status, output ----------------------------------------------------------------------------------------

def test_a_started_process_runs_in_its_own_group(tmp_path):
    with ProcessTable() as table:
        started = table.start("sleep 30", cwd=tmp_path)
        assert (started.command, started.cwd, started.running) == ("sleep 30", tmp_path, True)
        assert (started.exit_code, started.signal, started.finished) == (None, None, None)
        assert started.started <= time.time()
        assert os.getpgid(started.pid) == started.pid != os.getpgid(0)  # a group of its own, not ours
        assert started.id in table and len(table) == 1 and table.running_count() == 1


def test_output_can_be_read_while_the_process_runs(tmp_path):
    with ProcessTable() as table:
        process_id = table.start("echo first; echo warn >&2; sleep 30", cwd=tmp_path).id
        _until(lambda: table.status(process_id).stdout == "first\n" and table.status(process_id).stderr == "warn\n")
        assert table.status(process_id).running


def test_a_finished_process_reports_streams_code_and_times(tmp_path):
    with ProcessTable() as table:
        status = _finished(table, table.start("pwd; echo err >&2; exit 3", cwd=tmp_path).id)
        assert (status.stdout, status.stderr) == (f"{tmp_path}\n", "err\n")
        assert (status.exit_code, status.signal, status.running, status.killed) == (3, None, False, False)
        assert status.finished is not None and status.started <= status.finished
        assert table.running_count() == 0


def test_stdin_is_empty_and_the_environment_carries_extras_and_the_session(tmp_path):
    with ProcessTable(env={"GREETING": "hello"}) as table:
        status = _finished(table, table.start("cat; echo $GREETING $AGENTTOOLS_SESSION", cwd=tmp_path).id)
        assert status.stdout == f"hello {table.session}\n"  # cat read /dev/null and returned at once


def test_ansi_codes_are_removed_from_the_output(tmp_path):
    with ProcessTable() as table:
        status = _finished(table, table.start(r"printf '\033[31mred\033[0m plain\n'", cwd=tmp_path).id)
        assert status.stdout == "red plain\n"


def test_a_shell_that_cannot_start_leaves_no_record(tmp_path):
    with ProcessTable() as table:
        with pytest.raises(OSError):
            table.start("true", cwd=tmp_path / "missing")
        with pytest.raises(OSError):
            table.start("true", cwd=tmp_path, shell="no-such-shell-here")
        assert len(table) == 0


def test_list_is_oldest_first_and_wait_returns_a_running_status_on_timeout(tmp_path):
    with ProcessTable() as table:
        first = table.start("sleep 30", cwd=tmp_path).id
        second = table.start("true", cwd=tmp_path).id
        assert [status.id for status in table.list()] == [first, second]
        assert table.wait(first, timeout=0.1).running
        assert not table.wait(second, timeout=10).running


# --- kill, signal, close, timeout ----------------------------------------------------------------------------------

def test_kill_ends_the_whole_process_group(tmp_path):
    with ProcessTable() as table:
        status = table.start(f"sleep 60 & echo $! > {tmp_path}/child; wait", cwd=tmp_path)
        child = read_pid(tmp_path / "child")
        assert os.getpgid(child) == status.pid
        killed = table.kill(status.id)
        assert killed.killed and not killed.running and killed.exit_code is None
        assert killed.signal in (signal.SIGTERM, signal.SIGKILL)
        assert gone(status.pid) and gone(child), "a member of the group outlived the kill"


def test_killing_or_signalling_a_finished_process_changes_nothing(tmp_path):
    with ProcessTable() as table:
        process_id = table.start("exit 5", cwd=tmp_path).id
        _finished(table, process_id)
        assert not table.signal(process_id, signal.SIGTERM)
        status = table.kill(process_id)
        assert (status.exit_code, status.killed) == (5, False)


def test_signal_reaches_the_group_without_waiting(tmp_path):
    with ProcessTable() as table:
        process_id = table.start("sleep 30", cwd=tmp_path).id
        assert table.signal(process_id, signal.SIGINT)
        status = _finished(table, process_id)
        assert (status.signal, status.exit_code, status.killed) == (signal.SIGINT, None, False)


def test_a_timeout_kills_the_group(tmp_path):
    with ProcessTable(timeout=0.3) as table:
        status = table.start(f"sleep 60 & echo $! > {tmp_path}/child; wait", cwd=tmp_path)
        child = read_pid(tmp_path / "child")
        final = _finished(table, status.id)
        assert final.timed_out and not final.killed and final.exit_code is None
        assert gone(child)


def test_close_kills_the_groups_and_daemons_that_left_them(tmp_path):
    table = ProcessTable()
    table.start(f"sleep 60 & echo $! > {tmp_path}/child; wait", cwd=tmp_path)
    table.start(f"setsid sh -c 'echo $$ > {tmp_path}/daemon; exec sleep 60' & wait", cwd=tmp_path)
    child, daemon = read_pid(tmp_path / "child"), read_pid(tmp_path / "daemon")
    assert os.getsid(daemon) == daemon  # a session of its own: only the table's marker can find it
    table.close()
    assert gone(child) and gone(daemon)
    assert table.closed
    assert all(not status.running and status.killed for status in table.list())
    with pytest.raises(ProcessLimitError, match="closed"):
        table.start("true", cwd=tmp_path)
    table.close()  # a second close is harmless


def test_a_table_nobody_closed_kills_its_processes_when_collected(tmp_path):
    table = ProcessTable()
    table.start(f"sleep 60 & echo $! > {tmp_path}/child; wait", cwd=tmp_path)
    child = read_pid(tmp_path / "child")
    assert process_alive(child)
    del table
    gc.collect()
    assert gone(child)


# --- limits and bounded output -------------------------------------------------------------------------------------

def test_max_processes_counts_finished_records_until_removed(tmp_path):
    with ProcessTable(max_processes=2) as table:
        done = table.start("true", cwd=tmp_path).id
        _finished(table, done)
        running = table.start("sleep 30", cwd=tmp_path).id
        with pytest.raises(ProcessLimitError) as full:
            table.start("true", cwd=tmp_path)
        assert full.value.limit == 2
        assert table.remove(done).id == done and done not in table
        removed = table.remove(running)  # a running process is killed, then forgotten
        assert removed.killed and gone(removed.pid)
        table.start("true", cwd=tmp_path)


def test_max_running_counts_only_running_processes(tmp_path):
    with ProcessTable(max_processes=10, max_running=1) as table:
        first = table.start("sleep 30", cwd=tmp_path).id
        with pytest.raises(ProcessLimitError) as busy:
            table.start("true", cwd=tmp_path)
        assert busy.value.limit == 1
        table.kill(first)
        table.start("true", cwd=tmp_path)  # the killed record stays, but no longer runs


@pytest.mark.parametrize("call", ["status", "wait", "kill", "remove", "tail", "signal"])
def test_unknown_ids_are_refused(tmp_path, call):
    arguments = {"tail": (10,), "signal": (signal.SIGTERM,)}.get(call, ())
    with ProcessTable() as table:
        with pytest.raises(UnknownProcessError) as info:
            getattr(table, call)("nope", *arguments)
        assert info.value.process_id == "nope" and str(info.value) == "process not found: nope"
        assert isinstance(info.value, LookupError)


def test_output_keeps_head_and_tail_with_a_marker(tmp_path):
    script = "echo START; head -c 100000 /dev/zero | tr '\\0' a; echo; echo END"
    with ProcessTable(max_output=1000) as table:
        process_id = table.start(script, cwd=tmp_path).id
        status = _finished(table, process_id)
        assert len(status.stdout.encode()) <= 1000
        assert status.stdout.startswith("START\naaa") and status.stdout.endswith("aaa\nEND\n")
        assert "bytes of output omitted ...]" in status.stdout
        out, err = table.tail(process_id, 4)
        assert (out, err) == (b"END\n", b"")


def test_a_ring_keeps_the_last_bytes(tmp_path):
    with ProcessTable(max_output=1000, ring=True) as table:
        process_id = table.start("seq 1 10000", cwd=tmp_path).id
        status = _finished(table, process_id)
        assert len(status.stdout) == 1000 and status.stdout.endswith("\n9999\n10000\n")
        assert "omitted" not in status.stdout
        assert table.tail(process_id, 6) == (b"10000\n", b"")
        assert table.tail(process_id, 0) == (b"", b"")
        assert table.finished_bytes() == 1000


def test_finished_records_are_forgotten_oldest_first_beyond_max_finished(tmp_path):
    with ProcessTable(max_finished=2) as table:
        ids = []
        for n in range(3):
            ids.append(table.start(f"echo {n}", cwd=tmp_path).id)
            _finished(table, ids[-1])
        assert [status.stdout for status in table.list()] == ["1\n", "2\n"]
        with pytest.raises(UnknownProcessError):
            table.status(ids[0])


def test_finished_records_are_forgotten_beyond_max_finished_bytes_but_never_the_newest(tmp_path):
    with ProcessTable(max_finished_bytes=1500) as table:
        for n in range(3):  # 1,000 bytes of output each
            _finished(table, table.start(f"head -c 999 /dev/zero | tr '\\0' {n}; echo", cwd=tmp_path).id)
            table.list()  # any access trims (a watcher thread may not have yet)
            assert table.finished_bytes() <= 1500
        assert [status.stdout[0] for status in table.list()] == ["2"]
    with ProcessTable(max_finished_bytes=10) as table:
        _finished(table, table.start("seq 1 100", cwd=tmp_path).id)
        assert len(table.list()) == 1  # over the cap on its own, and kept


def test_finished_records_expire_but_running_ones_do_not(tmp_path):
    with ProcessTable(expire_after=0.05) as table:
        running = table.start("sleep 30", cwd=tmp_path).id
        done = table.start("true", cwd=tmp_path).id
        _finished(table, done)
        time.sleep(0.1)
        with pytest.raises(UnknownProcessError):
            table.status(done)
        assert table.status(running).running


def test_ids_come_from_the_factory_and_never_repeat(tmp_path):
    ids = iter(["a", "a", "b"])
    with ProcessTable(id_factory=lambda: next(ids)) as table:
        assert [table.start("true", cwd=tmp_path).id for _ in range(2)] == ["a", "b"]


def test_the_manager_numbers_keeps_last_output_and_limits_running(tmp_path):
    with ProcessManager(max_running=1, max_output=100) as manager:
        first = manager.start("seq 1 1000; sleep 30", cwd=tmp_path)
        assert first.id == "proc-1"
        with pytest.raises(ProcessLimitError):
            manager.start("true", cwd=tmp_path)
        _until(lambda: manager.status(first.id).stdout.endswith("\n1000\n"))
        assert len(manager.status(first.id).stdout) == 100
        manager.kill(first.id)
        assert manager.start("true", cwd=tmp_path).id == "proc-2"


def test_only_sigkill_marks_a_process_killed(tmp_path):
    with ProcessTable() as table:
        survivor = table.start("trap '' TERM; sleep 30", cwd=tmp_path)
        time.sleep(0.2)  # let bash set its trap
        assert table.signal(survivor.id, signal.SIGTERM)
        time.sleep(0.2)
        status = table.status(survivor.id)
        assert status.running and not status.killed  # it ignored SIGTERM: not killed
        assert table.signal(survivor.id, signal.SIGKILL)
        assert table.wait(survivor.id, timeout=10).killed


@pytest.mark.parametrize("ring", [False, True])
def test_tail_is_the_raw_end_of_the_stream_in_both_modes(tmp_path, ring):
    """tail() gives the bytes as written in either mode: the head-and-tail mode gave ANSI-stripped text."""
    with ProcessTable(max_output=1000, ring=ring) as table:
        process_id = table.start("printf '\\033[31mred\\033[0m\\n'; printf 'err\\n' >&2", cwd=tmp_path).id
        status = _finished(table, process_id)
        assert status.stdout == "red\n"  # the status text is cleaned
        assert table.tail(process_id, 100) == (b"\x1b[31mred\x1b[0m\n", b"err\n")
        assert table.tail(process_id, 5) == (b"\x1b[0m\n", b"err\n")


def test_tail_past_a_dropped_middle_never_includes_the_marker(tmp_path):
    with ProcessTable(max_output=100) as table:
        process_id = table.start("seq 1 1000", cwd=tmp_path).id
        _finished(table, process_id)
        out, _ = table.tail(process_id, 1000)
        assert b"omitted" not in out
        assert out.endswith(b"999\n1000\n") and len(out) <= 50


def test_finished_bytes_never_passes_its_cap_while_records_finish(tmp_path):
    """A record was marked done before the table trimmed, so a reader in between saw the cap passed."""
    with ProcessTable(max_finished_bytes=1500) as table:
        stop = threading.Event()
        seen: list[int] = []

        def watch() -> None:
            while not stop.is_set():
                seen.append(table.finished_bytes())

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            for n in range(12):
                _finished(table, table.start(f"head -c 999 /dev/zero | tr '\\0' {n % 10}; echo", cwd=tmp_path).id)
        finally:
            stop.set()
            watcher.join()
        assert seen and max(seen) <= 1500
