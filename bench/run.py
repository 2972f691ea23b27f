"""agenttools against the tools an agent could call directly, side by side in one run, as ratios.

    python bench/make_corpus.py /tmp/corpus-1x --preset monorepo [--mirror-dir DIR]               # once
    python bench/make_corpus.py /tmp/corpus-2x --preset monorepo [--mirror-dir DIR] --copies 2    # for growth
    python bench/run.py --corpus /tmp/corpus-1x [/tmp/corpus-2x ...] [--rounds 9]

Every figure is measured next to its reference in the same run, paired: after a warm-up of each, ours and the
reference run in turn (the order alternating) ``--rounds`` times; a row gives the medians with min-max, and the ratio
is the median of the per-pair ratios (with its min-max), so the machine's drift cancels out. The first corpus gets
every figure; each further corpus (the same tree copied 2x, 4x, ...) gets the figures that depend on the tree's
size, and a growth table puts them side by side. Memory is the peak of Python allocations (tracemalloc).
"""

from __future__ import annotations

import argparse
import compileall
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pathspec
from opentelemetry.sdk.trace import TracerProvider

import agenttools
from agenttools import hooks
from agenttools.ignore import IgnoreRules
from agenttools.search import glob_files, grep
from agenttools.search.rg import find_rg

CAP = 20_000  # gemini's default max_matches
BIG = "big/big10mb.txt"


# --- measuring ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    """Seconds per run of ours and of the reference (None: no reference), round by round: wall-clock and CPU.

    CPU seconds are user + system time of this process and of the processes it waited for (ripgrep included), so
    they count the work done whatever else the machine runs; wall-clock seconds are what a caller waits.
    """

    ours: list[float]
    ref: list[float] | None = None
    ours_cpu: list[float] = field(default_factory=list)
    ref_cpu: list[float] = field(default_factory=list)

    @property
    def ratios(self) -> list[float]:
        assert self.ref is not None
        return [a / b for a, b in zip(self.ours, self.ref, strict=True)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def cpu_ratio(self) -> float | None:
        if not self.ref_cpu or not all(self.ref_cpu):
            return None
        return statistics.median(a / b for a, b in zip(self.ours_cpu, self.ref_cpu, strict=True))


def cpu_seconds() -> float:
    """User + system seconds of this process and of its children that were waited for."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def paired(ours: Callable[[], Any], ref: Callable[[], Any] | None, rounds: int) -> Pair:
    """Warm both up, then time them in turn ``rounds`` times, alternating which one goes first."""
    ours()
    if ref is not None:
        ref()
    samples: dict[int, tuple[list[float], list[float]]] = {0: ([], []), 1: ([], [])}
    for index in range(rounds):
        steps = [(0, ours), (1, ref)] if ref is not None else [(0, ours)]
        for side, fn in steps if index % 2 == 0 else reversed(steps):
            cpu, start = cpu_seconds(), time.perf_counter()
            fn()  # type: ignore[misc]
            wall = time.perf_counter() - start
            samples[side][0].append(wall)
            samples[side][1].append(cpu_seconds() - cpu)
    return Pair(ours=samples[0][0], ours_cpu=samples[0][1], ref=samples[1][0] if ref is not None else None,
                ref_cpu=samples[1][1])


def run_process(argv: list[str], cwd: str | None = None) -> Callable[[], Any]:
    """A whole process, its output read through a pipe (ripgrep given /dev/null would stop at the first match)."""
    return lambda: subprocess.run(argv, cwd=cwd, capture_output=True, check=False)


def peak_kib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def rg_first(rg: str, cwd: str, pattern: str, count: int) -> None:
    """ripgrep streamed and stopped after ``count`` lines (the reference for a capped search)."""
    proc = subprocess.Popen([rg, "-n", "-i", "--no-heading", pattern, "."], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    for _ in range(count):
        if not proc.stdout.readline():
            break
    proc.kill()
    proc.wait()
    proc.stdout.close()


def rg_lines(argv: list[str], cwd: str) -> int:
    """How many lines ripgrep prints (matches, or files for ``--files``)."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    return done.stdout.count(b"\n")


def found(text: str) -> str:
    """The count in gemini's first line: ``Found 20000 matches ...``, ``Found 3095 file(s) ...``."""
    match = re.match(r"Found (\d+)", text)
    return f"{int(match.group(1)):,}" if match else text.splitlines()[0][:40]


@dataclass
class Row:
    figure: str
    pair: Pair | None = None
    unit: str = "ms"  # ms or us
    goal: str = ""
    note: str = ""
    text: tuple[str, str, str] | None = None  # (ours, reference, ratio) written out, for rows that are not timings


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)

    def add(self, figure: str, pair: Pair, goal: str = "", note: str = "", unit: str = "ms") -> Row:
        row = Row(figure=figure, pair=pair, unit=unit, goal=goal, note=note)
        self.rows.append(row)
        print(f"  {figure}: {cell(pair.ours, unit)}" + (f" vs {cell(pair.ref, unit)}" if pair.ref else ""),
              file=sys.stderr, flush=True)
        return row

    def fixed(self, figure: str, ours: str, ref: str = "—", ratio: str = "—", goal: str = "", note: str = "") -> None:
        self.rows.append(Row(figure=figure, text=(ours, ref, ratio), goal=goal, note=note))


