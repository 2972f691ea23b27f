"""CrewAI's own agent loop over ``reg.to_crewai()``: tests/integrations/crewai_e2e.py, run in a Python with crewai.

CrewAI cannot share the test environment (its pins downgrade other frameworks), so its tests run in a Python of
their own: ``AGENTTOOLS_CREWAI_PYTHON`` if set, else a virtualenv made once and cached in
``~/.cache/agenttools/crewai-venv`` (crewai, pytest and this repository, editable). The run imports agenttools from
this clone whichever clone the cached venv was made from.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import upstream_unavailable

ROOT = Path(__file__).resolve().parents[2]
CREWAI = "1.15.30"
"""The CrewAI the cached venv gets (the version the adapter and these tests were checked against)."""
VENV = Path.home() / ".cache" / "agenttools" / "crewai-venv"


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


def crewai_python() -> str:
    """``AGENTTOOLS_CREWAI_PYTHON``, else the cached venv's python (made first if missing or out of date)."""
    given = os.environ.get("AGENTTOOLS_CREWAI_PYTHON")
    if given:
        return given
    python = VENV / "bin" / "python"
    stamp = VENV / "agenttools-crewai.json"
    VENV.parent.mkdir(parents=True, exist_ok=True)
    with open(VENV.parent / "crewai-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs at once: one makes the venv, the other waits for it
        with contextlib.suppress(OSError, ValueError):
            if json.loads(stamp.read_text())["crewai"] == CREWAI and python.exists():
                return str(python)
        shutil.rmtree(VENV, ignore_errors=True)
        steps = [[sys.executable, "-m", "venv", str(VENV)],
                 [str(python), "-m", "pip", "install", "-q", f"crewai=={CREWAI}", "pytest", "-e", str(ROOT)]]
        for step in steps:
            try:
                done = subprocess.run(step, capture_output=True, text=True, timeout=1200, check=False)
            except subprocess.TimeoutExpired:
                upstream_unavailable(f"making the CrewAI venv timed out: {' '.join(step)}")
            if done.returncode != 0:
                upstream_unavailable(f"could not make the CrewAI venv in {VENV} ({' '.join(step[:4])}...):\n"
                                     f"{_tail(done.stdout + done.stderr)}")
        stamp.write_text(json.dumps({"crewai": CREWAI, "root": str(ROOT)}))
    return str(python)


def test_crewai_agent_loop_in_its_own_python(tmp_path: Path):
    python = crewai_python()
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}  # offline, always
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])]),
               XDG_DATA_HOME=str(tmp_path / "data"),  # CrewAI keeps a SQLite file of each kickoff there
               CREWAI_DISABLE_TELEMETRY="true", OTEL_SDK_DISABLED="true", CREWAI_TRACING_ENABLED="false",
               CREWAI_DISABLE_VERSION_CHECK="true")
    try:
        done = subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/integrations/crewai_e2e.py"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"crewai_e2e.py did not finish in 300 s:\n{exc.stdout!r}") from None
    assert done.returncode == 0, f"crewai_e2e.py failed ({python}):\n{done.stdout}\n{done.stderr}"
    assert " passed" in done.stdout and " skipped" not in done.stdout, done.stdout
