"""agenttools.ray.WorkspacePool on a real local Ray cluster (2 CPUs, no dashboard)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, TypedDict

import attrs
import pytest

import agenttools
from agenttools.output import error_code
from agenttools.sdk import FORMATS
from conftest import _marked_processes, cancel_and_wait_gone, gone, process_alive, read_pid, tiny_png

ray = pytest.importorskip("ray")

from agenttools.ray import WorkerDiedError, WorkspacePool  # noqa: E402 - only with Ray installed

TESTS = Path(__file__).resolve().parent
DATA_FIELDS = [field.name for field in attrs.fields(agenttools.Tool)
               if field.name not in ("handler", "is_async", "native_arguments")]


def _ray_processes_left() -> list[int]:
    """This test session's processes that are Ray's (its GCS, raylet, workers), still running."""
    found = []
    for pid in _marked_processes(os.environ.get("AGENTTOOLS_TEST_SESSION", "")):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as handle:
            if b"ray" in handle.read():
                found.append(pid)
    return found


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray cluster for this module; its workers can import the tests' toolset modules.

    Shut down when the module's tests end, and waited for: Ray's processes take seconds to go on a busy machine,
    and the session's end checks that nothing the tests started still runs.
    """
    if ray.is_initialized():  # someone else's cluster: use it as it is
        yield ray
        return
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), old]))  # inherited by the raylet
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    yield ray
    ray.shutdown()
    deadline = time.monotonic() + 5
    while _ray_processes_left() and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in _ray_processes_left():  # what Ray's shutdown left to wind down on its own: no need to wait
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert all(gone(pid) for pid in _ray_processes_left())


def _workspace(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "a.txt").write_text("alpha\n")
    (path / "img.png").write_bytes(tiny_png())
    (path / "sub").mkdir()
    (path / "sub" / "b.py").write_text("print('b')\n")
    return path


@pytest.fixture(scope="module")
def gemini(ray_cluster, tmp_path_factory):
    roots = [_workspace(tmp_path_factory.mktemp("gemini") / f"w{i}") for i in range(2)]
    with WorkspacePool("gemini", roots=roots) as pool:
        yield pool


@pytest.fixture(scope="module")
def editor(ray_cluster, tmp_path_factory):
    roots = [_workspace(tmp_path_factory.mktemp("editor") / f"w{i}") for i in range(2)]
    with WorkspacePool("editor", roots=roots) as pool:
        yield pool


def _shell(pool: WorkspacePool, index: int, command: str) -> str:
    """The stdout of a gemini ``run_shell_command`` in workspace ``index``."""
    out = pool[index].call("run_shell_command", {"command": command})
    assert not out.is_error, out.text
    return out.text.split("Stdout: ", 1)[1].split("\nStderr:", 1)[0]


# --- calls --------------------------------------------------------------------------------------------------------

def test_calls_to_different_workspaces_run_in_parallel(gemini):
    started = time.monotonic()
    outs = gemini.call_many([(0, "run_shell_command", {"command": "sleep 1.5; echo zero"}),
                             (1, "run_shell_command", {"command": "sleep 1.5; echo one"})])
    elapsed = time.monotonic() - started
    assert ["Stdout: zero" in outs[0].text, "Stdout: one" in outs[1].text] == [True, True]
    assert elapsed < 2.7, elapsed  # one after the other would take 3 s


def test_calls_to_one_workspace_run_in_order(gemini):
    calls: list[tuple[int, str, Any]] = [(0, "run_shell_command", {"command": "rm -f order.log"})]
    # the first sleeps longest: run out of order, the log would show it
    calls += [(0, "run_shell_command", {"command": f"sleep 0.{4 - step}; echo {step} >> order.log"})
              for step in range(5)]
    calls.append((1, "run_shell_command", {"command": "echo other"}))
    calls.append((0, "read_file", {"absolute_path": str(Path(gemini.roots[0]) / "order.log")}))
    outs = gemini.call_many(calls)
    assert outs[-1].text == "0\n1\n2\n3\n4\n"
    assert "Stdout: other" in outs[-2].text
    assert not (Path(gemini.roots[1]) / "order.log").exists()


