r"""The pure-Python backend of :func:`agenttools.search.grep`: the same results as ripgrep, with no binary.

Files are read whole with a few system calls (a tree holds thousands of small files); a file over
``_LARGE`` bytes is read and searched in blocks of whole lines instead, so memory stays bounded by the block size
plus the longest line. A file with a NUL byte and no UTF-16/32 byte-order mark is binary and never searched.

A pattern with a piece of plain ASCII text every match must contain (``PyErr_SetString``, ``def \w+\(``) is
first looked for in the raw bytes of a file, case-folded as the search is: most files of a tree lack it and are
neither decoded nor searched (decoding alone cost more than ripgrep's whole search).

A cancelled tool call (:mod:`agenttools._calls`) stops the search before its next file or block, and its walk
before the next directory, with :class:`~agenttools._calls.CallCancelledError`.
"""

from __future__ import annotations

import codecs
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, AnyStr

from agenttools._calls import CallScope, current_scope, raise_if_cancelled
from agenttools._lazy import lazy_module
from agenttools._text import detect_bom, open_regular, read_fd
from agenttools.ignore import ALWAYS_SKIPPED, IgnoreRules, walk_files
from agenttools.search.results import FileHits, IncludeMatcher

if TYPE_CHECKING:
    from concurrent import futures

    import regex
else:
    regex = lazy_module("regex")  # about 10 ms to import: loaded by the first search, not by building a toolset
    futures = lazy_module("concurrent.futures")  # only a search of many files on more than two cores uses a pool

__all__ = ["decode_for_search", "grep_python", "plain_text", "required_literal"]

_LARGE = 16 << 20  # read whole below this
_BLOCK = 4 << 20  # block size above it


def _has_nul(data: bytes, window: int | None) -> bool:
    """Whether ``data`` holds a NUL byte that makes it binary: anywhere, or within its first ``window`` bytes."""
    return b"\x00" in (data if window is None else data[:window])


def decode_for_search(data: bytes, window: int | None = None) -> str | None:
    """The text to search, or None for a binary file (a NUL byte and no UTF-16/32 byte-order mark).

    With ``window``, only a NUL within the first ``window`` bytes makes a file binary (git's rule, 8,000 bytes).
    """
    found = detect_bom(data[:4])
    if found is not None and found[1] != "utf-8":
        bom, encoding = found
        try:
            return data[len(bom):].decode(encoding)
        except UnicodeDecodeError:
            return None
    if _has_nul(data, window):
        return None
    if found is not None:  # UTF-8 with a BOM: strict, as every BOM decides the encoding
        try:
            return data[len(found[0]):].decode("utf-8")
        except UnicodeDecodeError:
            return None
    return data.decode("utf-8", errors="surrogateescape")


def display(line: str) -> str:
    """A line for display: bytes that were not UTF-8 become U+FFFD."""
    return line.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


_ZERO_WIDTH_OR_CLASS = frozenset("dDwWsSbBAZ")  # escapes that take no argument: they end a run of text
_QUANTIFIERS = frozenset("*+?")


def required_literal(pattern: str) -> str | None:
    """The longest run of plain ASCII text every match of ``pattern`` contains (None if none is certain).

    A conservative scan of the text before the first class or group: a pattern with an alternation, a counted
    repeat or fuzzy constraint (``{``) or an inline flag or extension (``(?``) has none, and a character a
    quantifier follows is not required. Runs of fewer than three characters are not worth a pass over a file.
    """
    if "|" in pattern or "{" in pattern or "(?" in pattern:
        return None
    runs: list[str] = []
    run: list[str] = []
    index, end = 0, len(pattern)
    while index < end:
        char = pattern[index]
        index += 1
        if char in "[()]}":
            break  # what follows a class or a group is not scanned
        if char in _QUANTIFIERS:
            if run:
                run.pop()  # the character before is optional (or repeated: it is at least there, left out anyway)
        elif char == "\\":
            escaped = pattern[index:index + 1]
            index += 1
            if escaped.isascii() and escaped and not escaped.isalnum():
                run.append(escaped)
                continue
            if escaped not in _ZERO_WIDTH_OR_CLASS or not escaped:
                break  # \x41, \1, \p{L}...: an escape with an argument, not scanned further
        elif char not in ".^$" and char.isascii():
            run.append(char)
            continue
        runs.append("".join(run))  # a quantifier, an anchor, a class escape or non-ASCII text ends the run
        run = []
    runs.append("".join(run))
    longest = max(runs, key=len)
    return longest if len(longest) >= 3 else None


# the UTF-8 of the non-ASCII letters an ASCII letter matches case-insensitively (simple case folding, as ``regex``
# does in V0): U+0130 and U+0131 for i, U+212A KELVIN SIGN for k, U+017F LONG S for s
_FOLDED = {"i": rb"(?:i|\xc4[\xb0\xb1])", "k": rb"(?:k|\xe2\x84\xaa)", "s": rb"(?:s|\xc5\xbf)"}


