"""What kind of file a path holds: text, image, PDF, audio, video or other binary.

The order follows Gemini CLI's ``detectFileType``: ``.ts`` (and ``.mts``, ``.cts``) is text, ``.svg`` is SVG,
then the MIME type from the extension (images, audio, video, PDF), then a list of binary extensions, then a content
sniff. The sniff treats a
file that starts with a Unicode BOM as text (UTF-16 is full of NUL bytes), then refuses files with a NUL byte or
more than 30 % control bytes in the first 4 KiB, then asks ``filetype`` for known binary signatures.
"""

from __future__ import annotations

import os
from typing import Literal

from agenttools._text import detect_bom

__all__ = ["FileKind", "classify", "mime_type_for"]

FileKind = Literal["text", "svg", "image", "pdf", "audio", "video", "binary"]

# The media rows of the npm `mime-types` lookup Gemini CLI calls (mime-types 3.0.2 on mime-db 1.54.0): every
# extension whose type is an image, audio or video type or application/pdf, with the type ``lookup`` answers.
_MIME: dict[str, str] = {
    ".3ds": "image/x-3ds", ".3g2": "video/3gpp2", ".3gp": "video/3gpp", ".3gpp": "video/3gpp", ".aac": "audio/aac",
    ".adp": "audio/adpcm", ".adts": "audio/aac", ".aif": "audio/x-aiff", ".aifc": "audio/x-aiff",
    ".aiff": "audio/x-aiff", ".amr": "audio/amr", ".apng": "image/apng", ".asf": "video/x-ms-asf",
    ".asx": "video/x-ms-asf", ".au": "audio/basic", ".avci": "image/avci", ".avcs": "image/avcs",
    ".avi": "video/x-msvideo", ".avif": "image/avif", ".azv": "image/vnd.airzip.accelerator.azv",
    ".b16": "image/vnd.pco.b16", ".bmp": "image/bmp", ".btf": "image/prs.btif", ".btif": "image/prs.btif",
    ".caf": "audio/x-caf", ".cgm": "image/cgm", ".cmx": "image/x-cmx", ".dds": "image/vnd.ms-dds", ".dib": "image/bmp",
    ".djv": "image/vnd.djvu", ".djvu": "image/vnd.djvu", ".dng": "image/x-adobe-dng", ".dpx": "image/dpx",
    ".dra": "audio/vnd.dra", ".drle": "image/dicom-rle", ".dts": "audio/vnd.dts", ".dtshd": "audio/vnd.dts.hd",
    ".dvb": "video/vnd.dvb.file", ".dwg": "image/vnd.dwg", ".dxf": "image/vnd.dxf",
    ".ecelp4800": "audio/vnd.nuera.ecelp4800", ".ecelp7470": "audio/vnd.nuera.ecelp7470",
    ".ecelp9600": "audio/vnd.nuera.ecelp9600", ".emf": "image/emf", ".eol": "audio/vnd.digital-winds",
    ".exr": "image/aces", ".f4v": "video/x-f4v", ".fbs": "image/vnd.fastbidsheet", ".fh": "image/x-freehand",
    ".fh4": "image/x-freehand", ".fh5": "image/x-freehand", ".fh7": "image/x-freehand", ".fhc": "image/x-freehand",
    ".fits": "image/fits", ".flac": "audio/x-flac", ".fli": "video/x-fli", ".flv": "video/x-flv",
    ".fpx": "image/vnd.fpx", ".fst": "image/vnd.fst", ".fvt": "video/vnd.fvt", ".g3": "image/g3fax",
    ".gif": "image/gif", ".h261": "video/h261", ".h263": "video/h263", ".h264": "video/h264", ".heic": "image/heic",
    ".heics": "image/heic-sequence", ".heif": "image/heif", ".heifs": "image/heif-sequence", ".hej2": "image/hej2k",
    ".ico": "image/vnd.microsoft.icon", ".ief": "image/ief", ".jaii": "image/jaii", ".jais": "image/jais",
    ".jfif": "image/pjpeg", ".jhc": "image/jphc", ".jls": "image/jls", ".jng": "image/x-jng", ".jp2": "image/jp2",
    ".jpe": "image/jpeg", ".jpeg": "image/jpeg", ".jpf": "image/jpx", ".jpg": "image/jpeg", ".jpg2": "image/jp2",
    ".jpgm": "image/jpm", ".jpgv": "video/jpeg", ".jph": "image/jph", ".jpm": "image/jpm", ".jpx": "image/jpx",
    ".jxl": "image/jxl", ".jxr": "image/jxr", ".jxra": "image/jxra", ".jxrs": "image/jxrs", ".jxs": "image/jxs",
    ".jxsc": "image/jxsc", ".jxsi": "image/jxsi", ".jxss": "image/jxss", ".kar": "audio/midi", ".ktx": "image/ktx",
    ".ktx2": "image/ktx2", ".lvp": "audio/vnd.lucent.voice", ".m1v": "video/mpeg", ".m2a": "audio/mpeg",
    ".m2t": "video/mp2t", ".m2ts": "video/mp2t", ".m2v": "video/mpeg", ".m3a": "audio/mpeg", ".m3u": "audio/x-mpegurl",
    ".m4a": "audio/mp4", ".m4b": "audio/mp4", ".m4s": "video/iso.segment", ".m4u": "video/vnd.mpegurl",
    ".m4v": "video/x-m4v", ".mdi": "image/vnd.ms-modi", ".mid": "audio/midi", ".midi": "audio/midi",
    ".mj2": "video/mj2", ".mjp2": "video/mj2", ".mk3d": "video/x-matroska", ".mka": "audio/x-matroska",
    ".mks": "video/x-matroska", ".mkv": "video/x-matroska", ".mmr": "image/vnd.fujixerox.edmics-mmr",
    ".mng": "video/x-mng", ".mov": "video/quicktime", ".movie": "video/x-sgi-movie", ".mp2": "audio/mpeg",
    ".mp2a": "audio/mpeg", ".mp3": "audio/mpeg", ".mp4": "video/mp4", ".mp4a": "audio/mp4", ".mp4v": "video/mp4",
    ".mpe": "video/mpeg", ".mpeg": "video/mpeg", ".mpg": "video/mpeg", ".mpg4": "video/mp4", ".mpga": "audio/mpeg",
    ".mts": "video/mp2t", ".mxmf": "audio/mobile-xmf", ".mxu": "video/vnd.mpegurl", ".npx": "image/vnd.net-fpx",
    ".oga": "audio/ogg", ".ogg": "audio/ogg", ".ogv": "video/ogg", ".opus": "audio/ogg",
    ".pbm": "image/x-portable-bitmap", ".pct": "image/x-pict", ".pcx": "image/vnd.zbrush.pcx",
    ".pdf": "application/pdf", ".pgm": "image/x-portable-graymap", ".pic": "image/x-pict", ".png": "image/png",
    ".pnm": "image/x-portable-anymap", ".ppm": "image/x-portable-pixmap", ".psd": "image/vnd.adobe.photoshop",
    ".pti": "image/prs.pti", ".pya": "audio/vnd.ms-playready.media.pya", ".pyv": "video/vnd.ms-playready.media.pyv",
    ".qt": "video/quicktime", ".ra": "audio/x-pn-realaudio", ".ram": "audio/x-pn-realaudio",
    ".ras": "image/x-cmu-raster", ".rgb": "image/x-rgb", ".rip": "audio/vnd.rip",
    ".rlc": "image/vnd.fujixerox.edmics-rlc", ".rmi": "audio/midi", ".rmp": "audio/x-pn-realaudio-plugin",
    ".s3m": "audio/s3m", ".sgi": "image/sgi", ".sid": "image/x-mrsid-image", ".sil": "audio/silk",
    ".smv": "video/x-smv", ".snd": "audio/basic", ".spx": "audio/ogg", ".svg": "image/svg+xml",
    ".svgz": "image/svg+xml", ".t38": "image/t38", ".tap": "image/vnd.tencent.tap", ".tfx": "image/tiff-fx",
    ".tga": "image/x-tga", ".tif": "image/tiff", ".tiff": "image/tiff", ".ts": "video/mp2t",
    ".uva": "audio/vnd.dece.audio", ".uvg": "image/vnd.dece.graphic", ".uvh": "video/vnd.dece.hd",
    ".uvi": "image/vnd.dece.graphic", ".uvm": "video/vnd.dece.mobile", ".uvp": "video/vnd.dece.pd",
    ".uvs": "video/vnd.dece.sd", ".uvu": "video/vnd.uvvu.mp4", ".uvv": "video/vnd.dece.video",
    ".uvva": "audio/vnd.dece.audio", ".uvvg": "image/vnd.dece.graphic", ".uvvh": "video/vnd.dece.hd",
    ".uvvi": "image/vnd.dece.graphic", ".uvvm": "video/vnd.dece.mobile", ".uvvp": "video/vnd.dece.pd",
    ".uvvs": "video/vnd.dece.sd", ".uvvu": "video/vnd.uvvu.mp4", ".uvvv": "video/vnd.dece.video",
    ".viv": "video/vnd.vivo", ".vob": "video/x-ms-vob", ".vtf": "image/vnd.valve.source.texture", ".wav": "audio/wav",
    ".wax": "audio/x-ms-wax", ".wbmp": "image/vnd.wap.wbmp", ".wdp": "image/vnd.ms-photo", ".weba": "audio/webm",
    ".webm": "video/webm", ".webp": "image/webp", ".wm": "video/x-ms-wm", ".wma": "audio/x-ms-wma", ".wmf": "image/wmf",
    ".wmv": "video/x-ms-wmv", ".wmx": "video/x-ms-wmx", ".wvx": "video/x-ms-wvx", ".xbm": "image/x-xbitmap",
    ".xif": "image/vnd.xiff", ".xm": "audio/xm", ".xpm": "image/x-xpixmap", ".xwd": "image/x-xwindowdump",
}
_TYPESCRIPT = frozenset({".ts", ".mts", ".cts"})
"""TypeScript, though the table says MPEG transport stream: upstream exempts ``.ts``; we exempt its module forms
too (``.mts`` would otherwise reach the model as a video)."""
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
    if ext in _TYPESCRIPT:
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