def test_concurrent_calls_to_one_workspace_run_in_the_order_made(gemini):
    log = Path(gemini.roots[0]) / "gather.log"

    async def scenario() -> list[str]:
        await gemini[0].acall("run_shell_command", {"command": "rm -f gather.log"})
        first = asyncio.ensure_future(gemini[0].acall("run_shell_command", {"command": "sleep 0.5; echo A >> gather.log"}))
        await asyncio.sleep(0.1)
        queued = asyncio.ensure_future(gemini[0].acall("run_shell_command", {"command": "echo B >> gather.log"}))
        rest = [asyncio.ensure_future(gemini[0].acall("run_shell_command", {"command": f"echo {i} >> gather.log"}))
                for i in range(20)]
        await asyncio.sleep(0.1)
        queued.cancel()  # cancelled while it waits for its turn: it never runs, and the calls after it go on
        outs = await asyncio.gather(first, *rest)
        assert not any(out.is_error for out in outs)
        return log.read_text().split()

    assert asyncio.run(scenario()) == ["A", *map(str, range(20))]


def test_each_workspace_keeps_its_own_state(editor):
    assert editor[0].call("bash", {"command": "cd sub"}).text.startswith("exit_code: 0")
    pwd = [editor[i].call("bash", {"command": "pwd"}).text for i in range(2)]
    assert pwd[0].endswith(f"{editor.roots[0]}/sub\n"), pwd[0]
    assert pwd[1].endswith(f"{editor.roots[1]}\n"), pwd[1]
    editor[0].call("bash", {"command": "cd .."})


@pytest.mark.parametrize("toolset", ["gemini", "editor", "openai", "anthropic", "filesystem", "coder", "assistant"])
def test_definitions_are_the_local_toolsets(ray_cluster, tmp_path, toolset):
    with agenttools.toolset(toolset, root=str(tmp_path)) as local, WorkspacePool(toolset, roots=[tmp_path]) as pool:
        remote = pool[0]
        assert remote.names() == local.names()
        for fmt in FORMATS:
            for strict in (None, True, False):
                assert remote.definitions(fmt, strict=strict) == local.definitions(fmt, strict=strict), fmt
        for mine, theirs in zip(remote, local, strict=True):
            assert {f: getattr(mine, f) for f in DATA_FIELDS} == {f: getattr(theirs, f) for f in DATA_FIELDS}
            assert mine.is_async
            assert (mine.native_arguments is None) == (theirs.native_arguments is None)


def test_answers_cross_whole_images_errors_structured(gemini, ray_cluster):
    root = gemini.roots[0]
    with agenttools.toolset("gemini", root=root) as local:
        for name, arguments in [
            ("read_file", {"absolute_path": f"{root}/img.png"}),  # an image: its text is not its content's
            ("read_file", {"absolute_path": f"{root}/a.txt"}),
            ("read_file", {"absolute_path": f"{root}/missing.txt"}),  # a failure with a code
            ("read_file", {"absolute_path": "relative.txt"}),
            ("read_file", {"nope": 1}),  # invalid arguments, the toolset's wording
            ("read_file", "{not json"),
            ("no_such_tool", {}),
            ("glob", {"pattern": "**/*.py"}),
        ]:
            mine, theirs = gemini[0].call(name, arguments), local.call(name, arguments)
            assert (mine.text, mine.is_error, mine.content, mine.structured) == \
                   (theirs.text, theirs.is_error, theirs.content, theirs.structured), name
            assert error_code(mine) == error_code(theirs), (name, error_code(theirs))
    image = gemini[0].call("read_file", {"absolute_path": f"{root}/img.png"})
    assert type(image.content[0]).__name__ == "ImageBlock"
    assert image.content[0].to_bytes() == tiny_png()


class Counted(TypedDict):
    """What ``count_lines`` answers."""

    path: str
    lines: int


def counting_toolset(root: str) -> agenttools.Registry:
    """A custom toolset with a structured result (``test_ray_pool:counting_toolset``; the workers import it)."""
    reg = agenttools.Registry()

    @reg.tool(read_only=True, title="Count lines")
    def count_lines(path: str) -> Counted:
        """Count the lines of a file.

        Args:
            path: The file, relative to the root.
        """
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            return {"lines": len(handle.readlines()), "path": path}

    return reg