class _Prefilter:
    """A test on a file's raw bytes that is false only when no line of the file can match the pattern.

    In ASCII bytes, ``find`` looks for the text (``pattern``), ASCII letters case-folded as the search folds them;
    ``beyond_ascii`` tells whether other bytes may hold it.
    """

    def __init__(self, literal: str, ignore_case: bool, window: int | None = None) -> None:
        self.window = window
        flags = regex.IGNORECASE if ignore_case else 0  # on bytes: ASCII letters only, as lowercasing them
        self.pattern = regex.compile(regex.escape(literal.encode("ascii")), flags)
        self.find = self.pattern.search
        self._find_folded = self.find
        if ignore_case and not {"i", "k", "s"}.isdisjoint(literal.lower()):
            # in text with non-ASCII letters, those letters may stand for i, k or s
            self._find_folded = regex.compile(b"".join(_FOLDED.get(char, regex.escape(char.encode("ascii")))
                                                       for char in literal.lower()), flags).search

    def beyond_ascii(self, data: bytes) -> bool:
        """Whether bytes that are not all ASCII may hold the text."""
        if data[:2] in (b"\xff\xfe", b"\xfe\xff") or data[:4] == b"\x00\x00\xfe\xff":
            return True  # UTF-16/32: the text is not in these bytes as ASCII (a UTF-8 BOM is UTF-8 text)
        if _has_nul(data, self.window):
            return False  # binary: never searched
        return self._find_folded(data, concurrent=True) is not None


def plain_text(pattern: str) -> str | None:
    """The text a pattern of plain ASCII text alone stands for (escaped punctuation unescaped), else None."""
    text: list[str] = []
    index, end = 0, len(pattern)
    while index < end:
        char = pattern[index]
        index += 1
        if char == "\\":
            char = pattern[index:index + 1]
            index += 1
            if not char or not char.isascii() or char.isalnum():
                return None
        elif char in ".^$*+?{}[]()|" or not char.isascii():
            return None
        text.append(char)
    return "".join(text) or None


class _Query:
    """A compiled pattern and the byte-level shortcuts it allows."""

    def __init__(self, compiled: regex.Pattern[str], window: int | None = None) -> None:
        self.compiled = compiled
        self.window = window
        """Only a NUL within this many first bytes makes a file binary (None: anywhere)."""
        ignore_case = bool(compiled.flags & regex.IGNORECASE)
        plain = plain_text(compiled.pattern)
        self.plain = plain is not None
        """The pattern is plain text: in an ASCII file, ``test.find`` finds the same lines (no ASCII character
        matches a non-ASCII one), and the file need not be decoded."""
        literal = plain or required_literal(compiled.pattern)
        self.test = None if literal is None else _Prefilter(literal, ignore_case, window)
        """The raw-bytes test, when the pattern has a required plain text."""


def _grep_text(compiled: regex.Pattern[AnyStr], text: AnyStr, newline: AnyStr, deadline: float,
               most: int | None = None, *, literal: bool = False) -> list[tuple[int, AnyStr]]:
    """(line number, line) of every line with a match (the first ``most``); line numbers counted only for hits.

    A ``literal`` pattern (plain text) is searched without ``regex``'s timeout, which slows a scan by a third: its
    search takes linear time, and the deadline is checked between searches.
    """
    hits: list[tuple[int, AnyStr]] = []
    pos, line_number, counted_to = 0, 1, 0
    end = len(text)
    while pos <= end:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        match = (compiled.search(text, pos, concurrent=True) if literal
                 else compiled.search(text, pos, timeout=remaining, concurrent=True))
        if match is None or (match.start() == end and (end == 0 or text.endswith(newline))):
            break  # no phantom line after a final newline (nor in an empty file), as ripgrep
        start = text.rfind(newline, 0, match.start()) + 1
        stop = text.find(newline, match.start())
        stop = end if stop == -1 else stop
        if match.end() > stop and compiled.search(text, start, stop, timeout=remaining, concurrent=True) is None:
            pos = stop + 1  # the match needed the next line: not a match of this line
            continue
        line_number += text.count(newline, counted_to, start)
        counted_to = start
        hits.append((line_number, text[start:stop]))
        if len(hits) == most:
            break
        pos = stop + 1
    return hits


def _search_file(path: str, query: _Query, deadline: float, most: int | None = None,
                 scope: CallScope | None = None) -> list[tuple[int, str]]:
    """(line number, line) of the matching lines of one file (the first ``most``); none if binary or unreadable.

    A file is read whole with four system calls and no file object (a tree holds thousands of small files),
    or in blocks of whole lines when it is large.
    """
    opened = open_regular(path)
    if opened is None:
        return []
    fd, size = opened
    try:
        if size > _LARGE:
            return _search_blocks(fd, query.compiled, deadline, most, scope, query.window) or []
        data = read_fd(fd, size)
    except OSError:
        return []
    finally:
        os.close(fd)
    test = query.test
    if test is not None:
        if not data.isascii():  # (stops at the first byte that is not: a binary file is passed over at once)
            if not test.beyond_ascii(data):
                return []
        elif test.find(data, concurrent=True) is None:
            return []
        elif query.plain:
            if _has_nul(data, query.window):
                return []  # binary
            return [(number, line.decode("ascii")) for number, line in _grep_text(
                test.pattern, data, b"\n", deadline, most, literal=True)]
    text = decode_for_search(data, query.window)
    if text is None:
        return []
    return [(number, display(line)) for number, line in _grep_text(query.compiled, text, "\n", deadline, most)]


