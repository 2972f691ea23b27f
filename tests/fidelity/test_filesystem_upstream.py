"""filesystem side by side with the MCP reference filesystem server itself: the same calls, texts compared to the byte.

The npm package ``@modelcontextprotocol/server-filesystem@2026.8.31`` (with the SDK, zod, diff and minimatch
versions it was checked against) runs as a real stdio MCP server, driven by the ``mcp`` Python SDK's client, and
``reg.call`` answers the same calls on the same trees. Read-only calls run on one tree; each call that changes
the tree runs on a fresh copy for each side, and the trees left behind are compared too. Where the answers differ
on purpose the case carries its reason (each is a deviation in docs/toolsets/filesystem.md);
every other difference fails.

The test needs ``node`` and ``npm`` and the npm registry (or ``AGENTTOOLS_FS_SERVER``: a directory where .ci/run
installed the package); without them it is skipped, unless ``AGENTTOOLS_REQUIRE_UPSTREAM`` is set (CI), where it
fails.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import agenttools
from agenttools.blocks import DataBlock, ImageBlock
from conftest import upstream_unavailable

PACKAGES = ["@modelcontextprotocol/server-filesystem@2026.8.31", "@modelcontextprotocol/sdk@1.32.2", "zod@4.6.7",
            "diff@8.0.4", "minimatch@10.2.6"]
ENTRY = Path("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")

Call = Callable[[str, dict[str, Any]], tuple[bool, str]]



@pytest.fixture(scope="module")
def server_js(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("node") is None:
        upstream_unavailable("node is needed to run the MCP filesystem server")
    installed = os.environ.get("AGENTTOOLS_FS_SERVER")
    if installed and (Path(installed) / ENTRY).is_file():
        return Path(installed) / ENTRY
    if shutil.which("npm") is None:
        upstream_unavailable("npm is needed to install the MCP filesystem server")
    home = tmp_path_factory.mktemp("fs-upstream")
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(home), *PACKAGES],
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or not (home / ENTRY).is_file():
        upstream_unavailable(f"cannot install {PACKAGES[0]} from npm: {done.stderr.strip()[-200:]}")
    return home / ENTRY


@pytest.fixture(scope="module")
def utc() -> Iterator[None]:
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def _blocks_text(blocks: list[dict[str, Any]]) -> str:
    """One string for a result's content: text blocks as they are, media as ``[kind: mime] base64``."""
    parts = []
    for block in blocks:
        kind = block["type"]
        if kind == "text":
            parts.append(block["text"])
        elif kind in ("image", "audio"):
            parts.append(f"[{kind}: {block['mimeType']}] {block['data']}")
        else:
            resource = block["resource"]
            parts.append(f"[resource: {resource['mimeType']}] {resource['blob']} {resource['uri']}")
    return "\n".join(parts)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fs-trees")


@pytest.fixture(scope="module")
def upstream(server_js: Path, base: Path, utc: None) -> Iterator[Call]:
    pytest.importorskip("mcp")
    from anyio.from_thread import start_blocking_portal
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    build(base)
    params = StdioServerParameters(command="node", args=[str(server_js), str(base / "a"), str(base / "b")],
                                   env={**os.environ, "TZ": "UTC"}, cwd=str(base))
    with open(os.devnull, "w") as errlog, start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)) as (read, write), \
            portal.wrap_async_context_manager(ClientSession(read, write)) as session:
        portal.call(session.initialize)

        def call(name: str, args: dict[str, Any]) -> tuple[bool, str]:
            result = portal.call(session.call_tool, name, args)
            dumped = result.model_dump(by_alias=True, exclude_none=True)
            return bool(dumped.get("isError")), _blocks_text(dumped["content"])

        yield call


def ours(base: Path) -> Call:
    reg = agenttools.toolset("filesystem", allow_dirs=[str(base / "a"), str(base / "b")])

    def call(name: str, args: dict[str, Any]) -> tuple[bool, str]:
        out = reg.call(name, args)
        blocks = []
        for block in out.content:
            if isinstance(block, ImageBlock):
                blocks.append({"type": "image", "data": block.data, "mimeType": block.mime_type})
            elif isinstance(block, DataBlock) and block.mime_type.startswith("audio/"):
                blocks.append({"type": "audio", "data": block.data, "mimeType": block.mime_type})
            elif isinstance(block, DataBlock):
                blocks.append({"type": "resource", "resource": {"uri": out.data, "mimeType": block.mime_type,
                                                                "blob": block.data}})
            else:
                blocks.append({"type": "text", "text": out.text})
        return out.is_error, _blocks_text(blocks)

    return call