def scaled(seconds: float, unit: str) -> str:
    value = seconds * (1e6 if unit == "us" else 1e3)
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def cell(samples: list[float] | None, unit: str) -> str:
    if not samples:
        return "—"
    median = statistics.median(samples)
    return f"{scaled(median, unit)} {unit} ({scaled(min(samples), unit)}-{scaled(max(samples), unit)})"


def ratio_cell(pair: Pair) -> str:
    if pair.ref is None:
        return "—"
    ratios = pair.ratios
    cpu = pair.cpu_ratio
    return f"**{pair.ratio:.2f}x** ({min(ratios):.2f}-{max(ratios):.2f})" + (f"; CPU {cpu:.2f}x" if cpu else "")


# --- the figures -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Patterns:
    rare: str
    common: str
    include: str
    flood: str


def tree_figures(corpus: str, rg: str, rounds: int, pat: Patterns) -> Report:
    """The figures that grow with the tree: searches, globs, capped searches."""
    report = Report()
    gemini = agenttools.toolset("gemini", root=corpus)
    ws = agenttools.Workspace(corpus)

    def search(args: dict[str, str], backend: str) -> Callable[[], Any]:
        def call() -> str:
            os.environ["AGENTTOOLS_SEARCH_BACKEND"] = backend
            return gemini.call("search_file_content", args).text
        return call

    def rg_search(pattern: str, *extra: str) -> list[str]:
        return [rg, "-n", "-i", "--no-heading", *extra, pattern, "."]

    cases = (
        (f"gemini search, rare literal `{pat.rare}`", {"pattern": pat.rare}, "rg", rg_search(pat.rare), "<= 1.15x"),
        (f"gemini search, common word `{pat.common}`", {"pattern": pat.common}, "rg", rg_search(pat.common), ""),
        (f"gemini search `{pat.common}`, include `{pat.include}`", {"pattern": pat.common, "include": pat.include},
         "rg", rg_search(pat.common, "-g", pat.include), ""),
        (f"gemini search `{pat.flood}`, over the {CAP:,}-match cap", {"pattern": pat.flood}, "rg",
         rg_search(pat.flood), ""),
        (f"gemini search, rare literal `{pat.rare}`, Python backend", {"pattern": pat.rare}, "python",
         rg_search(pat.rare), "<= 3x"),
    )
    for figure, args, backend, argv, goal in cases:
        ours = search(args, backend)
        pair = paired(ours, run_process(argv, corpus), rounds)
        note = f"{found(ours())} lines / rg {rg_lines(argv, corpus):,}"
        report.add(figure, pair, goal, note)
    os.environ["AGENTTOOLS_SEARCH_BACKEND"] = "auto"

    argv = [rg, "--files", "-g", "*.py", "."]
    glob = lambda: gemini.call("glob", {"pattern": "**/*.py"}).text  # noqa: E731
    pair = paired(glob, run_process(argv, corpus), rounds)
    report.add("gemini glob `**/*.py` (.gitignore honoured)", pair, "<= 1.5x",
               f"{found(glob())} files / rg {rg_lines(argv, corpus):,}")
    bare = lambda: glob_files(ws, "**/*.py", respect_gitignore=False)  # noqa: E731
    pair = paired(bare, run_process(argv, corpus), rounds)
    report.add("  of which: search.glob_files walk + match + stat, no .gitignore", pair, "",
               f"{len(bare().matches):,} files")

    ours_rules, pathspec_rules, files = _ignore_deciders(corpus)
    pair = paired(ours_rules, pathspec_rules, rounds)
    report.add("ignore rules asked about every file (the tiers vs pathspec's `GitIgnoreSpec`, `re2`)", pair, "",
               f"{files:,} files, {ours_rules():,} ignored / pathspec {pathspec_rules():,}")

    for backend in ("rg", "python"):
        first = lambda b=backend: grep(ws, pat.flood, max_matches=100, backend=b)  # noqa: E731
        pair = paired(first, lambda: rg_first(rg, corpus, pat.flood, 100), rounds)
        result = first()
        report.add(f"first 100 of 100k+ `{pat.flood}` matches, {backend} backend", pair, "<= 10 ms",
                   f"first file {result.matches[0].rel if result.matches else '-'}")
    return report


