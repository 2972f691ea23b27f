"""No command runs that the coder toolset did not choose: a hostile repository cannot make ``git_diff`` run
programs, and the model's ``rg`` arguments cannot run programs or read outside the root.

Everything is real: git repositories in ``tmp_path``, scripts that leave a marker file when anything runs them,
the ripgrep binary. A marker that exists after the call is a command the workspace (or the model) chose.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

import agenttools
from agenttools.search.rg import find_rg

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": os.devnull}


def git(root: Path, *args: str) -> str:
    """Run the test's own (trusted) git in ``root``, with no user or system config."""
    env = {**os.environ, **GIT_ENV}
    for key in [k for k in env if k.startswith("GIT_") and k not in GIT_ENV]:
        del env[key]
    return subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=n", "-c", "init.defaultBranch=main",
                           *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


class Evil:
    """Scripts outside the project; each leaves ``markers/<name>`` when run, then behaves like ``cat``."""

    def __init__(self, base: Path) -> None:
        self.markers = base / "markers"
        self.bin = base / "bin"
        self.markers.mkdir()
        self.bin.mkdir()

    def script(self, name: str, body: str = 'cat "$@" 2>/dev/null || cat') -> str:
        path = self.bin / name
        path.write_text(f'#!/bin/sh\ntouch "{self.markers}/{name}"\n{body}\n')
        path.chmod(0o755)
        return str(path)

    def ran(self) -> list[str]:
        return sorted(p.name for p in self.markers.iterdir())


@pytest.fixture
def evil(tmp_path) -> Evil:
    return Evil(tmp_path)


@pytest.fixture
def repo(tmp_path) -> Path:
    """A committed repository with a modified text file and a modified data file."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.dat").write_text("data\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    (root / "a.txt").write_text("one\nTWO\n")
    (root / "b.dat").write_text("changed data\n")
    return root


def diff(root: Path) -> str:
    return agenttools.toolset("coder", root=str(root)).call("git_diff", {}).text


def append(path: Path, text: str) -> None:
    with path.open("a") as handle:
        handle.write(text)


def assert_plain_diff(out: str) -> None:
    assert out.startswith("diff --git a/a.txt b/a.txt\n"), out
    assert "-two\n+TWO\n" in out
    assert "-data\n+changed data\n" in out


# --- git: each way a checkout can make git run a program -----------------------------------------------------

def _fsmonitor(root: Path, evil: Evil) -> None:
    append(root / ".git" / "config", f"[core]\n\tfsmonitor = {evil.script('fsmonitor', 'exit 0')}\n")


def _clean_filter(root: Path, evil: Evil) -> None:
    (root / ".gitattributes").write_text("*.txt filter=evil\n")
    append(root / ".git" / "config", f'[filter "evil"]\n\tclean = {evil.script("clean")}\n'
                                     f'\tsmudge = {evil.script("smudge")}\n')


def _process_filter(root: Path, evil: Evil) -> None:
    (root / ".gitattributes").write_text("*.dat filter=proc\n")
    append(root / ".git" / "config", f'[filter "proc"]\n\tprocess = {evil.script("process", "exit 1")}\n')


def _info_attributes(root: Path, evil: Evil) -> None:
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "attributes").write_text("*.txt filter=hidden\n")
    append(root / ".git" / "config", f'[filter "hidden"]\n\tclean = {evil.script("info-attributes")}\n')


def _attributes_file(root: Path, evil: Evil) -> None:
    outside = root.parent / "attributes"
    outside.write_text("*.txt filter=far\n")
    append(root / ".git" / "config", f'[core]\n\tattributesFile = {outside}\n'
                                     f'[filter "far"]\n\tclean = {evil.script("attributes-file")}\n')


def _include(root: Path, evil: Evil) -> None:
    included = root.parent / "included.cfg"
    included.write_text(f"[core]\n\tfsmonitor = {evil.script('include', 'exit 0')}\n")
    append(root / ".git" / "config", f"[include]\n\tpath = {included}\n")


def _include_if(root: Path, evil: Evil) -> None:
    included = root / "inside.cfg"  # a file the checkout itself ships
    included.write_text(f"[core]\n\tfsmonitor = {evil.script('include-if', 'exit 0')}\n")
    append(root / ".git" / "config", '[includeIf "gitdir:/"]\n\tpath = ../inside.cfg\n')


def _submodule(root: Path, evil: Evil) -> None:
    sub = root / "sub"
    sub.mkdir()
    git(sub, "init", "-q")
    (sub / "s.txt").write_text("s\n")
    git(sub, "add", ".")
    git(sub, "commit", "-qm", "s")
    git(root, "add", "sub")
    (sub / "s.txt").write_text("dirty\n")
    append(sub / ".git" / "config", f"[core]\n\tfsmonitor = {evil.script('submodule', 'exit 0')}\n")


def _lazy_fetch(root: Path, evil: Evil) -> None:
    """A partial clone whose promisor remote's upload-pack is a program: reading a missing blob would fetch it."""
    missing = subprocess.run(["git", "hash-object", "--stdin"], input="not here\n", capture_output=True, text=True,
                             check=True).stdout.strip()
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{missing},c.txt")
    (root / "c.txt").write_text("present\n")
    git(root, "config", "core.repositoryformatversion", "1")
    append(root / ".git" / "config", f'[extensions]\n\tpartialClone = origin\n[remote "origin"]\n'
                                     f'\turl = {root.parent}\n\tpromisor = true\n'
                                     f'\tuploadpack = {evil.script("uploadpack", "exit 1")}\n'
                                     f'\tfetch = +refs/heads/*:refs/remotes/origin/*\n')