def build(base: Path) -> None:
    """The trees every case runs on: two allowed directories, their siblings outside, every kind of entry."""
    for name in ("a", "b", "outside", 'a"', "a "):
        shutil.rmtree(base / name, ignore_errors=True)

    def w(rel: str, data: str | bytes) -> None:
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())

    w("a/x.txt", "l1\nl2\nl3\n")
    w("a/crlf.txt", "one\r\ntwo\r\nthree\r\n")
    w("a/empty.txt", "")
    w("a/nonl.txt", "first\nlast without newline")
    w("a/long.txt", "".join(f"line {i} " + "x" * (i % 50) + "\n" for i in range(3000)))
    w("a/utf8.txt", "h\u00e9llo \u2713 \U0001F600\n" * 200)
    w("a/bad.txt", b"ok line\nbad \xff byte\ncut \xe2\x82 seq\nlast\n")
    w("a/code.py", "def f():\n    if x:\n        return 1\n    return 2\n\n\ndef g():\n    pass\n")
    w("a/ticks.md", "text ``` fence\nmore\n")
    w("a/kb.bin", b"\x00" * 1536)
    w("a/kb2.bin", b"\x01" * 1152)
    w("a/mb.bin", b"\x02" * (1024 * 1024 + 5))
    w("a/sub/b.py", "print('b')\n")
    w("a/sub/deep/c.py", "import os\n")
    w("a/sub/deep/d.txt", "d\n")
    w("a/.hidden/h.txt", "hidden\n")
    w("a/node_modules/m.js", "m\n")
    w("a/img.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    w("a/pic.SVG", "<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    w("a/sound.mp3", b"ID3\x03\x00")
    w("a/doc.pdf", b"%PDF-1.4\n%fake\n")
    w("a/noext", b"\x00\x01")
    w("a/space name.txt", "spaced\n")
    w("a/Zeta.txt", "Z\n")
    w("a/_under.txt", "_\n")
    w("a/caf\u00e9.txt", "nfc\n")
    w("b/y.txt", "why\n")
    w("b/nested/z.md", "# z\n")
    w("outside/secret.txt", "SECRET\n")
    w('a"/sibling.txt', "quoted sibling\n")
    # upstream's own tests (src/filesystem/__tests__/lib.test.ts at modelcontextprotocol/servers 76d64c82), as files
    w("a/ported/plain.txt", "line1\nline2\nline3\n")
    w("a/ported/indented.txt", "  line1\n    line2\n  line3\n")
    w("a/ported/function.js", 'function test() {\n  console.log("hello");\n  return true;\n}')
    w("a/ported/condition.js", "    if (condition) {\n        doSomething();\n    }")
    w("a/ported/crlf.txt", "line1\r\nline2\r\nline3\r\n")
    w("a/mixed.txt", "one\r\ntwo\nthree\r\nfour\n")
    w("a/.git/config", "[core]\n")
    w("a/hard.txt", "hard\n")
    w("a/odd/plain.txt", "plain\n")
    w("a/longline.txt", "short\n" + "\u00e9" * 3000 + "\n" + "y" * 2500)
    w("a/bom.txt", "\ufefffirst\r\nsecond\r\n")
    with open(os.path.join(os.fsencode(base / "a" / "odd"), b"bad-\xff-name.txt"), "wb") as handle:
        handle.write(b"not utf-8 name\n")
    w("a/odd2/plain.txt", "plain\n")
    os.mkdir(os.path.join(os.fsencode(base / "a" / "odd2"), b"dir-\xfe"))
    os.link(base / "a" / "hard.txt", base / "b" / "hardlink.txt")
    (base / "a" / "emptydir").mkdir()
    os.symlink("x.txt", base / "a" / "link.txt")
    os.symlink("sub", base / "a" / "linkdir")
    os.symlink("missing-target", base / "a" / "dangling")
    os.symlink(str(base / "outside" / "secret.txt"), base / "a" / "escape.txt")
    os.symlink(str(base / "outside"), base / "a" / "escapedir")
    os.mkfifo(base / "a" / "fifo")
    (base / "a" / "x.txt").chmod(0o640)
    old = 1_700_000_000
    for index, path in enumerate(sorted(base.rglob("*"))):
        if not path.is_symlink() and not stat.S_ISFIFO(path.lstat().st_mode):
            os.utime(path, (old + index, old + index))


def snapshot(base: Path) -> dict[str, Any]:
    """What a call left behind: every entry below ``base`` with its kind, bytes, link target and mode."""
    found: dict[str, Any] = {}
    for path in sorted(base.rglob("*")):
        rel = str(path.relative_to(base))
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            found[rel] = ("link", os.readlink(path))
        elif stat.S_ISDIR(st.st_mode):
            found[rel] = ("dir", oct(st.st_mode & 0o777))
        elif stat.S_ISREG(st.st_mode):
            found[rel] = ("file", path.read_bytes(), oct(st.st_mode & 0o777))
        else:
            found[rel] = ("special",)
    return found


# Why a case's answers differ on purpose (each a deviation in docs/toolsets/filesystem.md); a case that carries one
# must differ from upstream (in its text or the tree it leaves), so the list cannot go stale.
QUOTE = ("upstream checks a trimmed copy of the path and creates the sibling directory a\" outside the allowed "
         "directory; we check the path we use")
SPACE = "the same with a trailing space: upstream writes the sibling file 'a ' outside the allowed directory"
SIBLING = ("the sibling a\" exists: upstream refuses it as a symlink target outside; we refuse it as a path outside "
           "(the same refusal, worded for the path we checked)")
CRLF = "upstream rewrites a CRLF file with LF endings; we keep untouched lines' CRLF and end new lines as the file does"
MIXED = "with mixed line endings each untouched line keeps its own"
BYTES = "upstream rewrites bytes that are not UTF-8 as U+FFFD; we keep them where the edit does not touch"
TEMPNAME = "upstream's error names a random temporary file; we name the directory"
GIT = "we never write inside git metadata"
HARDLINK = "a file with another hard link is refused: replacing it would break the link"

# (tool, arguments[, why it differs]): read-only calls; "{a}", "{b}", "{base}" stand for the directories.
READS: list[tuple[Any, ...]] = [
    ("list_allowed_directories", {}),
    ("read_text_file", {"path": "{a}/x.txt"}),
    ("read_file", {"path": "{a}/x.txt"}),
    ("read_text_file", {"path": "x.txt"}),
    ("read_text_file", {"path": "y.txt"}),
    ("read_text_file", {"path": "./sub/../x.txt"}),
    ("read_text_file", {"path": "{a}/crlf.txt"}),
    ("read_text_file", {"path": "{a}/empty.txt"}),
    ("read_text_file", {"path": "{a}/bad.txt"}),
    ("read_text_file", {"path": "{a}/utf8.txt", "head": 2}),
    ("read_text_file", {"path": "{a}/utf8.txt", "tail": 3}),
    ("read_text_file", {"path": "{a}/long.txt", "head": 5}),
    ("read_text_file", {"path": "{a}/long.txt", "tail": 5}),
    ("read_text_file", {"path": "{a}/long.txt", "head": 2.5}),
    ("read_text_file", {"path": "{a}/long.txt", "tail": 2.5}),
    ("read_text_file", {"path": "{a}/long.txt", "head": -1}),
    ("read_text_file", {"path": "{a}/long.txt", "tail": -1}),
    ("read_text_file", {"path": "{a}/x.txt", "head": 0}),
    ("read_text_file", {"path": "{a}/x.txt", "head": 100}),
    ("read_text_file", {"path": "{a}/x.txt", "tail": 100}),
    ("read_text_file", {"path": "{a}/nonl.txt", "tail": 1}),
    ("read_text_file", {"path": "{a}/nonl.txt", "head": 1}),
    ("read_text_file", {"path": "{a}/crlf.txt", "tail": 2}),
    ("read_text_file", {"path": "{a}/crlf.txt", "head": 2}),
    ("read_text_file", {"path": "{a}/bad.txt", "head": 3}),
    ("read_text_file", {"path": "{a}/empty.txt", "tail": 4}),
    ("read_text_file", {"path": "{a}/fifo", "tail": 4}),
    ("read_text_file", {"path": "{a}/x.txt", "head": 1, "tail": 1}),
    ("read_text_file", {"path": "{a}/x.txt", "head": 0, "tail": 1}),
    ("read_text_file", {"path": "{a}/sub"}),
    ("read_text_file", {"path": "{a}/sub", "head": 1}),
    ("read_text_file", {"path": "{a}/sub", "tail": 1}),
    ("read_text_file", {"path": "{a}/missing.txt"}),
    ("read_text_file", {"path": "{a}/missing.txt", "tail": 1}),
    ("read_text_file", {"path": "{a}/missing/deeper.txt"}),
    ("read_text_file", {"path": "{a}/x.txt/inner"}),
    ("read_text_file", {"path": "{a}/link.txt"}),
    ("read_text_file", {"path": "{a}/linkdir/b.py"}),
    ("read_text_file", {"path": "{a}/escape.txt"}),
    ("read_text_file", {"path": "{a}/escapedir/secret.txt"}),
    ("read_text_file", {"path": "{a}/dangling"}),
    ("read_text_file", {"path": "{base}/outside/secret.txt"}),
    ("read_text_file", {"path": "{a}/../outside/secret.txt"}),
    ("read_text_file", {"path": "../outside/secret.txt"}),
    ("read_text_file", {"path": "/etc/passwd"}),
    ("read_text_file", {"path": "~/.bashrc"}),
    ("read_text_file", {"path": "C:\\Windows\\win.ini"}),
    ("read_text_file", {"path": "{a}//x.txt"}),
    ("read_text_file", {"path": "{a}/x.txt/"}),
    ("read_text_file", {"path": "{a}/space name.txt"}),
    ("read_text_file", {"path": "{a}/cafe\u0301.txt"}),
    ("read_text_file", {"path": "{a}/x\u0000.txt"}),
    ("read_text_file", {}),
    ("read_text_file", {"path": 7}),
    ("read_text_file", {"path": "{a}/x.txt", "head": "2"}),
    ("read_text_file", {"path": "{a}/x.txt", "head": True, "tail": "x"}),
    ("read_text_file", {"path": "{a}/x.txt", "unknown": 1}),
    ("no_such_tool", {}),
    ("read_media_file", {"path": "{a}/img.png"}),
    ("read_media_file", {"path": "{a}/pic.SVG"}),
    ("read_media_file", {"path": "{a}/sound.mp3"}),
    ("read_media_file", {"path": "{a}/doc.pdf"}),
    ("read_media_file", {"path": "{a}/noext"}),
    ("read_media_file", {"path": "{a}/missing.png"}),
    ("read_media_file", {"path": "{a}/sub"}),
    ("read_multiple_files", {"paths": ["{a}/x.txt", "{b}/y.txt"]}),
    ("read_multiple_files", {"paths": ["{a}/x.txt", "{a}/missing.txt", "/etc/hostname", "{a}/sub", "{a}/empty.txt"]}),
    ("read_multiple_files", {"paths": []}),
    ("read_multiple_files", {"paths": ["{a}/x.txt", 3]}),
    ("read_multiple_files", {"paths": "{a}/x.txt"}),
    ("list_directory", {"path": "{a}"}),
    ("list_directory", {"path": "{a}/"}),
    ("list_directory", {"path": "{a}/sub"}),
    ("list_directory", {"path": "{a}/emptydir"}),
    ("list_directory", {"path": "{a}/linkdir"}),
    ("list_directory", {"path": "{a}/x.txt"}),
    ("list_directory", {"path": "{a}/missing"}),
    ("list_directory", {"path": "{b}"}),
    ("list_directory", {"path": "{base}"}),
    ("list_directory", {"path": "."}),
    ("list_directory", {"path": "{a}/escapedir"}),
    ("list_directory_with_sizes", {"path": "{a}"}),
    ("list_directory_with_sizes", {"path": "{a}", "sortBy": "size"}),
    ("list_directory_with_sizes", {"path": "{a}/sub"}),
    ("list_directory_with_sizes", {"path": "{a}/emptydir"}),
    ("list_directory_with_sizes", {"path": "{a}", "sortBy": "date"}),
    ("list_directory_with_sizes", {"path": "{a}/x.txt"}),
    ("directory_tree", {"path": "{a}/sub"}),
    ("directory_tree", {"path": "{a}"}),
    ("directory_tree", {"path": "{a}", "excludePatterns": ["node_modules", ".hidden", "*.bin"]}),
    ("directory_tree", {"path": "{a}", "excludePatterns": ["**/*.py", "deep"]}),
    ("directory_tree", {"path": "{a}", "excludePatterns": ["sub/deep/**", "!*.txt"]}),
    ("directory_tree", {"path": "{a}/emptydir"}),
    ("directory_tree", {"path": "{a}/x.txt"}),
    ("directory_tree", {"path": "{a}/missing"}),
    ("directory_tree", {"path": "sub"}),
    ("directory_tree", {"path": "{a}", "excludePatterns": "x"}),
    ("search_files", {"path": "{a}", "pattern": "*.txt"}),
    ("search_files", {"path": "{a}", "pattern": "**/*.py"}),
    ("search_files", {"path": "{a}", "pattern": "**"}),
    ("search_files", {"path": "{a}", "pattern": "**/*", "excludePatterns": ["sub", "**/node_modules/**"]}),
    ("search_files", {"path": "{a}", "pattern": "**/*.txt", "excludePatterns": ["sub/**"]}),
    ("search_files", {"path": "{a}", "pattern": "sub/*"}),
    ("search_files", {"path": "{a}", "pattern": "*.{py,md}"}),
    ("search_files", {"path": "{a}", "pattern": "[xz]*"}),
    ("search_files", {"path": "{a}", "pattern": "!*.txt"}),
    ("search_files", {"path": "{a}", "pattern": "nothing-*"}),
    ("search_files", {"path": "{a}", "pattern": "x.txt"}),
    ("search_files", {"path": "{a}", "pattern": "*.TXT"}),
    ("search_files", {"path": "{a}/sub", "pattern": "**/*.py"}),
    ("search_files", {"path": "{a}/x.txt", "pattern": "*"}),
    ("search_files", {"path": "{a}/missing", "pattern": "*"}),
    ("search_files", {"path": "{b}", "pattern": "**/*.md"}),
    ("search_files", {"path": "{a}"}),
    ("get_file_info", {"path": "{a}/x.txt"}),
    ("get_file_info", {"path": "{a}/sub"}),
    ("get_file_info", {"path": "{a}/link.txt"}),
    ("get_file_info", {"path": "{a}/fifo"}),
    ("get_file_info", {"path": "{a}/missing"}),
    ("get_file_info", {"path": "{a}/escape.txt"}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "l2", "newText": "L2"}], "dryRun": True}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "nope", "newText": "L2"}], "dryRun": True}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "l2"}]}),
    ("edit_file", {"path": "{a}/x.txt", "edits": []}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [], "dryRun": True}),
    ("write_file", {"path": "{a}/new.txt"}),
    ("move_file", {"source": "{a}/x.txt", "destination": "{a}/sub/b.py"}),
    ("move_file", {"source": "{a}/x.txt", "destination": "{a}/link.txt"}),
    ("move_file", {"source": "{a}/x.txt", "destination": "{a}/dangling"}),
    ("move_file", {"source": "{a}/x.txt", "destination": "{base}/outside/x.txt"}),
    ("create_directory", {"path": "{a}/sub"}),
    ("create_directory", {"path": "{a}/x.txt"}),
    ("create_directory", {"path": "{a}/x.txt/inner"}),
    ("create_directory", {"path": "{base}/outside/new"}),
    ("read_text_file", {"path": '{a}"'}, SIBLING),
    ("read_text_file", {"path": '"{a}/x.txt"'}),
    ("read_text_file", {"path": "{a}/x.txt "}),
    ("list_directory", {"path": "{a}/ported"}),
    ("list_directory", {"path": "{a}/odd"}),
    ("list_directory_with_sizes", {"path": "{a}/odd"}),
    ("directory_tree", {"path": "{a}/odd"}),
    ("search_files", {"path": "{a}/odd", "pattern": "*"}),
    ("directory_tree", {"path": "{a}/odd2"}),
    ("list_directory", {"path": "{a}/odd2"}),
    ("read_text_file", {"path": "{a}/utf8.txt", "head": 150}),
    ("read_text_file", {"path": "{a}/utf8.txt", "tail": 150}),
    ("read_text_file", {"path": "{a}/utf8.txt", "tail": 199}),
    ("read_text_file", {"path": "{a}/longline.txt", "tail": 1}),
    ("read_text_file", {"path": "{a}/longline.txt", "tail": 2}),
    ("read_text_file", {"path": "{a}/longline.txt", "head": 1}),
    ("read_text_file", {"path": "{a}/bom.txt"}),
    ("read_multiple_files", {"paths": ["x.txt", "sub/b.py", "../b/y.txt"]}),
    ("search_files", {"path": "sub", "pattern": "**"}),
    ("search_files", {"path": ".", "pattern": "**/b.*", "excludePatterns": ["linkdir"]}),
    ("directory_tree", {"path": ".", "excludePatterns": ["*", "!sub"]}),
    ("list_directory_with_sizes", {"path": "{b}", "sortBy": "size"}),
    ("edit_file", {"path": "{a}/bom.txt", "edits": [{"oldText": "second", "newText": "2nd"}], "dryRun": True}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "l1\r\nl2", "newText": "A\r\nB"}],
                   "dryRun": True}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "l2", "newText": "a"}, {"oldText": "a", "newText": "b"},
                                                   {"oldText": "", "newText": "top\n"}], "dryRun": True}),
    ("read_text_file", {"path": "{a}/mixed.txt", "tail": 3}),
    ("read_text_file", {"path": "{a}/.git/config"}),
    ("read_text_file", {"path": "{b}/hardlink.txt"}),
    ("get_file_info", {"path": "{a}/ported/function.js"}),
    ("search_files", {"path": "{a}", "pattern": "**/*.js", "excludePatterns": ["**/condition*"]}),
    ("search_files", {"path": "{a}", "pattern": "**/.*"}),
    ("directory_tree", {"path": "{a}/ported", "excludePatterns": ["*.js"]}),
    ("edit_file", {"path": "{a}/crlf.txt", "edits": [{"oldText": "two", "newText": "2"}], "dryRun": True}),
    ("edit_file", {"path": "{a}/bad.txt", "edits": [{"oldText": "last", "newText": "LAST"}], "dryRun": True}),
    ("edit_file", {"path": "{a}/sub", "edits": [{"oldText": "a", "newText": "b"}]}),
]

