"""The ripgrep backend of :func:`agenttools.search.grep`, made to agree with the Python backend.

ripgrep's own ignore handling covers the ``.gitignore`` files *inside* the search directory. The rules that
apply from above it (ancestor ``.gitignore`` files up to the ignore base, and ``.git/info/exclude``) are rewritten
relative to the search directory into one temporary ``--ignore-file``; parent, global and ``.ignore`` files are
switched off so both backends read exactly the same rules. Files with a NUL byte and no UTF-16/32 BOM are dropped
afterwards (ripgrep may report a match that precedes the first NUL), as the Python backend never searches them.
Returns None when ripgrep cannot serve the query (no binary, a regex it rejects, a rule it cannot rebase), so
the caller falls back to Python.
"""

from __future__ import annotations

import mmap
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import regex

from agenttools._ignore import IgnoreRules
from agenttools._text import detect_bom
from agenttools.search import GrepMatch, _decode_for_search

__all__ = ["find_rg", "grep"]

_GLOB_CHARS = frozenset("*?[{\\")
_RG_BUFFER = 64 * 1024  # ripgrep's default read buffer: its binary detection sees at least this much


def find_rg() -> str | None:
    """The ``rg`` binary: the one the ``ripgrep`` wheel put next to this interpreter, else ``PATH``."""
    name = "rg.exe" if os.name == "nt" else "rg"
    local = Path(sys.executable).parent / name
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which("rg")


class _Unrebasable(Exception):  # noqa: N818 - internal signal
    pass


def _rebase(line: str, rel: str) -> str | None:
    """Rewrite one gitignore line written for an ancestor directory so it applies from ``rel`` below it."""
    text = line.rstrip("\n")
    if not text.strip() or text.startswith("#"):
        return None
    negate = text.startswith("!")
    body = text[1:] if negate else text
    dir_only = body.endswith("/") and not body.endswith("\\/")
    core = body.rstrip("/") if dir_only else body
    if "/" not in core:
        return text  # unanchored: matches at any depth, below rel too
    core = core.lstrip("/")
    if core.startswith("**/"):
        return ("!" if negate else "") + core + ("/" if dir_only else "")
    parts = core.split("/")
    prefix = rel.split("/")
    for i, segment in enumerate(prefix):
        if i >= len(parts):
            return None  # the rule names an ancestor of the search directory (handled by pruning, not here)
        if parts[i] == "**" or _GLOB_CHARS & set(parts[i]):
            raise _Unrebasable(line)
        if parts[i] != segment:
            return None  # the rule is about a different subtree
    rest = "/".join(parts[len(prefix):])
    if not rest:
        return None
    return ("!" if negate else "") + "/" + rest + ("/" if dir_only else "")


def _ancestor_rules(root: Path, rules: IgnoreRules) -> list[str]:
    """Lines of every rule file above ``root`` (exclude file first, then shallow to deep), rebased to ``root``."""
    rel_root = os.path.relpath(root, rules.base).replace(os.sep, "/")
    if rel_root == ".":
        sources = []
    else:
        parts = rel_root.split("/")
        sources = ["/".join(parts[:depth]) for depth in range(len(parts))]
    lines: list[str] = []
    exclude = os.path.join(rules.base, ".git", "info", "exclude")
    texts = [("", exclude)] + [(d, os.path.join(rules.base, d, ".gitignore")) for d in sources]
    for directory, file in texts:
        try:
            with open(file, encoding="utf-8", errors="replace") as handle:
                content = handle.read()
        except OSError:
            continue
        below = rel_root if not directory else rel_root[len(directory) + 1:]
        for line in content.splitlines():
            rebased = _rebase(line, below) if below and below != "." else line
            if rebased is not None:
                lines.append(rebased)
    return lines


def grep(
    root: Path,
    pattern: str,
    include: str | None,
    include_re: regex.Pattern[str] | None,
    rules: IgnoreRules | None,
    *,
    ignore_case: bool,
    deadline: float,
    required: bool,
    limit: int | None = None,
) -> list[GrepMatch] | None:
    """Search with ripgrep; None when it cannot serve this query (the caller then uses Python).

    With ``limit``, ripgrep walks in path order and is stopped as soon as ``limit`` matching lines are read.
    """
    import time

    binary = find_rg()
    if binary is None:
        return None
    args = [binary, "--no-config", "--null", "--line-number", "--with-filename", "--no-heading", "--color=never",
            "--hidden", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot", "--no-ignore-exclude",
            "--no-require-git", "--glob=!.git", "--no-messages", "--regexp", pattern]
    if ignore_case:
        args.insert(1, "--ignore-case")
    if rules is None:
        args.insert(1, "--no-ignore")
    if include and "/" not in include.rstrip("/"):
        args[1:1] = [f"--type-add=agtinclude:{include}", "--type=agtinclude"]
    ignore_file = None
    try:
        if rules is not None:
            try:
                lines = _ancestor_rules(root, rules)
            except _Unrebasable:
                return None
            if lines:
                handle = tempfile.NamedTemporaryFile("w", suffix=".gitignore", delete=False, encoding="utf-8")  # noqa: SIM115
                with handle:
                    handle.write("\n".join(lines) + "\n")
                ignore_file = handle.name
                args.insert(1, f"--ignore-file={ignore_file}")
        args.append("./")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        anchored = include if include and "/" in include.rstrip("/") else None
        if limit is not None:
            return _stream(args, root, anchored, include_re, limit, deadline)
        try:
            proc = subprocess.run(args, cwd=root, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=remaining, check=False)
        except subprocess.TimeoutExpired:
            raise TimeoutError from None
    finally:
        if ignore_file is not None:
            os.unlink(ignore_file)
    if proc.returncode not in (0, 1):
        return None  # e.g. a regex ripgrep rejects (look-around): the Python backend can serve it
    return _parse(root, proc.stdout, anchored, include_re)