def _ignore_deciders(corpus: str) -> tuple[Callable[[], int], Callable[[], int], int]:
    """Two ways to tell which files of the tree its .gitignore files ignore, each counting the ignored files.

    Ours: :class:`agenttools.ignore.IgnoreRules`. The reference: one pathspec ``GitIgnoreSpec`` (``re2`` backend)
    per ignore file, asked about each file by the files above it, deepest first, until one decides (a file's
    ignored directories are not checked: this is the cheapest plain use of the library). Both parse each ignore
    file once (ours keeps parsed files by their text, for the process), and then decide anew each round.
    """
    listing: list[str] = []
    sources: list[str] = []
    for top, dirs, names in os.walk(corpus):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel = os.path.relpath(top, corpus).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        if ".gitignore" in names:
            sources.append(rel)
        listing.extend(f"{rel}/{name}" if rel else name for name in names)

    def ours() -> int:
        rules = IgnoreRules(corpus)
        return sum(rules.file_ignored(rel) for rel in listing)

    specs = {}
    for rel in sources:
        with open(os.path.join(corpus, rel, ".gitignore"), encoding="utf-8", errors="replace") as handle:
            specs[rel] = pathspec.GitIgnoreSpec.from_lines(handle.read().splitlines(), backend="re2")

    def reference() -> int:
        ignored = 0
        for path in listing:
            parts = path.split("/")
            for depth in range(len(parts) - 1, -1, -1):
                base = "/".join(parts[:depth])
                spec = specs.get(base)
                if spec is not None:
                    decided = spec.check_file(path[len(base) + 1:] if base else path).include
                    if decided is not None:
                        ignored += decided
                        break
        return ignored

    return ours, reference, len(listing)


