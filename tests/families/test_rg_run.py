"""search.rg.run_rg: a bounded run of ripgrep in its own process group, stopped by timeout, cancel or watchdog."""

from __future__ import annotations

import os
import sys
import time

from agenttools.search.rg import find_rg, run_rg
from conftest import GONE_WITHIN, gone


def test_a_timeout_kills_the_whole_process_group(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = f"import subprocess, time; p = subprocess.Popen(['sleep', '60']); open({str(pid_file)!r}, 'w')" \
             ".write(str(p.pid)); time.sleep(60)"
    started = time.monotonic()
    run = run_rg([sys.executable, "-c", script], cwd=tmp_path, timeout=1.0)
    assert run.timed_out and run.exit_code is None
    assert time.monotonic() - started < 10
    child = int(pid_file.read_text())
    assert gone(child, GONE_WITHIN), "a child of the stopped program outlived it"


def test_output_beyond_keep_is_counted_not_kept(tmp_path):
    run = run_rg([sys.executable, "-c", "import sys; sys.stdout.write('x' * 5_000_000)"], cwd=tmp_path, keep=1000)
    assert (run.exit_code, len(run.stdout), run.stdout_bytes) == (0, 1000, 5_000_000)
    assert not (run.timed_out or run.cancelled or run.stopped)


def test_ripgrep_itself(tmp_path):
    (tmp_path / "a.txt").write_text("needle\nhay\n")
    rg = find_rg()
    assert rg is not None
    run = run_rg([os.path.abspath(rg), "--no-config", "-n", "needle"], cwd=tmp_path)
    assert (run.exit_code, run.stdout, run.stderr) == (0, b"a.txt:1:needle\n", b"")
    assert run_rg([rg, "--no-config", "absent"], cwd=tmp_path).exit_code == 1
