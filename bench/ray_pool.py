"""N workspaces on a local Ray cluster against the same trajectories one after another in one process.

Each workspace is a small generated Python project (``--files`` files). A trajectory is what a coding agent does,
``--rounds`` times over, with the gemini toolset: ``glob`` the Python files, ``search_file_content`` for a name,
``read_file`` a module, ``replace`` one line in it, and ``run_shell_command`` (``grep -c`` over the tree). For each
N in ``--sizes`` (1, 8, 32):

- **sequential**: the N trajectories one after another in this process, each workspace with its own toolset;
- **ray**: a ``WorkspacePool`` of N workspaces, the N trajectories at once (one asyncio task each, ``acall``).

Reported per mode: calls per second over the whole run, p50 and p99 of one call's latency, and for Ray the time
the pool took to start (not counted in the throughput). The machine's core count is printed with the table.

The shell step runs once as is (CPU only) and once sleeping ``--wait`` seconds first, as a test run waits.

Usage: ``python bench/ray_pool.py [--sizes 1 8 32] [--rounds 3] [--files 120] [--sandbox auto] [--wait 0 0.2]``.
Needs Ray (``pip install 'agenttools[ray]'``); starts a local cluster of ``os.cpu_count()`` CPUs, no dashboard.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import agenttools

WORDS = ("buffer", "parser", "token", "index", "value", "result", "config", "handler", "stream", "request")


def make_project(root: Path, files: int) -> None:
    """A small Python project: ``pkg<k>/mod<i>.py`` modules of about 40 lines each."""
    for i in range(files):
        folder = root / f"pkg{i % 8}"
        folder.mkdir(parents=True, exist_ok=True)
        word = WORDS[i % len(WORDS)]
        lines = [f'"""Module {i}: the {word} helpers."""\n', "\n"]
        for j in range(12):
            lines += [f"def {word}_{j}(x):\n", f"    value = x + {j}  # {WORDS[(i + j) % len(WORDS)]}\n",
                      "    return value\n\n"]
        (folder / f"mod{i}.py").write_text("".join(lines))


def trajectory(root: str, rounds: int, wait: float = 0.0) -> list[tuple[str, dict[str, Any]]]:
    """The calls of one agent's run in the workspace at ``root`` (the command sleeps ``wait`` s, as tests would)."""
    calls: list[tuple[str, dict[str, Any]]] = []
    target = f"{root}/pkg1/mod1.py"
    for step in range(rounds):
        calls += [
            ("glob", {"pattern": "**/*.py"}),
            ("search_file_content", {"pattern": rf"def parser_{step}\b"}),
            ("read_file", {"absolute_path": target}),
            ("replace", {"file_path": target, "old_string": f"    value = x + {step}  #",
                         "new_string": f"    value = x + {step} + 100  #"}),
            ("run_shell_command", {"command": (f"sleep {wait}; " if wait else "")
                                   + "grep -rc 'return value' pkg0 | wc -l"}),
        ]
    return calls


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def check(out: agenttools.ToolOutput, name: str) -> None:
    if out.is_error:
        raise SystemExit(f"{name} failed: {out.text}")


def run_sequential(roots: list[str], rounds: int, sandbox: str, wait: float) -> tuple[float, list[float]]:
    registries = [agenttools.toolset("gemini", root=root, sandbox=sandbox) for root in roots]
    latencies: list[float] = []
    started = time.perf_counter()
    for registry, root in zip(registries, roots, strict=True):
        for name, arguments in trajectory(root, rounds, wait):
            begun = time.perf_counter()
            out = registry.call(name, arguments)
            latencies.append(time.perf_counter() - begun)
            check(out, name)
    wall = time.perf_counter() - started
    for registry in registries:
        registry.close()
    return wall, latencies


def run_ray(roots: list[str], rounds: int, sandbox: str, wait: float) -> tuple[float, list[float], float]:
    from agenttools.ray import WorkspacePool

    begun = time.perf_counter()
    pool = WorkspacePool("gemini", roots=roots, sandbox=sandbox)
    startup = time.perf_counter() - begun
    latencies: list[float] = []

    async def agent(index: int) -> None:
        for name, arguments in trajectory(roots[index], rounds, wait):
            start = time.perf_counter()
            out = await pool[index].acall(name, arguments)
            latencies.append(time.perf_counter() - start)
            check(out, name)

    async def everyone() -> None:
        await asyncio.gather(*(agent(index) for index in range(len(roots))))

    try:
        started = time.perf_counter()
        asyncio.run(everyone())
        wall = time.perf_counter() - started
    finally:
        pool.close()
    return wall, latencies, startup


def fresh_roots(template: Path, base: Path, n: int, label: str) -> list[str]:
    roots = []
    for index in range(n):
        root = base / f"{label}-{n}-{index}"
        shutil.copytree(template, root)
        roots.append(str(root))
    return roots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--files", type=int, default=120)
    parser.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "none"])
    parser.add_argument("--wait", type=float, nargs="+", default=[0.0, 0.2],
                        help="seconds the shell step sleeps (a test run's waiting); one table per value")
    args = parser.parse_args()

    import ray

    cores = os.cpu_count() or 1
    ray.init(num_cpus=cores, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    var_tmp = "/var/tmp"  # noqa: S108 - outside the sandbox's private /tmp, like from_git's copies
    base = Path(tempfile.mkdtemp(prefix="agenttools-bench-ray-", dir=var_tmp if os.path.isdir(var_tmp) else None))
    try:
        template = base / "template"
        make_project(template, args.files)
        print(f"{cores} cores ({sys.platform}), Python {sys.version.split()[0]}, Ray {ray.__version__}; "
              f"a trajectory is {len(trajectory('/x', args.rounds))} calls (glob, search, read, edit, shell "
              f"x {args.rounds}) over {args.files} files; sandbox={args.sandbox}")
        for wait in args.wait:
            print(f"\nThe shell step sleeps {wait:g} s first.\n")
            print("| N | mode | calls | wall s | calls/s | p50 ms | p99 ms | pool start s |")
            print("|---|---|---|---|---|---|---|---|")
            for n in args.sizes:
                roots = fresh_roots(template, base, n, f"seq{wait}")
                wall, latencies = run_sequential(roots, args.rounds, args.sandbox, wait)
                print(f"| {n} | sequential, one process | {len(latencies)} | {wall:.2f} | "
                      f"{len(latencies) / wall:.0f} | {statistics.median(latencies) * 1000:.1f} | "
                      f"{percentile(latencies, 0.99) * 1000:.1f} | - |", flush=True)
                roots = fresh_roots(template, base, n, f"ray{wait}")
                wall, latencies, startup = run_ray(roots, args.rounds, args.sandbox, wait)
                print(f"| {n} | Ray pool, N at once | {len(latencies)} | {wall:.2f} | {len(latencies) / wall:.0f} | "
                      f"{statistics.median(latencies) * 1000:.1f} | {percentile(latencies, 0.99) * 1000:.1f} | "
                      f"{startup:.1f} |", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        ray.shutdown()


if __name__ == "__main__":
    main()