# (tool, arguments[, why it differs]): calls that change the tree, each run on a fresh tree per side.
WRITES: list[tuple[Any, ...]] = [
    ("write_file", {"path": "{a}/new.txt", "content": "fresh\n"}),
    ("write_file", {"path": "{a}/x.txt", "content": "replaced"}),
    ("write_file", {"path": "{a}/crlf.txt", "content": "no\ncrlf\n"}),
    ("write_file", {"path": "new-relative.txt", "content": "rel"}),
    ("write_file", {"path": "{a}/link.txt", "content": "through the link\n"}),
    ("write_file", {"path": "{a}/missing/new.txt", "content": "x"}),
    ("write_file", {"path": "{base}/outside/new.txt", "content": "x"}),
    ("write_file", {"path": "{a}/escape.txt", "content": "x"}),
    ("write_file", {"path": "{a}/unicode \u2713.txt", "content": "\u00e9\U0001F600\n"}),
    ("write_file", {"path": "{b}/nested/w.txt", "content": ""}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "l2", "newText": "L2"}]}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "l1\n", "newText": ""},
                                                   {"oldText": "l3", "newText": "l3\nl4"}]}),
    ("edit_file", {"path": "{a}/x.txt", "edits": [{"oldText": "l2", "newText": "L2"},
                                                   {"oldText": "missing", "newText": "x"}]}),
    ("edit_file", {"path": "{a}/code.py", "edits": [{"oldText": "if x:\n  return 1", "newText": "if y:\n    return 3"}]}),
    ("edit_file", {"path": "{a}/code.py", "edits": [{"oldText": "    pass", "newText": "    return None\n"}]}),
    ("edit_file", {"path": "{a}/code.py", "edits": [{"oldText": "def g():\n    pass\n", "newText": ""}]}),
    ("edit_file", {"path": "{a}/code.py", "edits": [{"oldText": "def f():", "newText": "def f(a,\n      b):"}]}),
    ("edit_file", {"path": "{a}/code.py", "edits": [{"oldText": "return 2", "newText": "return 22"}],
                   "dryRun": False}),
    ("edit_file", {"path": "{a}/nonl.txt", "edits": [{"oldText": "last without newline", "newText": "last\n"}]}),
    ("edit_file", {"path": "{a}/nonl.txt", "edits": [{"oldText": "first", "newText": "1st"}]}),
    ("edit_file", {"path": "{a}/ticks.md", "edits": [{"oldText": "more", "newText": "````more"}]}),
    ("edit_file", {"path": "{a}/long.txt", "edits": [{"oldText": "line 10 ", "newText": "LINE 10 "},
                                                      {"oldText": "line 20 ", "newText": "LINE 20 "},
                                                      {"oldText": "line 2999 ", "newText": "end "}]}),
    ("edit_file", {"path": "{a}/empty.txt", "edits": [{"oldText": "", "newText": "start\n"}]}),
    ("edit_file", {"path": "{a}/link.txt", "edits": [{"oldText": "l1", "newText": "via link"}]}),
    ("edit_file", {"path": "{a}/missing.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
    ("edit_file", {"path": "{a}/escape.txt", "edits": [{"oldText": "SECRET", "newText": "b"}]}),
    ("create_directory", {"path": "{a}/newdir"}),
    ("create_directory", {"path": "{a}/one/two/three"}),
    ("create_directory", {"path": "relative/dir"}),
    ("create_directory", {"path": "{a}/emptydir"}),
    ("move_file", {"source": "{a}/x.txt", "destination": "{a}/moved.txt"}),
    ("move_file", {"source": "{a}/sub", "destination": "{b}/sub"}),
    ("move_file", {"source": "{a}/missing.txt", "destination": "{a}/m2.txt"}),
    ("move_file", {"source": "{a}/x.txt", "destination": "{a}/nodir/x.txt"}),
    ("move_file", {"source": "{a}/sub", "destination": "{a}/sub/deep/inner"}),
    ("move_file", {"source": "{a}/link.txt", "destination": "{a}/link2.txt"}),
    ("move_file", {"source": "x.txt", "destination": "renamed.txt"}),
    # upstream's own applyFileEdits tests (lib.test.ts), on real files
    ("edit_file", {"path": "{a}/ported/plain.txt", "edits": [{"oldText": "line2", "newText": "modified line2"}]}),
    ("edit_file", {"path": "{a}/ported/plain.txt",
                   "edits": [{"oldText": "line2", "newText": "price=$$; match=$&; before=$`; after=$'"}]}),
    ("edit_file", {"path": "{a}/ported/plain.txt", "edits": [{"oldText": "line2", "newText": "modified line2"}],
                   "dryRun": True}),
    ("edit_file", {"path": "{a}/ported/plain.txt", "edits": [{"oldText": "line1", "newText": "first line"},
                                                             {"oldText": "line3", "newText": "third line"}]}),
    ("edit_file", {"path": "{a}/ported/indented.txt", "edits": [{"oldText": "line2", "newText": "modified line2"}]}),
    ("edit_file", {"path": "{a}/ported/plain.txt",
                   "edits": [{"oldText": "nonexistent line", "newText": "replacement"}]}),
    ("edit_file", {"path": "{a}/ported/function.js", "edits": [{
        "oldText": '  console.log("hello");\n  return true;',
        "newText": '  console.log("world");\n  console.log("test");\n  return false;'}]}),
    ("edit_file", {"path": "{a}/ported/condition.js", "edits": [{
        "oldText": "doSomething();", "newText": "doSomethingElse();\n        doAnotherThing();"}]}),
    ("edit_file", {"path": "{a}/ported/crlf.txt", "edits": [{"oldText": "line2", "newText": "modified line2"}]},
     CRLF),
    # whitespace-flexible matching: the lines match once trimmed, the first line's indentation is kept
    ("edit_file", {"path": "{a}/ported/condition.js", "edits": [{
        "oldText": "if (condition) {\n  doSomething();\n}",
        "newText": "if (other) {\n      doThat();\n    }"}]}),
    ("edit_file", {"path": "{a}/ported/indented.txt", "edits": [{"oldText": "line1\nline2",
                                                                "newText": "  a\n    b\n c"}]}),
    # the safe deviations
    ("create_directory", {"path": '{a}"'}, QUOTE),
    ("write_file", {"path": "{a} ", "content": "escaped?\n"}, SPACE),
    ("edit_file", {"path": "{a}/crlf.txt", "edits": [{"oldText": "two", "newText": "2\nand more"}]}, CRLF),
    ("edit_file", {"path": "{a}/mixed.txt", "edits": [{"oldText": "three", "newText": "3"}]}, MIXED),
    ("edit_file", {"path": "{a}/bad.txt", "edits": [{"oldText": "last", "newText": "LAST"}]}, BYTES),
    ("write_file", {"path": "{a}/sub", "content": "x"}, TEMPNAME),
    ("write_file", {"path": "{a}/.git/config", "content": "x"}, GIT),
    ("edit_file", {"path": "{a}/hard.txt", "edits": [{"oldText": "hard", "newText": "soft"}]}, HARDLINK),
]



def _fill(value: Any, base: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{a}", str(base / "a")).replace("{b}", str(base / "b")).replace("{base}", str(base))
    if isinstance(value, list):
        return [_fill(v, base) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, base) for k, v in value.items()}
    return value


def _compare(name: str, args: dict[str, Any], theirs: tuple[bool, str], mine: tuple[bool, str]) -> str | None:
    if theirs == mine:
        return None
    return (f"{name} {json.dumps(args, ensure_ascii=False)}\n  upstream ({'error' if theirs[0] else 'ok'}): "
            f"{theirs[1][:600]!r}\n  ours     ({'error' if mine[0] else 'ok'}): {mine[1][:600]!r}")


def test_reads_match_upstream(upstream: Call, base: Path) -> None:
    build(base)
    call = ours(base)
    differences = []
    for name, template, *why in READS:
        args = _fill(template, base)
        difference = _compare(name, args, upstream(name, args), call(name, args))
        if why:
            if not difference:
                differences.append(f"{name} {template}: marked deliberate but the answers are the same")
        elif difference:
            differences.append(difference)
    assert not differences, f"{len(differences)} of {len(READS)} answers differ:\n" + "\n".join(differences)


def test_writes_match_upstream(upstream: Call, base: Path) -> None:
    differences = []
    for name, template, *why in WRITES:
        args = _fill(template, base)
        build(base)
        theirs = upstream(name, args)
        after_theirs = snapshot(base)
        build(base)
        mine = ours(base)(name, args)
        after_mine = snapshot(base)
        difference = _compare(name, args, theirs, mine)
        if not difference and after_theirs != after_mine:
            changed = sorted(k for k in set(after_theirs) | set(after_mine) if after_theirs.get(k) != after_mine.get(k))
            difference = f"{name} {json.dumps(args)}: the trees differ at {changed}"
        if why:
            if not difference:
                differences.append(f"{name} {template}: marked deliberate but upstream does the same")
        elif difference:
            differences.append(difference)
    assert not differences, f"{len(differences)} of {len(WRITES)} calls differ:\n" + "\n".join(differences)


def test_enough_cases() -> None:
    """The comparison covers every tool and many paths through each."""
    names = {case[0] for case in READS + WRITES}
    assert names >= {spec.name for spec in __import__("agenttools.toolsets.filesystem", fromlist=["TOOLS"]).TOOLS}
    assert len(READS) + len(WRITES) >= 60




JSDIFF_DRIVER = """
import { createTwoFilesPatch } from '{modules}/diff/libesm/index.js';
import { readFileSync } from 'fs';
const pairs = JSON.parse(readFileSync(process.argv[2], 'utf-8'));
const norm = (s) => s.replace(/\\r\\n/g, '\\n');
process.stdout.write(JSON.stringify(pairs.map(([a, b]) =>
    createTwoFilesPatch('f', 'f', norm(a), norm(b), 'original', 'modified'))));
"""


def _random_text(rng: Any, lines: list[str]) -> str:
    text = "\n".join(rng.choice(lines) for _ in range(rng.randrange(0, 30)))
    return text + rng.choice(["", "\n", "\r\n"])


def test_the_diff_is_jsdiffs_for_random_texts(server_js: Path, tmp_path: Path) -> None:
    """editing.unified_diff against jsdiff's own createTwoFilesPatch (the package the server runs) on 400 pairs."""
    import random

    from agenttools.toolsets.filesystem.editing import unified_diff

    rng = random.Random(19)  # noqa: S311 - reproducible test data
    vocabulary = ["a", "b", "c", "", "  x", "x", "}", "{", "a b", "\u00e9", "tab\tbed"]
    pairs = []
    for _ in range(400):
        old = _random_text(rng, vocabulary)
        new = old.split("\n")
        for _ in range(rng.randrange(1, 5)):
            at = rng.randrange(0, len(new) + 1)
            if rng.random() < 0.5 and at < len(new):
                del new[at]
            else:
                new.insert(at, rng.choice(vocabulary))
        pairs.append((old, "\n".join(new) if rng.random() < 0.7 else _random_text(rng, vocabulary)))
    (tmp_path / "pairs.json").write_text(json.dumps(pairs))
    driver = tmp_path / "jsdiff-driver.mjs"
    driver.write_text(JSDIFF_DRIVER.replace("{modules}", server_js.parents[3].as_uri()))
    done = subprocess.run(["node", str(driver), str(tmp_path / "pairs.json")], capture_output=True, text=True,
                          timeout=120, check=True)
    theirs = json.loads(done.stdout)
    mismatched = [(old, new) for (old, new), patch in zip(pairs, theirs, strict=True)
                  if unified_diff("f", old, new) != f"```diff\n{patch}```\n\n"]
    assert not mismatched, mismatched[:3]


EDITS_DRIVER = """
import { applyFileEdits } from '{lib}';
import { readFileSync } from 'fs';
const cases = JSON.parse(readFileSync(process.argv[2], 'utf-8'));
const out = [];
for (const [path, edits] of cases) {
    try { out.push(await applyFileEdits(path, edits, true)); } catch (e) { out.push('ERROR ' + e.message); }
}
process.stdout.write(JSON.stringify(out));
"""


def test_edit_matching_is_upstreams_for_random_edits(server_js: Path, tmp_path: Path) -> None:
    """The server's own applyFileEdits (dry run) against ours on 300 files and edit lists full of indentation."""
    import random

    from agenttools.errors import ToolFailure
    from agenttools.toolsets.filesystem.editing import apply_edits, unified_diff

    rng = random.Random(1919)  # noqa: S311 - reproducible test data
    lines = ["def f():", "    return 1", "  x = 2", "\tif y:", "\t\tpass", "}", "", "    ", "a  b", "\u00a0nb"]
    cases = []
    for index in range(300):
        content = "\n".join(rng.choice(lines) for _ in range(rng.randrange(1, 12)))
        content += rng.choice(["", "\n", "\r\n"])
        path = tmp_path / f"f{index}.txt"
        path.write_bytes(content.encode())
        edits = []
        for _ in range(rng.randrange(1, 3)):
            source = content.replace("\r\n", "\n").split("\n")
            start = rng.randrange(0, len(source))
            old = "\n".join(source[start:start + rng.randrange(1, 3)])
            if rng.random() < 0.6:  # re-indent it: the whitespace-flexible path
                old = "\n".join(rng.choice(["", " ", "  ", "\t"]) + line.strip() for line in old.split("\n"))
            new = "\n".join(rng.choice(["", "  ", "    "]) + rng.choice(lines).strip()
                            for _ in range(rng.randrange(0, 3)))
            edits.append({"oldText": old, "newText": new})
        cases.append((str(path), edits))
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    driver = tmp_path / "edits-driver.mjs"
    driver.write_text(EDITS_DRIVER.replace("{lib}", (server_js.parent / "lib.js").as_uri()))
    done = subprocess.run(["node", str(driver), str(tmp_path / "cases.json")], capture_output=True, text=True,
                          timeout=120, check=True)
    mismatched = []
    for (path, edits), theirs in zip(cases, json.loads(done.stdout), strict=True):
        original = Path(path).read_bytes().decode().replace("\r\n", "\n")
        try:
            mine = unified_diff(path, original, apply_edits(original, edits))
        except ToolFailure as failure:
            mine = "ERROR " + failure.text
        if mine != theirs:
            mismatched.append((path, edits, theirs, mine))
    assert not mismatched, mismatched[:2]


ROOTS_CALLS: list[tuple[str, str]] = [("list_allowed_directories", ""), ("read_text_file", "a/one.txt"),
                                      ("read_text_file", "with space/two.txt"), ("read_text_file", "cli/three.txt"),
                                      ("list_directory", "b")]


def test_roots_are_followed_as_upstream_follows_them(server_js: Path, tmp_path: Path) -> None:
    """Client roots (``serve --roots``) replace the command line's directories as the reference server's do."""
    import asyncio
    import warnings

    import mcp.types as mcp_types
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    for name, file in (("a", "one.txt"), ("with space", "two.txt"), ("cli", "three.txt"), ("b", "four.txt")):
        (tmp_path / name).mkdir()
        (tmp_path / name / file).write_text(f"{name}\n")
    (tmp_path / "link").symlink_to(tmp_path / "b")
    (tmp_path / "plain.txt").write_text("not a directory\n")
    uri = {name: (tmp_path / name).as_uri() for name in ("a", "with space", "link", "missing", "plain.txt")}
    steps = [[uri["a"], uri["missing"], uri["link"], uri["plain.txt"]],  # the first list: a and b
             [uri["with space"]],  # a change
             [uri["missing"], uri["plain.txt"]]]  # a list naming no directory: nothing changes

    async def session_texts(command: list[str]) -> list[list[tuple[bool, str]]]:
        roots: list[str] = list(steps[0])

        async def list_roots(context: Any) -> mcp_types.ListRootsResult:
            return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=u) for u in roots])

        async def answers(session: ClientSession) -> list[tuple[bool, str]]:
            out = []
            for name, path in ROOTS_CALLS:
                result = await session.call_tool(name, {"path": str(tmp_path / path)} if path else {})
                dumped = result.model_dump(by_alias=True, exclude_none=True)
                out.append((bool(dumped.get("isError")), _blocks_text(dumped["content"])))
            return out

        async def settled(session: ClientSession, before: tuple[bool, str]) -> list[tuple[bool, str]]:
            # upstream asks for the roots in the background: wait (5 s at most) until its directories change
            for _ in range(50):
                now = await answers(session)
                if now[0] != before:
                    break
                await asyncio.sleep(0.1)
            return now

        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(tmp_path))
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write, list_roots_callback=list_roots) as session:
                await session.initialize()
                seen = [await settled(session, (False, f"Allowed directories:\n{tmp_path / 'cli'}"))]
                for step in steps[1:]:
                    roots[:] = step
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        await session.send_roots_list_changed()
                    await asyncio.sleep(0.5)
                    seen.append(await answers(session))
                return seen

    theirs = asyncio.run(asyncio.wait_for(session_texts(["node", str(server_js), str(tmp_path / "cli")]), 60))
    mine = asyncio.run(asyncio.wait_for(session_texts(
        [sys.executable, "-m", "agenttools", "serve", "--toolset", "filesystem", "--allow-dir",
         str(tmp_path / "cli"), "--roots"]), 60))
    for step_mine, step_theirs in zip(mine, theirs, strict=True):
        for m, t in zip(step_mine, step_theirs, strict=True):
            assert m == t
    assert theirs[0][0] == (False, f"Allowed directories:\n{tmp_path / 'a'}\n{tmp_path / 'b'}")
    assert theirs[1][0] == theirs[2][0] == (False, f"Allowed directories:\n{tmp_path / 'with space'}")
