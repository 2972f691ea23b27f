"""gemini side by side with Gemini CLI v0.1.13 itself: the same calls, the texts compared byte for byte.

The upstream package (``@google/gemini-cli-core@0.1.13`` from npm) runs its own tool classes with a real
``Config`` in a small Node driver (``upstream/gemini_driver.mjs``). Where the two answers differ on purpose, the
case is listed in ``DELIBERATE`` with the reason (each is documented in docs/toolsets/gemini.md); every other
difference fails. The test needs ``node`` and ``npm`` and the npm registry; without them it is skipped (fails in CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import agenttools
from agenttools.blocks import DataBlock, ImageBlock
from conftest import upstream_unavailable

DRIVER = Path(__file__).parent / "upstream" / "gemini_driver.mjs"
PACKAGE = "@google/gemini-cli-core@0.1.13"

DELIBERATE = {
    ("read_file", "img.png"): "upstream answers the image part itself; our text says what was read, the image is a block",
    ("read_file", "doc.pdf"): "the same for a PDF",
    ("glob", "*"): "upstream lists symlinks among the matches; we list regular files only",
    ("glob", "**/linkdir/*.py"): "upstream follows a symlinked directory named in a pattern; we follow no symlink",
    ("glob", "link*"): "symlinks again",
    ("glob", "!(a).txt"): "extended globs are not supported",
    ("list_directory", "{r}"): "a build/ line hides the build directory, as git reads it",
    ("list_directory", "{r}|ignore"): "the same",
    ("search_file_content", "line"): "upstream's grep followed link.txt into a.txt and searched the git-ignored c.log; "
                                     "we follow no symlink, honour .gitignore and list files in path order",
    ("search_file_content", "x|*.{ts,tsx}"): "upstream's git grep takes braces literally (no match); we expand them, "
                                             "as the tool's description promises",
    ("search_file_content", "const|src"): "files in path order (app.ts before app.tsx); upstream's order is git grep's",
    ("search_file_content", "built"): "build/ is git-ignored: we honour .gitignore, upstream's grep did not",
    ("search_file_content", "import|*.py"): "an include without / matches names at any depth, as upstream's git grep "
                                            "and grep strategies do; its JavaScript fallback (the one Linux gets) "
                                            "matches the top level only",
    ("glob", "../*"): "upstream's glob follows .. out of the root; we stay inside it",
}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory) -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        upstream_unavailable("node and npm are needed to run Gemini CLI itself")
    home = tmp_path_factory.mktemp("gemini-cli")
    (home / "package.json").write_text('{"name": "gemini-upstream", "private": true, "type": "module"}')
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", PACKAGE], cwd=home,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        upstream_unavailable(f"cannot install {PACKAGE} from npm: {done.stderr.strip()[-200:]}")
    shutil.copy(DRIVER, home / "driver.mjs")
    return home


def build(root: str) -> None:
    """A tree with the files each case needs: text of every shape, media, binaries, ignored files, symlinks."""
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)

    def w(rel: str, data: str | bytes) -> None:
        path = Path(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())

    w("a.txt", "line one\nline two\n")
    w("crlf.txt", "one\r\ntwo\r\n")
    w("empty.txt", "")
    w("long.txt", "x" * 2500 + "\nshort\n")
    w("many.txt", "".join(f"line {i}\n" for i in range(3000)))
    w("sub/b.py", "def f():\n    return 1\n")
    w("sub/deeper/c.py", "import os\n")
    w("sub/C.PY", "upper\n")
    w("src/app.ts", "const x = 1;\nfunction main() {}\n")
    w("src/app.tsx", "export const y = 2;\n")
    w(".hidden/h.txt", "hidden\n")
    w(".env", "TOKEN=1\n")
    w("c.log", "log line\n")
    w("build/out.js", "built\n")
    w(".gitignore", "*.log\nbuild/\n")
    w("bin.dat", b"\x00\x01\x02binary")
    w("img.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    w("pic.svg", "<svg xmlns='http://www.w3.org/2000/svg'></svg>\n")
    w("doc.pdf", b"%PDF-1.4\n%fake\n")
    w("unicode-é.txt", "é\n")
    w("space name.txt", "spaced\n")
    os.makedirs(os.path.join(root, "emptydir"))
    os.symlink("a.txt", os.path.join(root, "link.txt"))
    os.symlink("sub", os.path.join(root, "linkdir"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    old = 1_700_000_000  # older than a day, each file a second apart: glob's order is fixed (locale order)
    for index, path in enumerate(sorted(Path(root).rglob("*"))):
        if path.is_file() and not path.is_symlink() and ".git" not in path.parts:
            os.utime(path, (old + index, old + index))

CASES = [
    ("search_file_content", {"pattern": "line"}),
    ("search_file_content", {"pattern": "LINE", "path": "sub"}),
    ("search_file_content", {"pattern": "def|import"}),
    ("search_file_content", {"pattern": "x", "include": "*.py"}),
    ("search_file_content", {"pattern": "x", "include": "*.{ts,tsx}"}),
    ("search_file_content", {"pattern": "nothing-here"}),
    ("search_file_content", {"pattern": "[unclosed"}),
    ("search_file_content", {"pattern": "const", "path": "src"}),
    ("search_file_content", {"pattern": "x", "path": "missing"}),
    ("search_file_content", {"pattern": "hidden"}),
    ("search_file_content", {"pattern": "built"}),
    ("search_file_content", {"pattern": "import", "include": "*.py"}),
    ("search_file_content", {"pattern": "import", "include": "{r}/sub/**"}),
    ("search_file_content", {"pattern": "import", "include": "./sub/deeper/*.py"}),
    ("search_file_content", {"pattern": "import", "include": "/etc/*"}),
    ("search_file_content", {"pattern": "(?i)x"}),
    ("search_file_content", {"pattern": "(?>a)"}),
    ("search_file_content", {"pattern": "a++"}),
    ("search_file_content", {"pattern": "a{2,1}"}),
    ("search_file_content", {"pattern": "[b-a]"}),
    ("search_file_content", {"pattern": "(?<n>a)(?<n>b)"}),
    ("search_file_content", {"pattern": "(?<a>x)\\k<b>"}),
    ("search_file_content", {"pattern": "\\"}),
    ("run_shell_command", {"command": "echo hi"}),
    ("run_shell_command", {"command": "echo err >&2; exit 3"}),
    ("run_shell_command", {"command": "echo $(date)"}),
    ("run_shell_command", {"command": ""}),
    ("run_shell_command", {"command": "pwd", "directory": "sub"}),
    ("run_shell_command", {"command": "pwd", "directory": "/tmp"}),
    ("run_shell_command", {"command": "pwd", "directory": "missing"}),
    ("read_file", {"absolute_path": "{r}/a.txt"}),
    ("read_file", {"absolute_path": "{r}/crlf.txt"}),
    ("read_file", {"absolute_path": "{r}/empty.txt"}),
    ("read_file", {"absolute_path": "{r}/long.txt"}),
    ("read_file", {"absolute_path": "{r}/many.txt"}),
    ("read_file", {"absolute_path": "{r}/many.txt", "offset": 10, "limit": 5}),
    ("read_file", {"absolute_path": "{r}/many.txt", "offset": 2998, "limit": 5}),
    ("read_file", {"absolute_path": "{r}/many.txt", "offset": 5000, "limit": 5}),
    ("read_file", {"absolute_path": "{r}/a.txt", "offset": 1}),
    ("read_file", {"absolute_path": "{r}/a.txt", "limit": 0}),
    ("read_file", {"absolute_path": "{r}/a.txt", "offset": -1}),
    ("read_file", {"absolute_path": "{r}/missing.txt"}),
    ("read_file", {"absolute_path": "{r}/sub"}),
    ("read_file", {"absolute_path": "{r}/bin.dat"}),
    ("read_file", {"absolute_path": "{r}/pic.svg"}),
    ("read_file", {"absolute_path": "{r}/img.png"}),
    ("read_file", {"absolute_path": "{r}/doc.pdf"}),
    ("read_file", {"absolute_path": "{r}/link.txt"}),
    ("read_file", {"absolute_path": "{r}/unicode-é.txt"}),
    ("read_file", {"absolute_path": "{r}/../etc/passwd"}),
    ("read_file", {"absolute_path": "relative.txt"}),
    ("read_file", {"absolute_path": "{r}/c.log"}),
    ("list_directory", {"path": "{r}"}),
    ("list_directory", {"path": "{r}", "respect_git_ignore": False}),
    ("list_directory", {"path": "{r}", "ignore": ["*.txt", "sub"]}),
    ("list_directory", {"path": "{r}/emptydir"}),
    ("list_directory", {"path": "{r}/a.txt"}),
    ("list_directory", {"path": "{r}/missing"}),
    ("list_directory", {"path": "{r}/sub"}),
    ("list_directory", {"path": "sub"}),
    ("list_directory", {"path": "{r}/linkdir"}),
    ("glob", {"pattern": "**/*.py"}),
    ("glob", {"pattern": "*.py"}),
    ("glob", {"pattern": "sub/*.py"}),
    ("glob", {"pattern": "./sub/*.py"}),
    ("glob", {"pattern": "**/*.PY"}),
    ("glob", {"pattern": "**/*.PY", "case_sensitive": True}),
    ("glob", {"pattern": "**/*.{ts,tsx}"}),
    ("glob", {"pattern": "**/*.log"}),
    ("glob", {"pattern": "**/*.log", "respect_git_ignore": False}),
    ("glob", {"pattern": "**/*.js"}),
    ("glob", {"pattern": "**/*.js", "respect_git_ignore": False}),
    ("glob", {"pattern": "sub"}),
    ("glob", {"pattern": "sub/**"}),
    ("glob", {"pattern": "**/h.txt"}),
    ("glob", {"pattern": "*"}),
    ("glob", {"pattern": "*.nothing"}),
    ("glob", {"pattern": "*.py", "path": "{r}/sub"}),
    ("glob", {"pattern": "*.py", "path": "sub"}),
    ("glob", {"pattern": "{r}/sub/*.py"}),
    ("glob", {"pattern": "**/linkdir/*.py"}),
    ("glob", {"pattern": "link*"}),
    ("glob", {"pattern": "*", "path": "{r}/missing"}),
    ("glob", {"pattern": "  "}),
    ("glob", {"pattern": "[ab].txt"}),
    ("glob", {"pattern": "!(a).txt"}),
    ("glob", {"pattern": "**/*", "path": "{r}/emptydir"}),
    ("glob", {"pattern": "../*"}),
]


def _key(tool: str, params: dict) -> tuple[str, str]:
    if tool == "read_file":
        return tool, Path(params["absolute_path"]).name
    if tool == "glob":
        return tool, params["pattern"]
    if tool == "search_file_content":
        return tool, "|".join([params["pattern"], *(params[k] for k in ("include", "path") if k in params)])
    return tool, "{r}" + ("|ignore" if "ignore" in params else "")


def _comparable(text: str) -> str:
    """Process group ids differ from run to run."""
    return re.sub(r"Process Group PGID: \d+", "Process Group PGID: <pgid>", text)


def test_the_same_calls_give_the_same_texts(upstream, tmp_path):
    root = str(tmp_path / "tree")
    build(root)
    cases = [(tool, {k: v.replace("{r}", root) if isinstance(v, str) else v for k, v in params.items()})
             for tool, params in CASES]
    lines = "".join(json.dumps({"root": root, "tool": tool, "params": params}) + "\n" for tool, params in cases)
    done = subprocess.run(["node", str(upstream / "driver.mjs")], input=lines, capture_output=True, text=True,
                          timeout=300, cwd=upstream, env={**os.environ, "NO_COLOR": "1"}, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(cases), done.stderr[-2000:]
    differences = []
    with agenttools.toolset("gemini", root=root) as reg:
        for (tool, params), answer in zip(cases, answers, strict=True):
            theirs = _comparable(str(answer.get("llmContent", answer.get("thrown"))))
            ours = _comparable(reg.call(tool, params).text)
            key = _key(tool, {k: v.replace(root, "{r}") if isinstance(v, str) and tool != "read_file" else v
                              for k, v in params.items()})
            if ours != theirs and key not in DELIBERATE:
                differences.append(f"{tool} {params}:\n  upstream {theirs!r}\n  ours     {ours!r}")
    assert not differences, "\n".join(differences)


WRITES = [
    ("write_file", {"file_path": "{r}/new.txt", "content": "fresh\n"}),
    ("write_file", {"file_path": "{r}/a.txt", "content": "over\n"}),
    ("write_file", {"file_path": "{r}/deep/er/n.txt", "content": "x"}),
    ("write_file", {"file_path": "{r}/sub", "content": "x"}),
    ("write_file", {"file_path": "rel.txt", "content": "x"}),
    ("write_file", {"file_path": "/tmp/elsewhere.txt", "content": "x"}),
    ("replace", {"file_path": "{r}/many.txt", "old_string": "line 10\n", "new_string": "LINE TEN\n"}),
    ("replace", {"file_path": "{r}/crlf.txt", "old_string": "one", "new_string": "ONE"}),
    ("replace", {"file_path": "{r}/dup.txt", "old_string": "dup", "new_string": "DUP", "expected_replacements": 2}),
    ("replace", {"file_path": "{r}/created.txt", "old_string": "", "new_string": "made\n"}),
    ("replace", {"file_path": "{r}/missing.txt", "old_string": "a", "new_string": "b"}),
    ("replace", {"file_path": "{r}/sub", "old_string": "a", "new_string": "b"}),
    ("replace", {"file_path": "rel.txt", "old_string": "a", "new_string": "b"}),
    ("write_file", {"file_path": "{r}/a.txt/x", "content": "x"}),
    ("replace", {"file_path": "{r}/a.txt/x", "old_string": "a", "new_string": "b"}),
]
"""Writes and edits that need no model: upstream asks its LLM to correct an edit whose text is not found once."""

SAME_BYTES = ("new.txt", "deep/er/n.txt", "many.txt", "dup.txt", "created.txt")
"""Files both sides must leave byte-identical (a.txt: upstream drops the final newline it was given; crlf.txt:
upstream rewrites CRLF as LF — both deliberate deviations: we write what was given and keep line endings)."""


def _differences(upstream: Path, roots: dict[str, str], calls: list[tuple[str, dict]],
                 path_first: Path | None = None) -> list[str]:
    """Run ``calls`` (``{r}`` standing for the root) on upstream and on ours, each in its own root; the texts that
    differ, roots written back as ``{r}``. ``path_first`` goes first on the upstream driver's PATH."""
    def filled(root: str) -> list[tuple[str, dict]]:
        return [(tool, {k: v.replace("{r}", root) if isinstance(v, str) else v for k, v in params.items()})
                for tool, params in calls]

    lines = "".join(json.dumps({"root": roots["upstream"], "tool": tool, "params": params}) + "\n"
                    for tool, params in filled(roots["upstream"]))
    env = None if path_first is None else {**os.environ, "PATH": f"{path_first}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["node", str(upstream / "driver.mjs")], input=lines, capture_output=True, text=True,
                          timeout=300, cwd=upstream, check=False, env=env)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(calls), done.stderr[-2000:]
    differences = []
    with agenttools.toolset("gemini", root=roots["ours"]) as reg:
        for (tool, params), answer in zip(filled(roots["ours"]), answers, strict=True):
            theirs = str(answer.get("llmContent", answer.get("thrown"))).replace(roots["upstream"], "{r}")
            ours = reg.call(tool, params).text.replace(roots["ours"], "{r}")
            if ours != theirs:
                differences.append(f"{tool} {params}:\n  upstream {theirs!r}\n  ours     {ours!r}")
    return differences


