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

import codecs
import contextlib
import mmap
import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import regex

from agenttools._calls import current_scope
from agenttools._text import detect_bom, open_regular, read_regular
from agenttools.search.ignore import IgnoreRules
from agenttools.search.results import GrepMatch

__all__ = ["MAX_MEMORY", "RipgrepRun", "RipgrepStuckError", "check_ripgrep", "find_rg", "grep", "run_rg"]

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
        raw = read_regular(file)  # without blocking: a FIFO named .gitignore is passed by, as by git
        if raw is None:
            continue
        content = raw.decode("utf-8", errors="replace")
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
    binary = find_rg()
    if binary is None:
        return None
    args = [binary, "--no-config", "--null", "--line-number", "--with-filename", "--no-heading", "--color=never",
            "--hidden", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot", "--no-ignore-exclude",
            "--no-require-git", "--glob=!.git", "--regexp", pattern]
    if ignore_case:
        args.insert(1, "--ignore-case")
    if include and "/" not in include.rstrip("/"):
        args[1:1] = [f"--type-add=agtinclude:{include}", "--type=agtinclude"]
    anchored = include if include and "/" in include.rstrip("/") else None
    if len(os.fsencode(pattern)) > _MAX_ARG:
        return None  # one argument over the kernel's limit fails with E2BIG: the Python backend serves it
    try:
        return _grep(root, args, anchored, include_re, rules, deadline, limit)
    except RipgrepStuckError:
        return None  # an ignore file is a FIFO or a device: the Python backend passes it by (it never opens one)


def _grep(root: Path, args: list[str], anchored: str | None, include_re: regex.Pattern[str] | None,
          rules: IgnoreRules | None, deadline: float, limit: int | None) -> list[GrepMatch] | None:
    with _ignore_args(root, rules) as ignore:
        if ignore is None:
            return None
        full = [*args[:1], *ignore, *args[1:], "./"]
        if limit is not None and limit >= _PARALLEL_FIRST:
            # a large cap is rarely reached: search on all threads first, in path order only if it is reached
            parsed, code = _collect(full, root, anchored, include_re, deadline, limit)
            if len(parsed.matches) < limit:
                return None if code not in (0, 1) and not parsed.matches else parsed.result()
        if limit is not None:
            full = [full[0], "--sort=path", *full[1:]]
        parsed, code = _collect(full, root, anchored, include_re, deadline, limit)
    if code not in (0, 1) and (limit is None or not parsed.matches):
        return None  # e.g. a regex ripgrep rejects (look-around): the Python backend can serve it
    if limit is not None and len(parsed.matches) >= limit:
        parsed.suspect.add(parsed.matches[-1].rel)  # stopped inside its block: a warning may not have come yet
    return parsed.result()[:limit]


_PARALLEL_FIRST = 1000
_MAX_ARG = 100_000  # Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); stay well below it


def _collect(args: list[str], root: Path, anchored: str | None, include_re: regex.Pattern[str] | None,
             deadline: float, limit: int | None) -> tuple[_Parsed, int | None]:
    """Run ripgrep and parse its output, stopping at ``limit`` matching lines; (matches, exit code)."""
    parsed = _Parsed(root, anchored, include_re)
    with _Ripgrep(args, root, deadline, b"\n") as rg:
        for block in rg:
            parsed.feed(block)
            if limit is not None and len(parsed.matches) >= limit:
                break
    return parsed, rg.returncode


@contextlib.contextmanager
def _ignore_args(root: Path, rules: IgnoreRules | None) -> Iterator[list[str] | None]:
    """The ripgrep options applying ``rules`` (a temporary ``--ignore-file`` for the ancestors' rules while in use).

    None when a rule cannot be rebased onto ``root``.
    """
    if rules is None:
        yield ["--no-ignore"]
        return
    try:
        lines = _ancestor_rules(root, rules)
    except _Unrebasable:
        yield None
        return
    if not lines:
        yield []
        return
    handle = tempfile.NamedTemporaryFile("w", suffix=".gitignore", delete=False, encoding="utf-8")  # noqa: SIM115
    try:
        with handle:
            handle.write("\n".join(lines) + "\n")
        yield [f"--ignore-file={handle.name}"]
    finally:
        os.unlink(handle.name)


