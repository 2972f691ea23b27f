"""How the editor shows results: numbered lines, sizes, and command output sections capped as upstream caps them."""

from __future__ import annotations

import codecs

__all__ = ["MAX_OUTPUT_CHARS", "format_lines", "format_size", "sections", "truncate_output"]

MAX_OUTPUT_CHARS = 30000


def format_lines(lines: list[str] | tuple[str, ...], start: int, cut: dict[int, int] | None = None) -> str:
    """``%*d\\t%s\\n`` per line, the width of the last number shown; cut lines get their total length."""
    if not lines:
        return ""
    width = len(str(start + len(lines) - 1))
    out = []
    for i, line in enumerate(lines):
        if cut and i in cut:
            line = f"{line}... [truncated, {cut[i]} chars total]"
        out.append(f"{start + i:>{width}}\t{line}\n")
    return "".join(out)


def format_size(size: int) -> str:
    """1024-based, one decimal: ``104 bytes``, ``1.0 KB``, ``2.4 MB``, ``1.0 GB``."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    return f"{size} bytes"  # pragma: no cover - unreachable


def truncate_output(text: str, total: int | None = None) -> str:
    """Upstream's per-stream cap, counted in UTF-8 bytes as Go's ``len(s)`` counts: the first 30000 bytes and a note.

    A character cut in two by the cap shows as one U+FFFD per byte left of it, as Go's JSON encoder shows the
    invalid bytes. ``total`` is the stream's real size in bytes when only part of it was kept in memory.
    """
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= MAX_OUTPUT_CHARS:
        return text
    decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogatepass")
    head = decoder.decode(data[:MAX_OUTPUT_CHARS], final=False)
    head += "\ufffd" * len(decoder.getstate()[0])
    return (head + f"\n\n[Truncated: output was {total or len(data)} characters, showing first "
            f"{MAX_OUTPUT_CHARS}]")


def sections(stdout: str, stderr: str, totals: tuple[int | None, int | None] = (None, None)) -> str:
    """The ``\\nstderr:\\n...`` and ``\\nstdout:\\n...`` sections, stderr first, empty ones left out."""
    text = ""
    if stderr:
        text += "\nstderr:\n" + truncate_output(stderr, totals[1])
    if stdout:
        text += "\nstdout:\n" + truncate_output(stdout, totals[0])
    return text
