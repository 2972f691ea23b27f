"""Attacks on the V4A patch family and the ``openai`` toolset's native items, by a model that controls the patch
text and every file in the workspace: FIFOs and devices where a file is expected, symlinks, a git directory
assembled across the hunks of one patch, one-operation items that smuggle in more hunks, and patches built to be
slow (quadratic parsing or matching).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agenttools
from agenttools.patch import PatchError, apply_patch, parse_patch, seek_sequence
from agenttools.workspace import Workspace

BOUND = 20.0  # seconds: far above what any of these needs, far below a hang


def P(*lines: str) -> str:  # noqa: N802 - reads as a literal
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def _apply_in_child(root: Path, patch: str) -> str:
    """Apply ``patch`` in a child process with a time and memory bound: a hang or a read of /dev/zero fails."""
    code = ("import sys\nfrom agenttools.patch import PatchError, apply_patch\nfrom agenttools.workspace import "
            "Workspace\ntry:\n    print('OK', apply_patch(Workspace(sys.argv[1]), sys.argv[2]).text, end='')\n"
            "except PatchError as e:\n    print('ERR', e.message, end='')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-c", f"import resource\nresource.setrlimit(resource.RLIMIT_AS, "
                           f"(1 << 30, 1 << 30))\n{code}", str(root), patch], capture_output=True, text=True,
                          timeout=BOUND, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "root"
    path.mkdir()
    return path


@pytest.mark.parametrize(("setup", "patch"), [
    ("fifo", P("*** Add File: target", "+x")),
    ("fifo", P("*** Delete File: target")),
    ("fifo", P("*** Update File: a.txt", "*** Move to: target", "@@", "-a", "+b")),
    ("zero", P("*** Delete File: target")),
    ("zero", P("*** Add File: target", "+x")),
], ids=["add-over-fifo", "delete-fifo", "move-onto-fifo", "delete-link-to-dev-zero", "add-over-link-to-dev-zero"])
def test_fifos_and_devices_never_block_nor_get_read(root: Path, setup: str, patch: str) -> None:
    (root / "a.txt").write_text("a\n")
    if setup == "fifo":
        os.mkfifo(root / "target")
    else:
        (root / "target").symlink_to("/dev/zero")
    _apply_in_child(root, patch)  # returns (applied or refused) instead of hanging or reading forever
    assert (root / "a.txt").exists() or (root / "target").is_file()


def test_deleting_a_symlink_does_not_read_what_it_points_to(root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    (root / "link").symlink_to(secret)
    result = apply_patch(Workspace(root), P("*** Delete File: link"), dry_run=True)
    assert "top secret" not in result.diff
    assert all("top secret" not in (change.before or "") for change in result.changes)
    apply_patch(Workspace(root), P("*** Delete File: link"))
    assert not os.path.lexists(root / "link")
    assert secret.read_text() == "top secret\n"


def test_adding_over_a_file_larger_than_the_limit_reads_no_more_than_the_limit(root: Path) -> None:
    (root / "big.bin").write_bytes(b"x" * 4096)
    with pytest.raises(PatchError, match=r"^Failed to write file .*big\.bin: .*exceeds maximum 1000 bytes"):
        apply_patch(Workspace(root, max_file_size=1000), P("*** Add File: big.bin", "+small"))
    assert (root / "big.bin").read_bytes() == b"x" * 4096


@pytest.mark.parametrize("order", [
    ["sub/config", "sub/HEAD", "sub/objects/x", "sub/refs/heads/main"],
    ["sub/HEAD", "sub/objects/x", "sub/refs/heads/main", "sub/config"],
    ["sub/objects/x", "sub/refs/heads/main", "sub/config", "sub/HEAD"],
])
def test_a_git_directory_cannot_be_assembled_across_the_hunks_of_one_patch(root: Path, order: list[str]) -> None:
    # Applied one by one, the hunk that completes HEAD + objects/ + refs/ is refused (Workspace.protected_by);
    # one patch must not get round that because none of its files exist yet when each is checked.
    hunks = [line for name in order for line in (f"*** Add File: {name}", "+[core]\tfsmonitor = evil")]
    with pytest.raises(PatchError, match="git metadata"):
        apply_patch(Workspace(root), P(*hunks))
    assert os.listdir(root) == []


def test_a_move_onto_a_symlink_to_itself_keeps_the_file(root: Path) -> None:
    # Codex writes through the link (the source itself) and then removes the source: the file is gone.
    (root / "a.txt").write_text("x\n")
    (root / "b.txt").symlink_to("a.txt")
    result = apply_patch(Workspace(root), P("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-x", "+y"))
    assert result.text == "Success. Updated the following files:\nM b.txt\n"
    assert (root / "a.txt").read_text() == "y\n"
    assert (root / "b.txt").read_text() == "y\n"


@pytest.mark.parametrize("operation", [
    {"type": "create_file", "path": "n.txt", "diff": "+x\n*** Delete File: keep.txt"},
    {"type": "create_file", "path": "n.txt\n*** Delete File: keep.txt", "diff": "+x"},
    {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n*** Delete File: keep.txt"},
    {"type": "update_file", "path": "a.txt", "diff": "*** Move to: keep.txt\n@@\n-a\n+b"},
    {"type": "delete_file", "path": "a.txt\n*** Delete File: keep.txt"},
    {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n*** End Patch\n*** Begin Patch\n"
                                                     "*** Delete File: keep.txt"},
], ids=["create-diff", "create-path", "update-diff", "update-move", "delete-path", "second-patch"])
def test_a_native_operation_touches_only_its_own_path(tmp_path: Path, operation: dict[str, str]) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "keep.txt").write_text("keep\n")
    with agenttools.toolset("openai", root=str(tmp_path)) as reg:
        item = reg.run({"type": "apply_patch_call", "call_id": "c1", "status": "completed", "operation": operation})
    assert item["status"] == "failed", item
    assert (tmp_path / "keep.txt").read_text() == "keep\n"
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "keep.txt"]


def _timed(call: object) -> float:
    started = time.perf_counter()
    call()  # type: ignore[operator]
    return time.perf_counter() - started


def test_parsing_is_linear_in_the_number_of_sections_and_hunks() -> None:
    many_sections = P("*** Update File: a", *["@@", "-x", "+y"] * 60_000)
    many_hunks = P(*[f"*** Delete File: f{i}" for i in range(120_000)])
    many_blanks = P("*** Update File: a", "@@", "-x", "*** End of File", *["\t"] * 120_000, "@@", "-y")
    assert len(parse_patch(many_sections)[0].chunks) == 60_000  # type: ignore[union-attr]
    assert _timed(lambda: parse_patch(many_sections)) < 5  # about 20 s when each section copied the rest
    assert _timed(lambda: parse_patch(many_hunks)) < 5
    assert _timed(lambda: parse_patch(many_blanks)) < 5


def test_matching_against_many_near_misses_is_not_quadratic() -> None:
    # 50,000 identical lines, and a 2,000-line pattern that matches everywhere but on its last line: comparing
    # the whole pattern at every position is 100 million line comparisons per pass (about a minute).
    lines = ["    a"] * 50_000
    pattern = ["a"] * 2_000 + ["b"]
    assert _timed(lambda: seek_sequence(lines, pattern, 0, False)) < BOUND / 2
    assert seek_sequence(lines, ["a"] * 2_000, 100, False) == 100


def test_many_updates_of_one_large_file_stay_fast(root: Path) -> None:
    (root / "big.txt").write_text("line\n" * 400_000)
    hunks = [line for _ in range(40) for line in ("*** Update File: big.txt", "@@", "-line", "+line")]
    assert _timed(lambda: apply_patch(Workspace(root), P(*hunks))) < BOUND