ATTACKS = [_fsmonitor, _clean_filter, _process_filter, _info_attributes, _attributes_file, _include, _include_if,
           _submodule, _lazy_fetch]


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda f: f.__name__.strip("_"))
def test_a_shipped_git_config_runs_nothing(repo, evil, attack):
    attack(repo, evil)
    out = diff(repo)
    assert evil.ran() == []
    if attack is _lazy_fetch:
        assert out.startswith("Error: "), out  # the missing blob is not fetched: git says so
    else:
        assert_plain_diff(out)


def test_every_command_key_at_once(repo, evil):
    """Everything git documents as running a program, in one shipped config: diff still works, nothing runs."""
    hooks = repo / ".git" / "hooks"
    for hook in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman"):
        Path(evil.script(f"hook-{hook}", "exit 0")).rename(hooks / hook)
    (repo / ".gitattributes").write_text("*.txt filter=evil diff=evil\n*.dat filter=proc merge=evil\n")
    append(repo / ".git" / "config", "".join([
        f"[core]\n\tfsmonitor = {evil.script('fsmonitor', 'exit 0')}\n\tpager = {evil.script('pager')}\n",
        f"\thooksPath = {hooks}\n\tsshCommand = {evil.script('ssh')}\n\taskPass = {evil.script('askpass')}\n",
        f"\teditor = {evil.script('editor')}\n\tgitProxy = {evil.script('proxy')}\n",
        f"\talternateRefsCommand = {evil.script('alternate-refs')}\n",
        f'[filter "evil"]\n\tclean = {evil.script("clean")}\n\tsmudge = {evil.script("smudge")}\n',
        f'[filter "proc"]\n\tprocess = {evil.script("process", "exit 1")}\n',
        f'[diff "evil"]\n\ttextconv = {evil.script("textconv")}\n\tcommand = {evil.script("diff-command")}\n',
        f"[diff]\n\texternal = {evil.script('external')}\n\ttool = evil\n",
        f'[difftool "evil"]\n\tcmd = {evil.script("difftool")}\n',
        f'[merge "evil"]\n\tdriver = {evil.script("merge-driver")}\n',
        f"[pager]\n\tdiff = {evil.script('pager-diff')}\n",
        f"[interactive]\n\tdiffFilter = {evil.script('diff-filter')}\n",
        f"[credential]\n\thelper = !{evil.script('credential')}\n",
        f"[gpg]\n\tprogram = {evil.script('gpg')}\n",
        f"[sequence]\n\teditor = {evil.script('sequence-editor')}\n",
        "[alias]\n\tdiff = !touch /dev/null\n",
    ]))
    out = diff(repo)
    assert evil.ran() == []
    assert_plain_diff(out)


