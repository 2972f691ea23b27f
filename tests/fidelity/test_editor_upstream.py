"""editor against boris itself: every behaviour its Go tests check, with the exact text boris answers.

The cases are ported from the Go tests of mjkoo/boris at commit 709a82c (``internal/tools/*_test.go``,
``internal/pathscope/pathscope_test.go``, ``internal/session/session_test.go``, ``cmd/boris/*_test.go``); the
comment on each names the test it comes from. Where the Go test only checks ``strings.Contains``, the expected
text here is the whole answer, derived from the Go code at that commit (``view.go``, ``str_replace.go``,
``create_file.go``, ``bash.go``, ``tools.go``, ``pathscope.go``, ``session.go``). Cases marked "from the code"
have no Go test of their own: they pin a branch of that code. Differences we keep on purpose are listed in
docs/toolsets/editor.md under "Deviations from upstream, and why"; where one of them changes a case here, the
case says so (e.g. ``allow_dirs`` must be opened to ``/`` where the Go test passed no allow list).

Not ported: the MCP session registration callbacks (``TestBashRegistrationCallback``,
``TestIntegrationRegistrationCallback``: HTTP plumbing with no tool text), bearer auth, CORS and the
``--anthropic-compat`` tool (``TestIntegrationAnthropicCompat``; not implemented, deviation 8), and the JSON
schema tests (``tools_test.go``; ``view_range`` is ``{"type": "array", "items": {"type": "integer"}}`` in
tests/toolsets/test_editor.py's definitions check).
"""

from __future__ import annotations

import base64
import os
import re
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools.errors import ConfigError
from agenttools.workspace import parse_size
from conftest import gone, read_pid

PNG = b"\x89PNG\r\n\x1a\n" + bytes(100)  # view_test.go TestViewImageDetection: the magic and 100 zero bytes
LINK = "->"  # a files entry ("->", target) is a symlink


class Image:
    """An expected answer that is one MCP image block (boris: ``&mcp.ImageContent{Data, MIMEType}``)."""

    def __init__(self, mime: str) -> None:
        self.mime = mime


def _sub(value: Any, places: dict[str, str]) -> Any:
    if isinstance(value, str):
        for key, real in places.items():
            value = value.replace("{" + key + "}", real)
        return value
    if isinstance(value, list):
        return [_sub(v, places) for v in value]
    if isinstance(value, dict):
        return {k: _sub(v, places) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_sub(v, places) for v in value)
    return value