def test_structured_results_and_a_custom_toolset(ray_cluster, tmp_path):
    (tmp_path / "a.txt").write_text("1\n2\n")
    local = counting_toolset(str(tmp_path))
    with WorkspacePool("test_ray_pool:counting_toolset", roots=[tmp_path]) as pool:
        for fmt in FORMATS:
            assert pool[0].definitions(fmt) == local.definitions(fmt)
        for arguments in ({"path": "a.txt"}, {"path": 3}, {"path": "missing.txt"}):
            mine, theirs = pool[0].call("count_lines", arguments), local.call("count_lines", arguments)
            assert (mine.text, mine.is_error, mine.structured) == (theirs.text, theirs.is_error, theirs.structured)
            assert error_code(mine) == error_code(theirs)
        assert pool[0].call("count_lines", {"path": "a.txt"}).structured == {"path": "a.txt", "lines": 2}


def test_native_call_items_convert_in_the_actor(ray_cluster, tmp_path):
    (tmp_path / "a.txt").write_text("hi\n")
    with WorkspacePool("openai", roots=[tmp_path]) as pool:
        item = pool[0].run({"type": "apply_patch_call", "call_id": "c1", "status": "completed",
                            "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-hi\n+ho\n"}})
        assert item == {"type": "apply_patch_call_output", "call_id": "c1", "status": "completed",
                        "output": "Success. Updated the following files:\nM a.txt\n"}
        assert (tmp_path / "a.txt").read_text() == "ho\n"


def test_a_bad_option_is_the_toolsets_error(ray_cluster, tmp_path):
    with pytest.raises(agenttools.ConfigError, match="does not exist"):
        WorkspacePool("gemini", roots=[tmp_path / "missing"])
    with pytest.raises(agenttools.ConfigError, match="max_restarts"):
        WorkspacePool("gemini", roots=[tmp_path], max_restarts=-2)


# --- cancellation, deaths, close -------------------------------------------------------------------------------------

def test_cancelling_an_acall_kills_its_command(gemini):
    root = Path(gemini.roots[1])

    async def scenario() -> None:
        task = asyncio.ensure_future(gemini[1].acall(
            "run_shell_command", {"command": f"echo $$ > {root}/cancel.pid; exec sleep 30"}))
        pid = await asyncio.to_thread(read_pid, root / "cancel.pid")
        assert process_alive(pid)
        await cancel_and_wait_gone(task, pid)
        assert not process_alive(pid)
        after = await gemini[1].acall("run_shell_command", {"command": "echo next"})  # the workspace goes on
        assert "Stdout: next" in after.text

    asyncio.run(scenario())


def test_a_killed_actor_fails_its_call_and_is_restarted_once(ray_cluster, tmp_path):
    (tmp_path / "sub").mkdir()
    with WorkspacePool("editor", roots=[tmp_path], max_restarts=1) as pool:
        pool[0].call("bash", {"command": "cd sub"})
        first = pool.workers()[0]
        answer: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: answer.setdefault("out", pool[0].call(
            "bash", {"command": f"echo $$ > {tmp_path}/kill.pid; exec sleep 30"})))
        thread.start()
        command = read_pid(tmp_path / "kill.pid")
        os.kill(first.pid, signal.SIGKILL)
        thread.join(30)
        out = answer["out"]
        assert out.is_error
        assert out.text == ("the workspace 0 worker died (its process ended unexpectedly: killed, out of memory or "
                            "crashed); it was restarted with a fresh toolset: its state (shell cwd, background "
                            "tasks, todos) was lost")
        assert isinstance(out.data, WorkerDiedError)
        assert error_code(out) == "worker_died"
        assert gone(command)  # the reaper killed what the dead actor ran
        assert pool[0].call("bash", {"command": "pwd"}).text.endswith(f"{tmp_path}\n")  # a fresh cwd
        second = pool.workers()[0]
        assert (second.alive, second.deaths) == (True, 1)
        assert second.pid != first.pid
        ray.kill(second.actor, no_restart=True)
        died = pool[0].call("bash", {"command": "pwd"})
        assert died.text.startswith("the workspace 0 worker died (killed by ray.kill); it was not restarted (it died 2 "
                                    "times, max_restarts is 1)")
        later = pool[0].call("bash", {"command": "pwd"})
        assert later.is_error
        assert later.text == ("the workspace 0 worker is gone: it died 2 times (killed by ray.kill) and "
                              "max_restarts is 1")
        assert not pool.workers()[0].alive