def test_git_environment_is_not_inherited(repo, evil, monkeypatch, tmp_path):
    """The caller's environment does not steer git either: no inherited GIT_* variable, no global config."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\tfsmonitor = {evil.script('global', 'exit 0')}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.fsmonitor")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", evil.script("config-env", "exit 0"))
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", evil.script("external-env"))
    monkeypatch.setenv("GIT_PAGER", evil.script("pager-env"))
    out = diff(repo)
    assert evil.ran() == []
    assert_plain_diff(out)


def test_a_relative_path_entry_does_not_pick_a_projects_git(repo, evil, monkeypatch):
    Path(evil.script("git", "exit 0")).rename(repo / "git")
    monkeypatch.setenv("PATH", os.pathsep.join([".", os.environ["PATH"]]))
    assert_plain_diff(diff(repo))
    assert evil.ran() == []


def test_the_models_own_edits_cannot_arm_git(repo, evil):
    """The edit-then-diff path: the model writes .git/config and .gitattributes with edit_file, then asks for a diff.

    If edit_file refuses to write under .git, the config is written directly: a checkout that ships it.
    """
    reg = agenttools.toolset("coder", root=str(repo))
    config = f'[filter \\"evil\\"]\\n\\tclean = {evil.script("clean")}\\n[core]\\n\\tfsmonitor = ' \
             f'{evil.script("fsmonitor", "exit 0")}\\n'
    current = (repo / ".git" / "config").read_text()
    edited = reg.call("edit_file", {"path": ".git/config", "old_str": "[core]", "new_str": config + "[core]"}).text
    if edited.startswith("Error: "):
        (repo / ".git" / "config").write_text(current + config.replace("\\n", "\n").replace("\\t", "\t")
                                              .replace('\\"', '"'))
    reg.call("edit_file", {"path": ".gitattributes", "old_str": "", "new_str": "*.txt filter=evil\\n"})
    out = reg.call("git_diff", {}).text
    assert evil.ran() == []
    assert "-two\n+TWO\n" in out


# --- git: nothing outside the root is read -------------------------------------------------------------------

def test_alternates_outside_the_root_are_refused(repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    secret = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=other, input="TOP SECRET\n",
                            capture_output=True, text=True, check=True).stdout.strip()
    (repo / ".git" / "objects" / "info" / "alternates").write_text(str(other / ".git" / "objects") + "\n")
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{secret},leak.txt")
    (repo / "leak.txt").write_text("x\n")
    out = diff(repo)
    assert "TOP SECRET" not in out
    assert out.startswith("Error: git_diff: an alternate object store leads outside the project"), out


def test_a_symlinked_git_directory_outside_the_root_is_refused(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    git(outside, "init", "-q")
    (outside / "secret.txt").write_text("TOP SECRET\n")
    git(outside, "add", ".")
    git(outside, "commit", "-qm", "s")
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").symlink_to(outside / ".git")
    (root / "secret.txt").write_text("changed\n")
    out = diff(root)
    assert "TOP SECRET" not in out
    assert out == f"Error: git_diff: .git leads outside the project: {root / '.git'}"


def test_a_symlinked_object_directory_outside_the_root_is_refused(repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    secret = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=other, input="TOP SECRET\n",
                            capture_output=True, text=True, check=True).stdout.strip()
    fan = repo / ".git" / "objects" / secret[:2]
    if fan.exists():
        pytest.skip("the fan-out directory already exists")
    fan.symlink_to(other / ".git" / "objects" / secret[:2])
    git(repo, "update-index", "--add", "--cacheinfo", f"100644,{secret},leak.txt")
    (repo / "leak.txt").write_text("x\n")
    out = diff(repo)
    assert "TOP SECRET" not in out
    assert out.startswith("Error: git_diff: a symlink in the object store leads outside the project"), out


def test_git_diff_still_works(repo):
    assert_plain_diff(diff(repo))
    git(repo, "add", ".")
    assert diff(repo) == "No changes found in working directory"


def test_git_diff_in_a_linked_worktree(repo):
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "second")
    git(repo, "worktree", "add", "-q", "wt")
    (repo / "wt" / "a.txt").write_text("worktree\n")
    out = diff(repo / "wt")
    assert out.startswith("Error: git_diff: the gitdir named in .git leads outside the project"), out
    assert diff(repo).startswith("No changes found")  # wt/ is an untracked directory of repo


def test_git_diff_sha256_repository(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "--object-format=sha256")
    (root / "a.txt").write_text("one\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    (root / "a.txt").write_text("two\n")
    out = diff(root)
    assert out.startswith("diff --git a/a.txt b/a.txt\n"), out
    assert "-one\n+two\n" in out


def test_no_repository(tmp_path):
    assert diff(tmp_path) == "Error: not a git repository: the project directory has no .git"


# --- rg: the model's arguments ----------------------------------------------------------------------------------

needs_rg = pytest.mark.skipif(find_rg() is None, reason="needs the ripgrep binary")


@pytest.fixture
def project(tmp_path) -> Path:
    """A project with a file, and outside it a secret, a pattern file and a directory a symlink points to."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "code.py").write_text("needle here\nSECRET_PATTERN in the project\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("needle TOP SECRET\n")
    (outside / "patterns").write_text("SECRET_PATTERN\n")
    (root / "link").symlink_to(outside)
    return root