def fixed_figures(corpus: str, rg: str, rounds: int, floods: bool) -> Report:
    """The figures that do not depend on the tree's size: line ranges, start-up, call overhead, floods."""
    report = Report()
    editor = agenttools.toolset("editor", root=corpus, max_file_size="64MB")
    near = lambda: editor.call("view", {"path": BIG, "view_range": [1000, 1010]})  # noqa: E731
    report.add("editor view 1000-1010 of a 10 MB file", paired(near, None, rounds), "<= 2 ms")
    total = sum(1 for _ in open(Path(corpus, BIG), "rb"))  # noqa: SIM115 - a benchmark helper
    middle = [total // 2, total // 2 + 10]
    mid = lambda: editor.call("view", {"path": BIG, "view_range": middle})  # noqa: E731
    report.add(f"editor view {middle[0]}-{middle[1]} (middle)", paired(mid, None, rounds), "<= 15 ms")
    memory = peak_kib(near)
    report.fixed("  peak Python memory of the 1000-1010 view", f"{memory:.0f} KiB", goal="<= 2048 KiB")

    _fresh_process(report, corpus, rounds)
    _call_overhead(report, rounds)
    _hook_costs(report, rounds)
    _sandbox(report, corpus, rounds)
    if floods:
        _floods(report, rg, rounds)
    return report


def _fresh_process(report: Report, corpus: str, rounds: int) -> None:
    # Fresh processes: the same interpreter, the same environment (PYTHONPATH included). An installed package has
    # its bytecode cached; a fresh checkout (or PYTHONDONTWRITEBYTECODE) would make every process compile the
    # sources, so write the bytecode first.
    compileall.compile_dir(str(Path(agenttools.__file__).parent), quiet=1)
    python = sys.executable
    stdlib = [python, "-c", "import re, os, fnmatch, subprocess, json"]
    pair = paired(run_process([python, "-c", "import agenttools"]), run_process(stdlib), rounds)
    report.add("python -c 'import agenttools' (vs importing re, os, fnmatch, subprocess, json)", pair, "<= 1.15x")
    build = "import os, sys, agenttools; t = agenttools.toolset('gemini', root=sys.argv[1])"
    call = "; print(t.call('list_directory', {'path': sys.argv[1]}).text)"
    ref = run_process([python, "-c", "import os, sys, re, json, subprocess; "
                                     "print(json.dumps(sorted(os.listdir(sys.argv[1]))))", corpus])
    pair = paired(run_process([python, "-c", build + call, corpus]), ref, rounds)
    report.add("fresh process: import agenttools, build the gemini toolset, one list_directory (vs importing re, "
               "json, subprocess + os.listdir)", pair)
    pair = paired(run_process([python, "-c", build, corpus]), ref, rounds)
    report.add("  of which: import agenttools and build the gemini toolset, no call", pair)
    floor = [python, "-c", "import os, sys, re, json, subprocess, attrs"]
    pair = paired(run_process(floor), ref, rounds)
    report.add("  floor: the reference's imports plus attrs (every result is an attrs class), nothing else", pair)


def _echo(a: int) -> int:
    """Return a.

    Args:
        a: A number.
    """
    return a


def _echo_registry() -> agenttools.Registry:
    """A registry of one trivial tool, ``echo``: what a call costs beyond the tool's own work."""
    reg = agenttools.Registry()
    reg.tool(name="echo")(_echo)
    return reg


def _call_overhead(report: Report, rounds: int) -> None:
    reg = _echo_registry()
    n = 5000
    reg_call = lambda: [reg.call("echo", {"a": 1}) for _ in range(n)]  # noqa: E731
    direct = lambda: [_echo(1) for _ in range(n)]  # noqa: E731
    per_call = _per_call(paired(reg_call, direct, rounds), n)
    overhead = statistics.median(a - b for a, b in zip(per_call.ours, per_call.ref or [], strict=True))
    report.add("Registry.call on a trivial tool (vs calling the function)", per_call,
               "overhead <= 20 us", f"overhead {overhead * 1e6:.1f} us per call", unit="us")


def _hook_costs(report: Report, rounds: int) -> None:
    """What each built-in hook adds to a call of a trivial tool: the hooked registry against the same one bare."""
    reg = _echo_registry()
    n = 2000
    with tempfile.TemporaryDirectory() as logs:
        audit = hooks.AuditLog(os.path.join(logs, "calls.jsonl"))
        approve = hooks.Approval(lambda call: True, when="always")
        cases = (
            ("hooks.Approval (decide returns True)", (approve,), ""),
            ("hooks.AuditLog (a line to a file)", (audit,), ""),
            ("hooks.AuditLog + hooks.Approval", (approve, audit), "<= 50 us"),
            ("hooks.OutputBudget (an output within it)", (hooks.OutputBudget(max_chars=10_000),), ""),
            ("hooks.Tracing (SDK tracer, no exporter)", (hooks.Tracing(TracerProvider().get_tracer("bench")),), ""),
        )
        bare = lambda: [reg.call("echo", {"a": 1}) for _ in range(n)]  # noqa: E731
        for figure, chosen, goal in cases:
            hooked = reg.with_hooks(*chosen)
            timed = lambda h=hooked: [h.call("echo", {"a": 1}) for _ in range(n)]  # noqa: E731
            pair = _per_call(paired(timed, bare, rounds), n)
            added = statistics.median(a - b for a, b in zip(pair.ours, pair.ref or [], strict=True))
            report.add(f"Registry.call with {figure} (vs no hooks)", pair, f"added {goal}" if goal else "",
                       f"added {added * 1e6:.1f} us per call", unit="us")
        audit.close()


def _per_call(pair: Pair, n: int) -> Pair:
    return Pair(ours=[s / n for s in pair.ours], ref=[s / n for s in pair.ref or []],
                ours_cpu=[s / n for s in pair.ours_cpu], ref_cpu=[s / n for s in pair.ref_cpu])


def _sandbox(report: Report, corpus: str, rounds: int) -> None:
    """What the sandbox adds to a trivial command: the same toolset with sandbox='bwrap' against sandbox='none'."""
    n = 20
    with tempfile.TemporaryDirectory() as scratch:
        for name, tool, args in (("gemini", "run_shell_command", {"command": "true"}),
                                 ("openai", "shell", {"commands": ["true"]}),
                                 ("anthropic", "bash", {"command": "true"})):
            root = corpus if name == "gemini" else scratch
            with agenttools.toolset(name, root=root, sandbox="bwrap") as boxed, \
                    agenttools.toolset(name, root=root, sandbox="none") as bare:
                calls = [lambda reg=reg, tool=tool, args=args: [reg.call(tool, args) for _ in range(n)]
                         for reg in (boxed, bare)]
                pair = _per_call(paired(calls[0], calls[1], rounds), n)
                overhead = statistics.median(a - b for a, b in zip(pair.ours, pair.ref or [], strict=True))
                what = "a persistent session, after its first command" if name == "anthropic" else "one sandbox each"
                report.add(f"{name} {tool} `true` sandboxed ({what}) vs sandbox='none'", pair, "overhead <= 10 ms",
                           f"overhead {overhead * 1e3:.1f} ms per command")


def _floods(report: Report, rg: str, rounds: int) -> None:
    """Bounded memory: a command printing 300 MB, a search over a 1 GB file, 60,000-character lines."""
    with tempfile.TemporaryDirectory(prefix="agenttools-bench-") as scratch:
        gemini = agenttools.toolset("gemini", root=scratch)
        command = "yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz | head -c 300000000"
        memory = peak_kib(lambda: gemini.call("run_shell_command", {"command": command}))
        report.fixed("run_shell_command printing 300 MB: peak Python memory", f"{memory / 1024:.1f} MiB",
                     goal="bounded (16 MiB kept per stream)")

        line = ("x" * 59_990 + " needle\n").encode()
        Path(scratch, "long.txt").write_bytes(line * 3)
        memory = peak_kib(lambda: gemini.call("read_file", {"absolute_path": str(Path(scratch, "long.txt"))}))
        report.fixed("read_file of 60,000-character lines: peak Python memory", f"{memory:.0f} KiB",
                     goal="bounded (lines cut at 2,000 characters)")

        big = Path(scratch, "big", "1gb.txt")
        big.parent.mkdir()
        block = b"".join(b"line %d of the haystack, nothing to see here\n" % i for i in range(100_000))
        with open(big, "wb") as handle:
            while handle.tell() < 1 << 30:
                handle.write(block)
            handle.write(b"the needle is here\n")
        ws = agenttools.Workspace(scratch)
        flood_rounds = max(3, rounds // 3)
        for backend in ("rg", "python"):
            ours = lambda b=backend: grep(ws, "needle", path="big", backend=b)  # noqa: E731
            pair = paired(ours, run_process([rg, "-n", "-i", "--no-heading", "needle", "big"], scratch),
                          flood_rounds)
            memory = peak_kib(ours)
            report.add(f"search a 1 GB file, {backend} backend", pair, "bounded memory",
                       f"peak Python memory {memory / 1024:.1f} MiB")


# --- output ------------------------------------------------------------------------------------------------------

def count_files(corpus: str) -> int:
    total = 0
    for _top, dirs, names in os.walk(corpus):
        dirs[:] = [d for d in dirs if d != ".git"]
        total += len(names)
    return total


def print_table(rows: list[Row]) -> None:
    print("| figure | agenttools, median (min-max) | reference, median (min-max) | ratio (min-max); CPU ratio | goal "
          "| result |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        if row.text is not None:
            ours, ref, ratio = row.text
        else:
            assert row.pair is not None
            ours, ref, ratio = cell(row.pair.ours, row.unit), cell(row.pair.ref, row.unit), ratio_cell(row.pair)
        print(f"| {row.figure} | {ours} | {ref} | {ratio} | {row.goal or '—'} | {row.note or '—'} |")


def print_growth(labels: list[str], reports: list[Report]) -> None:
    print("| figure | " + " | ".join(labels) + f" | growth {labels[0]} → {labels[-1]}: agenttools / reference |")
    print("|---|" + "---|" * len(labels) + "---|")
    for index, first in enumerate(reports[0].rows):
        cells = []
        pairs = [report.rows[index].pair for report in reports]
        for pair in pairs:
            assert pair is not None
            ours = scaled(statistics.median(pair.ours), "ms")
            if pair.ref is None:
                cells.append(f"{ours} ms")
            else:
                cpu = f" (CPU {pair.cpu_ratio:.2f}x)" if pair.cpu_ratio else ""
                cells.append(f"{ours} / {scaled(statistics.median(pair.ref), 'ms')} ms = **{pair.ratio:.2f}x**{cpu}")
        a, b = pairs[0], pairs[-1]
        assert a is not None
        assert b is not None
        growth = f"{statistics.median(b.ours) / statistics.median(a.ours):.2f}x"
        if a.ref and b.ref:
            growth += f" / {statistics.median(b.ref) / statistics.median(a.ref):.2f}x"
        if a.ref_cpu and b.ref_cpu and all(a.ref_cpu):
            growth += (f" (CPU {statistics.median(b.ours_cpu) / statistics.median(a.ours_cpu):.2f}x / "
                       f"{statistics.median(b.ref_cpu) / statistics.median(a.ref_cpu):.2f}x)")
        print(f"| {first.figure} | " + " | ".join(cells) + f" | {growth} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, type=Path, nargs="+",
                        help="corpora built by make_corpus.py; the first gets every figure, the others (the tree "
                             "copied 2x, 4x, ...) the figures that grow with the tree")
    parser.add_argument("--rounds", type=int, default=9, help="paired runs per figure, after a warm-up (default 9)")
    parser.add_argument("--rare", help="a rare literal (default: xdg_config_home in the monorepo preset, whose "
                                       "git/ has it; PyErr_SetString in a synthetic corpus)")
    parser.add_argument("--common", default="while", help="a common word (default while)")
    parser.add_argument("--include", default="*.py", help="the include glob searched with --common (default *.py)")
    parser.add_argument("--flood", default="self",
                        help=f"a word on 100k+ lines: past the {CAP:,}-match cap, first 100 (default self)")
    parser.add_argument("--no-floods", action="store_true",
                        help="skip the 300 MB output and 1 GB file rows (they need 1 GB of disk, about 30 s)")
    parser.add_argument("--only-hooks", action="store_true",
                        help="only the call overhead and what each built-in hook adds to a call (any directory "
                             "will do as --corpus)")
    parser.add_argument("--only-sandbox", action="store_true",
                        help="only the fresh-process rows and what the sandbox adds to a command (any directory "
                             "will do as --corpus)")
    args = parser.parse_args()
    corpora = [str(path.resolve()) for path in args.corpus]
    if args.only_sandbox or args.only_hooks:
        report = Report()
        if args.only_hooks:
            _call_overhead(report, args.rounds)
            _hook_costs(report, args.rounds)
        else:
            _fresh_process(report, corpora[0], args.rounds)
            _sandbox(report, corpora[0], args.rounds)
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
              f"{platform.system()} {platform.release()}; agenttools {agenttools.__version__}; {args.rounds} paired "
              "rounds after a warm-up")
        print()
        print_table(report.rows)
        return
    for corpus in corpora:
        if not Path(corpus, BIG).is_file():
            parser.error(f"{corpus} has no {BIG}: build it with bench/make_corpus.py")
    rare = args.rare or ("xdg_config_home" if Path(corpora[0], "git").is_dir() else "PyErr_SetString")
    patterns = Patterns(rare=rare, common=args.common, include=args.include, flood=args.flood)
    rg = find_rg()
    if rg is None:
        sys.exit("bench needs ripgrep: pip install 'agenttools[fast]'")
    started = time.monotonic()
    files = [count_files(corpus) for corpus in corpora]
    labels = [f"{count / files[0]:.2g}x ({count:,} files)" for count in files]
    reports = []
    for corpus, label in zip(corpora, labels, strict=True):
        print(f"{corpus}: {label}", file=sys.stderr, flush=True)
        reports.append(tree_figures(corpus, rg, args.rounds, patterns))
    print("fixed figures", file=sys.stderr, flush=True)
    fixed = fixed_figures(corpora[0], rg, args.rounds, not args.no_floods)

    version = subprocess.run([rg, "--version"], capture_output=True, text=True, check=False).stdout.split("\n")[0]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{platform.system()} {platform.release()}; {version}; agenttools {agenttools.__version__}; "
          f"{args.rounds} paired rounds after a warm-up; {time.monotonic() - started:.0f} s in all")
    print()
    print(f"corpus {corpora[0]}: {labels[0]}")
    print()
    print_table(reports[0].rows + fixed.rows)
    if len(corpora) > 1:
        print()
        print("Growth with the tree (medians of wall-clock time; agenttools / reference = ratio; CPU: the median "
              "ratio of CPU time):")
        print()
        for corpus, label in zip(corpora, labels, strict=True):
            print(f"- {label}: {corpus}")
        print()
        print_growth(labels, reports)
        for corpus, label, report in zip(corpora[1:], labels[1:], reports[1:], strict=True):
            print()
            print(f"corpus {corpus}: {label}")
            print()
            print_table(report.rows)


if __name__ == "__main__":
    main()
