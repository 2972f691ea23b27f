"""The sandbox as a family: its policy object, the probe and the fallback, failures, masks kept up to date, cleanup.

The hostile-model matrix over the toolsets is tests/security/test_sandbox.py; this file checks the pieces.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings

import pytest

import agenttools
from agenttools import ConfigError, Sandbox, SandboxError, SandboxWarning, Workspace
from agenttools import sandbox as sandbox_module
from agenttools.process import ProcessTable
from agenttools.shell import run_command, run_shell


@pytest.fixture
def box(tmp_path):
    with Sandbox(Workspace(tmp_path), mode="bwrap") as sandbox:
        yield sandbox


def test_bwrap_mode_runs_in_bubblewrap_here(box, tmp_path):
    assert (box.active, box.engine, box.reason) == (True, "bwrap", None)
    done = run_shell("cat /proc/self/status; touch /etc/agenttools-x", cwd=tmp_path, sandbox=box)
    assert "NoNewPrivs:\t1" in done.stdout and "CapEff:\t0000000000000000" in done.stdout
    assert "Read-only file system" in done.stderr
    assert not os.path.exists("/etc/agenttools-x")


def test_a_masked_path_appearing_later_is_masked_from_the_next_command_on(tmp_path):
    (tmp_path / "sub").mkdir()
    with Sandbox(Workspace(tmp_path, deny=["**/.env"]), mode="bwrap") as box:
        assert run_shell("echo hi", cwd=tmp_path, sandbox=box).stdout == "hi\n"
        (tmp_path / "sub" / ".env").write_text("TOKEN=s3cret")  # after the first scan, in a known directory
        done = run_shell("cat sub/.env; ls -a sub", cwd=tmp_path, sandbox=box)
        assert "s3cret" not in done.stdout and "Permission denied" in done.stderr
        assert ".env" in done.stdout  # masked, not removed
    assert (tmp_path / "sub" / ".env").read_text() == "TOKEN=s3cret"


def test_a_denied_directory_shows_nothing_and_a_denied_symlink_masks_no_target(tmp_path):
    """A denied symlink's target is as readable as the file tools make it: by its own path, which is not denied.

    Masking targets would let a model mask anything (``.env -> /bin/sh`` would stop every later command).
    """
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key").write_text("KEY-123")
    (tmp_path / "real.txt").write_text("TARGET-456")
    (tmp_path / "link.pem").symlink_to(tmp_path / "real.txt")
    (tmp_path / "shell.pem").symlink_to("/bin/sh")
    with Sandbox(Workspace(tmp_path, deny=["secrets", "*.pem"]), mode="bwrap") as box:
        done = run_shell("ls secrets; cat secrets/key; cat real.txt; /bin/sh -c 'echo sh runs'", cwd=tmp_path,
                         sandbox=box)
    assert "KEY-123" not in done.stdout and "Permission denied" in done.stderr
    assert done.stdout == "TARGET-456sh runs\n"
    with agenttools.toolset("gemini", root=str(tmp_path), deny=["*.pem"], sandbox="none") as reg:
        assert reg.call("read_file", {"absolute_path": str(tmp_path / "real.txt")}).text == "TARGET-456"


def test_the_process_family_runs_in_the_sandbox_and_reports_the_real_status(box, tmp_path):
    with ProcessTable(sandbox=box) as table:
        status = table.start("echo $$; exit 7", cwd=tmp_path)
        status = table.wait(status.id, 10)
        assert (status.running, status.exit_code, status.stdout) == (False, 7, "2\n")  # pid 2: its own namespace
        status = table.start("kill -9 $$", cwd=tmp_path)
        status = table.wait(status.id, 10)
        assert (status.exit_code, status.signal) == (None, 9)


def test_a_trapped_sigterm_is_the_commands_to_handle(box, tmp_path):
    """A signal to a sandboxed task goes to the command, not to bubblewrap (which would report it ended)."""
    import signal
    import time

    with ProcessTable(sandbox=box) as table:
        status = table.start("trap 'echo caught' TERM; echo ready; while :; do sleep 0.05; done", cwd=tmp_path)
        deadline = time.monotonic() + 10
        while "ready" not in table.status(status.id).stdout:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        table.signal(status.id, signal.SIGTERM)
        time.sleep(0.5)
        after = table.status(status.id)
        assert after.running and "caught" in after.stdout


def test_a_sandbox_that_cannot_start_is_an_error_and_runs_nothing(tmp_path):
    root = tmp_path / "gone"
    root.mkdir()
    with Sandbox(Workspace(root), mode="bwrap") as box:
        assert box.active
        root.rmdir()  # the workspace it must bind no longer exists
        done = run_command(["sh", "-c", f"touch {tmp_path}/ran"], cwd=tmp_path, sandbox=box)
        assert done.error is not None and done.error.startswith("the sandbox could not start: ")
        assert "\n" not in done.error and done.exit_code is None
        with pytest.raises(SandboxError, match=r"^the sandbox could not start: "), ProcessTable(sandbox=box) as table:
            table.start("touch ran", cwd=tmp_path)
    assert not (tmp_path / "ran").exists()


def test_the_toolsets_word_a_failed_sandbox_as_their_errors(tmp_path):
    root = tmp_path / "gone"
    root.mkdir()
    with agenttools.toolset("gemini", root=str(root)) as reg:
        root.rmdir()
        root.mkdir()  # a new directory at the same path: what the sandbox was told to bind is still there
        assert reg.call("run_shell_command", {"command": "echo ok"}).text.splitlines()[2] == "Stdout: ok"
    with agenttools.toolset("editor", root=str(root)) as reg:
        (root / "sub").mkdir()
        reg.call("bash", {"command": "cd sub"})
        (root / "sub").rmdir()
        out = reg.call("bash", {"command": "echo ok"})  # the session cwd vanished: the editor falls back to root
        assert out.text == "exit_code: 0\n\nstdout:\nok\n"


def test_closed_sandboxes_remove_their_private_directory_and_cgroups(tmp_path):
    before = {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("agenttools-sandbox-")}
    box = Sandbox(Workspace(tmp_path), mode="bwrap")
    run_shell("echo x > /tmp/private-file; echo y > ~/home-file", cwd=tmp_path, sandbox=box)
    made = {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("agenttools-sandbox-")} - before
    assert len(made) == 1
    groups = list(box._cgroups[0].dirs)
    assert groups and all(os.path.isdir(group) for group in groups)
    box.close()
    assert not os.path.exists(os.path.join(tempfile.gettempdir(), made.pop()))
    assert not any(os.path.exists(group) for group in groups)
    with pytest.raises(SandboxError, match="closed"):
        box.popen(["true"], cwd=tmp_path)


def test_the_home_is_read_when_the_sandbox_is_made(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PRIVATE")
    root = tmp_path / "root"
    root.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with Sandbox(Workspace(root), mode="bwrap") as box:
        monkeypatch.setenv("HOME", "/nonexistent")  # later changes do not matter: the home was read already
        done = run_shell(f"ls -A {home}; cat {home}/.ssh/id_rsa; echo $HOME", cwd=root, sandbox=box,
                         env={**os.environ, "HOME": str(home)})
    assert "PRIVATE" not in done.stdout and ".ssh" not in done.stdout
    assert done.stdout.endswith(f"{home}\n")


def test_the_running_python_stays_visible(box, tmp_path):
    done = run_command([sys.executable, "-c", "import agenttools, sys; print(sys.prefix)"], cwd=tmp_path,
                       sandbox=box)
    assert (done.exit_code, done.stdout) == (0, sys.prefix + "\n"), done.stderr


def test_git_metadata_stays_read_only_in_a_linked_worktree(tmp_path):
    main = tmp_path / "main"
    main.mkdir()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    git = ["git", "-c", "user.name=a", "-c", "user.email=b"]
    subprocess.run([*git, "init", "-q", str(main)], check=True, env=env)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "x"], check=True, env=env)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(tmp_path / "wt")], check=True, env=env)
    common = main / ".git"
    config = (common / "config").read_bytes()
    # the worktree's root and the main repository are both writable: the common directory is protected too
    with Sandbox(Workspace(tmp_path / "wt", allow_dirs=[tmp_path]), mode="bwrap") as box:
        done = run_shell(f"echo '[core]' >> {common}/config; echo x > {common}/hooks/post-checkout; "
                         "echo 'gitdir: /elsewhere' > .git", cwd=tmp_path / "wt", sandbox=box)
    assert done.stderr.count("Read-only file system") == 3, done.stderr
    assert (common / "config").read_bytes() == config
    assert not (common / "hooks" / "post-checkout").exists()
    assert (tmp_path / "wt" / ".git").read_text().startswith("gitdir: ")


def test_returncode_turns_128_plus_n_back_into_a_signal(box):
    assert [box.returncode(code) for code in (0, 1, 128, 137, 143, 192, 193, 255)] == [0, 1, 128, -9, -15, -64,
                                                                                        193, 255]
    none = Sandbox(mode="none")
    assert none.returncode(137) == 137 and not none.active and none.reason == "sandbox='none'"


def test_auto_warns_and_falls_back_when_bubblewrap_is_missing(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_module, "find_bwrap", lambda avoid=(): [])
    with pytest.warns(SandboxWarning, match="bubblewrap \\(bwrap\\) is not installed"), \
            agenttools.toolset("gemini", root=str(tmp_path)) as reg:
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SandboxWarning)
        reg = agenttools.toolset("gemini", root=str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning, when built: none for the calls
        out = reg.call("run_shell_command", {"command": "echo $HOME"})
    assert out.text.splitlines()[2] == f"Stdout: {os.environ['HOME']}"
    reg.close()
    with pytest.raises(ConfigError, match="option 'sandbox' is 'bwrap' but bubblewrap cannot run here: bubblewrap"):
        agenttools.toolset("gemini", root=str(tmp_path), sandbox="bwrap")


def test_auto_probes_on_the_first_command_and_warns_once_if_the_probe_fails(tmp_path, monkeypatch):
    fake = tmp_path / "bwrap"
    runs = tmp_path / "runs"
    fake.write_text(f"#!/bin/sh\necho run >> {runs}\necho 'bwrap: No permissions to create new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    (tmp_path / "a.txt").write_text("a\n")
    monkeypatch.setattr(sandbox_module, "find_bwrap", lambda avoid=(): [str(fake)])
    monkeypatch.setattr(sandbox_module, "_PROBES", {})
    reg = agenttools.toolset("openai", root=str(tmp_path))  # no process yet: building warns of nothing
    gemini = agenttools.toolset("gemini", root=str(tmp_path))
    assert gemini.call("read_file", {"absolute_path": str(tmp_path / "a.txt")}).text == "a\n"
    assert not runs.exists()  # building toolsets and using their file tools starts no sandbox, not even the probe
    with pytest.warns(SandboxWarning, match="No permissions to create new namespace"):
        first = reg.call("shell", {"commands": ["echo one"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = reg.call("shell", {"commands": ["echo two"]})
    with pytest.warns(SandboxWarning):  # each toolset warns once; the probe is not run again
        gemini.call("run_shell_command", {"command": "true"})
    gemini.close()
    assert runs.read_text() == "run\n"
    assert '"stdout": "one\\n"' in first.text and '"stdout": "two\\n"' in second.text
    expected = f"{fake} cannot make a sandbox here: No permissions to create new namespace"
    assert {str(fake): expected} == sandbox_module._PROBES
    reg.close()


@pytest.mark.parametrize(("options", "message"), [
    ({"sandbox": "none", "network": False}, "option 'network' applies only to sandboxed commands"),
    ({"sandbox": "none", "memory_limit": "1GiB"}, "option 'memory_limit' applies only to sandboxed commands"),
    ({"sandbox": "none", "max_processes": 10}, "option 'max_processes' applies only to sandboxed commands"),
    ({"sandbox": "docker"}, "option 'sandbox' of toolset 'assistant' must be one of 'auto', 'bwrap', 'none'"),
    ({"network": "yes"}, "option 'network' of toolset 'assistant' must be True or False"),
    ({"memory_limit": "lots"}, "option 'memory_limit' of toolset 'assistant' must be a positive size"),
    ({"max_processes": 0}, "option 'max_processes' of toolset 'assistant' must be a positive integer"),
])
def test_sandbox_options_are_checked_when_the_toolset_is_built(tmp_path, options, message):
    with pytest.raises(ConfigError, match=message.replace("(", "\\(").replace(")", "\\)")):
        agenttools.toolset("assistant", root=str(tmp_path), **options)


def test_the_cli_shows_and_passes_the_sandbox_options(tmp_path):
    help_text = subprocess.run([sys.executable, "-m", "agenttools", "call", "--toolset", "openai", "--help"],
                               capture_output=True, text=True, check=True).stdout
    for flag in ("--sandbox {auto,bwrap,none}", "--network", "--memory-limit", "--max-processes"):
        assert flag in help_text
    coder = subprocess.run([sys.executable, "-m", "agenttools", "call", "--toolset", "coder", "--help"],
                           capture_output=True, text=True, check=True).stdout
    assert "--sandbox" not in coder  # no command tool, no sandbox option
    done = subprocess.run([sys.executable, "-m", "agenttools", "call", "--toolset", "openai", "--root", str(tmp_path),
                           "--sandbox", "none", "--network", "shell", '{"commands": ["true"]}'],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "option 'network' applies only to sandboxed commands" in done.stderr


def test_variables_that_point_into_the_hidden_home_or_tmp_are_left_out(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".pyenv" / "bin").mkdir(parents=True)
    root = tmp_path / "root"
    root.mkdir()
    monkeypatch.setenv("HOME", str(home))
    env = {**os.environ, "HOME": str(home), "SSH_AUTH_SOCK": "/tmp/ssh-XXXX/agent.1", "GNUPGHOME": f"{home}/.gnupg",
           "PYENV_ROOT": f"{home}/.pyenv", "PATH": f"{home}/.pyenv/bin{os.pathsep}{os.environ['PATH']}",
           "PROJECT": str(root), "GREETING": "/tmp is private"}
    with Sandbox(Workspace(root), mode="bwrap", env=env) as box:
        done = run_shell("env", cwd=root, sandbox=box, env=env)
    seen = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    assert "SSH_AUTH_SOCK" not in seen and "GNUPGHOME" not in seen
    assert seen["HOME"] == str(home) and seen["PYENV_ROOT"] == f"{home}/.pyenv"  # the home itself, a kept tool dir
    assert seen["PROJECT"] == str(root) and seen["GREETING"] == "/tmp is private"
    assert seen["PATH"].startswith(f"{home}/.pyenv/bin")