def test_writes_and_edits_give_the_same_texts_and_bytes(upstream, tmp_path):
    roots = {side: str(tmp_path / side) for side in ("upstream", "ours")}
    for root in roots.values():
        build(root)
        Path(root, "dup.txt").write_text("dup dup\n")

    differences = _differences(upstream, roots, WRITES)
    assert not differences, "\n".join(differences)
    for rel in SAME_BYTES:
        assert Path(roots["ours"], rel).read_bytes() == Path(roots["upstream"], rel).read_bytes(), rel


MEDIA_EXTENSIONS = ["ts", "mts", "mp3", "wav", "mp4", "webp", "ico", "bmp", "tiff", "json", "csv", "woff", "zip",
                    "exe", "class", "jar", "pyc", "so", "wasm", "gif", "jpg", "jpeg", "png", "heic", "avif", "ogg",
                    "flac", "md", "yaml", "rs", "go", "sql", "xml", "html", "docx", "7z", "gz", "svgz", "m4a", "aac",
                    "mov", "avi", "webm", "mkv", "psd", "eps", "rtf", "pdf", "opus", "mid", "3gp", "jxl", "apng"]
DELIBERATE_MEDIA = {
    "mts": "TypeScript module files stay text: upstream's MIME table calls them MPEG transport streams",
}


