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
import re
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from agenttools._calls import CallCancelledError, current_scope
from agenttools._lazy import lazy_module
from agenttools._text import detect_bom, open_regular, read_regular
from agenttools.ignore import IgnoreRules
from agenttools.search.results import FileHits, IncludeMatcher, path_key

if TYPE_CHECKING:
    import regex
else:
    regex = lazy_module("regex")  # about 10 ms to import: loaded by the first search, not by building a toolset

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


class _Unparsable(Exception):  # noqa: N818 - internal signal
    """ripgrep's output cannot be split into files for certain: a file name holds a line feed."""


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
    include_re: IncludeMatcher | None,
    rules: IgnoreRules | None,
    *,
    ignore_case: bool,
    deadline: float,
    required: bool,
    limit: int | None = None,
    keep: Callable[[str], bool] | None = None,
    binary_window: int | None = None,
) -> list[FileHits] | None:
    """Search with ripgrep; None when it cannot serve this query (the caller then uses Python).

    Files come in any order. With ``limit``, they hold at least the first ``limit`` matching lines in path order
    (when there are that many), and maybe more; files for which ``keep(path)`` is false are left out before counting.
    ``include`` is a glob ripgrep applies to names (without ``/``) or that ``include_re`` applies to paths; without
    it, ``include_re`` (a git pathspec) filters every path. With ``binary_window``, ripgrep reports every binary file
    with a match (``--binary``); one whose NUL bytes all lie past the window is text after all, and the search is
    left to the Python backend (None).
    """
    binary = find_rg()
    if binary is None:
        return None
    args = [binary, "--no-config", "--null", "--line-number", "--with-filename", "--heading", "--color=never",
            "--hidden", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot", "--no-ignore-exclude",
            "--no-require-git", "--glob=!.git", "--regexp", pattern]
    if ignore_case:
        args.insert(1, "--ignore-case")
    if include and "/" not in include.rstrip("/"):
        args[1:1] = [f"--type-add=agtinclude:{include}", "--type=agtinclude"]
    if binary_window is not None:
        args.insert(1, "--binary")
    filtered = include_re if include is None or "/" in include.rstrip("/") else None
    if len(os.fsencode(pattern)) > _MAX_ARG:
        return None  # one argument over the kernel's limit fails with E2BIG: the Python backend serves it
    try:
        return _grep(root, args, _Parsed(root, filtered, keep, limit, binary_window), rules, deadline)
    except RipgrepStuckError:
        return None  # an ignore file is a FIFO or a device: the Python backend passes it by (it never opens one)
    except _Unparsable:
        return None  # the Python backend walks the names themselves


def _grep(root: Path, args: list[str], parsed: _Parsed, rules: IgnoreRules | None,
          deadline: float) -> list[FileHits] | None:
    limit = parsed.limit
    with _ignore_args(root, rules) as ignore:
        if ignore is None:
            return None
        full = [*args[:1], *ignore, *args[1:], "./"]
        if limit is None or limit >= _PARALLEL_FIRST:
            # one run on all threads: files come in any order, so it is read to the end, and files sorting after
            # the first ``limit`` lines in path order are passed over unparsed; only an output too large to read
            # whole (a cap far below the number of matches) turns to a sorted run that can stop at the cap
            code, complete = _collect(full, root, parsed, deadline, batched=True)
            if complete:
                if code not in (0, 1) and (limit is None or not parsed.matched):
                    return None  # e.g. a regex ripgrep rejects (look-around): the Python backend can serve it
                return parsed.result()
            parsed = parsed.fresh()
        assert limit is not None  # noqa: S101 - a run without a cap is always complete
        code, complete = _collect([full[0], "--sort=path", *full[1:]], root, parsed, deadline, batched=False)
    if code not in (0, 1) and not parsed.matched:
        return None
    if not complete:
        parsed.suspect.add(parsed.current)  # stopped inside its block: a warning may not have come yet
    found = parsed.result()
    if not complete and sum(len(lines) for _, _, lines in found) < limit:
        return None  # lines counted toward the cap were dropped (a binary file): those after the stop are unknown
    return found


_PARALLEL_FIRST = 1000
_MAX_ARG = 100_000  # Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); stay well below it
_READ_WHOLE_BYTES = 2048  # a parallel run capped at N lines reads at most N times this many bytes of output