_POLL = 0.25  # seconds between checks of a running ripgrep: was its call cancelled, is it stuck?
MAX_MEMORY = 1 << 30
"""Resident memory a ripgrep may take (1 GiB) before it is stopped: an ignore file linked to ``/dev/zero`` is one
endless line that ripgrep holds in memory (2 GB in two seconds)."""


class RipgrepStuckError(OSError):
    """ripgrep cannot finish well: it waits on a FIFO or grows without bound, because of a file in the tree."""


def check_ripgrep(pid: int, *, max_memory: int = MAX_MEMORY) -> None:
    """Raise :class:`RipgrepStuckError` when ripgrep (process ``pid``) is stuck on a file in the tree (Linux).

    ripgrep reads every ``.gitignore``, ``.ignore`` and ``.rgignore`` on its walk. One that is a FIFO blocks its
    ``open`` until a writer comes (a thread waits in the kernel's ``wait_for_partner``); one linked to a device such
    as ``/dev/zero`` is read forever. Callers stop ripgrep instead of waiting out their deadline. Nothing is
    raised where ``/proc`` does not tell.

    Raises:
        RipgrepStuckError: Waiting on a FIFO, or over ``max_memory`` bytes resident.
    """
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            status = handle.read()
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return
    for line in status.splitlines():
        if line.startswith(b"VmRSS:"):
            if int(line.split()[1]) * 1024 > max_memory:
                raise RipgrepStuckError(f"it took more than {max_memory >> 20} MiB of memory (a file it reads, such "
                                        "as an ignore file linked to a device, does not end)")
            break
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/wchan", "rb") as handle:
                waiting = handle.read() == b"wait_for_partner"
        except OSError:
            continue
        if waiting:
            raise RipgrepStuckError("it was opening a FIFO (an ignore file in the project is a named pipe), which "
                                    "would block it forever")