def test_file_types_and_media_types_are_upstreams(upstream, tmp_path):
    """The same extension table (mime-types): the same kind, and for media the same MIME type."""
    root = str(tmp_path / "types")
    os.makedirs(root)
    for ext in MEDIA_EXTENSIONS:
        Path(root, f"t.{ext}").write_bytes(b"hello text\n")
    calls = [{"root": root, "tool": "read_file", "params": {"absolute_path": f"{root}/t.{ext}"}}
             for ext in MEDIA_EXTENSIONS]
    done = subprocess.run(["node", str(upstream / "driver.mjs")], input="".join(json.dumps(c) + "\n" for c in calls),
                          capture_output=True, text=True, timeout=300, cwd=upstream, check=False)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(answers) == len(calls), done.stderr[-2000:]
    differences = []
    with agenttools.toolset("gemini", root=root) as reg:
        for ext, answer in zip(MEDIA_EXTENSIONS, answers, strict=True):
            theirs = answer.get("llmContent")
            out = reg.call("read_file", {"absolute_path": f"{root}/t.{ext}"})
            if isinstance(theirs, dict) and "inlineData" in theirs:  # media: our text names it, a block carries it
                mime = theirs["inlineData"]["mimeType"]
                same = (out.text == f"Binary content of type {mime} was processed."
                        and [b.mime_type for b in out.content if isinstance(b, ImageBlock | DataBlock)] == [mime])
            else:
                same = out.text == theirs
            if not same and ext not in DELIBERATE_MEDIA:
                differences.append(f".{ext}: upstream {str(theirs)[:120]!r}, ours {out.text[:120]!r}")
    assert not differences, "\n".join(differences)