def rg(root: Path, args: str, pattern: str = "needle") -> str:
    return agenttools.toolset("coder", root=str(root)).call("rg", {"pattern": pattern, "args": args}).text


@needs_rg
def test_hostname_bin_never_runs(project, evil):
    program = evil.script("hostname", "echo host")
    for args in (f"--hostname-bin={program}", f"--hostname-bin {program}"):
        out = rg(project, args)
        assert out.startswith("Error: rg option not allowed: --hostname-bin"), out
    assert evil.ran() == []


@needs_rg
def test_search_zip_never_starts_a_decompressor(project, evil, monkeypatch):
    """``-z`` hidden in a cluster (``-zj1``) would run ``gzip`` from PATH."""
    Path(evil.script("gzip", "exit 0")).chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(evil.bin), os.environ["PATH"]]))
    (project / "data.gz").write_bytes(b"\x1f\x8b\x08\x00fake")
    for args in ("-zj1", "-iz", "-z", "--search-zip"):
        out = rg(project, args)
        assert out.startswith(("Error: rg option not allowed: -z", "Error: rg option not allowed: --search-zip")), out
    assert evil.ran() == []


@needs_rg
@pytest.mark.parametrize("args", ["-Lj1", "-iL", "-L", "--follow", "-nLC1"])
def test_follow_in_any_form_is_refused(project, args):
    out = rg(project, args)
    assert out.startswith(("Error: rg option not allowed: -L", "Error: rg option not allowed: --follow")), out
    assert "TOP SECRET" not in out


@needs_rg
@pytest.mark.parametrize("form", ["-f{p}", "-f {p}", "-f={p}", "--file={p}", "--file {p}", "-if{p}",
                                  "--ignore-file={p}", "--ignore-file {p}"])
def test_pattern_and_ignore_files_outside_the_root_are_refused(project, form):
    out = rg(project, form.format(p=project.parent / "outside" / "patterns"))
    assert out.startswith("Error: path not allowed: "), out
    assert "SECRET_PATTERN" not in out


@needs_rg
@pytest.mark.parametrize("args", ["-f/dev/zero", "-f /dev/zero", "--file=/dev/zero", "-f fifo", "-ffifo",
                                  "fifo", "--ignore-file fifo", "-- fifo"])
def test_devices_and_fifos_are_never_opened(project, args):
    os.mkfifo(project / "fifo")
    out = rg(project, args)
    assert out.startswith(("Error: path not allowed: /dev/zero", "Error: rg: fifo: not a regular file")), out