def test_close_ends_every_actor(ray_cluster, tmp_path):
    pool = WorkspacePool("editor", roots=[tmp_path], sandbox="none")
    pool[0].call("bash", {"command": "sleep 30", "run_in_background": True})
    worker = pool.workers()[0]
    pool.close()
    assert gone(worker.pid, within=5)
    with pytest.raises(ray.exceptions.RayActorError):
        ray.get(worker.actor.pid.remote(), timeout=30)
    out = pool[0].call("bash", {"command": "pwd"})
    assert (out.is_error, out.text) == (True, "the workspace 0 worker is closed (the pool was closed)")
    pool.close()  # again: nothing


# --- workspaces from git -----------------------------------------------------------------------------------------------

def _git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _repo(path: Path) -> tuple[str, str]:
    path.mkdir()
    _git("init", "-q", "-b", "main", cwd=path)
    (path / "f.txt").write_text("one\n")
    (path / ".gitattributes").write_text("* filter=evil\n")
    _git("add", ".", cwd=path)
    _git("commit", "-qm", "one", cwd=path)
    first = _git("rev-parse", "HEAD", cwd=path).strip()
    (path / "f.txt").write_text("two\n")
    _git("commit", "-qam", "two", cwd=path)
    return first, _git("rev-parse", "HEAD", cwd=path).strip()


def _arm(repo: Path, marker: Path) -> None:
    """Hooks, filters and an fsmonitor in the repository's own config, each writing ``marker``."""
    touch = f"#!/bin/sh\ntouch {marker}\ncat\n"
    for hooks in (repo / ".git" / "hooks", repo / "evil-hooks"):
        hooks.mkdir(exist_ok=True)
        for name in ("post-checkout", "pre-commit", "post-merge", "reference-transaction", "fsmonitor"):
            (hooks / name).write_text(touch)
            (hooks / name).chmod(0o755)
    _git("config", "core.hooksPath", str(repo / "evil-hooks"), cwd=repo)
    _git("config", "core.fsmonitor", str(repo / "evil-hooks" / "fsmonitor"), cwd=repo)
    _git("config", "filter.evil.smudge", f"sh -c 'touch {marker}; cat'", cwd=repo)
    _git("config", "filter.evil.clean", f"sh -c 'touch {marker}; cat'", cwd=repo)
    _git("config", "filter.evil.required", "true", cwd=repo)


def test_from_git_copies_at_a_commit_and_removes_them(ray_cluster, tmp_path):
    first, _ = _repo(tmp_path / "repo")
    pool = WorkspacePool.from_git(tmp_path / "repo", first, 2, toolset="gemini")
    try:
        roots = [Path(root) for root in pool.roots]
        assert [(root / "f.txt").read_text() for root in roots] == ["one\n", "one\n"]
        (roots[0] / "f.txt").write_text("changed\n")
        assert (roots[1] / "f.txt").read_text() == "one\n"
        assert _shell(pool, 1, "git rev-parse HEAD && git status --porcelain") == f"{first}\n"  # git works inside
        assert _shell(pool, 0, "git status --porcelain") == " M f.txt\n"
    finally:
        pool.close()
    assert not any(root.exists() for root in roots)
    assert pool.base_dir is not None and not os.path.exists(pool.base_dir)
    with WorkspacePool.from_git(tmp_path / "repo", "main", 1, toolset="gemini", keep=True) as kept:
        assert (Path(kept.roots[0]) / "f.txt").read_text() == "two\n"
    assert Path(kept.roots[0], "f.txt").exists()
    assert kept.base_dir is not None
    subprocess.run(["rm", "-rf", kept.base_dir], check=True)
    with pytest.raises(agenttools.GitError, match="is not a commit"):
        WorkspacePool.from_git(tmp_path / "repo", "--upload-pack=touch", 1)


def test_from_git_runs_nothing_of_a_hostile_repository(ray_cluster, tmp_path):
    first, _ = _repo(tmp_path / "repo")
    marker = tmp_path / "pwned"
    _arm(tmp_path / "repo", marker)
    _git("checkout", "-q", "--detach", first, cwd=tmp_path / "repo")  # the trap works for a plain git
    assert marker.exists()
    marker.unlink()
    with WorkspacePool.from_git(tmp_path / "repo", first, 2, toolset="gemini") as pool:
        assert [(Path(root) / "f.txt").read_text() for root in pool.roots] == ["one\n", "one\n"]
        assert not any((Path(root) / ".git" / "hooks").exists() for root in pool.roots)
    assert not marker.exists()