EDGES = [
    ("search_file_content", {"pattern": "hit"}),
    ("search_file_content", {"pattern": "hit", "include": "src/*.py"}),
    ("search_file_content", {"pattern": "hit", "include": "src"}),
    ("search_file_content", {"pattern": "hit", "include": "src/"}),
    ("search_file_content", {"pattern": "hit", "include": "a"}),
    ("search_file_content", {"pattern": "hit", "include": "*/x.txt"}),
    ("search_file_content", {"pattern": "hit", "include": "src/**/*.py"}),
    ("search_file_content", {"pattern": "hit", "include": "**/*.py"}),
    ("search_file_content", {"pattern": "hit", "include": "s?c/m.py"}),
    ("search_file_content", {"pattern": "hit", "include": "[s]rc/[!x]*"}),
    ("search_file_content", {"pattern": "hit", "include": "SRC"}),
    ("search_file_content", {"pattern": "x", "path": "loop1"}),
    ("read_file", {"absolute_path": "{r}/e.txt", "offset": 1.5, "limit": 2}),
    ("read_file", {"absolute_path": "{r}/e.txt", "offset": 0.5, "limit": 2.5}),
    ("read_file", {"absolute_path": "{r}/e.txt", "offset": 1e-7, "limit": 2}),
    ("read_file", {"absolute_path": "{r}/e.txt", "offset": 1.5}),
    ("read_file", {"absolute_path": "{r}/loop1"}),
    ("read_file", {"absolute_path": "{r}/self"}),
    ("write_file", {"file_path": "{r}/newdir/", "content": "x"}),
    ("write_file", {"file_path": "{r}/a.txt/", "content": "x"}),
    ("write_file", {"file_path": "{r}/dirlink", "content": "x"}),
    ("write_file", {"file_path": "{r}/dirlink/", "content": "x"}),
    ("write_file", {"file_path": "{r}/loop1", "content": "x"}),
    ("replace", {"file_path": "{r}/loop1", "old_string": "a", "new_string": "b"}),
    ("replace", {"file_path": "{r}/a.txt/", "old_string": "hit", "new_string": "b"}),
    ("list_directory", {"path": "{r}/loop1"}),
    ("glob", {"pattern": "*", "path": "{r}/loop1"}),
]
"""Cases run with upstream's git-grep strategy: a ``command`` on the ``PATH`` lets its ``command -v git`` probe run,
as on macOS (on Linux, where no ``command`` binary exists, upstream falls back to its JavaScript search)."""