class _Ripgrep:
    """A running ripgrep whose output is read in blocks of complete records while it still walks.

    Leaving the ``with`` block stops it if it has not finished (a result cap, a timeout, an error).
    """

    def __init__(self, args: list[str], root: Path, deadline: float, separator: bytes) -> None:
        self.proc = subprocess.Popen(args, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.deadline = deadline
        self.separator = separator
        self.returncode: int | None = None

    def __enter__(self) -> _Ripgrep:
        return self

    def __iter__(self) -> Iterator[bytes]:
        assert self.proc.stdout is not None  # noqa: S101 - PIPE
        fd = self.proc.stdout.fileno()
        separator = self.separator
        scope = current_scope()
        check_at = time.monotonic() + _POLL
        pending: list[bytes] = []  # the pieces of an incomplete record: only each new chunk is searched, never
        while True:  # the whole of a long record again (that made a 60 MB line quadratic)
            now = time.monotonic()
            remaining = self.deadline - now
            if remaining <= 0:
                raise TimeoutError
            if now >= check_at:  # every quarter second, with or without output
                check_at = now + _POLL
                if scope is not None and scope.cancelled:
                    raise TimeoutError  # the call was cancelled: stop ripgrep now (the ``with`` block kills it)
                check_ripgrep(self.proc.pid)
            if not select.select([fd], [], [], min(remaining, _POLL))[0]:
                continue
            chunk = os.read(fd, 1 << 18)
            if not chunk:
                break
            cut = chunk.rfind(separator)
            if cut < 0:
                pending.append(chunk)
                continue
            complete = chunk[:cut]
            if pending:
                pending.append(complete)
                complete = b"".join(pending)
                pending.clear()
            pending.append(chunk[cut + len(separator):])
            if complete:
                yield complete
        rest = b"".join(pending)
        if rest:
            yield rest

    def __exit__(self, *exc_info: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        assert self.proc.stdout is not None  # noqa: S101 - PIPE
        self.proc.stdout.close()
        self.returncode = self.proc.wait()


_WARNING = b": WARNING: stopped searching binary file after match"


class _Parsed:
    """ripgrep's ``--null`` output turned into matches, files it reports as binary dropped.

    ripgrep skips a file whose first buffer holds a NUL byte and, when a NUL turns up after it already reported
    matches, prints a warning line naming the file; those files are dropped, as the Python backend never searches
    a file with a NUL. Lines with U+FFFD may come from a file with a byte-order mark that Python cannot decode:
    only such files (and one whose block was cut) are read again.
    """

    def __init__(self, root: Path, anchored: str | None, include_re: regex.Pattern[str] | None) -> None:
        self.base = str(root).rstrip(os.sep) + os.sep
        self.include_re = include_re if anchored is not None else None
        self.matches: list[GrepMatch] = []
        self.binary: set[str] = set()
        self.suspect: set[str] = set()
        self._name = b""
        self._rel = ""
        self._full = ""
        self._skip = False

    def feed(self, output: bytes) -> None:
        append = self.matches.append
        for raw in output.split(b"\n"):
            name, nul, rest = raw.partition(b"\x00")
            if not nul:
                if _WARNING in raw:
                    self.binary.add(os.fsdecode(raw.partition(_WARNING)[0]).removeprefix("./"))
                continue
            if name != self._name:
                self._name = name
                self._rel = rel = os.fsdecode(name).removeprefix("./")
                self._full = self.base + rel
                self._skip = self.include_re is not None and not self.include_re.match(rel)
            if self._skip:
                continue
            number, _, content = rest.partition(b":")
            line = content.decode("utf-8", errors="replace")
            if "\ufffd" in line:
                self.suspect.add(self._rel)
            append(GrepMatch(path=self._full, rel=self._rel, line_number=int(number), line=line))

    def result(self) -> list[GrepMatch]:
        drop = self.binary | {rel for rel in self.suspect if _is_binary_late(self.base + rel)}
        return [match for match in self.matches if match.rel not in drop] if drop else self.matches


def _is_binary_late(path: str) -> bool:
    """Whether the Python backend treats as binary a file ripgrep reported lines of (read again, in full).

    A file with a byte-order mark is binary when it does not decode; one without, when it holds a NUL byte
    (ripgrep skips a file whose first buffer holds one, so a smaller file cannot).
    """
    opened = open_regular(path)  # without blocking, fstat-checked: a FIFO swapped in is binary, never read
    if opened is None:
        return True
    fd, size = opened
    try:
        found = detect_bom(os.pread(fd, 4, 0))
        if found is not None:  # decode in blocks: a 1 GB UTF-16 file is checked in bounded memory
            bom, encoding = found
            decoder = codecs.getincrementaldecoder(encoding)()
            offset = len(bom)
            while block := os.pread(fd, _DECODE_BLOCK, offset):
                decoder.decode(block)
                offset += len(block)
            decoder.decode(b"", final=True)
            return False
        if size <= _RG_BUFFER:
            return False
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as view:
            return view.find(b"\x00") != -1
    except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
        return True
    finally:
        os.close(fd)


_DECODE_BLOCK = 4 << 20


_WALK_FLAGS = ["--files", "--no-ignore", "--hidden", "--no-messages", "--null"]
_FOLDS = {"i": "iI\u0130\u0131", "k": "kK\u212a", "s": "sS\u017f"}  # what Python's IGNORECASE also matches
_LITERAL = frozenset("*?[]{}\\!/:,")


def name_filter(pattern: str, *, case_sensitive: bool) -> str | None:
    """A ripgrep type glob every file name the glob ``pattern`` can match also matches, or None.

    Only a last segment that is ``*`` plus ASCII literal text, or that literal alone, narrows the walk
    (``**/*.py``, ``src/*.test.ts``, ``**/Makefile``); a case-insensitive one becomes letter classes (``*.[pP][yY]``).
    """
    last = pattern.rpartition("/")[2]
    literal = last.removeprefix("*")
    if not literal or not literal.isascii() or _LITERAL & set(literal) or not literal.isprintable():
        return None
    if not case_sensitive:
        literal = "".join(f"[{_FOLDS.get(c.lower(), c.lower() + c.upper())}]" if c.isalpha() else c
                          for c in literal)
    return ("*" if last.startswith("*") else "") + literal


def iter_files(binary: str, root: Path, skip_dirs: frozenset[str], name_glob: str | None,
               deadline: float) -> Iterator[str]:
    """Every regular file below ``root`` (ignore files not applied), as ``/``-separated paths, while ripgrep walks.

    ``name_glob`` (a ripgrep type glob on file names) narrows the walk. ripgrep gets one thread fewer than the
    machine has, so the caller's work on the paths overlaps the walk.
    """
    threads = max(1, (os.cpu_count() or 1) - 1)
    args = [binary, "--no-config", *_WALK_FLAGS, f"--threads={threads}",
            *(f"--glob=!{name}" for name in sorted(skip_dirs))]
    if name_glob is not None:
        args += [f"--type-add=agtglob:{name_glob}", "--type=agtglob"]
    with _Ripgrep([*args, "./"], root, deadline, b"\0") as rg:
        for block in rg:
            for path in block.decode("utf-8", errors="surrogateescape").split("\0"):
                yield path[2:]


@attrs.frozen(kw_only=True)
class RipgrepRun:
    """What one ripgrep run printed: the head of stdout (with its real length), stderr's head, and how it ended."""

    exit_code: int | None
    """ripgrep's exit status (0 matches, 1 none, 2 error); None when it was stopped."""
    stdout: bytes
    """The first ``keep`` bytes of its output."""
    stdout_bytes: int
    """How many bytes it printed in all."""
    stderr: bytes
    """The first 64 KiB of its error output."""
    timed_out: bool = False
    """It ran past its timeout; its process group was killed."""
    cancelled: bool = False
    """The tool call running it was cancelled; its process group was killed."""
    stopped: str | None = None
    """Why the watchdog stopped it (blocked on a FIFO, memory past its limit), if it did."""


def run_rg(argv: list[str], *, cwd: str | os.PathLike[str], timeout: float = 120.0, keep: int = 4 << 20,
           env: dict[str, str] | None = None) -> RipgrepRun:
    """Run ripgrep with arguments the caller has checked (see :mod:`agenttools.search.rg_args`), bounded.

    ripgrep runs in its own process group with no stdin; only the first ``keep`` bytes of stdout are kept (the rest
    is counted and dropped), so a search with a million matches costs no more memory than one with a thousand.
    Every quarter second the watchdog (:func:`check_ripgrep`) and the call's cancel scope are checked; a timeout,
    a cancelled call or a stuck ripgrep kills the whole group.
    """
    scope = current_scope()
    check_at = time.monotonic() + 0.25
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stdout is not None  # noqa: S101 - PIPE
    assert proc.stderr is not None  # noqa: S101 - PIPE
    heads = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    limits = {proc.stdout: keep, proc.stderr: 1 << 16}
    total = 0
    timed_out = cancelled = False
    stopped: str | None = None
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for stream in heads:
            selector.register(stream, selectors.EVENT_READ)
        try:
            while selector.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                if time.monotonic() >= check_at:  # every quarter second, with or without output
                    check_at = time.monotonic() + 0.25
                    if scope is not None and scope.cancelled:
                        cancelled = True
                        break
                    try:
                        check_ripgrep(proc.pid)
                    except RipgrepStuckError as exc:
                        stopped = str(exc)
                        break
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
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
            proc.stdout.close()
            proc.stderr.close()
            code = proc.wait()
    ended = timed_out or cancelled or stopped is not None
    return RipgrepRun(exit_code=None if ended else code, stdout=bytes(heads[proc.stdout]), stdout_bytes=total,
                      stderr=bytes(heads[proc.stderr]), timed_out=timed_out, cancelled=cancelled, stopped=stopped)
