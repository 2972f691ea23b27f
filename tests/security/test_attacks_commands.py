"""Attacks found (and closed) by a red-team pass over ``git_diff``, ``rg``, git-metadata writes and escapes.

Each test builds the hostile workspace with real git, real ripgrep and ``tmp_path``, drives the public API
(``agenttools.toolset(...).call``) and asserts the refusal: no marker file from a program the workspace or the model
named, no byte from outside the root in any answer, nothing written inside git metadata.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import subprocess
from pathlib import Path

import pytest

import agenttools
from agenttools.search.rg import find_rg

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": os.devnull}
SECRET = "TOPSECRET-7f3a"  # noqa: S105 - a marker text, not a credential
needs_rg = pytest.mark.skipif(find_rg() is None, reason="needs the ripgrep binary")


def git(root: Path, *args: str, data: bytes | None = None) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    return subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=n", "-c", "init.defaultBranch=main",
                           *args], cwd=root, env=env, check=True, capture_output=True, input=data).stdout


def call(toolset: str, root: Path, tool: str, args: dict[str, object]) -> str:
    return agenttools.toolset(toolset, root=str(root)).call(tool, args).text


def snapshot(*tops: Path) -> dict[str, tuple[bytes, int, int]]:
    """Content (or link target), mode and mtime of every entry under ``tops``."""
    found: dict[str, tuple[bytes, int, int]] = {}
    for top in tops:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames + filenames:
                path = os.path.join(dirpath, name)
                st = os.lstat(path)
                data = (os.readlink(path).encode() if stat.S_ISLNK(st.st_mode)
                        else Path(path).read_bytes() if stat.S_ISREG(st.st_mode) else b"")
                found[path] = (data, st.st_mode, st.st_mtime_ns)
    return found


# --- git_diff: a crafted index names files outside the work tree ------------------------------------------------

def _index(entries: list[tuple[bytes, bytes]], version: int = 2) -> bytes:
    """A git index (v2 or v4, sha1) with ``(name, blob id)`` entries, as git itself would lay it out."""
    body = b"DIRC" + struct.pack(">II", version, len(entries))
    previous = b""
    for name, oid in entries:
        head = struct.pack(">10I", 0, 0, 0, 0, 0, 0, 0o100644, 0, 0, 0) + oid + struct.pack(">H", min(len(name), 0xFFF))
        if version == 4:
            common = next((i for i, (a, b) in enumerate(zip(previous, name, strict=False)) if a != b),
                          min(len(previous), len(name)))
            strip = len(previous) - common
            assert strip < 128
            body += head + bytes([strip]) + name[common:] + b"\0"
        else:
            entry = head + name
            body += entry + b"\0" * (8 - len(entry) % 8)
        previous = name
    return body + hashlib.sha1(body).digest()  # noqa: S324 - git's own checksum


@pytest.fixture
def crafted(tmp_path) -> tuple[Path, bytes]:
    """A repository whose index will be replaced, a secret next to it, and the id of a blob in its object store."""
    root = tmp_path / "proj"
    root.mkdir()
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    git(root, "init", "-q")
    oid = bytes.fromhex(git(root, "hash-object", "-w", "--stdin", data=b"stored\n").decode().strip())
    return root, oid


@pytest.mark.parametrize("name", ["../secret.txt", "{tmp}/secret.txt", "a/../../secret.txt", "./../secret.txt"])
@pytest.mark.parametrize("version", [2, 4])
def test_an_index_naming_a_file_outside_the_root_is_refused(crafted, tmp_path, name, version):
    """git checks index paths when it writes them, not when it reads them: ``git diff`` would print the file."""
    root, oid = crafted
    (root / "a").mkdir()
    entries = [(b"a/ok.txt", oid), (name.format(tmp=tmp_path).encode(), oid)]
    (root / ".git" / "index").write_bytes(_index(sorted(entries), version))
    out = call("coder", root, "git_diff", {})
    assert SECRET not in out
    assert out.startswith("Error: git_diff: the index names a path outside the work tree: "), out


def test_an_index_name_over_4095_bytes_is_read_as_git_reads_it(crafted):
    """Names of 0xFFF bytes or more carry no length: git reads up to the NUL; so does the check."""
    root, oid = crafted
    entries = [(b"a" * 5000, oid), (b"../" + b"c" * 4200, oid)]
    (root / ".git" / "index").write_bytes(_index(entries))
    out = call("coder", root, "git_diff", {})
    assert out.startswith("Error: git_diff: the index names a path outside the work tree: '../ccc"), out


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_an_ordinary_index_of_every_version_still_diffs(tmp_path, version):
    root = tmp_path / "proj"
    (root / "d" / "e").mkdir(parents=True)
    git(root, "init", "-q")
    for i in range(30):
        (root / "d" / "e" / f"f{i}.txt").write_text(f"{i}\n")
    git(root, "add", ".")
    git(root, "update-index", "--index-version", version)
    git(root, "update-index", "--skip-worktree", "d/e/f1.txt")
    (root / "d" / "e" / "f7.txt").write_text("changed\n")
    out = call("coder", root, "git_diff", {})
    assert out.startswith("diff --git a/d/e/f7.txt b/d/e/f7.txt\n"), out
    assert "-7\n+changed\n" in out


def test_a_symlinked_directory_in_the_work_tree_is_not_followed_by_git(crafted, tmp_path):
    """Regression: an index entry below a symlink to a directory outside reads as deleted, never as the file."""
    root, oid = crafted
    (root / "dir").symlink_to(tmp_path)
    (root / "lnk").symlink_to(tmp_path / "secret.txt")
    (root / ".git" / "index").write_bytes(_index([(b"dir/secret.txt", oid), (b"lnk", oid)]))
    out = call("coder", root, "git_diff", {})
    assert SECRET not in out
    assert "deleted file mode 100644" in out


# --- rg: --ignore-messages undoes --no-ignore-messages and quotes ignore files outside the root -----------------

@needs_rg
@pytest.mark.parametrize("args", ["--ignore-messages . missing", "--no-ignore-messages --ignore-messages . missing"])
def test_ignore_messages_cannot_quote_an_ignore_file_outside_the_root(tmp_path, args):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("needle\n")
    (tmp_path / "private").write_text(f"[{SECRET}\n")  # not a valid glob: ripgrep would quote the line
    (root / ".ignore").symlink_to(tmp_path / "private")
    out = call("coder", root, "rg", {"pattern": "needle", "args": args})
    assert SECRET not in out
    assert out.startswith("Error: rg option not allowed: --ignore-messages"), out


@needs_rg
@pytest.mark.parametrize("args", [
    "-e --pre=./evil", "-- --pre=./evil", "-j1 -e --hostname-bin=./evil", "--type-add=x:*.txt -tx --no-pre",
    "-fpat", "--ignore-file=pat", "-u -uu --no-follow",
])
def test_values_and_positionals_that_look_like_flags_run_nothing(tmp_path, args):
    """Regression: a flag-shaped value (``-e --pre=...``) or positional after ``--`` is data to ripgrep too."""
    root = tmp_path / "proj"
    root.mkdir()
    marker = tmp_path / "ran"
    evil = root / "evil"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    evil.chmod(0o755)
    (root / "a.txt").write_text("needle\n")
    (root / "pat").write_text("needle\n")
    call("coder", root, "rg", {"pattern": "needle", "args": args})
    assert not marker.exists()


# --- writes inside git metadata ------------------------------------------------------------------------------------

def test_the_todo_list_is_never_written_through_an_agent_symlink_into_git(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".agent").symlink_to(".git")
    before = snapshot(root / ".git")
    reg = agenttools.toolset("coder", root=str(root))
    out = reg.call("todowrite", {"todos_json": json.dumps([{"content": "x", "status": "pending",
                                                             "priority": "high"}])}).text
    assert out == "Error: path not allowed: .agent (the toolset's own files are never written inside git metadata)"
    assert snapshot(root / ".git") == before
    assert reg.call("todoread", {}).text == '{"output":"[]","title":"0 todos"}'


@pytest.fixture
def git_shaped(tmp_path) -> Path:
    """A root holding git directories git accepts but a HEAD-file-and-objects-and-refs test would miss."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    meta = root / "meta"  # HEAD is a symlink to an unborn branch: git's validate_headref accepts it
    (meta / "objects").mkdir(parents=True)
    (meta / "refs").mkdir()
    (meta / "HEAD").symlink_to("refs/heads/main")
    (meta / "config").write_text("[core]\n")
    (root / "sub").mkdir()
    (root / "sub" / ".git").write_text("gitdir: ../meta\n")
    wt = root / "wtgit"  # a linked worktree's git directory: HEAD and commondir, objects and refs elsewhere
    wt.mkdir()
    (wt / "HEAD").write_text("ref: refs/heads/x\n")
    (wt / "commondir").write_text("../.git\n")
    (wt / "config.worktree").write_text("[core]\n")
    return root