def _collect(args: list[str], root: Path, parsed: _Parsed, deadline: float, *,
             batched: bool) -> tuple[int | None, bool]:
    """Run ripgrep and parse its output into ``parsed``; (exit code, whether its whole output was read).

    A sorted run stops at ``parsed.limit`` lines; a parallel one (``batched``) when its output grows past what is
    worth reading to the end.
    """
    limit = parsed.limit
    complete = True
    with _Ripgrep(args, root, deadline, b"\n", batched=batched) as rg:
        if limit is None:
            for block in rg:
                parsed.feed(block)
        elif batched:
            most = limit * _READ_WHOLE_BYTES  # about 40 times the lines shown
            for block in rg:
                parsed.feed(block)
                if rg.bytes_read > most:
                    complete = False
                    break
        else:
            for block in rg:
                parsed.feed(block)
                if parsed.count >= limit:
                    complete = False
                    break
    return rg.returncode, complete


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


_PIPE_SIZE = 1 << 20  # Linux lets anyone widen a pipe to 1 MiB (/proc/sys/fs/pipe-max-size)
_BATCH_WAIT = 0.001


def _widen_pipe(fd: int) -> int:
    """Widen a pipe (Linux) to :data:`_PIPE_SIZE`; the size it has (64 KiB, the default, where that fails)."""
    if sys.platform == "linux":
        import fcntl

        with contextlib.suppress(OSError):
            return fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    return 1 << 16


