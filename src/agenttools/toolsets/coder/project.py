"""The coder project tools: ``git_diff`` (on the git family) and ``cloc`` (on the stats family)."""

from __future__ import annotations

import json
import os
import time
from typing import Any

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


def cloc(state: State, args: dict[str, Any]) -> str:
    """``cloc``: lines of code per language (blank, comment, code), as a table or cloc's JSON."""
    argv = split_args(args.get("args"))
    if not argv:
        return CLOC_USAGE
    excluded: list[str] = []
    as_json = False
    paths: list[str] = []
    for arg in argv:
        if arg.startswith("--exclude-dir="):
            excluded.extend(d for d in arg.split("=", 1)[1].split(",") if d)
        elif arg == "--json":
            as_json = True
        elif arg.startswith("-"):
            raise fail(f"cloc: unsupported option '{arg}' (supported: --exclude-dir=D1,D2, --json)")
        else:
            real = resolve(state, arg)
            if not os.path.exists(real):
                raise fail(f"cloc: {arg}: no such file or directory")
            paths.append(real)
    started = time.monotonic()
    denied = state.workspace.denied_by
    counts = stats.count_lines(paths, exclude_dirs=excluded, max_file_size=state.workspace.max_file_size,
                               exclude=lambda path: denied(path) is not None)
    elapsed = max(time.monotonic() - started, 0.001)
    total = counts.total
    n_lines = total.blank + total.comment + total.code
    if as_json:
        data: dict[str, Any] = {"header": {"cloc_url": "github.com/AlDanial/cloc", "cloc_version": "agenttools",
                                           "elapsed_seconds": round(elapsed, 6), "n_files": total.files,
                                           "n_lines": n_lines,
                                           "files_per_second": round(total.files / elapsed, 2),
                                           "lines_per_second": round(n_lines / elapsed, 2)}}
        for row in (*counts.languages, total):
            data[row.language] = {"nFiles": row.files, "blank": row.blank, "comment": row.comment, "code": row.code}
        return json.dumps(data, indent=2)
    rule = "-" * 79
    lines = [f"{counts.text_files:>8} text files.", f"{counts.text_files:>8} unique files.",
             f"{counts.ignored:>8} files ignored." + (f" ({counts.too_large} over max_file_size, not read)"
                                                       if counts.too_large else ""), "",
             f"agenttools cloc  T={elapsed:.2f} s ({total.files / elapsed:.1f} files/s, {n_lines / elapsed:.1f} "
             "lines/s)", rule,
             f"{'Language':<20}{'files':>14}{'blank':>15}{'comment':>15}{'code':>15}", rule]
    lines += [f"{r.language:<20}{r.files:>14}{r.blank:>15}{r.comment:>15}{r.code:>15}" for r in counts.languages]
    if len(counts.languages) > 1:
        lines += [rule, f"{'SUM:':<20}{total.files:>14}{total.blank:>15}{total.comment:>15}{total.code:>15}"]
    lines.append(rule)
    return "\n".join(lines) + "\n"