def test_git_accepts_the_shapes(git_shaped):
    """The fixture's directories are git directories to git itself (so writing there can arm it)."""
    for name in ("meta", "wtgit"):
        out = git(git_shaped, "--git-dir", name, "rev-parse", "--git-dir").decode().strip()
        assert out == name


WRITES = [
    ("gemini", "write_file", {"file_path": "{p}", "content": "[core]\n\tfsmonitor = touch pwned\n"}),
    ("gemini", "replace", {"file_path": "{p}", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = x"}),
    ("editor", "create_file", {"path": "{p}", "content": "[core]\n\tfsmonitor = touch pwned\n"}),
    ("editor", "str_replace", {"path": "{p}", "old_str": "[core]", "new_str": "[core]\n\tfsmonitor = x"}),
    ("assistant", "write", {"path": "{p}", "content": "[core]\n\tfsmonitor = touch pwned\n"}),
    ("assistant", "file", {"operation": "write_file", "path": "{p}", "content": "x"}),
    ("assistant", "delete", {"path": "{p}"}),
    ("coder", "edit_file", {"path": "{p}", "old_str": "[core]", "new_str": "[core]\\n\\tfsmonitor = x"}),
    ("coder", "delete_file", {"path": "{p}"}),
]


@pytest.mark.parametrize("target", ["meta/config", "meta/hooks/pre-commit", "wtgit/config.worktree", "wtgit/HEAD"])
@pytest.mark.parametrize(("toolset", "tool", "args"), WRITES, ids=lambda v: v if isinstance(v, str) else "")
def test_git_directories_git_accepts_are_never_written(git_shaped, toolset, tool, args, target):
    path = str(git_shaped / target) if toolset == "gemini" else target
    filled = {key: value.replace("{p}", path) if isinstance(value, str) else value for key, value in args.items()}
    before = snapshot(git_shaped / "meta", git_shaped / "wtgit")
    out = call(toolset, git_shaped, tool, filled)
    assert snapshot(git_shaped / "meta", git_shaped / "wtgit") == before, out


@pytest.mark.parametrize("link", [".agent", ".agent/cache", ".agent/cache/webfetch"])
def test_fetched_pages_are_never_cached_inside_git_metadata(tmp_path, monkeypatch, link):
    """The web cache goes through the same checks as the todo list: a symlink on the way into ``.git`` is refused."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    (root / link).symlink_to(os.path.relpath(root / ".git" / "hooks", (root / link).parent))
    page = agenttools.web.FetchResult(url="https://example.com/pre-commit", final_url="https://example.com/pre-commit",
                                      status=200, headers={"content-type": "text/plain"}, body=b"#!/bin/sh\n")
    monkeypatch.setattr(agenttools.web, "fetch", lambda *a, **k: page)
    before = snapshot(root / ".git")
    out = call("coder", root, "web_fetch", {"url": "https://example.com/pre-commit"})
    assert out.startswith("Error: path not allowed: .agent"), out
    assert "never written inside git metadata" in out
    assert snapshot(root / ".git") == before


def test_a_gitdir_file_with_worktree_config_include_if_and_core_worktree_runs_nothing(tmp_path):
    """Regression: config the real git would obey (``config.worktree`` with ``extensions.worktreeConfig``,
    ``includeIf "hasconfig:..."``, ``core.worktree`` outside, a driver for every attribute) is never read."""
    root = tmp_path / "proj"
    root.mkdir()
    markers = tmp_path / "markers"
    markers.mkdir()
    evil = tmp_path / "evil.sh"
    evil.write_text(f'#!/bin/sh\ntouch "{markers}/$1"\nexit 0\n')
    evil.chmod(0o755)
    git(root, "init", "-q")
    (root / "a.txt").write_text("a\n")
    (root / ".gitattributes").write_text("*.txt filter=f diff=d\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    (root / "a.txt").write_text("a\nb\n")
    (root / ".git").rename(root / "realgit")
    (root / ".git").write_text("gitdir: realgit\n")
    with (root / "realgit" / "config").open("a") as config:
        config.write(f'[core]\n\tfsmonitor = {evil} fsmonitor\n\tworktree = {tmp_path}\n'
                     f'[extensions]\n\tworktreeConfig = true\n[filter "f"]\n\tclean = {evil} clean\n'
                     f'[diff "d"]\n\ttextconv = {evil} textconv\n\tcommand = {evil} command\n'
                     '[includeIf "hasconfig:remote.*.url:*"]\n\tpath = inc\n[remote "o"]\n\turl = x\n')
    (root / "realgit" / "config.worktree").write_text(f"[core]\n\tfsmonitor = {evil} worktree-config\n")
    (root / "realgit" / "inc").write_text(f"[core]\n\tpager = {evil} include\n")
    out = call("coder", root, "git_diff", {})
    assert out.startswith("diff --git a/a.txt b/a.txt\n"), out
    assert " a\n+b\n" in out
    assert sorted(p.name for p in markers.iterdir()) == []


@pytest.mark.parametrize("toolset", ["gemini", "editor", "assistant", "coder"])
@pytest.mark.parametrize("order", [("HEAD", "objects/x", "refs/x"), ("objects/x", "refs/x", "HEAD"),
                                   ("HEAD", "commondir")])
def test_a_git_directory_cannot_be_assembled_config_first(tmp_path, toolset, order):
    """Writing ``x/config`` while ``x`` is no git directory, then the entries that make it one, would leave a
    repository whose config the model chose (git reads it as soon as anyone runs git inside ``x``)."""
    root = tmp_path / "proj"
    root.mkdir()
    reg = agenttools.toolset(toolset, root=str(root))

    def write(rel: str, text: str) -> str:
        path = str(root / rel) if toolset == "gemini" else rel
        tool, args = {"gemini": ("write_file", {"file_path": path, "content": text}),
                      "editor": ("create_file", {"path": path, "content": text}),
                      "assistant": ("write", {"path": path, "content": text}),
                      "coder": ("edit_file", {"path": path, "old_str": "", "new_str": text})}[toolset]
        return reg.call(tool, args).text

    write("x/config", "[core]\n\tfsmonitor = touch pwned\n")
    outs = [write(f"x/{rel}", "ref: refs/heads/main\n" if rel == "HEAD" else ".\n") for rel in order]
    assert (root / "x" / "config").exists()
    assert not (root / "x" / order[-1]).exists(), outs
    result = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=root / "x", capture_output=True, text=True,
                            env={**os.environ, **GIT_ENV, "GIT_CEILING_DIRECTORIES": str(tmp_path)}, check=False)
    assert result.returncode != 0, result.stdout


def test_ordinary_files_named_like_git_entries_are_still_written(tmp_path):
    """Only the entry that would complete a git directory is refused: ``refs/`` next to ``objects/`` alone is fine."""
    root = tmp_path / "proj"
    root.mkdir()
    reg = agenttools.toolset("coder", root=str(root))
    for rel in ("x/objects/a", "x/refs/a", "y/HEAD", "y/notes/commondir"):
        out = reg.call("edit_file", {"path": rel, "old_str": "", "new_str": "text"}).text
        assert out.startswith('{"message": "Created new file'), out