@needs_rg
@pytest.mark.parametrize(("args", "error"), [
    ("--frobnicate", "rg option not allowed: --frobnicate (unknown flag)"),
    ("-iY", "rg option not allowed: -Y in -iY (unknown flag)"),
    ("--pre=cat", "rg option not allowed: --pre=cat (it runs programs, reaches outside the project or is not "
                  "available here)"),
    ("--debug", "rg option not allowed: --debug (it runs programs, reaches outside the project or is not "
                "available here)"),
    ("--no-config", "rg option not allowed: --no-config (it runs programs, reaches outside the project or is not "
                    "available here)"),
    ("-j 100000", "rg option not allowed: -j 100000 (at most 64 threads)"),
    ("--threads=65", "rg option not allowed: --threads=65 (at most 64 threads)"),
    ("--regex-size-limit=100G", "rg option not allowed: --regex-size-limit=100G (at most 1G)"),
    ("--dfa-size-limit 2G", "rg option not allowed: --dfa-size-limit 2G (at most 1G)"),
    ("-i=x", "rg option -i takes no value: -i=x"),
    ("--ignore-case=yes", "rg option --ignore-case takes no value: --ignore-case=yes"),
    ("-C", "rg option -C needs a value"),
    ("--context", "rg option --context needs a value"),
])
def test_refusals_name_the_reason(project, args, error):
    assert rg(project, args) == "Error: " + error


@needs_rg
@pytest.mark.parametrize("args", [
    "", "-i", "-inC1", "-n -C 1", "-C1 -n", "-C=1", "--context=1", "--context 1", "-e -x", "-e=here", "-ehere",
    "--regexp=-e", "-nw", "-c", "--count-matches", "-l", "--json", "--no-follow", "--no-search-zip", "--no-pre",
    "-g *.py", "-g=*.py", "--glob=!*.txt", "--iglob *.PY", "-t py", "-tpy", "--type-not=md", "-j2", "--threads=4",
    "--regex-size-limit=10M", "-u", "-uu", "--hidden", "--sort=path", "-M 5", "--max-columns-preview -M5",
    "-r X", "--replace=X -o", "-F", "-s", "-S", "-v", "-x", "--passthrough", "--maxdepth 1", "-d1", "-h", "-V",
    "-f pats.txt", "-fpats.txt", "--ignore-file=ign.txt", "-- code.py", "code.py", "sub", "-n -- -dash.py",
    "--no-ignore-vcs --ignore-vcs", "--crlf", "--files", "--type-list", "--stats",
])
def test_allowed_arguments_behave_exactly_like_ripgrep(project, args):
    """Byte for byte what ``rg --no-config --no-ignore-messages --regexp=needle ARGS`` prints in the project."""
    (project / "link").unlink()
    (project / "pats.txt").write_text("here\n")
    (project / "ign.txt").write_text("*.txt\n")
    (project / "sub").mkdir()
    (project / "sub" / "n.py").write_text("needle in sub\n")
    (project / "-dash.py").write_text("needle with a dash\n")
    binary = find_rg()
    assert binary is not None
    real = subprocess.run([binary, "--no-config", "--no-ignore-messages", "--regexp=needle", *shlex.split(args)],
                          cwd=project, capture_output=True, stdin=subprocess.DEVNULL, check=False)
    out = rg(project, args)
    if real.returncode == 1 and not real.stderr:
        assert out == "No matches found"
    elif real.returncode in (0, 1):
        assert _unordered(out) == _unordered(real.stdout.decode())
    else:
        assert out == "Error: " + real.stderr.decode().strip()


def _unordered(text: str) -> list[str]:
    """Lines in order-free form, timings blanked: ripgrep searches files on several threads."""
    timings = re.compile(r'"(?:secs|nanos)":\d+|"human":"[0-9.]+s"|[0-9.]+ seconds')
    return sorted(timings.sub("T", line) for line in text.split("\n"))


def test_git_diff_through_a_gitdir_file_inside_the_root(repo):
    (repo / ".git").rename(repo / ".realgit")
    (repo / ".git").write_text("gitdir: .realgit\n")
    out = diff(repo)
    assert "-two\n+TWO\n" in out, out


@pytest.mark.parametrize(("args", "error"), [
    ({"pattern": "a" * 200_000}, "Error: search pattern is too long: 200000 characters (at most 4096)"),
    ({"pattern": "a", "args": "-i " * 10_000}, "Error: rg arguments are too long: 30000 characters (at most 16384)"),
])
def test_oversized_rg_arguments_are_refused_before_ripgrep_starts(project, args, error):
    reg = agenttools.toolset("coder", root=str(project))
    assert reg.call("rg", args).text == error
