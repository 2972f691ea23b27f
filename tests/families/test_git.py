"""The git family: git.diff runs a git that reads nothing of the repository's config, and refuses what leaks out."""

from __future__ import annotations

import subprocess

import pytest

from agenttools import git
from agenttools.errors import GitError


def _repo(path):
    path.mkdir()
    run = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost"]
    subprocess.run([*run, "init", "-q"], cwd=path, check=True)
    (path / "a.txt").write_text("one\n")
    subprocess.run([*run, "add", "a.txt"], cwd=path, check=True)
    subprocess.run([*run, "commit", "-q", "-m", "first"], cwd=path, check=True)
    return path


def test_the_unstaged_change_and_nothing_else(tmp_path):
    repo = _repo(tmp_path / "repo")
    assert git.diff(repo) == ""
    (repo / "a.txt").write_text("two\n")
    text = git.diff(repo)
    assert "-one\n+two\n" in text and text.startswith("diff --git a/a.txt b/a.txt")


def test_a_hostile_config_runs_nothing(tmp_path):
    repo = _repo(tmp_path / "repo")
    marker = tmp_path / "ran"
    with open(repo / ".git" / "config", "a") as config:
        config.write(f'[core]\n\tfsmonitor = "touch {marker}"\n\tpager = touch {marker}\n'
                     f'[diff]\n\texternal = touch {marker}\n')
    (repo / "a.txt").write_text("two\n")
    assert "+two" in git.diff(repo)
    assert not marker.exists()


def test_no_repository_is_a_git_error(tmp_path):
    with pytest.raises(GitError) as info:
        git.diff(tmp_path)
    assert info.value.code == "git"


def test_an_object_store_leading_outside_is_refused(tmp_path):
    repo = _repo(tmp_path / "repo")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (repo / ".git" / "objects" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{outside}\n")
    with pytest.raises(GitError, match="outside"):
        git.diff(repo)
