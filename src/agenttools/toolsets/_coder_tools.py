"""The coder toolset's other tools: rg, git_diff, head, tail, cloc, web_fetch, html_to_markdown, todos."""

from __future__ import annotations

import hashlib
import json
import os
import re
import selectors
import shlex
import stat
import subprocess
import time
import urllib.parse
from typing import Any

from agenttools import _coreutils, search, stats, web
from agenttools._calls import current_scope
from agenttools._text import atomic_write, read_checked
from agenttools.errors import AgentToolsError, PatternError, ToolInputError
from agenttools.search.rg import RipgrepStuckError, check_ripgrep, find_rg
from agenttools.toolsets._coder_files import Fail, State, resolve, write_own_file
from agenttools.toolsets._coder_git import GitRefused, git_diff_text
from agenttools.toolsets._coder_rg import RgArgumentError
from agenttools.toolsets._coder_rg import check_args as check_rg_args

__all__ = ["CLOC_USAGE", "MAX_OUTPUT", "cache_name", "cloc", "git_diff", "head", "html_to_markdown", "rg", "tail",
           "todoread", "todowrite", "web_fetch"]

MAX_OUTPUT = 1024 * 1024
_CONTENT_TYPES = {"text/plain": ".txt", "text/html": ".html", "text/xml": ".xml", "application/json": ".json",
                  "application/xml": ".xml", "application/xhtml+xml": ".html"}


def _split(args: Any) -> list[str]:
    if not isinstance(args, str) or not args.strip():
        return []
    try:
        return shlex.split(args)
    except ValueError as exc:
        raise Fail(f"cannot parse args: {exc}") from None


def _cap(text: str) -> str:
    if len(text) <= MAX_OUTPUT:
        return text
    return text[:MAX_OUTPUT] + f"\n[output truncated: {len(text)} characters, showing the first {MAX_OUTPUT}]"


def _check_rg_path(state: State, path: str, kind: str) -> None:
    """A path ripgrep will open: inside the root, and a regular file (or, for positionals, a directory)."""
    real = resolve(state, path)
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return  # ripgrep reports the missing file itself
    if stat.S_ISREG(mode) or (kind == "any" and stat.S_ISDIR(mode)):
        return
    raise Fail(f"rg: {path}: not a regular file" + (" or directory" if kind == "any" else ""))


MAX_RG_PATTERN = 4096
"""Longest ``pattern`` the rg tool takes: compiling a regex costs time and memory by its length (a 4 MiB pattern
cost ~1 GB), and the kernel refuses one argument over 128 KiB."""
MAX_RG_ARGS = 16384
"""Longest ``args`` string the rg tool takes."""


def rg(state: State, args: dict[str, Any]) -> str:
    pattern = args["pattern"]
    if not pattern:
        raise Fail("search pattern cannot be empty")
    if len(pattern) > MAX_RG_PATTERN:
        raise Fail(f"search pattern is too long: {len(pattern)} characters (at most {MAX_RG_PATTERN})")
    if len(args.get("args") or "") > MAX_RG_ARGS:
        raise Fail(f"rg arguments are too long: {len(args.get('args') or '')} characters (at most {MAX_RG_ARGS})")
    argv = _split(args.get("args"))
    try:
        check_rg_args(argv, lambda path, kind: _check_rg_path(state, path, kind))
    except RgArgumentError as exc:
        raise Fail(str(exc)) from None
    binary = find_rg()
    if binary is None or os.environ.get("AGENTTOOLS_SEARCH_BACKEND", "").strip().lower() == "python":
        return _rg_python(state, pattern, argv)
    env = {key: value for key, value in os.environ.items() if key != "RIPGREP_CONFIG_PATH"}
    code, out, total, err = _run_head([os.path.abspath(binary), "--no-config", "--no-ignore-messages",
                                       f"--regexp={pattern}", *argv], state.root, env=env)
    if code == 1 and not err:
        return "No matches found"
    if code not in (0, 1):
        raise Fail(err.decode("utf-8", errors="replace").strip() or f"exit status {code}")
    text = out.decode("utf-8", errors="replace")
    if total > len(out):
        return text[:MAX_OUTPUT] + f"\n[output truncated: {total} bytes, showing the first {MAX_OUTPUT} characters]"
    return _cap(text)