def build_edges(root: str) -> None:
    """Names whose order git and JavaScript decide, NUL bytes either side of git's 8,000 bytes, links, loops."""
    os.makedirs(root)
    for rel in ("a-b/x.txt", "a.b", "a/x.txt", "2", "10", "01", "a.txt", "B.txt", "src/util/helpers.py", "src/m.py",
                "srcx/n.py"):
        Path(root, rel).parent.mkdir(parents=True, exist_ok=True)
        Path(root, rel).write_text("hit\n")
    Path(root, "late.bin").write_bytes(b"hit\n" + b"x" * 9000 + b"\x00\n")
    Path(root, "early.bin").write_bytes(b"hit\n" + b"x" * 7000 + b"\x00\n")
    Path(root, "edge.bin").write_bytes(b"hit\n" + b"x" * 7995 + b"\x00\n")  # NUL at byte 7,999
    Path(root, "edge2.bin").write_bytes(b"hit\n" + b"x" * 7996 + b"\x00\n")  # NUL at byte 8,000
    Path(root, "e.txt").write_text("".join(f"l{i}\n" for i in range(1, 12)))
    os.makedirs(os.path.join(root, "realdir"))
    os.symlink("realdir", os.path.join(root, "dirlink"))
    os.symlink("loop2", os.path.join(root, "loop1"))
    os.symlink("loop1", os.path.join(root, "loop2"))
    os.symlink("self", os.path.join(root, "self"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


@pytest.mark.parametrize("backend", ["python", "rg"])
def test_edge_cases_with_upstreams_git_grep_strategy(upstream, tmp_path, monkeypatch, backend):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "command").write_text('#!/bin/sh\ncommand "$@"\n')
    (shim / "command").chmod(0o755)
    roots = {side: str(tmp_path / side) for side in ("upstream", "ours")}
    for root in roots.values():
        build_edges(root)

    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    differences = _differences(upstream, roots, EDGES, path_first=shim)
    assert not differences, "\n".join(differences)
    for side in roots.values():  # neither side wrote anything
        assert not os.path.lexists(os.path.join(side, "newdir")) and Path(side, "a.txt").read_text() == "hit\n"
        assert os.listdir(os.path.join(side, "realdir")) == []