def _stream(args: list[str], root: Path, anchored: str | None, include_re: regex.Pattern[str] | None,
            limit: int, deadline: float) -> list[GrepMatch] | None:
    """Run ripgrep in path order and stop it once ``limit`` matches are in (a result cap costs what it returns)."""
    import time

    args = [args[0], "--sort=path", *args[1:]]
    proc = subprocess.Popen(args, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None  # noqa: S101 - PIPE
    matches: list[GrepMatch] = []
    pending = b""
    try:
        while len(matches) < limit:
            if time.monotonic() > deadline:
                raise TimeoutError
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            pending += chunk
            complete, _, pending = pending.rpartition(b"\n")
            if complete:
                matches.extend(_parse(root, complete + b"\n", anchored, include_re))
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    if proc.returncode not in (0, 1, -9) and not matches:
        return None
    return matches[:limit]


def _parse(root: Path, output: bytes, anchored_include: str | None,
           include_re: regex.Pattern[str] | None) -> list[GrepMatch]:
    matches: list[GrepMatch] = []
    binary_cache: dict[str, bool] = {}
    base = str(root).rstrip(os.sep) + os.sep
    for raw in output.split(b"\n"):
        if not raw:
            continue
        name, _, rest = raw.partition(b"\x00")
        number, _, content = rest.partition(b":")
        rel = os.fsdecode(name).removeprefix("./")
        if anchored_include is not None and include_re is not None and not include_re.match(rel):
            continue
        full = base + rel
        if rel not in binary_cache:
            binary_cache[rel] = _is_binary_late(full)
        if binary_cache[rel]:
            continue
        matches.append(GrepMatch(path=full, rel=rel, line_number=int(number),
                                 line=content.decode("utf-8", errors="replace")))
    return matches


def _is_binary_late(path: str) -> bool:
    """Whether ripgrep may have reported lines of a file the Python backend treats as binary.

    ripgrep skips a file whose first buffer holds a NUL byte, so only a file larger than that buffer can have a
    NUL that ripgrep saw after reporting matches; only those are read again.
    """
    try:
        if os.path.getsize(path) <= _RG_BUFFER:
            return False
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
            if detect_bom(view[:4]) is not None:
                return _decode_for_search(view[:]) is None
            return view.find(b"\x00") != -1
    except (OSError, ValueError):
        return True


_WALK_FLAGS = ["--hidden", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot", "--no-ignore-exclude",
               "--no-require-git", "--no-messages", "--null"]


def list_files(root: Path, rules: IgnoreRules | None, skip_dirs: frozenset[str],
               timeout: float = 60.0) -> tuple[list[str], list[str]] | None:
    """List the files below ``root``: (those not ignored, all of them), as ``/``-separated relative paths.

    Two ripgrep walks run side by side; None when ripgrep is missing or cannot apply the rules.
    """
    binary = find_rg()
    if binary is None:
        return None
    skips = [f"--glob=!{name}" for name in sorted(skip_dirs)]
    ignore_file = None
    try:
        kept_args = [binary, "--no-config", "--files", *_WALK_FLAGS, *skips]
        if rules is None:
            kept_args.insert(2, "--no-ignore")
        else:
            try:
                lines = _ancestor_rules(root, rules)
            except _Unrebasable:
                return None
            if lines:
                handle = tempfile.NamedTemporaryFile("w", suffix=".gitignore", delete=False, encoding="utf-8")  # noqa: SIM115
                with handle:
                    handle.write("\n".join(lines) + "\n")
                ignore_file = handle.name
                kept_args.insert(2, f"--ignore-file={ignore_file}")
        all_args = [binary, "--no-config", "--files", "--no-ignore", *_WALK_FLAGS, *skips]
        runs = [subprocess.Popen([*args, "./"], cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL) for args in (kept_args, all_args)]
        try:
            outputs = [run.communicate(timeout=timeout)[0] for run in runs]
        except subprocess.TimeoutExpired:
            for run in runs:
                run.kill()
                run.communicate()
            raise TimeoutError from None
    finally:
        if ignore_file is not None:
            os.unlink(ignore_file)
    if any(run.returncode not in (0, 1) for run in runs):
        return None
    kept, every = ([os.fsdecode(p).removeprefix("./") for p in out.split(b"\0") if p] for out in outputs)
    return kept, every