class _Ripgrep:
    """A running ripgrep whose output is read in blocks of complete records while it still walks.

    Leaving the ``with`` block stops it if it has not finished (a result cap, a timeout, an error).
    """

    def __init__(self, args: list[str], root: Path, deadline: float, separator: bytes, *,
                 batched: bool = False) -> None:
        self.proc = subprocess.Popen(args, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.deadline = deadline
        self.separator = separator
        self.returncode: int | None = None
        self.bytes_read = 0
        self.batched = batched
        """Read the output in fewer, larger pieces (a wider pipe, a millisecond's wait after a small read): a
        reader woken for every file ripgrep prints takes CPU time from ripgrep's own threads. For runs read to the
        end; a run stopped at its first lines keeps the default, which sees each line at once."""

    def __enter__(self) -> _Ripgrep:
        return self

    def __iter__(self) -> Iterator[bytes]:
        assert self.proc.stdout is not None  # noqa: S101 - PIPE
        fd = self.proc.stdout.fileno()
        separator = self.separator
        size, small = (1 << 18), 0
        if self.batched:
            size = _widen_pipe(fd)
            small = size // 2
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
                    raise CallCancelledError  # stop ripgrep now (the ``with`` block kills it); a TimeoutError
                check_ripgrep(self.proc.pid)
            if not select.select([fd], [], [], min(remaining, _POLL))[0]:
                continue
            chunk = os.read(fd, size)
            if not chunk:
                break
            self.bytes_read += len(chunk)
            if len(chunk) < small:
                time.sleep(_BATCH_WAIT)  # let more output gather (the pipe holds far more than comes in the time)
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
            yield complete  # b"" too: one empty record (a lone separator read after one that ended a chunk)
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
_BINARY_MATCHES = b": binary file matches (found "
_BINARY_LINE = re.compile(rb'^\./(.*): binary file matches \(found "\\0" byte around offset [0-9]+\)$', re.MULTILINE)
"""What ``--binary`` prints, in place of its lines, for a binary file with a match."""
_TEXT_LINE = re.compile(r"^([0-9]+):(.*)$", re.MULTILINE)  # "." takes anything but a line feed (a CR stays)


class _Parsed:
    """ripgrep's ``--null`` output turned into each file's lines, files it reports as binary dropped.

    ripgrep skips a file whose first buffer holds a NUL byte and, when a NUL turns up after it already reported
    matches, prints a warning line naming the file; those files are dropped, as the Python backend never searches
    a file with a NUL. Lines with U+FFFD may come from a file with a byte-order mark that Python cannot decode:
    only such files (and one whose block was cut) are read again.

    With a ``limit``, only the first ``limit`` lines in path order matter: a file's lines past ``limit`` are not
    kept, and once the files read so far hold ``limit`` lines that will certainly be shown, every file sorting after
    them is dropped and later ones sorting after them are passed over unparsed. ripgrep prints each file's lines
    (and its binary warning) in one piece, so a file is complete when the next one starts.
    """

    def __init__(self, root: Path, include_re: IncludeMatcher | None, keep: Callable[[str], bool] | None,
                 limit: int | None, window: int | None = None) -> None:
        self._args = (root, include_re, keep, limit, window)
        self.base = str(root).rstrip(os.sep) + os.sep
        self.include_re = include_re
        """Filters the paths ripgrep prints (None: ripgrep filtered them, or there is no include)."""
        self.window = window
        """Only a NUL within this many first bytes makes a file binary (None: anywhere)."""
        self.keep = keep
        self.limit = limit
        self.files: dict[str, list[bytes]] = {}
        """The kept files' pieces of output, as read."""
        self.counts: dict[str, int] = {}
        """How many lines each kept file has."""
        self.binary: set[str] = set()
        self.suspect: set[str] = set()
        self.count = 0
        """Lines kept in ``files`` (at most ``limit`` of each file)."""
        self.matched = False
        """Whether ripgrep printed a line of a file the include glob takes (kept or not)."""
        self.current = ""
        """The file whose lines are being read."""
        self._cutoff: str | None = None  # path_key past which files are passed over
        self._trim_at = None if limit is None else 2 * limit
        self._name_next = True  # the next block starts with a file's name
        self._hits: list[bytes] | None = None  # where the current file's lines go; None: not kept
        self._included = False

    def fresh(self) -> _Parsed:
        """A new parser for the same query."""
        return _Parsed(*self._args)

    def _start(self, name: bytes) -> None:
        self.current = rel = os.fsdecode(name).removeprefix("./")
        self._hits = None
        self._included = self.include_re is None or bool(self.include_re.match(rel))
        if not self._included:
            return
        self.matched = True  # a file is printed only with a line
        if self._cutoff is not None and path_key(rel) > self._cutoff:
            return
        if self.keep is not None and not self.keep(self.base + rel):
            return
        hits = self.files.get(rel)
        if hits is None:
            hits = self.files[rel] = []
        self._hits = hits

    def feed(self, output: bytes) -> None:
        """Parse whole lines of ``--heading --null`` output.

        That is ``path NUL`` before a file's first line, ``number:line`` lines, a binary warning after them, and an
        empty line before the next file. The lines of a file that is not kept are passed over unsplit.
        """
        self._check_names(output)
        if self.window is not None and _BINARY_MATCHES in output:  # --binary: files with a match, not printed
            self.binary.update(os.fsdecode(name) for name in _BINARY_LINE.findall(output))
        pos, end = 0, len(output)
        while pos < end:
            nul = output.find(b"\x00", pos)
            stop = end if nul < 0 else max(pos, output.rfind(b"\n", pos, nul) + 1)  # where the next file's name is
            if self._hits is not None and stop > pos:
                self._lines(output[pos:stop])
            if nul < 0:
                break
            self._start(output[stop:nul])
            pos = nul + 1  # the file's first line follows its name
        if self._trim_at is not None and self.count > self._trim_at:
            self._trim()

    def _check_names(self, output: bytes) -> None:
        """Raise :class:`_Unparsable` unless every line after an empty one (and the first) holds a NUL.

        A name is the text from the start of a line to its NUL: a name holding a line feed would be read as its
        last piece, and its first pieces as lines of the file before. Those first pieces sit where only a name
        may (first, or after the empty line between files), and a name's first piece holds no NUL.
        """
        starts = [0] if self._name_next else []
        if output.startswith(b"\n"):
            starts.append(1)  # the line ended at the cut before this block was empty
        at = output.find(b"\n\n")
        while at >= 0:
            starts.append(at + 2)
            at = output.find(b"\n\n", at + 1)
        for start in starts:
            if start == len(output):
                continue  # the empty line ends the block: the next block starts with a name
            nul, feed = output.find(b"\x00", start), output.find(b"\n", start)
            if (nul < 0 or 0 <= feed < nul) and not (self.window is not None and _BINARY_LINE.match(
                    output, start, len(output) if feed < 0 else feed)):
                raise _Unparsable
        self._name_next = output.endswith(b"\n") or output == b""  # b"": the empty line between files

    def _lines(self, segment: bytes) -> None:
        """Keep a piece of the current file's output as it is: ``result`` parses the files it returns."""
        assert self._hits is not None  # noqa: S101 - only called for a kept file
        rel = self.current
        counted = self.counts.get(rel, 0)
        if self.limit is None or counted < self.limit:  # a file's lines past the cap are never shown
            lines = _count_lines(segment)
            self._hits.append(segment)
            self.counts[rel] = counted + lines
            self.count += lines if self.limit is None else min(lines, self.limit - counted)
        if not segment.isascii() and "\ufffd" in segment.decode("utf-8", errors="replace"):
            self.suspect.add(rel)  # a line shows U+FFFD (or a warning's path: one check too many)
        if _WARNING in segment:
            for raw in segment.split(b"\n"):
                if raw.startswith(b"./") and _WARNING in raw:  # a warning, not a line (``number:``) with its text
                    self.binary.add(os.fsdecode(raw.partition(_WARNING)[0]).removeprefix("./"))

    def _trim(self) -> None:
        """Drop the files sorting after the first ``limit`` lines that will certainly be shown."""
        limit = self.limit
        assert limit is not None  # noqa: S101 - only called with a limit
        order = sorted(self.files, key=path_key)
        certain = 0
        for index, rel in enumerate(order):
            if rel == self.current or rel in self.binary or rel in self.suspect:
                continue  # the current file may still turn out binary, a suspect one may be dropped at the end
            certain += self.counts.get(rel, 0)
            if certain >= limit:
                self._cutoff = path_key(rel)
                for later in order[index + 1:]:
                    del self.files[later]
                    self.count -= min(self.counts.pop(later, 0), limit)
                    if later == self.current:
                        self._hits = None
                break
        self._trim_at = self.count + limit

    def result(self) -> list[FileHits]:
        """The files kept and not binary (with a ``limit``, the first ``limit`` lines in path order), parsed."""
        files, base, room, window = self.files, self.base, self.limit, self.window
        if window is not None:
            for rel in self.binary:
                if ((self.include_re is None or self.include_re.match(rel))
                        and (self.keep is None or self.keep(base + rel)) and not _is_binary_late(base + rel, window)):
                    raise _Unparsable  # its NUL bytes lie past the window: text, which ripgrep did not print
        drop = self.binary | {rel for rel in self.suspect if rel in files and _is_binary_late(base + rel, window)}
        kept = [(rel, segments) for rel, segments in files.items() if rel not in drop]
        if room is not None:
            kept.sort(key=lambda file: path_key(file[0]))
        found: list[FileHits] = []
        for rel, segments in kept:
            if room is not None and room <= 0:
                break
            output = segments[0] if len(segments) == 1 else b"\n".join(segments)
            # decoded whole: a line feed ends any bad sequence, so each line decodes as it would alone
            lines = _TEXT_LINE.findall(output.decode("utf-8", errors="replace"))
            if room is not None:
                lines = lines[:room]
                room -= len(lines)
            found.append((rel, base + rel, [(int(number), line) for number, line in lines]))
        return found


def _count_lines(segment: bytes) -> int:
    """How many ``number:line`` lines a piece of one file's ``--heading`` output holds.

    Split at line feeds, the piece holds those lines, ripgrep's binary warning, and empty pieces: the empty line
    before the next file (never two in a row: a line is never empty, it starts with its number) and the empty ends
    of a piece that starts or ends at a line feed.
    """
    warnings = segment.count(b"\n./") + segment.startswith(b"./")  # only a warning line starts with its path
    lines = segment.count(b"\n") + 1 - segment.count(b"\n\n") - warnings
    return lines - segment.startswith(b"\n") - segment.endswith(b"\n")


def _is_binary_late(path: str, window: int | None = None) -> bool:
    """Whether the Python backend treats as binary a file ripgrep reported lines of (read again, in full).

    A file with a byte-order mark is binary when it does not decode; one without a UTF-16/32 one, when it holds a
    NUL byte (ripgrep skips a file whose first buffer holds one, so a smaller file cannot), or with ``window``,
    when one of its first ``window`` bytes is NUL.
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
            if encoding != "utf-8":
                return False  # UTF-16/32 text holds NUL bytes; UTF-8 with a BOM is binary with one, as without
        if window is not None:
            return b"\x00" in os.pread(fd, window, 0)
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
                if path:  # (ripgrep prints no empty name; the reader yields an empty record as b"")
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
