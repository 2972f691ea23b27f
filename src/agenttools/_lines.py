"""Streaming line reader: pick a range of a text file's lines in one pass, without holding the file."""

from __future__ import annotations

import codecs
import contextlib
import os
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from agenttools._text import TextFormat, _fallback_encoding, detect_bom, iter_decoded, newline_style
from agenttools.errors import EncodingError

__all__ = ["LineRange", "read_lines"]

_SAMPLE = 1 << 20


class LineRange(NamedTuple):
    """Lines ``[offset, offset + limit)`` of a file split on ``\\n`` only, and how the file is encoded."""

    format: TextFormat
    lines: tuple[str, ...]
    cut: tuple[int, ...]
    cut_lengths: tuple[int, ...]
    total: int | None  # count("\n") + 1, or None when reading stopped early


@contextlib.contextmanager
def _reader(fd: int) -> Iterator[BinaryIO]:
    """A buffered reader at the start of the file open on ``fd`` (a duplicate: the caller keeps ``fd``)."""
    with os.fdopen(os.dup(fd), "rb") as handle:
        handle.seek(0)
        yield handle


class _Stop(Exception):  # noqa: N818 - control flow
    pass


def _scan(real: str, fmt: TextFormat, offset: int, limit: int | None, max_chars: int | None,
          count_all: bool, fd: int) -> tuple[list[str], list[int], list[int], int | None]:
    end = None if limit is None else offset + limit
    lines: list[str] = []
    cut: list[int] = []
    cut_lengths: list[int] = []
    index = 0
    pieces: list[str] = []
    length = 0

    def wanted() -> bool:
        return offset <= index and (end is None or index < end)

    def finish() -> None:
        nonlocal pieces, length
        if wanted():
            text = "".join(pieces)
            if max_chars is not None and length > max_chars:
                cut.append(len(lines))
                cut_lengths.append(length)
                text = text[:max_chars]
            lines.append(text)
        pieces = []
        length = 0

    try:
        with _reader(fd) as handle:
            handle.seek(len(fmt.bom))
            for chunk in iter_decoded(handle, fmt.encoding):
                parts = chunk.split("\n")
                for i, part in enumerate(parts):
                    if wanted():
                        if max_chars is None or length <= max_chars:
                            pieces.append(part)
                        length += len(part)
                    if i < len(parts) - 1:
                        finish()
                        index += 1
                        if not count_all and end is not None and index >= end:
                            raise _Stop
    except _Stop:
        return lines, cut, cut_lengths, None
    finish()
    return lines, cut, cut_lengths, index + 1


_CHUNK = 1 << 20


def _byte_lines_compatible(fmt: TextFormat) -> bool:
    """Whether ``\\n`` is the byte 0x0A and never part of another character (UTF-8, single-byte codecs)."""
    return not fmt.encoding.startswith(("utf-16", "utf-32")) and "\n".encode(fmt.encoding) == b"\n"


def _decode_prefix(data: bytes, encoding: str, *, truncated: bool) -> str:
    """Decode strictly; a line cut short may end inside a character, which is then dropped."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(data) - 3:
            return data[: exc.start].decode(encoding)
        raise


def _scan_bytes(real: str, fmt: TextFormat, offset: int, limit: int | None, max_chars: int | None,
                count_all: bool, fd: int) -> tuple[list[str], list[int], list[int], int | None]:
    """Pick lines the fast way, for UTF-8 and single-byte encodings.

    Lines are found by C-level byte reads and only the wanted lines are decoded. Memory stays bounded: a long line
    is read in 1 MiB pieces, only about its first ``max_chars`` characters are kept, and its length is counted.
    """
    lines: list[str] = []
    cut: list[int] = []
    cut_lengths: list[int] = []
    keep_bytes = None if max_chars is None else max_chars * 4 + 4
    with _reader(fd) as handle:
        handle.seek(len(fmt.bom))
        index = 0
        size = 1 << 16
        while index < offset:  # skip whole lines: newlines counted in growing reads (to 1 MiB), then seek back
            chunk = handle.read(size)
            size = min(size * 2, _CHUNK)
            if not chunk:
                return [], [], [], index + 1
            count = chunk.count(b"\n")
            if index + count < offset:
                index += count
                continue
            rest = chunk.split(b"\n", offset - index)[-1]
            handle.seek(-len(rest), os.SEEK_CUR)
            index = offset
        end = None if limit is None else offset + limit
        while end is None or index < end:
            raw = handle.readline(_CHUNK if keep_bytes is None else max(keep_bytes, 1))
            if not raw:
                lines.append("")  # the empty line after a final newline (or of an empty file), as split("\n")
                return lines, cut, cut_lengths, index + 1
            decoder = codecs.getincrementaldecoder(fmt.encoding)("strict")
            kept = raw
            length = len(decoder.decode(raw))
            truncated = False
            while not raw.endswith(b"\n"):
                raw = handle.readline(_CHUNK)
                if not raw:
                    break
                length += len(decoder.decode(raw))
                if keep_bytes is None or len(kept) < keep_bytes:
                    kept += raw
                else:
                    truncated = True
            length += len(decoder.decode(b"", final=True))
            has_newline = raw.endswith(b"\n")
            if has_newline:
                length -= 1
                if not truncated:
                    kept = kept[:-1]
            text = _decode_prefix(kept, fmt.encoding, truncated=truncated)
            if max_chars is not None and length > max_chars:
                cut.append(len(lines))
                cut_lengths.append(length)
                text = text[:max_chars]
            lines.append(text)
            index += 1
            if not has_newline:
                return lines, cut, cut_lengths, index
        if not count_all:
            return lines, cut, cut_lengths, None
        after = 0
        while True:
            chunk = handle.read(_CHUNK)
            if not chunk:
                break
            after += chunk.count(b"\n")
        return lines, cut, cut_lengths, index + after + 1


def read_lines(real: str, head: bytes, *, offset: int = 0, limit: int | None = None,
               max_line_chars: int | None = None, count_all: bool = True, fd: int) -> LineRange:
    """Decode (BOM, then UTF-8, then a legacy guess) and pick lines; long lines are cut to ``max_line_chars``.

    Every pass reads ``fd`` (the file opened and checked by the caller, who keeps it); ``real`` only names the
    file in errors.

    Raises:
        EncodingError: The file is not text in any encoding we trust.
    """
    found = detect_bom(head[:4])
    fmt = TextFormat(encoding=found[1], bom=found[0]) if found else TextFormat(encoding="utf-8")
    scan = _scan_bytes if _byte_lines_compatible(fmt) else _scan
    try:
        lines, cut, lengths, total = scan(real, fmt, offset, limit, max_line_chars, count_all, fd)
    except UnicodeDecodeError:
        if found:
            raise EncodingError(f"cannot decode {real}: invalid {fmt.encoding} after its byte-order mark",
                                path=real) from None
        with _reader(fd) as handle:
            fmt = TextFormat(encoding=_fallback_encoding(handle.read(_SAMPLE), real))
        try:
            lines, cut, lengths, total = _scan(real, fmt, offset, limit, max_line_chars, count_all, fd)
        except UnicodeDecodeError:
            raise EncodingError(f"cannot decode {real} as {fmt.encoding}", path=real) from None
    sample = head[len(fmt.bom):].decode(fmt.encoding, errors="ignore")
    fmt = TextFormat(encoding=fmt.encoding, bom=fmt.bom, newline=newline_style(sample))
    return LineRange(format=fmt, lines=tuple(lines), cut=tuple(cut), cut_lengths=tuple(lengths), total=total)
