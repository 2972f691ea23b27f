"""The coder ``rg`` tool: ripgrep with the model's flags, checked against an allow-list, or the Python backend."""

from __future__ import annotations

import os
import stat
from typing import Any

from agenttools import search
from agenttools.errors import AgentToolsError, PatternError
from agenttools.search.rg import find_rg, run_rg
from agenttools.search.rg_args import RgArgumentError
from agenttools.search.rg_args import check_args as check_rg_args
from agenttools.toolsets.coder.state import State, deny_globs, resolve, split_args
from agenttools.toolsets.coder.texts import MAX_OUTPUT, cap, fail

__all__ = ["MAX_RG_ARGS", "MAX_RG_PATTERN", "rg"]


def _check_rg_path(state: State, path: str, kind: str) -> None:
    """A path ripgrep will open: inside the root, and a regular file (or, for positionals, a directory)."""
    real = resolve(state, path)
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return  # ripgrep reports the missing file itself
    if stat.S_ISREG(mode) or (kind == "any" and stat.S_ISDIR(mode)):
        return
    raise fail(f"rg: {path}: not a regular file" + (" or directory" if kind == "any" else ""))


MAX_RG_PATTERN = 4096
"""Longest ``pattern`` the rg tool takes: compiling a regex costs time and memory by its length (a 4 MiB pattern
cost ~1 GB), and the kernel refuses one argument over 128 KiB."""
MAX_RG_ARGS = 16384
"""Longest ``args`` string the rg tool takes."""


def rg(state: State, args: dict[str, Any]) -> str:
    """``rg``: ripgrep's own output for the pattern and the allowed flags, capped."""
    pattern = args["pattern"]
    if not pattern:
        raise fail("search pattern cannot be empty")
    if len(pattern) > MAX_RG_PATTERN:
        raise fail(f"search pattern is too long: {len(pattern)} characters (at most {MAX_RG_PATTERN})")
    if len(args.get("args") or "") > MAX_RG_ARGS:
        raise fail(f"rg arguments are too long: {len(args.get('args') or '')} characters (at most {MAX_RG_ARGS})")
    argv = split_args(args.get("args"))
    try:
        flags, paths = check_rg_args(argv, lambda path, kind: _check_rg_path(state, path, kind))
    except RgArgumentError as exc:
        raise fail(str(exc)) from None
    binary = find_rg()
    if binary is None or os.environ.get("AGENTTOOLS_SEARCH_BACKEND", "").strip().lower() == "python":
        return _rg_python(state, pattern, argv)
    env = {key: value for key, value in os.environ.items() if key != "RIPGREP_CONFIG_PATH"}
    # the workspace's deny rules come after the model's flags: a later --glob wins, so none can undo them
    denied = [f"--glob=!{glob}" for glob in deny_globs(state)]
    run = run_rg([os.path.abspath(binary), "--no-config", "--no-ignore-messages", *flags, *denied,
                  f"--regexp={pattern}", "--", *paths],
                 cwd=state.root, env=env, keep=4 * MAX_OUTPUT)
    if run.timed_out:
        raise fail("timed out after 120 seconds")
    if run.cancelled:
        raise fail("cancelled")
    if run.stopped is not None:
        raise fail(f"{os.path.basename(binary)} stopped: {run.stopped}")
    code, out, total, err = run.exit_code, run.stdout, run.stdout_bytes, run.stderr
    if code == 1:  # upstream: exit status 1 is "No matches found", whatever ripgrep said on stderr
        return "No matches found"
    if code != 0:  # ripgrep's stderr whole (it ends in a newline), as upstream returned it
        raise fail(err.decode("utf-8", errors="replace") or f"exit status {code}")
    text = out.decode("utf-8", errors="replace")
    if total > len(out):
        return text[:MAX_OUTPUT] + f"\n[output truncated: {total} bytes, showing the first {MAX_OUTPUT} characters]"
    return cap(text)


def _rg_python(state: State, pattern: str, argv: list[str]) -> str:
    """Ripgrep's plain output for the common flags, from the Python search backend."""
    ignore_case, line_numbers, files_only, include, paths = False, False, False, None, []
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        if arg in ("-i", "--ignore-case"):
            ignore_case = True
        elif arg in ("-n", "--line-number"):
            line_numbers = True
        elif arg in ("-l", "--files-with-matches"):
            files_only = True
        elif arg in ("-g", "--glob") and rest:
            include = rest.pop(0)
        elif arg.startswith("--glob="):
            include = arg.split("=", 1)[1]
        elif not arg.startswith("-"):
            paths.append(arg)
        else:
            raise fail(f"rg is not installed and the Python fallback does not support {arg} "
                       "(supported: -i, -n, -l, -g GLOB, paths)")
    lines: list[str] = []
    try:
        for path in paths or ["."]:
            result = search.grep(state.workspace, pattern, path=os.path.join(state.root, path), include=include,
                                 ignore_case=ignore_case, backend="python")
            prefix = "" if path == "." else path.rstrip("/") + "/"
            seen: set[str] = set()
            for match in result.matches:
                name = prefix + match.rel
                if files_only:
                    if name not in seen:
                        seen.add(name)
                        lines.append(name)
                else:
                    lines.append(f"{name}:{match.line_number}:{match.line}" if line_numbers else f"{name}:{match.line}")
    except PatternError as exc:
        raise fail(f"regex parse error: {exc.reason}") from None
    except AgentToolsError as exc:
        raise fail(str(exc)) from None
    return cap("".join(line + "\n" for line in lines)) if lines else "No matches found"