def run_case(tmp_path: Path, files: dict[str, Any], options: dict[str, Any], calls: list[tuple[Any, ...]],
             after: dict[str, bytes | None] | None = None) -> None:
    """Lay out ``files`` under {root} (or {outside}), make the calls in order and compare each whole answer.

    A call is ``(tool, args, text)`` (a success) or ``(tool, args, text, True)`` (``is_error``); ``text`` may be an
    :class:`Image`. ``after`` gives the bytes each file must hold at the end (None: it must not exist).
    """
    root = tmp_path / "proj"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    places = {"root": str(root), "outside": str(outside), "tmp": str(tmp_path)}

    def place(rel: str) -> Path:
        return Path(_sub(rel, places)) if rel.startswith("{") else root / rel

    for rel, data in files.items():
        path = place(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        elif isinstance(data, tuple) and data[0] == LINK:
            path.symlink_to(_sub(data[1], places))
        elif isinstance(data, tuple):  # (bytes, mode)
            path.write_bytes(data[0])
            os.chmod(path, data[1])
        else:
            path.write_bytes(data.encode() if isinstance(data, str) else data)
    with agenttools.toolset("editor", root=str(root), **_sub(options, places)) as reg:
        for number, (tool, args, expected, *error) in enumerate(calls):
            out = reg.call(tool, _sub(args, places))
            if isinstance(expected, Image):
                data = place(args["path"]).read_bytes()
                assert out.to_mcp()["content"] == [{"type": "image", "data": base64.b64encode(data).decode(),
                                                    "mimeType": expected.mime}], f"call {number}"
                assert not out.is_error
                continue
            assert (out.text, out.is_error) == (_sub(expected, places), bool(error and error[0])), f"call {number}"
    for rel, data in (after or {}).items():
        path = place(rel)
        if data is None:
            assert not os.path.lexists(path), rel
        else:
            assert path.read_bytes() == data, rel


def lines(start: int, end: int, text: str = "line", width: int | None = None) -> str:
    """``formatLines`` of identical lines ``start..end``: ``%*d\\t%s\\n``, the width of ``end``."""
    width = width or len(str(end))
    return "".join(f"{n:>{width}}\t{text}\n" for n in range(start, end + 1))


HUNDRED = "".join("line" + "x" * i + "\n" for i in range(1, 101))  # view_test.go TestViewLineRange's file
TWENTY = "".join(f"line {i}\n" for i in range(1, 21))

# --- view (internal/tools/view_test.go, view.go) -----------------------------------------------------------------

VIEW_CASES = [
    # TestViewEntireFile
    pytest.param({"test.txt": "line1\nline2\nline3\n"}, {},
                 [("view", {"path": "{root}/test.txt"}, "1\tline1\n2\tline2\n3\tline3\n")], id="TestViewEntireFile"),
    # TestViewLineRange: 11 lines, the first numbered 10
    pytest.param({"test.txt": HUNDRED}, {},
                 [("view", {"path": "test.txt", "view_range": [10, 20]},
                   "".join(f"{n}\tline{'x' * n}\n" for n in range(10, 21)))], id="TestViewLineRange"),
    # TestViewRangeEndClamped: lines 10-42 of a 42-line file, no error
    pytest.param({"test.txt": "line\n" * 42}, {},
                 [("view", {"path": "test.txt", "view_range": [10, 100]}, lines(10, 42))], id="TestViewRangeEndClamped"),
    # TestViewRangeStartExceedsTotal
    pytest.param({"test.txt": "a\nb\nc\n"}, {},
                 [("view", {"path": "test.txt", "view_range": [100, 200]},
                   "[INVALID_INPUT] invalid view_range: start 100 exceeds total lines 3 in {root}/test.txt", True)],
                 id="TestViewRangeStartExceedsTotal"),
    # TestViewInvalidRange: "start < 1" and "start > end"
    pytest.param({"test.txt": "a\nb\nc\n"}, {},
                 [("view", {"path": "test.txt", "view_range": [0, 2]},
                   "[INVALID_INPUT] invalid view_range: start must be >= 1, got 0", True),
                  ("view", {"path": "test.txt", "view_range": [3, 1]},
                   "[INVALID_INPUT] invalid view_range: start 3 > end 1", True)], id="TestViewInvalidRange"),
    # TestViewLargeFileTruncation: 2000 lines shown, then the note with the total
    pytest.param({"large.txt": "line\n" * 5000}, {"max_file_size": 100 * 1024 * 1024},
                 [("view", {"path": "large.txt"}, lines(1, 2000) + "\n[Truncated: file has 5000 lines. Use view_range "
                                                  "to read specific sections.]")], id="TestViewLargeFileTruncation"),
    # TestViewLineTruncation: "within limit" and "exceeds limit"
    pytest.param({"short.txt": "short line\n", "long.txt": "x" * 5000 + "\n"}, {},
                 [("view", {"path": "short.txt"}, "1\tshort line\n"),
                  ("view", {"path": "long.txt"}, "1\t" + "x" * 2000 + "... [truncated, 5000 chars total]\n")],
                 id="TestViewLineTruncation"),
    # TestViewUnicodeTruncation: 2000 runes, not bytes
    pytest.param({"unicode_short.txt": "\u4e16" * 1000 + "\n", "unicode_long.txt": "\u4e16" * 2500 + "\n"},
                 {"max_file_size": 100 * 1024 * 1024},
                 [("view", {"path": "unicode_short.txt"}, "1\t" + "\u4e16" * 1000 + "\n"),
                  ("view", {"path": "unicode_long.txt"},
                   "1\t" + "\u4e16" * 2000 + "... [truncated, 2500 chars total]\n")], id="TestViewUnicodeTruncation"),
    # TestViewBinaryDetection: formatSize(1024) is "1.0 KB"
    pytest.param({"binary.bin": bytes(1024)}, {}, [("view", {"path": "binary.bin"}, "Binary file (1.0 KB)")],
                 id="TestViewBinaryDetection"),
    # TestViewImageDetection: PNG, JPEG, GIF by magic bytes, SVG by extension, a misnamed PNG, a wasm binary
    pytest.param({"image.png": PNG, "image.jpg": b"\xff\xd8\xff" + bytes(100), "image.gif": b"GIF89a" + bytes(100),
                  "icon.svg": '<svg xmlns="http://www.w3.org/2000/svg"><circle r="10"/></svg>', "photo.dat": PNG,
                  "program.wasm": b"\x00asm" + bytes(100)}, {},
                 [("view", {"path": "image.png"}, Image("image/png")),
                  ("view", {"path": "image.jpg"}, Image("image/jpeg")),
                  ("view", {"path": "image.gif"}, Image("image/gif")),
                  ("view", {"path": "icon.svg"}, Image("image/svg+xml")),
                  ("view", {"path": "photo.dat"}, Image("image/png")),
                  ("view", {"path": "program.wasm"}, "Binary file (104 bytes)")], id="TestViewImageDetection"),
    # TestViewDirectoryListing: .git and node_modules left out, every other dotfile shown; 2 levels
    pytest.param({"src/pkg/": None, "src/main.go": "m", ".git/": None, "node_modules/": None, ".github/": None,
                  ".env": "e", ".dockerignore": "d"}, {},
                 [("view", {"path": "{root}"}, "proj/\n├── .dockerignore\n├── .env\n├── .github/\n└── src/\n"
                                               "    ├── main.go\n    └── pkg/\n")], id="TestViewDirectoryListing"),
    # TestViewDirectorySymlinks: "name -> target", as readlink gives it
    pytest.param({"target.txt": "content", "link.txt": (LINK, "{root}/target.txt")}, {},
                 [("view", {"path": "{root}"}, "proj/\n├── link.txt -> {root}/target.txt\n└── target.txt\n")],
                 id="TestViewDirectorySymlinks"),
    # TestViewRelativePath
    pytest.param({"sub/test.txt": "content\n"}, {}, [("view", {"path": "sub/test.txt"}, "1\tcontent\n")],
                 id="TestViewRelativePath"),
    # TestViewPathScopingEnforcement (a file outside the allowed directory instead of /etc/hostname)
    pytest.param({"{outside}/hostname": "h\n"}, {"allow_dirs": ["{root}"]},
                 [("view", {"path": "{outside}/hostname"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{outside}/hostname" is outside allowed directories', True)], id="TestViewPathScopingEnforcement"),
    # TestViewFileNotFound: view.go says "%s does not exist"
    pytest.param({}, {}, [("view", {"path": "{root}/nonexistent"},
                           "[PATH_NOT_FOUND] {root}/nonexistent does not exist", True)], id="TestViewFileNotFound"),
    # TestViewMaxFileSize: a 100-byte limit
    pytest.param({"big.txt": bytes(1024)}, {"max_file_size": 100},
                 [("view", {"path": "big.txt"},
                   "[FILE_TOO_LARGE] file {root}/big.txt is 1024 bytes, exceeds maximum 100 bytes", True)],
                 id="TestViewMaxFileSize"),
    # from the code (readFile): an empty file and a lone newline; no final newline; a \r stays in a whole-file view
    # (strings.Split) but not in a range (bufio.Scanner drops it)
    pytest.param({"empty.txt": "", "nl.txt": "\n", "nonl.txt": "a\nb", "crlf.txt": "a\r\nb\r\n", "blank.txt": "a\n\n"},
                 {},
                 [("view", {"path": "empty.txt"}, ""), ("view", {"path": "nl.txt"}, "1\t\n"),
                  ("view", {"path": "nonl.txt"}, "1\ta\n2\tb\n"), ("view", {"path": "crlf.txt"}, "1\ta\r\n2\tb\r\n"),
                  ("view", {"path": "crlf.txt", "view_range": [1, 2]}, "1\ta\n2\tb\n"),
                  ("view", {"path": "blank.txt"}, "1\ta\n2\t\n"),
                  ("view", {"path": "blank.txt", "view_range": [2, 2]}, "2\t\n"),
                  ("view", {"path": "empty.txt", "view_range": [1, 1]},
                   "[INVALID_INPUT] invalid view_range: start 1 exceeds total lines 0 in {root}/empty.txt", True)],
                 id="code-readFile-edges"),
    # from the code: a view_range that is not two numbers is ignored (len(viewRange) == 2)
    pytest.param({"two.txt": "a\nb\n"}, {},
                 [("view", {"path": "two.txt", "view_range": [2]}, "1\ta\n2\tb\n"),
                  ("view", {"path": "two.txt", "view_range": [2, 2, 2]}, "1\ta\n2\tb\n"),
                  ("view", {"path": "two.txt", "view_range": []}, "1\ta\n2\tb\n")], id="code-view_range-length"),
    # from the code: exactly 2000 lines are not truncated; 2001 are; the width is that of the last number shown
    pytest.param({"l2000.txt": "x\n" * 2000, "l2001.txt": "x\n" * 2000 + "y", "ten.txt": "x\n" * 10}, {},
                 [("view", {"path": "l2000.txt"}, lines(1, 2000, "x")),
                  ("view", {"path": "l2001.txt"}, lines(1, 2000, "x") + "\n[Truncated: file has 2001 lines. Use "
                                                  "view_range to read specific sections.]"),
                  ("view", {"path": "ten.txt"}, lines(1, 10, "x")),
                  ("view", {"path": "ten.txt", "view_range": [8, 10]}, lines(8, 10, "x")),
                  ("view", {"path": "ten.txt", "view_range": [9, 9]}, "9\tx\n")], id="code-formatLines-width"),
    # from the code: a line of exactly 2000 runes is whole; 2001 is cut
    pytest.param({"w.txt": "a" * 2000 + "\n" + "b" * 2001 + "\n"}, {},
                 [("view", {"path": "w.txt"}, "1\t" + "a" * 2000 + "\n2\t" + "b" * 2000
                   + "... [truncated, 2001 chars total]\n"),
                  ("view", {"path": "w.txt", "view_range": [2, 2]},
                   "2\t" + "b" * 2000 + "... [truncated, 2001 chars total]\n")], id="code-truncateLine"),
    # from the code (detectImage: Go's http.DetectContentType): a cursor is an icon; WebP needs "WEBPVP"; TIFF, PSD
    # and AVIF are not images there, so their NUL bytes make them binary files; an upper-case .SVG is SVG
    pytest.param({"c.cur": b"\x00\x00\x02\x00" + bytes(10), "f.ico": b"\x00\x00\x01\x00" + bytes(10),
                  "w.webp": b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(10), "t.tif": b"II*\x00" + bytes(100),
                  "p.psd": b"8BPS\x00\x01" + bytes(30), "a.avif": b"\x00\x00\x00\x1cftypavif" + bytes(20),
                  "g87.gif": b"GIF87a", "LOGO.SVG": "<svg/>", "e.svg": ""}, {},
                 [("view", {"path": "c.cur"}, Image("image/x-icon")), ("view", {"path": "f.ico"}, Image("image/x-icon")),
                  ("view", {"path": "w.webp"}, Image("image/webp")), ("view", {"path": "t.tif"}, "Binary file (104 bytes)"),
                  ("view", {"path": "p.psd"}, "Binary file (36 bytes)"),
                  ("view", {"path": "a.avif"}, "Binary file (32 bytes)"), ("view", {"path": "g87.gif"}, Image("image/gif")),
                  ("view", {"path": "LOGO.SVG"}, Image("image/svg+xml")), ("view", {"path": "e.svg"}, Image("image/svg+xml"))],
                 id="code-detectImage"),
    # from the code: isBinaryHeader looks at the first 512 bytes only; formatSize is 1024-based with one decimal
    pytest.param({"late.txt": b"a" * 600 + b"\x00b\n", "mb.bin": bytes(int(2.4 * 1024 * 1024))}, {},
                 [("view", {"path": "late.txt"}, "1\t" + "a" * 600 + "\x00b\n"),
                  ("view", {"path": "mb.bin"}, "Binary file (2.4 MB)")], id="code-isBinaryHeader-formatSize"),
    # from the code: a UTF-8 BOM is part of line 1 (upstream shows the file's bytes)
    pytest.param({"bom.txt": b"\xef\xbb\xbfhello\nworld\n"}, {},
                 [("view", {"path": "bom.txt"}, "1\t\ufeffhello\n2\tworld\n"),
                  ("view", {"path": "bom.txt", "view_range": [1, 1]}, "1\t\ufeffhello\n"),
                  ("view", {"path": "bom.txt", "view_range": [2, 2]}, "2\tworld\n")], id="code-utf8-bom"),
    # from the code (listDirectory): depth 2, bytewise order, node_modules left out even as a file, a symlinked
    # directory shown as a link and not entered; the header is the real directory's name
    pytest.param({"B/b.txt": "", "a/x/deep/f": "", "a/file.txt": "", "a/.git": "", "node_modules": "", "empty/": None,
                  "linkdir": (LINK, "a"), "_u": ""}, {},
                 [("view", {"path": "."}, "proj/\n├── B/\n│   └── b.txt\n├── _u\n├── a/\n│   ├── file.txt\n│   └── x/\n"
                                          "├── empty/\n└── linkdir -> a\n"),
                  ("view", {"path": "linkdir"}, "a/\n├── file.txt\n└── x/\n    └── deep/\n")], id="code-listDirectory"),
    # from the code (resolveSymlinks: filepath.EvalSymlinks): a path below a file, and a symlink loop
    pytest.param({"f.txt": "x", "loop": (LINK, "loop")}, {},
                 [("view", {"path": "f.txt/sub"}, "[ACCESS_DENIED] path not allowed: not a directory", True),
                  ("view", {"path": "loop"}, "[ACCESS_DENIED] path not allowed: EvalSymlinks: too many links", True)],
                 id="code-EvalSymlinks-errors"),
    # from the code: an empty path is the session cwd (filepath.Join(cwd, ""))
    pytest.param({"a.txt": ""}, {}, [("view", {"path": ""}, "proj/\n└── a.txt\n")], id="code-empty-path"),
]


@pytest.mark.parametrize(("files", "options", "calls"), VIEW_CASES)
def test_view(tmp_path, files, options, calls):
    run_case(tmp_path, files, options, calls)


# --- str_replace (internal/tools/str_replace_test.go, str_replace.go) --------------------------------------------

STR_REPLACE_CASES = [
    # TestStrReplaceSuccessful: the snippet is ±4 lines of the new content, its empty last line included
    pytest.param({"test.txt": "hello world\nfoo bar\nbaz\n"}, {},
                 [("str_replace", {"path": "{root}/test.txt", "old_str": "foo bar", "new_str": "replaced"},
                   "Replaced in {root}/test.txt\n\n1\thello world\n2\treplaced\n3\tbaz\n4\t\n")],
                 {"test.txt": b"hello world\nreplaced\nbaz\n"}, id="TestStrReplaceSuccessful"),
    # TestStrReplaceNotFound
    pytest.param({"test.txt": "hello\n"}, {},
                 [("str_replace", {"path": "test.txt", "old_str": "nonexistent", "new_str": "x"},
                   "[STR_REPLACE_NOT_FOUND] old_str not found in {root}/test.txt", True)], {"test.txt": b"hello\n"},
                 id="TestStrReplaceNotFound"),
    # TestStrReplaceMultipleOccurrences
    pytest.param({"test.txt": "aaa bbb aaa\n"}, {},
                 [("str_replace", {"path": "test.txt", "old_str": "aaa", "new_str": "x"},
                   "[STR_REPLACE_AMBIGUOUS] found 2 occurrences in {root}/test.txt; match must be unique (use "
                   "replace_all to replace all)", True)], {"test.txt": b"aaa bbb aaa\n"},
                 id="TestStrReplaceMultipleOccurrences"),
    # TestStrReplaceDeletion: new_str omitted deletes
    pytest.param({"test.txt": "keep DELETE keep\n"}, {},
                 [("str_replace", {"path": "test.txt", "old_str": " DELETE"},
                   "Replaced in {root}/test.txt\n\n1\tkeep keep\n2\t\n")], {"test.txt": b"keep keep\n"},
                 id="TestStrReplaceDeletion"),
    # TestStrReplaceAll: "multiple replacements with count", "no match error", "replace_all false preserves
    # uniqueness check"
    pytest.param({"test.txt": "aaa bbb aaa ccc aaa\n", "dup.txt": "aaa bbb aaa\n"}, {},
                 [("str_replace", {"path": "test.txt", "old_str": "aaa", "new_str": "XXX", "replace_all": True},
                   "Replaced 3 occurrences in {root}/test.txt"),
                  ("str_replace", {"path": "test.txt", "old_str": "nonexistent", "new_str": "y", "replace_all": True},
                   "[STR_REPLACE_NOT_FOUND] old_str not found in {root}/test.txt", True),
                  ("str_replace", {"path": "dup.txt", "old_str": "aaa", "new_str": "x", "replace_all": False},
                   "[STR_REPLACE_AMBIGUOUS] found 2 occurrences in {root}/dup.txt; match must be unique (use "
                   "replace_all to replace all)", True)],
                 {"test.txt": b"XXX bbb XXX ccc XXX\n", "dup.txt": b"aaa bbb aaa\n"}, id="TestStrReplaceAll"),
    # TestStrReplaceEmptyOldStr: with and without replace_all, the file unchanged
    pytest.param({"test.txt": "hello world\n"}, {},
                 [("str_replace", {"path": "test.txt", "old_str": "", "new_str": "inserted", "replace_all": True},
                   "[INVALID_INPUT] old_str must not be empty", True),
                  ("str_replace", {"path": "test.txt", "old_str": "", "new_str": "inserted"},
                   "[INVALID_INPUT] old_str must not be empty", True)], {"test.txt": b"hello world\n"},
                 id="TestStrReplaceEmptyOldStr"),
    # TestStrReplacePathScoping (a file outside the allowed directory instead of /etc/hostname)
    pytest.param({"{outside}/hostname": "x"}, {"allow_dirs": ["{root}"]},
                 [("str_replace", {"path": "{outside}/hostname", "old_str": "x", "new_str": "y"},
                   '[ACCESS_DENIED] path not allowed: access denied: path "{outside}/hostname" is outside allowed '
                   "directories", True)], {"{outside}/hostname": b"x"}, id="TestStrReplacePathScoping"),
    # TestStrReplaceFileNotFound
    pytest.param({}, {}, [("str_replace", {"path": "{root}/nonexistent", "old_str": "x", "new_str": "y"},
                           "[PATH_NOT_FOUND] {root}/nonexistent does not exist", True)], {"nonexistent": None},
                 id="TestStrReplaceFileNotFound"),
    # from the code (contextSnippet): the first line; a window cut at 4 lines each side; several new lines shown
    # around the line the edit starts on
    pytest.param({"a.txt": TWENTY, "b.txt": TWENTY, "c.txt": TWENTY}, {},
                 [("str_replace", {"path": "a.txt", "old_str": "line 1\n", "new_str": "one\n"},
                   "Replaced in {root}/a.txt\n\n1\tone\n2\tline 2\n3\tline 3\n4\tline 4\n5\tline 5\n"),
                  ("str_replace", {"path": "b.txt", "old_str": "line 10\n", "new_str": "ten\n"},
                   "Replaced in {root}/b.txt\n\n" + "".join(f"{n:>2}\t{'ten' if n == 10 else f'line {n}'}\n"
                                                            for n in range(6, 15))),
                  ("str_replace", {"path": "c.txt", "old_str": "line 5\n", "new_str": "".join(f"new {i}\n" for i in range(10))},
                   "Replaced in {root}/c.txt\n\n1\tline 1\n2\tline 2\n3\tline 3\n4\tline 4\n5\tnew 0\n6\tnew 1\n"
                   "7\tnew 2\n8\tnew 3\n9\tnew 4\n")],
                 {"a.txt": TWENTY.replace("line 1\n", "one\n", 1).encode(), "b.txt": TWENTY.replace("line 10\n", "ten\n").encode()},
                 id="code-contextSnippet"),
    # from the code: deleting the last line clamps the offset to the last byte, so the window is around the line
    # before; deleting everything shows no snippet; a deletion at the end of an unterminated file
    pytest.param({"a.txt": TWENTY, "b.txt": "x\n", "c.txt": "a\nb\nc", "d.txt": "a\nb\n"}, {},
                 [("str_replace", {"path": "a.txt", "old_str": "line 20\n"},
                   "Replaced in {root}/a.txt\n\n15\tline 15\n16\tline 16\n17\tline 17\n18\tline 18\n19\tline 19\n20\t\n"),
                  ("str_replace", {"path": "b.txt", "old_str": "x\n"}, "Replaced in {root}/b.txt\n\n"),
                  ("str_replace", {"path": "c.txt", "old_str": "\nc"}, "Replaced in {root}/c.txt\n\n1\ta\n2\tb\n"),
                  ("str_replace", {"path": "d.txt", "old_str": "b\n"}, "Replaced in {root}/d.txt\n\n1\ta\n2\t\n")],
                 {"a.txt": TWENTY.removesuffix("line 20\n").encode(), "b.txt": b"", "c.txt": b"a\nb", "d.txt": b"a\n"},
                 id="code-contextSnippet-clamp"),
    # from the code: the snippet keeps a \r (strings.Split on \n); replace_all of one says "1 occurrences"; a BOM
    # shows on line 1
    pytest.param({"crlf.txt": b"a\r\nb\r\n", "one.txt": "aXb", "bom.txt": b"\xef\xbb\xbfhello\nworld\n"}, {},
                 [("str_replace", {"path": "crlf.txt", "old_str": "a", "new_str": "x"},
                   "Replaced in {root}/crlf.txt\n\n1\tx\r\n2\tb\r\n3\t\n"),
                  ("str_replace", {"path": "one.txt", "old_str": "X", "replace_all": True},
                   "Replaced 1 occurrences in {root}/one.txt"),
                  ("str_replace", {"path": "bom.txt", "old_str": "world", "new_str": "earth"},
                   "Replaced in {root}/bom.txt\n\n1\t\ufeffhello\n2\tearth\n3\t\n")],
                 {"crlf.txt": b"x\r\nb\r\n", "one.txt": b"ab", "bom.txt": b"\xef\xbb\xbfhello\nearth\n"},
                 id="code-snippet-bytes"),
    # from the code: a directory fails in os.ReadFile; a path below a file fails in EvalSymlinks
    pytest.param({"adir/": None, "f.txt": "x"}, {},
                 [("str_replace", {"path": "adir", "old_str": "x"},
                   "[IO_ERROR] could not read {root}/adir: read {root}/adir: is a directory", True),
                  ("str_replace", {"path": "f.txt/x", "old_str": "x"},
                   "[ACCESS_DENIED] path not allowed: not a directory", True)], {"f.txt": b"x"},
                 id="code-str_replace-errors"),
]


@pytest.mark.parametrize(("files", "options", "calls", "after"), STR_REPLACE_CASES)
def test_str_replace(tmp_path, files, options, calls, after):
    run_case(tmp_path, files, options, calls, after)


def test_str_replace_preserves_permissions(tmp_path):
    # TestStrReplacePreservesPermissions
    run_case(tmp_path, {"test.sh": (b"old content\n", 0o755)}, {},
             [("str_replace", {"path": "test.sh", "old_str": "old content", "new_str": "new content"},
               "Replaced in {root}/test.sh\n\n1\tnew content\n2\t\n")], {"test.sh": b"new content\n"})
    assert stat.S_IMODE(os.stat(tmp_path / "proj" / "test.sh").st_mode) == 0o755


# --- create_file (internal/tools/create_file_test.go, create_file.go) ---------------------------------------------

CREATE_CASES = [
    # TestCreateFileNew
    pytest.param({}, {}, [("create_file", {"path": "{root}/new.txt", "content": "hello world\n"},
                           "Created {root}/new.txt (12 bytes)")], {"new.txt": b"hello world\n"}, id="TestCreateFileNew"),
    # TestCreateFileOverwriteByDefault
    pytest.param({"existing.txt": "original"}, {},
                 [("create_file", {"path": "existing.txt", "content": "new content"},
                   "Created {root}/existing.txt (11 bytes)")], {"existing.txt": b"new content"},
                 id="TestCreateFileOverwriteByDefault"),
    # TestCreateFileParentDirs
    pytest.param({}, {}, [("create_file", {"path": "{root}/a/b/c/file.txt", "content": "nested"},
                           "Created {root}/a/b/c/file.txt (6 bytes)")], {"a/b/c/file.txt": b"nested"},
                 id="TestCreateFileParentDirs"),
    # TestCreateFileMaxSize: checked before anything else
    pytest.param({}, {"max_file_size": 100},
                 [("create_file", {"path": "big.txt", "content": "x" * 200},
                   "[FILE_TOO_LARGE] content is 200 bytes, exceeds maximum 100 bytes", True)], {"big.txt": None},
                 id="TestCreateFileMaxSize"),
    # TestCreateFilePathScoping (a path outside the allowed directory instead of /etc/evil.txt)
    pytest.param({}, {"allow_dirs": ["{root}"]},
                 [("create_file", {"path": "{outside}/evil.txt", "content": "hacked"},
                   '[ACCESS_DENIED] path not allowed: access denied: path "{outside}/evil.txt" is outside allowed '
                   "directories", True)], {"{outside}/evil.txt": None}, id="TestCreateFilePathScoping"),
    # from the code: len(content) counts UTF-8 bytes; a directory fails in os.WriteFile's open; a parent that is a
    # file fails in EvalSymlinks
    pytest.param({"adir/": None, "f.txt": "x"}, {},
                 [("create_file", {"path": "u.txt", "content": "\u00e9\u4e16"}, "Created {root}/u.txt (5 bytes)"),
                  ("create_file", {"path": "adir", "content": "x"},
                   "[IO_ERROR] could not write {root}/adir: open {root}/adir: is a directory", True),
                  ("create_file", {"path": "f.txt/sub/new.txt", "content": "y"},
                   "[ACCESS_DENIED] path not allowed: not a directory", True)],
                 {"u.txt": "\u00e9\u4e16".encode(), "f.txt": b"x"}, id="code-create_file-errors"),
]


@pytest.mark.parametrize(("files", "options", "calls", "after"), CREATE_CASES)
def test_create_file(tmp_path, files, options, calls, after):
    run_case(tmp_path, files, options, calls, after)


def test_create_file_permissions(tmp_path):
    # TestCreateFilePermissions: 0644 (and MkdirAll's 0755)
    run_case(tmp_path, {}, {}, [("create_file", {"path": "d/test.txt", "content": "test"},
                                 "Created {root}/d/test.txt (4 bytes)")])
    assert stat.S_IMODE(os.stat(tmp_path / "proj" / "d" / "test.txt").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "proj" / "d").st_mode) == 0o755


# --- path scoping (internal/pathscope/pathscope_test.go), through the tools -----------------------------------------

SCOPE_CASES = [
    # TestNoAllowDirs: no allow list allows everything (ours needs allow_dirs=["/"]: deviation 1)
    pytest.param({"{outside}/hostname": "h\n"}, {"allow_dirs": ["/"]},
                 [("view", {"path": "{outside}/hostname"}, "1\th\n")], id="TestNoAllowDirs"),
    # TestSingleAllowDir
    pytest.param({"test.txt": "hi", "{outside}/hostname": "h"}, {"allow_dirs": ["{root}"]},
                 [("view", {"path": "{root}/test.txt"}, "1\thi\n"),
                  ("view", {"path": "{outside}/hostname"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{outside}/hostname" is outside allowed directories', True)], id="TestSingleAllowDir"),
    # TestMultipleAllowDirs
    pytest.param({"a.txt": "a", "{outside}/b.txt": "b"}, {"allow_dirs": ["{root}", "{outside}"]},
                 [("view", {"path": "{root}/a.txt"}, "1\ta\n"), ("view", {"path": "{outside}/b.txt"}, "1\tb\n"),
                  ("view", {"path": "{outside}/../passwd"}, "[ACCESS_DENIED] path not allowed: access denied: path "
                   '"{tmp}/passwd" is outside allowed directories', True)], id="TestMultipleAllowDirs"),
    # TestDenyOverridesAllow
    pytest.param({".env": "SECRET=x"}, {"allow_dirs": ["{root}"], "deny_dirs": ["**/.env"]},
                 [("view", {"path": "{root}/.env"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{root}/.env" matches deny pattern "**/.env"', True)], id="TestDenyOverridesAllow"),
    # TestDenyDoublestarGlob
    pytest.param({"a/b/.secret": "s"}, {"deny_dirs": ["**/.secret"]},
                 [("view", {"path": "{root}/a/b/.secret"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{root}/a/b/.secret" matches deny pattern "**/.secret"', True)], id="TestDenyDoublestarGlob"),
    # TestDenySimpleGlob
    pytest.param({"data.tmp": "t"}, {"deny_dirs": ["{root}/*.tmp"]},
                 [("view", {"path": "data.tmp"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{root}/data.tmp" matches deny pattern "{root}/*.tmp"', True)], id="TestDenySimpleGlob"),
    # TestDenyDirectoryMatchesChildren: the pattern matches a parent
    pytest.param({".git/config": "c"}, {"deny_dirs": ["**/.git"]},
                 [("view", {"path": ".git/config"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{root}/.git/config" matches deny pattern "**/.git"', True)], id="TestDenyDirectoryMatchesChildren"),
    # TestSymlinkResolution: the tools name the real path
    pytest.param({"real.txt": "r", "link.txt": (LINK, "{root}/real.txt")}, {"allow_dirs": ["{root}"]},
                 [("str_replace", {"path": "link.txt", "old_str": "r", "new_str": "s"},
                   "Replaced in {root}/real.txt\n\n1\ts\n")], {"real.txt": b"s"}, id="TestSymlinkResolution"),
    # TestSymlinkEscape: the real path is outside
    pytest.param({"{outside}/secret.txt": "s", "escape": (LINK, "{outside}/secret.txt")}, {"allow_dirs": ["{root}"]},
                 [("view", {"path": "escape"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{outside}/secret.txt" is outside allowed directories', True)], id="TestSymlinkEscape"),
    # TestRelativePathResolution: relative to the session cwd
    pytest.param({"sub/file.txt": "f"}, {},
                 [("bash", {"command": "cd sub"}, "exit_code: 0\n"), ("view", {"path": "file.txt"}, "1\tf\n")],
                 id="TestRelativePathResolution"),
    # TestClearErrorMessages
    pytest.param({".env": "x", "{outside}/passwd": "p"}, {"allow_dirs": ["{root}"], "deny_dirs": ["**/.env"]},
                 [("view", {"path": "{outside}/passwd"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{outside}/passwd" is outside allowed directories', True),
                  ("view", {"path": ".env"}, '[ACCESS_DENIED] path not allowed: access denied: path "{root}/.env" '
                   'matches deny pattern "**/.env"', True)], id="TestClearErrorMessages"),
    # from the code: the path and pattern are quoted with Go's %q (a DEL byte is \x7f, a no-break space \u00a0)
    pytest.param({"a\x7f\u00a0\u00e9.env": "x"}, {"deny_dirs": ["**/*.env"]},
                 [("view", {"path": "a\x7f\u00a0\u00e9.env"}, '[ACCESS_DENIED] path not allowed: access denied: path '
                   '"{root}/a\\x7f\\u00a0\u00e9.env" matches deny pattern "**/*.env"', True)], id="code-go-quote"),
]


SCOPE_CASES = [pytest.param(*case.values, *(None,) * (4 - len(case.values)), id=case.id) for case in SCOPE_CASES]


@pytest.mark.parametrize(("files", "options", "calls", "after"), SCOPE_CASES)
def test_path_scope(tmp_path, files, options, calls, after):
    run_case(tmp_path, files, options, calls, after)


def test_invalid_deny_pattern(tmp_path):
    # TestInvalidDenyPattern: refused when the toolset is built (boris: at startup)
    with pytest.raises(ConfigError, match="invalid deny pattern"):
        agenttools.toolset("editor", root=str(tmp_path), deny_dirs=["[invalid"])


@pytest.mark.parametrize(("text", "size"), [
    ("10MB", 10 * 1024 * 1024), ("10mb", 10 * 1024 * 1024), ("10Mb", 10 * 1024 * 1024), ("1GB", 1024 ** 3),
    ("512KB", 512 * 1024), ("100B", 100), ("4096", 4096), ("  10MB  ", 10 * 1024 * 1024),
])  # cmd/boris/main_test.go TestParseSize ("0MB" is refused: a zero limit is a configuration error here)
def test_max_file_size_strings(tmp_path, text, size):
    assert parse_size(text) == size
    if size <= 512 * 1024:
        with agenttools.toolset("editor", root=str(tmp_path), max_file_size=text) as reg:
            assert reg.call("create_file", {"path": "x", "content": "x" * (size + 1)}).text == (
                f"[FILE_TOO_LARGE] content is {size + 1} bytes, exceeds maximum {size} bytes")


# --- bash (internal/tools/bash_test.go, bash.go) -----------------------------------------------------------------

PY = sys.executable

BASH_CASES = [
    # TestBashSimpleCommand; TestBashSentinelStripping (nothing of the cwd marker shows)
    pytest.param([("bash", {"command": "echo hello"}, "exit_code: 0\n\nstdout:\nhello\n")], id="TestBashSimpleCommand"),
    # TestBashNonZeroExit: a status is data, not an error
    pytest.param([("bash", {"command": "exit 42"}, "exit_code: 42\n")], id="TestBashNonZeroExit"),
    # TestBashStderrCapture
    pytest.param([("bash", {"command": "echo err >&2"}, "exit_code: 0\n\nstderr:\nerr\n")], id="TestBashStderrCapture"),
    # TestBashCwdTracking: a cd outside the allowed directories is still followed by the shell
    pytest.param([("bash", {"command": "cd /tmp"}, "exit_code: 0\n"),
                  ("bash", {"command": "pwd"}, "exit_code: 0\n\nstdout:\n/tmp\n")], id="TestBashCwdTracking"),
    # TestBashSentinelNonce: an old-style marker in the output is output, and moves nothing
    pytest.param([("bash", {"command": "printf 'output\\n__BORIS_CWD__\\n/fake/path\\n'"},
                   "exit_code: 0\n\nstdout:\noutput\n__BORIS_CWD__\n/fake/path\n"),
                  ("bash", {"command": "pwd"}, "exit_code: 0\n\nstdout:\n{root}\n")], id="TestBashSentinelNonce"),
    # TestBashTimeoutMilliseconds; TestBashMissingSentinelPreservesCwd (killed by SIGTERM: ExitCode() is -1)
    pytest.param([("bash", {"command": "cd sub; sleep 300", "timeout": 1000},
                   "Command timed out after 1000ms\n\nexit_code: -1\n"),
                  ("bash", {"command": "pwd"}, "exit_code: 0\n\nstdout:\n{root}\n")],
                 id="TestBashTimeoutMilliseconds+TestBashMissingSentinelPreservesCwd"),
    # TestBashTimeoutMaxCap: 900000 ms is capped, not refused
    pytest.param([("bash", {"command": "echo ok", "timeout": 900000}, "exit_code: 0\n\nstdout:\nok\n")],
                 id="TestBashTimeoutMaxCap"),
    # TestBashInitialWorkdir
    pytest.param([("bash", {"command": "pwd"}, "exit_code: 0\n\nstdout:\n{root}\n")], id="TestBashInitialWorkdir"),
    # TestBashEmptyCommand; TestBashIsErrorForOperationalErrors (and "exit 1" is no error)
    pytest.param([("bash", {"command": ""}, "[BASH_EMPTY_COMMAND] command must not be empty", True),
                  ("bash", {"command": "  "}, "[BASH_EMPTY_COMMAND] command must not be empty", True),
                  ("bash", {"command": "\t\n"}, "[BASH_EMPTY_COMMAND] command must not be empty", True),
                  ("bash", {"command": "\u3000\u00a0"}, "[BASH_EMPTY_COMMAND] command must not be empty", True),
                  ("bash", {"command": "exit 1"}, "exit_code: 1\n"),
                  # from the code: strings.TrimSpace is unicode.IsSpace, which \x1c is not: bash runs it (upstream
                  # reports pwd's 0 here; we report the real status, deviation 5)
                  ("bash", {"command": "\x1c"}, "exit_code: 127\n\nstderr:\n/bin/bash: line 1: $'\\034': command not "
                   "found\n")], id="TestBashEmptyCommand"),
    # TestBashOutputTruncation: "within limit", "exceeds limit", "stderr independent truncation" (the scanner
    # gives the unterminated stderr line its newline: 50001; the note ends without one, so "\nstdout:" follows)
    pytest.param([("bash", {"command": "echo hello"}, "exit_code: 0\n\nstdout:\nhello\n"),
                  ("bash", {"command": f"{PY} -c \"print('x' * 50000)\"", "timeout": 10000},
                   "exit_code: 0\n\nstdout:\n" + "x" * 30000
                   + "\n\n[Truncated: output was 50001 characters, showing first 30000]"),
                  ("bash", {"command": f"echo short; {PY} -c \"import sys; sys.stderr.write('y' * 50000)\"",
                            "timeout": 10000},
                   "exit_code: 0\n\nstderr:\n" + "y" * 30000
                   + "\n\n[Truncated: output was 50001 characters, showing first 30000]\nstdout:\nshort\n")],
                 id="TestBashOutputTruncation"),
    # from the code (truncateOutput): Go's len() counts bytes; a character cut in two shows a U+FFFD per byte kept
    pytest.param([("bash", {"command": f"{PY} -c \"print('\u00e9' * 20000)\""},
                   "exit_code: 0\n\nstdout:\n" + "\u00e9" * 15000
                   + "\n\n[Truncated: output was 40001 characters, showing first 30000]"),
                  ("bash", {"command": f"{PY} -c \"print('a' + '\u4e16' * 10000)\""},
                   "exit_code: 0\n\nstdout:\na" + "\u4e16" * 9999 + "\ufffd\ufffd"
                   + "\n\n[Truncated: output was 30002 characters, showing first 30000]"),
                  ("bash", {"command": f"{PY} -c \"print('\u4e16' * 10000)\""},
                   "exit_code: 0\n\nstdout:\n" + "\u4e16" * 10000 + "\n\n[Truncated: output was 30001 characters, "
                   "showing first 30000]")], id="code-truncateOutput-bytes"),
    # TestBashDescriptionParameter: description changes nothing
    pytest.param([("bash", {"command": "echo hello", "description": "Print a greeting"},
                   "exit_code: 0\n\nstdout:\nhello\n")], id="TestBashDescriptionParameter"),
    # TestBashRegistrationCallback "nil callback is safe"
    pytest.param([("bash", {"command": "echo ok"}, "exit_code: 0\n\nstdout:\nok\n")],
                 id="TestBashRegistrationCallback"),
    # from the code (scanAndNotify, parseSentinel): lines as bufio.Scanner reads them (a CRLF loses its \r, the
    # last line gets a \n), trailing blank lines dropped, stderr before stdout; the shell is /bin/bash
    pytest.param([("bash", {"command": "printf 'out\\r\\nlast'; printf 'err' >&2"},
                   "exit_code: 0\n\nstderr:\nerr\n\nstdout:\nout\nlast\n"),
                  ("bash", {"command": "printf '\\n\\nx\\n\\n'"}, "exit_code: 0\n\nstdout:\n\n\nx\n"),
                  ("bash", {"command": "echo -n"}, "exit_code: 0\n"),
                  ("bash", {"command": "echo $0"}, "exit_code: 0\n\nstdout:\n/bin/bash\n"),
                  ("bash", {"command": "echo hi # a comment"}, "exit_code: 0\n\nstdout:\nhi\n"),
                  ("bash", {"command": "cd /nonexistent-dir"},
                   "exit_code: 1\n\nstderr:\n/bin/bash: line 1: cd: /nonexistent-dir: No such file or directory\n")],
                 id="code-output-lines"),
]


@pytest.mark.parametrize("calls", BASH_CASES)
def test_bash(tmp_path, calls):
    run_case(tmp_path, {"sub/": None}, {}, calls)


def test_bash_sigterm(tmp_path):
    # TestBashSIGTERM: the group gets SIGTERM; the trap runs and exits 0 (bash reports the killed sleep)
    start = time.monotonic()
    run_case(tmp_path, {}, {}, [("bash", {"command": "trap 'echo got_sigterm; exit 0' TERM; sleep 300", "timeout": 1000},
                                 "Command timed out after 1000ms\n\nexit_code: 0\n\nstderr:\nTerminated\n\nstdout:\n"
                                 "got_sigterm\n")])
    assert time.monotonic() - start < 4


def test_bash_foreground_timeout_kill_timer(tmp_path):
    # TestBashForegroundTimeoutKillTimerStopped
    run_case(tmp_path, {}, {}, [("bash", {"command": "trap 'exit 0' TERM; sleep 300", "timeout": 500},
                                 "Command timed out after 500ms\n\nexit_code: 0\n\nstderr:\nTerminated\n")])


# --- background tasks and task_output --------------------------------------------------------------------------

TASK_ID = re.compile(r"task_id: ([0-9a-f]{16})\nCommand started in background\.")


def start(reg, command: str) -> str:
    out = reg.call("bash", {"command": command, "run_in_background": True})
    match = TASK_ID.fullmatch(out.text)
    assert match is not None and not out.is_error, out.text
    return match.group(1)


def finished(reg, task: str, timeout: float = 10) -> str:
    """task_output until the task completes (each earlier answer must be a running one)."""
    deadline = time.monotonic() + timeout
    while True:
        text = reg.call("task_output", {"task_id": task}).text
        if not text.startswith("status: running\n"):
            return text
        assert time.monotonic() < deadline, text
        time.sleep(0.05)


def test_background_command(tmp_path):
    # TestBashBackgroundCommand: "immediate return with task_id", "cwd not updated", "task limit enforcement"
    with agenttools.toolset("editor", root=str(tmp_path)) as reg:
        start(reg, "sleep 60")
        cd = start(reg, "cd /tmp")
        assert finished(reg, cd) == "status: completed\nexit_code: 0\n"
        assert reg.call("bash", {"command": "pwd"}).text == f"exit_code: 0\n\nstdout:\n{tmp_path}\n"
        for _ in range(9):
            start(reg, "sleep 300")
        out = reg.call("bash", {"command": "sleep 300", "run_in_background": True})
        assert (out.text, out.is_error) == ("[BASH_TASK_LIMIT] could not add background task: maximum concurrent "
                                            "background task limit (10) reached", True)


def test_task_output(tmp_path):
    # TestTaskOutput: "running status", "completed status with cleanup", "unknown task_id";
    # TestTaskOutputRegistrationCallback
    with agenttools.toolset("editor", root=str(tmp_path)) as reg:
        running = start(reg, "sleep 60")
        assert reg.call("task_output", {"task_id": running}).text == "status: running\n"
        done = start(reg, "echo done")
        assert finished(reg, done) == "status: completed\nexit_code: 0\n\nstdout:\ndone\n"
        out = reg.call("task_output", {"task_id": done})
        assert (out.text, out.is_error) == (f"[BASH_TASK_NOT_FOUND] task not found: {done}", True)
        out = reg.call("task_output", {"task_id": "nonexistent"})
        assert (out.text, out.is_error) == ("[BASH_TASK_NOT_FOUND] task not found: nonexistent", True)


def test_background_output_as_written(tmp_path):
    # from the code (runBackground): the output is the raw buffer, not line-scanned: \r kept, no newline added;
    # a status is the real one (no cwd wrapper)
    with agenttools.toolset("editor", root=str(tmp_path)) as reg:
        task = start(reg, "printf 'a\\r\\nb'; printf 'e' >&2; exit 3")
        assert finished(reg, task) == "status: completed\nexit_code: 3\n\nstderr:\ne\nstdout:\na\r\nb"


def test_background_task_output_race(tmp_path):
    # TestBackgroundTaskOutputRace: every read while it runs is a prefix of the final output
    full = "".join(f"line{i}\n" for i in range(1, 51))
    with agenttools.toolset("editor", root=str(tmp_path)) as reg:
        task = start(reg, "for i in $(seq 1 50); do echo line$i; sleep 0.01; done")
        deadline = time.monotonic() + 10
        while True:
            text = reg.call("task_output", {"task_id": task}).text
            if text.startswith("status: completed"):
                assert text == "status: completed\nexit_code: 0\n\nstdout:\n" + full
                break
            assert text == "status: running\n" or (
                text.startswith("status: running\n\nstdout:\n") and full.startswith(text[len("status: running\n\nstdout:\n"):]))
            assert time.monotonic() < deadline
            time.sleep(0.01)


def test_background_timeout(tmp_path):
    # TestBashBackgroundTimeout: "task killed after timeout", "timer cancelled on early completion",
    # "no timer when bg-timeout is 0"; TestBashBackgroundTimeoutKillTimerStopped (a trap exits 0: still marked)
    with agenttools.toolset("editor", root=str(tmp_path), background_timeout=1) as reg:
        killed = start(reg, "sleep 300")
        trapped = start(reg, "trap 'exit 0' TERM; sleep 300")
        fast = start(reg, "echo fast")
        assert finished(reg, fast) == "status: completed\nexit_code: 0\n\nstdout:\nfast\n"
        assert finished(reg, killed) == "status: completed (killed by background task timeout)\nexit_code: -1\n"
        assert finished(reg, trapped) == ("status: completed (killed by background task timeout)\nexit_code: 0\n\n"
                                          "stderr:\nTerminated\n")
    with agenttools.toolset("editor", root=str(tmp_path)) as reg:
        done = start(reg, "echo done")
        assert finished(reg, done) == "status: completed\nexit_code: 0\n\nstdout:\ndone\n"


def test_closed_session_refuses_tasks(tmp_path):
    # internal/session/session_test.go TestAddTaskRejectedAfterClose, TestCloseKillsRunningTasks
    reg = agenttools.toolset("editor", root=str(tmp_path))
    task = start(reg, "echo $$ > pid; sleep 300")
    pid = read_pid(tmp_path / "pid", timeout=5)
    reg.close()
    out = reg.call("bash", {"command": "true", "run_in_background": True})
    assert (out.text, out.is_error) == ("[BASH_TASK_LIMIT] could not add background task: session is closed", True)
    out = reg.call("task_output", {"task_id": task})
    assert (out.text, out.is_error) == (f"[BASH_TASK_NOT_FOUND] task not found: {task}", True)
    assert gone(pid)


def test_sessions_are_isolated(tmp_path):
    # cmd/boris/session_test.go TestHTTPSessionIsolationCwd, TestHTTPSessionIsolationBackgroundTasks,
    # TestHTTPSessionCwdPersistence: one toolset is one session
    with agenttools.toolset("editor", root=str(tmp_path)) as a, agenttools.toolset("editor", root=str(tmp_path)) as b:
        assert a.call("bash", {"command": "cd /var"}).text == "exit_code: 0\n"
        assert a.call("bash", {"command": "pwd"}).text == "exit_code: 0\n\nstdout:\n/var\n"
        assert b.call("bash", {"command": "pwd"}).text == f"exit_code: 0\n\nstdout:\n{tmp_path}\n"
        task = start(a, "sleep 60")
        out = b.call("task_output", {"task_id": task})
        assert (out.text, out.is_error) == (f"[BASH_TASK_NOT_FOUND] task not found: {task}", True)


# --- integration (internal/tools/integration_test.go) ---------------------------------------------------------------

def test_integration_tool_lifecycle(tmp_path):
    # TestIntegrationToolLifecycle: the allow list is the work directory, default timeout 30 s
    run_case(tmp_path, {"multi.txt": "aaa bbb aaa ccc aaa\n"}, {"allow_dirs": ["{root}"], "bash_timeout": 30}, [
        ("create_file", {"path": "hello.txt", "content": "hello world\nfoo bar\nbaz\n"},
         "Created {root}/hello.txt (24 bytes)"),
        ("view", {"path": "hello.txt"}, "1\thello world\n2\tfoo bar\n3\tbaz\n"),
        ("str_replace", {"path": "hello.txt", "old_str": "foo bar", "new_str": "REPLACED"},
         "Replaced in {root}/hello.txt\n\n1\thello world\n2\tREPLACED\n3\tbaz\n4\t\n"),
        ("view", {"path": "hello.txt"}, "1\thello world\n2\tREPLACED\n3\tbaz\n"),
        ("bash", {"command": "cat hello.txt"}, "exit_code: 0\n\nstdout:\nhello world\nREPLACED\nbaz\n"),
        ("create_file", {"path": "hello.txt", "content": "overwritten\n"}, "Created {root}/hello.txt (12 bytes)"),
        ("str_replace", {"path": "multi.txt", "old_str": "aaa", "new_str": "ZZZ", "replace_all": True},
         "Replaced 3 occurrences in {root}/multi.txt"),
    ], {"hello.txt": b"overwritten\n", "multi.txt": b"ZZZ bbb ZZZ ccc ZZZ\n"})


def test_unknown_tool(tmp_path):
    # integration_test.go TestIntegrationAnthropicCompat "split tools are NOT registered": the SDK's answer
    with agenttools.toolset("editor", root=str(tmp_path)) as reg:
        out = reg.call("str_replace_editor", {"command": "view", "path": "x"})
        assert (out.text, out.is_error) == ('unknown tool "str_replace_editor"', True)


def test_a_full_disk_reads_as_go_says_it(tmp_path, monkeypatch):
    # from the code: os.WriteFile's error is a *PathError; a full disk fails in write, a directory in open
    from agenttools import _text

    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")  # ENOSPC

    monkeypatch.setattr(_text.os, "fsync", full)
    with agenttools.toolset("editor", root=str(tmp_path)) as reg:
        (tmp_path / "f.txt").write_text("old\n")
        assert reg.call("create_file", {"path": "f.txt", "content": "new\n"}).text == (
            f"[IO_ERROR] could not write {tmp_path}/f.txt: write {tmp_path}/f.txt: no space left on device")
        assert reg.call("str_replace", {"path": "f.txt", "old_str": "old", "new_str": "new"}).text == (
            f"[IO_ERROR] could not write {tmp_path}/f.txt: write {tmp_path}/f.txt: no space left on device")
    assert (tmp_path / "f.txt").read_text() == "old\n"
