"""What kind of file a path holds: text, image, PDF, audio, video or other binary.

The order follows Gemini CLI's ``detectFileType``: ``.ts`` is text, ``.svg`` is SVG, then the MIME type from the
extension (images, audio, video, PDF), then a list of binary extensions, then a content sniff. The sniff treats a
file that starts with a Unicode BOM as text (UTF-16 is full of NUL bytes), then refuses files with a NUL byte or
more than 30 % control bytes in the first 4 KiB, then asks ``filetype`` for known binary signatures.
"""

from __future__ import annotations

import os
from typing import Literal

from agenttools._text import detect_bom

__all__ = ["FileKind", "classify", "mime_type_for"]

FileKind = Literal["text", "svg", "image", "pdf", "audio", "video", "binary"]

# The extension table of the npm `mime-types` database, for the media types a model can receive.
_MIME: dict[str, str] = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".bmp": "image/bmp", ".ico": "image/x-icon", ".tif": "image/tiff",
    ".tiff": "image/tiff", ".avif": "image/avif", ".heic": "image/heic", ".heif": "image/heif",
    ".apng": "image/apng", ".jxl": "image/jxl", ".svg": "image/svg+xml",
    ".pdf": "application/pdf",
    ".mp3": "audio/mpeg", ".wav": "audio/wav", ".oga": "audio/ogg", ".ogg": "audio/ogg", ".opus": "audio/ogg",
    ".flac": "audio/flac", ".aac": "audio/aac", ".m4a": "audio/mp4", ".weba": "audio/webm",
    ".mid": "audio/midi", ".midi": "audio/midi", ".aif": "audio/x-aiff", ".aiff": "audio/x-aiff",
    ".mp4": "video/mp4", ".m4v": "video/x-m4v", ".webm": "video/webm", ".ogv": "video/ogg",
    ".mov": "video/quicktime", ".avi": "video/x-msvideo", ".mkv": "video/x-matroska", ".mpeg": "video/mpeg",
    ".mpg": "video/mpeg", ".3gp": "video/3gpp", ".wmv": "video/x-ms-wmv", ".flv": "video/x-flv",
}
_BINARY_EXTENSIONS = frozenset({
    ".zip", ".tar", ".gz", ".exe", ".dll", ".so", ".class", ".jar", ".war", ".7z", ".doc", ".docx", ".xls",
    ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".bin", ".dat", ".obj", ".o", ".a", ".lib", ".wasm",
    ".pyc", ".pyo",
})
_SNIFF_BYTES = 4096


def mime_type_for(path: str) -> str | None:
    """The MIME type the extension of ``path`` implies, for media types; None otherwise."""
    return _MIME.get(os.path.splitext(path)[1].lower())


def _looks_binary(head: bytes) -> bool:
    if not head or detect_bom(head[:4]):
        return False
    if b"\x00" in head:
        return True
    control = sum(1 for b in head if b < 9 or 14 <= b < 32)
    if control / len(head) > 0.3:
        return True
    try:
        head.decode("utf-8")
        return False  # valid UTF-8 is text, whatever magic bytes it starts with ("BM is a band")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3:
            return False  # a multi-byte character cut by the sample boundary
    import filetype

    kind = filetype.guess(head)
    return kind is not None and not kind.mime.startswith("text/")


def classify(path: str, head: bytes) -> tuple[FileKind, str | None]:
    """Classify a file from its name and its first bytes (at least 4 KiB when the file is that long).

    Returns:
        The kind, and the MIME type for media kinds (None for text and binary).
    """
    ext = os.path.splitext(path)[1].lower()
    if ext == ".ts":
        return "text", None
    if ext == ".svg":
        return "svg", "image/svg+xml"
    mime = _MIME.get(ext)
    if mime is not None:
        if mime.startswith("image/"):
            return "image", mime
        if mime.startswith("audio/"):
            return "audio", mime
        if mime.startswith("video/"):
            return "video", mime
        return "pdf", mime
    if ext in _BINARY_EXTENSIONS or _looks_binary(head[:_SNIFF_BYTES]):
        return "binary", None
    return "text", None
