"""The pure-Python backend of :func:`agenttools.search.grep`: the same results as ripgrep, with no binary.

Files are read whole with a few system calls (a tree holds thousands of small files); a file over
``_LARGE`` bytes is read and searched in blocks of whole lines instead, so memory stays bounded by the block size
plus the longest line. A file with a NUL byte and no UTF-16/32 byte-order mark is binary and never searched.
"""

from __future__ import annotations

import codecs
import os
import time
from pathlib import Path

import regex

from agenttools._text import detect_bom, open_regular, read_fd
from agenttools.search.ignore import ALWAYS_SKIPPED, IgnoreRules, walk_files
from agenttools.search.results import GrepMatch

__all__ = ["decode_for_search", "grep_python"]

_LARGE = 16 << 20  # read whole below this
_BLOCK = 4 << 20  # block size above it


def decode_for_search(data: bytes) -> str | None:
    """The text to search, or None for a binary file (a NUL byte and no UTF-16/32 byte-order mark)."""
    found = detect_bom(data[:4])
    if found is not None:
        bom, encoding = found
        try:
            return data[len(bom):].decode(encoding)
        except UnicodeDecodeError:
            return None
    if b"\x00" in data:
        return None
    return data.decode("utf-8", errors="surrogateescape")


def display(line: str) -> str:
    """A line for display: bytes that were not UTF-8 become U+FFFD."""
    return line.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def _grep_text(compiled: regex.Pattern[str], text: str, deadline: float) -> list[tuple[int, str]]:
    """(line number, line) of every line with a match; one whole-text search, line numbers only for hits."""
    hits: list[tuple[int, str]] = []
    pos, line_number, counted_to = 0, 1, 0
    end = len(text)
    while pos <= end:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        match = compiled.search(text, pos, timeout=remaining, concurrent=True)
        if match is None or (match.start() == end and (end == 0 or text.endswith("\n"))):
            break  # no phantom line after a final newline (nor in an empty file), as ripgrep
        start = text.rfind("\n", 0, match.start()) + 1
        stop = text.find("\n", match.start())
        stop = end if stop == -1 else stop
        if match.end() > stop and compiled.search(text, start, stop, timeout=remaining, concurrent=True) is None:
            pos = stop + 1  # the match needed the next line: not a match of this line
            continue
        line_number += text.count("\n", counted_to, start)
        counted_to = start
        hits.append((line_number, text[start:stop]))
        pos = stop + 1
    return hits


def _search_file(path: str, compiled: regex.Pattern[str], deadline: float) -> list[tuple[int, str]]:
    """(line number, line) of the matching lines of one file; none for a binary or unreadable file.

    A file is read whole with four system calls and no file object (a tree holds thousands of small files),
    or in blocks of whole lines when it is large.
    """
    opened = open_regular(path)
    if opened is None:
        return []
    fd, size = opened
    try:
        if size > _LARGE:
            return _search_blocks(fd, compiled, deadline) or []
        data = read_fd(fd, size)
    except OSError:
        return []
    finally:
        os.close(fd)
    text = decode_for_search(data)
    return [] if text is None else _grep_text(compiled, text, deadline)


def _search_blocks(fd: int, compiled: regex.Pattern[str], deadline: float) -> list[tuple[int, str]] | None:
    """Search a large file block by block, each block ending at a line end; None when it turns out binary."""
    found = detect_bom(os.pread(fd, 4, 0))
    encoding, errors = (found[1], "strict") if found else ("utf-8", "surrogateescape")
    os.lseek(fd, len(found[0]) if found else 0, os.SEEK_SET)
    decoder = codecs.getincrementaldecoder(encoding)(errors)
    hits: list[tuple[int, str]] = []
    carry, first_line = "", 1
    while True:
        chunk = os.read(fd, _BLOCK)
        final = not chunk
        if not found and b"\x00" in chunk:
            return None
        try:
            text = carry + decoder.decode(chunk, final=final)
        except UnicodeDecodeError:
            return None
        cut = len(text) if final else text.rfind("\n") + 1
        block, carry = text[:cut], text[cut:]
        if block:
            hits.extend((first_line + number - 1, line) for number, line in _grep_text(compiled, block, deadline))
            first_line += block.count("\n")
        if final:
            return hits


def _grep_files(batch: list[tuple[str, str]], compiled: regex.Pattern[str], deadline: float) -> list[GrepMatch]:
    return [GrepMatch(path=path, rel=rel, line_number=number, line=display(line))
            for rel, path in batch for number, line in _search_file(path, compiled, deadline)]


_PARALLEL_FILES = 256  # below this, threads cost more than they save
_BATCH = 64


def grep_python(root: Path, compiled: regex.Pattern[str], include: regex.Pattern[str] | None,
                 rules: IgnoreRules | None, deadline: float, limit: int | None = None) -> list[GrepMatch]:
    """Search files in batches on a few threads (reads and ``regex`` matching release the GIL).

    With ``limit``, files are searched one by one in path order until ``limit`` matching lines are found.
    """
    if limit is not None:
        found: list[GrepMatch] = []
        for rel, entry, _ in walk_files(str(root), rules=rules, skip_dirs=ALWAYS_SKIPPED, ordered=True):
            if include is None or include.match(rel):
                found.extend(_grep_files([(rel, entry.path)], compiled, deadline))
                if len(found) >= limit:
                    break
        return found
    targets = [(rel, entry.path) for rel, entry, _ in walk_files(str(root), rules=rules, skip_dirs=ALWAYS_SKIPPED)
               if include is None or include.match(rel)]
    workers = min(4, (os.cpu_count() or 1) - 1)  # measured: on two cores one thread is faster (the GIL)
    if len(targets) < _PARALLEL_FILES or workers < 2:
        return _grep_files(targets, compiled, deadline)
    from concurrent.futures import ThreadPoolExecutor

    batches = [targets[i:i + _BATCH] for i in range(0, len(targets), _BATCH)]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="agenttools-grep") as pool:
        results = list(pool.map(lambda batch: _grep_files(batch, compiled, deadline), batches))
    return [match for batch in results for match in batch]