def _run_head(argv: list[str], cwd: str | os.PathLike[str], timeout: float = 120.0,
              env: dict[str, str] | None = None) -> tuple[int, bytes, int, bytes]:
    """Run a program; (exit code, the first bytes of stdout, how many stdout bytes there were, stderr's head).

    Only the first ``4 * MAX_OUTPUT`` bytes of stdout are kept (the rest is counted and dropped), so a search with a
    million matches costs no more memory than one with a thousand.
    """
    keep = 4 * MAX_OUTPUT
    scope = current_scope()
    check_at = time.monotonic() + 0.25
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None  # noqa: S101 - PIPE
    assert proc.stderr is not None  # noqa: S101 - PIPE
    heads = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    limits = {proc.stdout: keep, proc.stderr: 1 << 16}
    total = 0
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for stream in heads:
            selector.register(stream, selectors.EVENT_READ)
        try:
            while selector.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise Fail(f"timed out after {timeout:g} seconds")
                if time.monotonic() >= check_at:  # every quarter second, with or without output
                    check_at = time.monotonic() + 0.25
                    if scope is not None and scope.cancelled:
                        raise Fail("cancelled")
                    try:
                        check_ripgrep(proc.pid)
                    except RipgrepStuckError as exc:
                        raise Fail(f"{os.path.basename(argv[0])} stopped: {exc}") from None
                for key, _ in selector.select(min(remaining, 0.25)):
                    chunk = os.read(key.fd, 1 << 16)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    head = heads[key.fileobj]  # type: ignore[index]
                    if key.fileobj is proc.stdout:
                        total += len(chunk)
                    room = limits[key.fileobj] - len(head)  # type: ignore[index]
                    if room > 0:
                        head += chunk[:room]
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            proc.stderr.close()
            code = proc.wait()
    return code, bytes(heads[proc.stdout]), total, bytes(heads[proc.stderr])


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
            raise Fail(f"rg is not installed and the Python fallback does not support {arg} "
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
        raise Fail(f"regex parse error: {exc.reason}") from None
    except AgentToolsError as exc:
        raise Fail(str(exc)) from None
    return _cap("".join(line + "\n" for line in lines)) if lines else "No matches found"


def git_diff(state: State, args: dict[str, Any]) -> str:
    try:
        return git_diff_text(state.root) or "No changes found in working directory"
    except GitRefused as exc:
        raise Fail(str(exc)) from None


def _file_resolver(state: State) -> Any:
    def resolve_file(name: str) -> str:
        try:
            return resolve(state, name)
        except Fail as exc:
            raise PermissionError(str(exc)) from None

    return resolve_file


def head(state: State, args: dict[str, Any]) -> str:
    try:
        return _cap(_coreutils.head(_split(args.get("args")), _file_resolver(state)))
    except _coreutils.CommandError as exc:
        raise Fail(str(exc).rstrip("\n")) from None


def tail(state: State, args: dict[str, Any]) -> str:
    try:
        return _cap(_coreutils.tail(_split(args.get("args")), _file_resolver(state)))
    except _coreutils.CommandError as exc:
        raise Fail(str(exc).rstrip("\n")) from None


CLOC_USAGE = """Usage: cloc [options] <file(s)/dir(s)>
 Count physical lines of source code in the given files and directories, by language.
 Supported options:
   --exclude-dir=<D1>[,D2,]  Exclude the given comma-separated directory names.
   --json                    Write the results as JSON.
"""


def cloc(state: State, args: dict[str, Any]) -> str:
    argv = _split(args.get("args"))
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
            raise Fail(f"cloc: unsupported option '{arg}' (supported: --exclude-dir=D1,D2, --json)")
        else:
            real = resolve(state, arg)
            if not os.path.exists(real):
                raise Fail(f"cloc: {arg}: no such file or directory")
            paths.append(real)
    started = time.monotonic()
    counts = stats.count_lines(paths, exclude_dirs=excluded, max_file_size=state.workspace.max_file_size)
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


def cache_name(url: str) -> str:
    """Upstream's cache file name (without extension) for ``url``."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.netloc.rsplit("@", 1)[-1]).lower()
    path = parts.path.lower().strip("/").replace("/", "_")
    digest = hashlib.sha256(url.encode()).hexdigest()[:8]
    return re.sub(r"[^a-z0-9_.]", "_", f"{host}_{path}_{digest}")


def web_fetch(state: State, args: dict[str, Any]) -> str:
    url: str = args["url"]
    if not url.startswith(("http://", "https://")):
        raise Fail("URL must start with http:// or https://")
    headers = {"User-Agent": "Mozilla/5.0 WebFetch Tool",
               "Accept": "text/*, application/json, application/xml, application/xhtml+xml"}
    try:
        result = web.fetch(url, headers=headers, timeout=30.0, max_bytes=state.workspace.max_file_size,
                           allow_private=state.allow_private_network)
    except AgentToolsError as exc:
        raise Fail(str(exc)) from None
    if not 200 <= result.status < 300:
        raise Fail(f"HTTP request failed with status code: {result.status}")
    raw_type = result.content_type
    base = raw_type.split(";", 1)[0].strip().lower()
    ext = _CONTENT_TYPES.get(base) or (".txt" if base.startswith("text/") else None)
    if ext is None:
        raise Fail(f"unsupported content type: {raw_type}")
    rel = f".agent/cache/webfetch/{cache_name(url)}{ext}"
    write_own_file(state, state.root / rel, result.body, mode=0o644)
    return json.dumps({"path": rel, "statusCode": result.status, "contentType": raw_type}, ensure_ascii=False)


_SCRIPT_OPEN = re.compile(r"<(script|style)\b", re.IGNORECASE)


def strip_scripts(html: str) -> str:
    """Drop ``<script>`` and ``<style>`` elements, as ``(?is)<(script|style)\\b.*?</\\1\\s*>`` would, in linear time.

    The lazy regex scans to the end of the text from every unclosed opening tag (quadratic on a page of
    ``<script`` without an end). Here each opening tag searches once for its end tag; once an element type has no
    end tag left, its later opening tags are skipped without a search.
    """
    pieces: list[str] = []
    done = 0
    position = 0
    unclosed: set[str] = set()
    while (opening := _SCRIPT_OPEN.search(html, position)) is not None:
        name = opening.group(1).lower()
        closing = None if name in unclosed else _CLOSE[name].search(html, opening.end())
        if closing is None:
            unclosed.add(name)
            position = opening.start() + 1
            continue
        pieces.append(html[done:opening.start()])
        done = position = closing.end()
    pieces.append(html[done:])
    return "".join(pieces)


_CLOSE = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("script", "style")}


def html_to_markdown(state: State, args: dict[str, Any]) -> str:
    path = args["path"]
    if not path:
        raise Fail("path cannot be empty")
    real = resolve(state, path)
    if not os.path.isfile(real):
        raise Fail(f"input file does not exist: {path}")
    stem, ext = os.path.splitext(path)
    out_path = (stem if ext else path) + ".md"
    out_real = resolve(state, out_path)
    ws = state.workspace
    if ws.protected_by(out_real) is not None or ws.protected_by(os.path.join(state.root, out_path)) is not None:
        raise Fail(f"path not allowed: {out_path} (inside git metadata)")
    try:  # opened without blocking, fstat-checked and bounded by max_file_size
        html = read_checked(real, root=ws.root_of(real), max_size=ws.max_file_size).decode("utf-8", errors="replace")
    except AgentToolsError as exc:
        raise Fail(f"cannot read {path}: {exc}") from None
    except OSError as exc:
        raise Fail(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        markdown = web.html_to_markdown(strip_scripts(html))
    except ImportError as exc:
        raise Fail(str(exc)) from None
    try:
        atomic_write(out_real, markdown.encode("utf-8"), mode=0o644, root=ws.root_of(out_real))
    except OSError as exc:
        raise Fail(f"cannot write {out_path}: {exc.strerror or exc}") from None
    return json.dumps({"inputPath": path, "outputPath": out_path, "success": True}, separators=(",", ":"))


def todowrite(state: State, args: dict[str, Any]) -> str:
    raw = args["todos_json"]
    try:
        items = json.loads(raw) if raw.strip() else []
    except ValueError as exc:
        raise Fail(f"invalid todos JSON: {exc}") from None
    if not isinstance(items, list):
        raise Fail("invalid todos JSON: the value must be an array of todo objects")
    try:
        stored = state.todos.replace(items)
    except ToolInputError as exc:
        raise Fail(str(exc)) from None
    active = sum(1 for item in stored if item.active)
    return json.dumps({"output": f"Successfully updated {len(stored)} todos",
                       "title": f"Updated todo list with {active} active todos"}, separators=(",", ":"),
                      sort_keys=True)


def todoread(state: State, args: dict[str, Any]) -> str:
    items = state.todos.items
    output = json.dumps([item.to_json() for item in items], separators=(",", ":"), ensure_ascii=False)
    active = sum(1 for item in items if item.active)
    return json.dumps({"output": output, "title": f"{active} todos"}, separators=(",", ":"), sort_keys=True)

