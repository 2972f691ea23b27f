"""agenttools against the tools an agent could call directly, side by side in one run, as ratios.

    python bench/make_corpus.py /tmp/corpus                    # once (about 67 MiB, 14,000 files at scale 1)
    python bench/run.py --corpus /tmp/corpus [--rounds 15]

Each figure is the median of ``--rounds`` runs after a warm-up; ratios divide by the reference measured in the same
run, so the machine's speed cancels out. Memory is the peak of Python allocations (tracemalloc) during the call.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import agenttools
from agenttools.search import glob_files, grep
from agenttools.search.rg import find_rg


def median_seconds(fn: Callable[[], Any], rounds: int) -> float:
    fn()  # warm-up: caches, imports, page cache
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def subprocess_seconds(argv: list[str], rounds: int, cwd: str | None = None) -> float:
    return median_seconds(lambda: subprocess.run(argv, cwd=cwd, capture_output=True, check=False), rounds)


def peak_kib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--pattern", default="PyErr_SetString")
    args = parser.parse_args()
    corpus = str(args.corpus.resolve())
    rounds = args.rounds
    rg = find_rg()
    if rg is None:
        sys.exit("bench needs ripgrep: pip install 'agenttools[fast]'")
    rows: list[tuple[str, str, str, str]] = []

    def row(figure: str, ours: float, reference: float | None, goal: str, unit: str = "ms") -> None:
        ratio = f"{ours / reference:.2f}x" if reference else "—"
        ref_text = f"{reference * 1000:.1f} {unit}" if reference else "—"
        rows.append((figure, f"{ours * 1000:.2f} {unit}", ref_text, f"{ratio} (goal {goal})"))

    gemini = agenttools.toolset("gemini", root=corpus)
    reference = subprocess_seconds([rg, "-n", "-i", "--no-heading", args.pattern, "."], rounds, corpus)
    for backend, goal in (("rg", "<= 1.15x"), ("python", "<= 3x")):
        os.environ["AGENTTOOLS_SEARCH_BACKEND"] = backend
        ours = median_seconds(lambda: gemini.call("search_file_content", {"pattern": args.pattern}), rounds)
        row(f"search_file_content, {backend} backend", ours, reference, goal)
    os.environ["AGENTTOOLS_SEARCH_BACKEND"] = "auto"

    reference = subprocess_seconds([rg, "--files", "-g", "*.py", "."], rounds, corpus)
    ours = median_seconds(lambda: gemini.call("glob", {"pattern": "**/*.py"}), rounds)
    row("glob **/*.py (.gitignore honoured)", ours, reference, "<= 1.5x")
    ws = agenttools.Workspace(corpus)
    bare = median_seconds(lambda: glob_files(ws, "**/*.py", respect_gitignore=False), rounds)
    row("  of which: glob_files walk + match + stat, no .gitignore", bare, reference, "—")

    editor = agenttools.toolset("editor", root=corpus, max_file_size="64MB")
    big = "big/big10mb.txt"
    near = median_seconds(lambda: editor.call("view", {"path": big, "view_range": [1000, 1010]}), rounds)
    row("editor view 1000-1010 of a 10 MB file", near, None, "<= 2 ms")
    total = sum(1 for _ in open(Path(corpus, big), "rb"))  # noqa: SIM115 - a benchmark helper
    middle = [total // 2, total // 2 + 10]
    mid = median_seconds(lambda: editor.call("view", {"path": big, "view_range": middle}), rounds)
    row(f"editor view {middle[0]}-{middle[1]} (middle)", mid, None, "<= 15 ms")
    memory = peak_kib(lambda: editor.call("view", {"path": big, "view_range": [1000, 1010]}))
    rows.append(("  peak Python memory of that view", f"{memory:.0f} KiB", "—", "(goal <= 2048 KiB)"))

    reference = median_seconds(lambda: _rg_first(rg, corpus, "self", 100), rounds)
    for backend in ("rg", "python"):
        ours = median_seconds(lambda b=backend: grep(ws, "self", max_matches=100, backend=b), rounds)
        row(f"first 100 of 100k+ matches, {backend}", ours, reference, "<= 10 ms")

    stdlib = subprocess_seconds([sys.executable, "-c", "import re, os, fnmatch, subprocess, json"], rounds)
    ours = subprocess_seconds([sys.executable, "-c", "import agenttools"], rounds)
    row("python -c 'import agenttools'", ours, stdlib, "<= 1.15x")

    reg = agenttools.Registry()

    @reg.tool
    def echo(a: int) -> int:
        """Return a.

        Args:
            a: A number.
        """
        return a

    n = 20000
    start = time.perf_counter()
    for _ in range(n):
        reg.call("echo", {"a": 1})
    per_call = (time.perf_counter() - start) / n
    start = time.perf_counter()
    for _ in range(n):
        echo(1)
    direct = (time.perf_counter() - start) / n
    rows.append(("reg.call overhead on a trivial tool", f"{(per_call - direct) * 1e6:.1f} us", "—",
                 "(goal <= 20 us)"))

    _floods(rows, rg, rounds)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}; corpus {corpus}; {rounds} rounds, medians")
    print()
    print("| figure | agenttools | reference | ratio |")
    print("|---|---|---|---|")
    for figure, ours_text, ref_text, ratio in rows:
        print(f"| {figure} | {ours_text} | {ref_text} | {ratio} |")


def _floods(rows: list[tuple[str, str, str, str]], rg: str, rounds: int) -> None:
    """Bounded memory: a command printing 300 MB, a search over a 1 GB file, a 60,000-character line."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="agenttools-bench-") as scratch:
        gemini = agenttools.toolset("gemini", root=scratch)
        command = "yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c 300000000"
        memory = peak_kib(lambda: gemini.call("run_shell_command", {"command": command}))
        rows.append(("run_shell_command printing 300 MB: peak Python memory", f"{memory / 1024:.1f} MiB", "—",
                     "(bounded: 16 MiB kept per stream)"))

        line = ("x" * 59_990 + " needle\n").encode()
        Path(scratch, "long.txt").write_bytes(line * 3)
        memory = peak_kib(lambda: gemini.call("read_file", {"absolute_path": str(Path(scratch, "long.txt"))}))
        rows.append(("read_file of 60,000-character lines: peak Python memory", f"{memory:.0f} KiB", "—",
                     "(lines cut at 2,000 characters)"))

        big = Path(scratch, "big", "1gb.txt")
        big.parent.mkdir()
        block = b"".join(b"line %d of the haystack, nothing to see here\n" % i for i in range(100_000))
        with open(big, "wb") as handle:
            while handle.tell() < 1 << 30:
                handle.write(block)
            handle.write(b"the needle is here\n")
        ws = agenttools.Workspace(scratch)
        reference = subprocess_seconds([rg, "-n", "-i", "--no-heading", "needle", "big"], max(3, rounds // 3),
                                       scratch)
        for backend in ("rg", "python"):
            seconds = median_seconds(lambda b=backend: grep(ws, "needle", path="big", backend=b),
                                     max(3, rounds // 3))
            memory = peak_kib(lambda b=backend: grep(ws, "needle", path="big", backend=b))
            rows.append((f"search a 1 GB file, {backend} backend", f"{seconds * 1000:.0f} ms",
                         f"{reference * 1000:.0f} ms", f"{seconds / reference:.2f}x; peak Python memory "
                         f"{memory / 1024:.1f} MiB"))


def _rg_first(rg: str, cwd: str, pattern: str, count: int) -> None:
    """ripgrep streamed and stopped after ``count`` lines (the reference for a capped search)."""
    proc = subprocess.Popen([rg, "-n", "--no-heading", pattern, "."], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    for _ in range(count):
        if not proc.stdout.readline():
            break
    proc.kill()
    proc.wait()
    proc.stdout.close()


if __name__ == "__main__":
    main()
