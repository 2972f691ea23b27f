"""The coder project tools: ``git_diff`` (on the git family) and ``cloc`` (on the stats family)."""

from __future__ import annotations

import json
import os
import time
from typing import Any

import attrs

from agenttools import git, stats
from agenttools.errors import GitError
from agenttools.toolsets.coder.state import State, deny_globs, resolve, split_args
from agenttools.toolsets.coder.texts import CLOC_USAGE, fail

__all__ = ["cloc", "git_diff"]


def git_diff(state: State, args: dict[str, Any]) -> str:
    """``git_diff``: the work tree's unstaged changes, from a git that runs nothing the repository names."""
    try:
        return git.diff(state.root, exclude=deny_globs(state)) or "No changes found in working directory"
    except GitError as exc:
        raise fail(str(exc)) from None


def _plural(count: int, noun: str) -> str:
    return f"{count:>8} {noun}{'' if count == 1 else 's'}"


def _languages(arg: str) -> set[str]:
    return {name.strip().lower() for name in arg.split("=", 1)[1].split(",") if name.strip()}


def _json(counts: stats.LineCount, elapsed: float, n_lines: int) -> str:
    """Cloc's ``--json`` layout, line for line (cloc writes it by hand: ``{"header" : {`` and so on)."""
    total = counts.total
    out = ['{"header" : {', '  "cloc_url"           : "github.com/AlDanial/cloc",',
           '  "cloc_version"       : "agenttools",', f'  "elapsed_seconds"    : {elapsed!r},',
           f'  "n_files"            : {total.files},', f'  "n_lines"            : {n_lines},',
           f'  "files_per_second"   : {total.files / elapsed!r},',
           f'  "lines_per_second"   : {n_lines / elapsed!r}}},']
    for row in counts.languages:
        out += [f"{json.dumps(row.language)} :{{", f'  "nFiles": {row.files},', f'  "blank": {row.blank},',
                f'  "comment": {row.comment},', f'  "code": {row.code}}},']
    out += ['"SUM": {', f'  "blank": {total.blank},', f'  "comment": {total.comment},', f'  "code": {total.code},',
            f'  "nFiles": {total.files}}} }}']
    return "\n".join(out) + "\n"


def cloc(state: State, args: dict[str, Any]) -> str:
    """``cloc``: lines of code per language (blank, comment, code), as cloc's table or its JSON."""
    argv = split_args(args.get("args"))
    if not argv:
        return CLOC_USAGE
    excluded: list[str] = []
    as_json = False
    include: set[str] | None = None
    exclude_languages: set[str] = set()
    paths: list[str] = []
    for arg in argv:
        if arg.startswith("--exclude-dir="):
            excluded.extend(d for d in arg.split("=", 1)[1].split(",") if d)
        elif arg == "--json":
            as_json = True
        elif arg.startswith("--include-lang="):
            include = (include or set()) | _languages(arg)
        elif arg.startswith("--exclude-lang="):
            exclude_languages |= _languages(arg)
        elif arg.startswith("-"):
            raise fail(f"cloc: unsupported option '{arg}' (supported: --exclude-dir=D1,D2, --include-lang=L1,L2, "
                       "--exclude-lang=L1,L2, --json)")
        else:
            real = resolve(state, arg)
            if not os.path.exists(real):
                raise fail(f"cloc: {arg}: no such file or directory")
            paths.append(real)
    started = time.monotonic()
    denied = state.workspace.denied_by
    counts = stats.count_lines(paths, exclude_dirs=excluded, max_file_size=state.workspace.max_file_size,
                               exclude=lambda path: denied(path) is not None)
    if include is not None or exclude_languages:  # files of the other languages are ignored, as cloc counts them
        kept = tuple(row for row in counts.languages if row.language.lower() not in exclude_languages
                     and (include is None or row.language.lower() in include))
        dropped = sum(row.files for row in counts.languages) - sum(row.files for row in kept)
        counts = attrs.evolve(counts, languages=kept, ignored=counts.ignored + dropped)
    elapsed = max(time.monotonic() - started, 0.001)
    total = counts.total
    n_lines = total.blank + total.comment + total.code
    if as_json:
        return _json(counts, elapsed, n_lines) if counts.languages else "{}\n"
    rule = "-" * 79
    lines = [_plural(counts.text_files, "text file") + ".",
             _plural(counts.text_files, "unique file") + "." + " " * 30,  # cloc pads the line it overwrote
             _plural(counts.ignored, "file") + " ignored." + (f" ({counts.too_large} over max_file_size, not read)"
                                                               if counts.too_large else "")]
    if not counts.languages:
        return "\n".join(lines) + "\n"
    lines += ["", f"agenttools cloc  T={elapsed:.2f} s ({total.files / elapsed:.1f} files/s, "
              f"{n_lines / elapsed:.1f} lines/s)", rule,
              f"{'Language':<20}{'files':>14}{'blank':>15}{'comment':>15}{'code':>15}", rule]
    lines += [f"{r.language:<20}{r.files:>14}{r.blank:>15}{r.comment:>15}{r.code:>15}" for r in counts.languages]
    if len(counts.languages) > 1:
        lines += [rule, f"{'SUM:':<20}{total.files:>14}{total.blank:>15}{total.comment:>15}{total.code:>15}"]
    lines.append(rule)
    return "\n".join(lines) + "\n"
