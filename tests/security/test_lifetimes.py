"""Nothing outlives its owner: a cancelled ``acall``, a toolset nobody closed (at interpreter exit and on garbage
collection), and the assistant's finished process records stay bounded in count and bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from agenttools import toolset
from agenttools.process import ProcessManager
from agenttools.registry import CallLimiter, Registry
from conftest import GONE_WITHIN, gone, process_alive, read_pid

# --- cancelling acall kills the command (item 5, without MCP) -----------------------------------------------------

@pytest.mark.parametrize("with_limiter", [False, True], ids=["default-executor", "limiter"])
def test_cancelling_acall_kills_the_command(tmp_path, with_limiter):
    pid_file = tmp_path / "sleep.pid"
    with toolset("gemini", root=str(tmp_path)) as reg:
        async def main() -> None:
            limiter = CallLimiter(2) if with_limiter else None
            call = asyncio.create_task(reg.acall("run_shell_command",
                                                 {"command": f"sleep 300 & echo $! > {pid_file}; wait"},
                                                 limiter=limiter))
            while not pid_file.exists() or not pid_file.read_text().strip():
                await asyncio.sleep(0.05)
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            pid = read_pid(pid_file)
            deadline = time.monotonic() + GONE_WITHIN  # checked before asyncio.run waits for the worker thread
            while process_alive(pid) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert not process_alive(pid), "the command of a cancelled acall was still running"

        asyncio.run(asyncio.wait_for(main(), 60))


def test_a_cancelled_call_stops_its_ripgrep():
    """The search family's ripgrep polls the call's scope while it is quiet: cancelling stops it at once."""
    from agenttools import _calls
    from agenttools.search import rg as _rg

    scope = _calls.CallScope()
    token = _calls._SCOPE.set(scope)
    try:
        with _rg._Ripgrep(["sleep", "300"], Path.cwd(), time.monotonic() + 120, b"\n") as quiet:
            threading.Timer(0.5, scope.cancel).start()
            started = time.monotonic()
            with pytest.raises(TimeoutError):
                list(quiet)
        assert time.monotonic() - started < 10
        assert quiet.proc.poll() is not None, "ripgrep was left running"
    finally:
        _calls._SCOPE.reset(token)


def test_a_limiter_runs_at_most_max_running_calls(tmp_path):
    reg = Registry()
    running: list[int] = []
    peak: list[int] = []
    lock = threading.Lock()

    @reg.tool
    def slow() -> str:
        """Sleep a little."""
        with lock:
            running.append(1)
            peak.append(len(running))
        time.sleep(0.3)
        with lock:
            running.pop()
        return "done"

    async def main() -> list[str]:
        limiter = CallLimiter(2)
        outs = await asyncio.gather(*(reg.acall("slow", {}, limiter=limiter) for _ in range(6)))
        assert limiter.running == 0
        return [out.text for out in outs]

    assert asyncio.run(asyncio.wait_for(main(), 60)) == ["done"] * 6
    assert max(peak) == 2


def test_a_call_cancelled_while_waiting_never_starts(tmp_path):
    reg = Registry()
    started: list[str] = []

    @reg.tool
    def mark(name: str) -> str:
        """Record a start, then wait a little.

        Args:
            name: What to record.
        """
        started.append(name)
        time.sleep(0.5)
        return name

    async def main() -> None:
        limiter = CallLimiter(1)
        first = asyncio.create_task(reg.acall("mark", {"name": "first"}, limiter=limiter))
        await asyncio.sleep(0.1)
        second = asyncio.create_task(reg.acall("mark", {"name": "second"}, limiter=limiter))
        await asyncio.sleep(0.1)
        second.cancel()
        assert (await first).text == "first"
        with contextlib.suppress(asyncio.CancelledError):
            await second
        await asyncio.sleep(0.7)

    asyncio.run(asyncio.wait_for(main(), 60))
    assert started == ["first"]


# --- a toolset nobody closed (item 18) ----------------------------------------------------------------------------

_SCRIPTS = {
    "gemini": 'reg.call("run_shell_command", {"command": f"sleep 300 & echo $! > {PID}"})',
    "editor": 'reg.call("bash", {"command": f"sleep 300 & echo $! > {PID}"})',
    "editor-task": 'reg.call("bash", {"command": f"echo $$ > {PID}; exec sleep 300", "run_in_background": True})',
    "assistant": 'reg.call("exec", {"command": f"sleep 300 & echo $! > {PID}"})',
    "assistant-process": 'reg.call("process", {"action": "start", "command": f"echo $$ > {PID}; exec sleep 300"})',
}


@pytest.mark.parametrize("case", list(_SCRIPTS))
@pytest.mark.parametrize("held", [True, False], ids=["global", "dropped"])
def test_an_unclosed_toolset_leaves_nothing_at_exit(tmp_path, case, held):
    pid_file = tmp_path / "job.pid"
    name = case.split("-")[0]
    body = _SCRIPTS[case]
    # the job has started (its pid is written) before the toolset is dropped or the interpreter exits
    wait = "while not (os.path.exists(PID) and open(PID).read().strip()): time.sleep(0.02)"
    if held:
        script = (f"import os, time, agenttools\nPID = {str(pid_file)!r}\n"
                  f"reg = agenttools.toolset({name!r}, root={str(tmp_path)!r})\n{body}\n{wait}\n")
    else:
        script = textwrap.dedent(f"""\
            import os, time, agenttools
            PID = {str(pid_file)!r}
            def run():
                reg = agenttools.toolset({name!r}, root={str(tmp_path)!r})
                {body}
                {wait}
            run()
            """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, done.stderr
    pid = read_pid(pid_file, timeout=5)
    assert gone(pid), f"{case}: a background job outlived the interpreter"


@pytest.mark.parametrize(("name", "tool", "argument"), [("editor", "bash", "command"),
                                                    ("gemini", "run_shell_command", "command")])
def test_a_collected_toolset_kills_what_its_commands_left(tmp_path, name, tool, argument):
    pid_file = tmp_path / "left.pid"
    reg = toolset(name, root=str(tmp_path))
    out = reg.call(tool, {argument: f"sleep 300 & echo $! > {pid_file}"})
    assert not out.is_error, out.text
    pid = read_pid(pid_file)
    assert process_alive(pid)
    del reg, out
    gc.collect()
    assert gone(pid), "a background job outlived its garbage-collected toolset"


# --- the assistant's finished records are bounded (item 10) -----------------------------------------------------

def test_finished_records_are_bounded_and_running_ones_kept(tmp_path):
    manager = ProcessManager()
    try:
        keeper = manager.start("sleep 60", cwd=tmp_path)
        for index in range(80):
            status = manager.start(f"echo {index}", cwd=tmp_path)
            manager.wait(status.id, 10)
        manager.list()
        assert len(manager) <= 64 + 1, len(manager)
        assert keeper.id in manager and manager.status(keeper.id).running
        assert "proc-2" not in manager  # the oldest finished went first
        assert manager.status("proc-81").stdout == "79\n"  # the newest finished is kept
    finally:
        manager.close()


def test_finished_output_is_bounded_in_bytes(tmp_path):
    manager = ProcessManager()
    try:
        keeper = manager.start("head -c 1000000 /dev/zero; sleep 60", cwd=tmp_path)
        for _ in range(20):  # 20 x 1 MiB kept (each stream keeps its last MiB)
            status = manager.start("head -c 1048576 /dev/zero | tr '\\0' x", cwd=tmp_path)
            manager.wait(status.id, 30)
        manager.list()
        assert len(manager) < 21
        assert manager.finished_bytes() <= 16 * 1024 * 1024
        assert manager.status(keeper.id).running  # a running process is never evicted, whatever it holds
    finally:
        manager.close()


def test_the_assistant_forgets_old_records_through_its_tool(tmp_path):
    with toolset("assistant", root=str(tmp_path)) as reg:
        for index in range(70):
            out = reg.call("process", {"action": "start", "command": f"echo {index}"})
            assert not out.is_error, out.text
            time.sleep(0.01)
        deadline = time.monotonic() + 30
        listed = reg.call("process", {"action": "list"}).text
        while '"running":true' in listed and time.monotonic() < deadline:
            time.sleep(0.1)
            listed = reg.call("process", {"action": "list"}).text
        assert listed.count('"process_id"') <= 64
        gone = reg.call("process", {"action": "status", "process_id": "proc-1"})
        assert gone.text == "ERROR: process not found: proc-1"