def _search_blocks(fd: int, compiled: regex.Pattern[str], deadline: float, most: int | None = None,
                   scope: CallScope | None = None, window: int | None = None) -> list[tuple[int, str]] | None:
    """Search a large file block by block, each block ending at a line end; None when it turns out binary.

    With ``window``, only a NUL within the first ``window`` bytes makes it binary (blocks are larger than that).

    Past the first ``most`` hits the rest is only read for what makes the file binary (a NUL, bad UTF-16/32).
    """
    found = detect_bom(os.pread(fd, 4, 0))
    encoding, errors = (found[1], "strict") if found else ("utf-8", "surrogateescape")
    os.lseek(fd, len(found[0]) if found else 0, os.SEEK_SET)
    decoder = codecs.getincrementaldecoder(encoding)(errors)
    hits: list[tuple[int, str]] = []
    carry, first_line = "", 1
    first = True
    while True:
        raise_if_cancelled(scope)
        chunk = os.read(fd, _BLOCK)
        final = not chunk
        if ((not found or encoding == "utf-8") and (window is None or first)
                and _has_nul(chunk, window)):  # only UTF-16/32 text holds NUL bytes
            return None
        first = False
        if most is not None and len(hits) >= most:
            if found:  # still decode, for the error that makes it binary; nothing else is needed of it
                try:
                    decoder.decode(chunk, final=final)
                except UnicodeDecodeError:
                    return None
            if final:
                return hits
            continue
        try:
            text = carry + decoder.decode(chunk, final=final)
        except UnicodeDecodeError:
            return None
        cut = len(text) if final else text.rfind("\n") + 1
        block, carry = text[:cut], text[cut:]
        if block:
            left = None if most is None else most - len(hits)
            hits.extend((first_line + number - 1, display(line))
                        for number, line in _grep_text(compiled, block, "\n", deadline, left))
            first_line += block.count("\n")
        if final:
            return hits


_PARALLEL_FILES = 256  # below this, threads cost more than they save
_BATCH = 64
Keep = Callable[[str], bool]


def _targets(root: Path, include: IncludeMatcher | None, rules: IgnoreRules | None, keep: Keep | None,
             ordered: bool) -> Iterator[tuple[str, str]]:
    for rel, entry, _ in walk_files(str(root), rules=rules, skip_dirs=ALWAYS_SKIPPED, ordered=ordered):
        if (include is None or include.match(rel)) and (keep is None or keep(entry.path)):
            yield rel, entry.path


def _grep_files(batch: list[tuple[str, str]], query: _Query, deadline: float,
                scope: CallScope | None) -> list[FileHits]:
    found: list[FileHits] = []
    for rel, path in batch:
        raise_if_cancelled(scope)
        hits = _search_file(path, query, deadline, None, scope)
        if hits:
            found.append((rel, path, hits))
    return found


def grep_python(root: Path, compiled: regex.Pattern[str], include: IncludeMatcher | None,
                rules: IgnoreRules | None, deadline: float, limit: int | None = None, *,
                keep: Keep | None = None, binary_window: int | None = None) -> list[FileHits]:
    """Each matching file's lines, files in any order; those for which ``keep(path)`` is false are not searched.

    A file with a NUL byte (within its first ``binary_window`` bytes, when given) and no UTF-16/32 byte-order mark
    is binary and not searched.

    With ``limit``, files are searched one by one in path order until ``limit`` matching lines are found (the last
    file read only up to them). Without, in batches on a few threads where there are more than two cores (reads
    and ``regex`` searches release the GIL, but the walk and the glue hold it: measured on two cores, one thread
    was faster, also for a capped search with threads searching ahead in path order).
    """
    query = _Query(compiled, binary_window)
    scope = current_scope()  # the pool's threads do not have the call's context: it is passed to them
    if limit is not None:
        found: list[FileHits] = []
        left = limit
        for rel, path in _targets(root, include, rules, keep, ordered=True):
            raise_if_cancelled(scope)
            hits = _search_file(path, query, deadline, left, scope)
            if hits:
                found.append((rel, path, hits))
                left -= len(hits)
                if left <= 0:
                    break
        return found
    targets = list(_targets(root, include, rules, keep, ordered=False))
    workers = min(4, (os.cpu_count() or 1) - 1)
    if len(targets) < _PARALLEL_FILES or workers < 2:
        return _grep_files(targets, query, deadline, scope)
    batches = [targets[i:i + _BATCH] for i in range(0, len(targets), _BATCH)]
    with futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="agenttools-grep") as pool:
        results = list(pool.map(lambda batch: _grep_files(batch, query, deadline, scope), batches))
    return [file for batch in results for file in batch]
