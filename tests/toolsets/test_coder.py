"""The coder toolset: each tool and each contract text; web tests on 127.0.0.x; head/tail against coreutils."""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agenttools
from agenttools import web
from agenttools.toolsets.coder.files import _diff as coder_diff
from agenttools.toolsets.coder.gostr import unescape_go_string
from agenttools.toolsets.coder.web import cache_name
from agenttools.web import strip_scripts
from conftest import StaticSite


@pytest.fixture
def root(tmp_path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "test.txt").write_text("line1\nline2\nline3")
    return work


@pytest.fixture
def reg(root):
    return agenttools.toolset("coder", root=str(root))


def call(reg, name, **args):
    return reg.call(name, args).text


def test_names(reg):
    assert reg.names() == ("read_file", "list_files", "edit_file", "delete_file", "rg", "glob", "git_diff",
                           "web_fetch", "html_to_markdown", "head", "tail", "cloc", "todowrite", "todoread")


# --- Go string unescaping ------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hello\\nWorld", "Hello\nWorld"),
        ("Euro\\u20AC", "Euro\u20ac"),
        ('He said,\\"Hello\\"', 'He said,"Hello"'),
        ("real\nnewline", "real\nnewline"),
        ("tab\there", "tab\there"),
        ('raw " quote', 'raw " quote'),
        ("it\\'s", "it\\'s"),
        ("C:\\\\dir", "C:\\dir"),
        ("\\x41", "A"),
        ("\\101", "A"),
        ("Path\\to\\file", "Path\to\x0cile"),  # real strconv.Unquote (upstream's test expected it unchanged)
        ("bad\\q", "bad\\q"),
        ("trailing\\", "trailing\\"),
        ("\\uD800", "\\uD800"),
        ("\\777", "\\777"),
        ("\\U0001F600", "\U0001f600"),
    ],
)
def test_unescape_go_string(raw, expected):
    assert unescape_go_string(raw) == expected


# --- edit_file -----------------------------------------------------------------------------------------------

def test_edit_success_and_diff(reg, root):
    out = call(reg, "edit_file", path="test.txt", old_str="line2", new_str="modified line2")
    assert out == ('{"message": "Successfully modified file: test.txt (1 replacement(s)).", "actual_replacements": 1, '
                   '"diff": "--- test.txt\\n+++ test.txt\\n@@ -1,3 +1,3 @@\\n line1\\n-line2\\n+modified line2\\n '
                   'line3\\n"}')
    assert (root / "test.txt").read_text() == "line1\nmodified line2\nline3"


def test_edit_create(reg, root):
    out = json.loads(call(reg, "edit_file", path="new_feature/README.md", old_str="",
                          new_str="# New Feature\\n\\nThis is a new feature."))
    assert out == {"message": "Created new file: new_feature/README.md with provided content.",
                   "actual_replacements": 0,
                   "diff": "--- new_feature/README.md\n+++ new_feature/README.md\n@@ -1 +1,3 @@\n+# New Feature\n \n"
                           "+This is a new feature.\n"}
    assert (root / "new_feature" / "README.md").read_text() == "# New Feature\n\nThis is a new feature."


def test_edit_errors(reg, root):
    assert call(reg, "edit_file", path="test.txt", old_str="nonExistentFunction()", new_str="x") == (
        "Error: EDIT_NO_OCCURRENCE_FOUND: could not find the string to replace: 'nonExistentFunction()' "
        "(attempted unescaped: 'nonExistentFunction()')")
    (root / "settings.yaml").write_text("debug: false\n")
    assert call(reg, "edit_file", path="settings.yaml", old_str="debug: false", new_str="debug: true",
                expected_replacements=2) == (
        "Error: EDIT_EXPECTED_OCCURRENCE_MISMATCH: expected 2 occurrences but found 1 for 'debug: false' "
        "(attempted unescaped: 'debug: false')")
    assert call(reg, "edit_file", path="test.txt", old_str="line", new_str="L") == (
        "Error: EDIT_EXPECTED_OCCURRENCE_MISMATCH: expected 1 occurrence but found 3 for 'line' "
        "(attempted unescaped: 'line')")
    assert call(reg, "edit_file", path="test.txt", old_str="", new_str="New content for existing file.") == (
        "Error: ATTEMPT_TO_CREATE_EXISTING_FILE: File already exists, cannot create using empty old_str: test.txt")
    assert call(reg, "edit_file", path="missing.txt", old_str="a", new_str="b") == (
        "Error: EDIT_FILE_NOT_FOUND: file not found: missing.txt")
    assert call(reg, "edit_file", path="", old_str="a", new_str="b") == (
        "Error: EDIT_INVALID_PATH: file path cannot be empty ()")
    assert call(reg, "edit_file", path="../x.txt", old_str="", new_str="b") == "Error: path not allowed: ../x.txt"
    assert (root / "test.txt").read_text() == "line1\nline2\nline3"


def test_edit_noop_replace_all_and_unescaping(reg, root):
    assert json.loads(call(reg, "edit_file", path="missing.txt", old_str="same", new_str="same")) == {
        "message": "No changes applied, old_str and new_str are identical.", "actual_replacements": 0, "diff": ""}
    assert not (root / "missing.txt").exists()
    out = json.loads(call(reg, "edit_file", path="test.txt", old_str="line", new_str="L", expected_replacements=3))
    assert out["actual_replacements"] == 3
    assert (root / "test.txt").read_text() == "L1\nL2\nL3"
    call(reg, "edit_file", path="test.txt", old_str="L1\\nL2", new_str="one\\ttwo")
    assert (root / "test.txt").read_text() == "one\ttwo\nL3"
    (root / "win.txt").write_bytes(b"a\r\nb\r\n")
    os.chmod(root / "win.txt", 0o755)
    call(reg, "edit_file", path="win.txt", old_str="a\\nb", new_str="x\\ny")
    assert (root / "win.txt").read_bytes() == b"x\r\ny\r\n"
    assert oct(os.stat(root / "win.txt").st_mode & 0o777) == "0o755"


# --- read, list, delete, glob --------------------------------------------------------------------------------

def test_read_file(reg, root):
    assert call(reg, "read_file", path="test.txt") == "line1\nline2\nline3"
    assert call(reg, "read_file", path="nope.txt") == "Error: open nope.txt: no such file or directory"
    (root / "d").mkdir()
    assert call(reg, "read_file", path="d") == "Error: read d: is a directory"
    assert call(reg, "read_file", path="/etc/passwd") == "Error: path not allowed: /etc/passwd"
    assert reg.call("read_file", {}).text == "Error: invalid input: missing required argument 'path'"


def test_list_files(reg, root):
    for d in (".git/objects", ".agent/prompts", ".agent/sessions/x", ".agent/cache", "sub/deeper"):
        (root / d).mkdir(parents=True)
    (root / "sub" / "a<b>.go").write_text("")
    (root / "sub" / "deeper" / "c.md").write_text("")
    assert call(reg, "list_files") == (
        '[".agent/",".agent/cache/","sub/","sub/a\\u003cb\\u003e.go","sub/deeper/","sub/deeper/c.md","test.txt"]')
    assert call(reg, "list_files", path="sub") == '["a\\u003cb\\u003e.go","deeper/","deeper/c.md"]'
    (root / "empty").mkdir()
    assert call(reg, "list_files", path="empty") == "[]"


def test_delete_file(reg, root):
    assert call(reg, "delete_file", path="test.txt") == "Successfully deleted file test.txt"
    assert call(reg, "delete_file", path="test.txt") == "Error: file does not exist: test.txt"
    assert call(reg, "delete_file", path="") == "Error: path cannot be empty"
    assert call(reg, "delete_file", path="../outside") == "Error: path not allowed: ../outside"
    assert call(reg, "delete_file", path=".") == "Error: path not allowed: ."


def test_glob(reg, root):
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("")
    (root / "README.md").write_text("")
    (root / ".hidden.md").write_text("")
    assert call(reg, "glob", pattern="**/*.md") == '[".hidden.md","README.md","docs/a.md"]'
    assert call(reg, "glob", pattern="*.md") == '[".hidden.md","README.md"]'
    assert call(reg, "glob", pattern="d*") == '["docs"]'
    assert call(reg, "glob", pattern="*.zig") == "No matches found"
    assert call(reg, "glob", pattern="  ") == "Error: glob pattern cannot be empty"
    assert call(reg, "glob", pattern="[abc") == "Error: invalid glob pattern: syntax error in pattern"
    assert call(reg, "glob", pattern="../*") == "Error: path not allowed: ../*"


# --- rg --------------------------------------------------------------------------------------------------------

def test_rg(reg, root):
    (root / "sub").mkdir()
    (root / "sub" / "x.py").write_text("Error here\nerror there\n")
    assert call(reg, "rg", pattern="error") == "sub/x.py:error there\n"
    assert sorted(call(reg, "rg", pattern="error", args="--ignore-case -n").splitlines()) == [
        "sub/x.py:1:Error here", "sub/x.py:2:error there"]
    assert call(reg, "rg", pattern="zzz") == "No matches found"
    assert call(reg, "rg", pattern="") == "Error: search pattern cannot be empty"
    assert call(reg, "rg", pattern="-e", args="-F") == "No matches found"  # a pattern that looks like a flag
    assert call(reg, "rg", pattern="(", args="").startswith("Error: rg: regex parse error")


@pytest.mark.parametrize("args", ["--pre cat", "--pre=cat", "--pre-glob *.py", "-z", "--search-zip", "-iz", "-L",
                                  "--follow", "/etc", "..", "-f /etc/passwd", "--ignore-file=../x"])
def test_rg_refuses_dangerous_arguments(reg, args):
    out = call(reg, "rg", pattern="x", args=args)
    assert out.startswith(("Error: rg option not allowed", "Error: path not allowed")), out


def test_rg_python_fallback(reg, root, monkeypatch):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", "python")
    (root / "sub").mkdir()
    (root / "sub" / "x.py").write_text("Error here\nerror there\n")
    assert call(reg, "rg", pattern="error", args="-i -n") == "sub/x.py:1:Error here\nsub/x.py:2:error there\n"
    assert call(reg, "rg", pattern="error", args="-l") == "sub/x.py\n"
    assert call(reg, "rg", pattern="zzz") == "No matches found"
    assert call(reg, "rg", pattern="x", args="--multiline").startswith(
        "Error: rg is not installed and the Python fallback does not support --multiline")


# --- git_diff, head, tail, cloc --------------------------------------------------------------------------------

def test_git_diff(reg, root):
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "init")
    assert call(reg, "git_diff") == "No changes found in working directory"
    (root / "test.txt").write_text("line1\nchanged\nline3")
    out = call(reg, "git_diff")
    assert out.startswith("diff --git a/test.txt b/test.txt\n")
    assert "-line2\n+changed\n" in out


def test_git_diff_outside_a_repository(reg):
    assert call(reg, "git_diff").startswith("Error: ")


COREUTIL_CASES = [
    "-n 3 big.txt", "big.txt", "-c 7 big.txt", "-5 big.txt", "-n 0 big.txt", "big.txt small.txt",
    "-q big.txt small.txt", "-v small.txt", "crlf.txt", "-n 2 nonl.txt", "empty.txt small.txt",
]


@pytest.fixture
def text_files(root):
    (root / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 40)))
    (root / "small.txt").write_text("one\ntwo\n")
    (root / "crlf.txt").write_bytes(b"a\r\nb\rc\r\n")
    (root / "nonl.txt").write_text("x\ny\nz")
    (root / "empty.txt").write_text("")
    return root


@pytest.mark.parametrize("prog", ["head", "tail"])
@pytest.mark.parametrize("args", [*COREUTIL_CASES, "HEADONLY -n -3 big.txt", "TAILONLY -n +35 big.txt",
                                  "TAILONLY -c +5 small.txt", "HEADONLY -c -2 small.txt"])
def test_head_and_tail_match_coreutils(reg, text_files, prog, args):
    if args.startswith("HEADONLY "):
        if prog != "head":
            return
        args = args.removeprefix("HEADONLY ")
    if args.startswith("TAILONLY "):
        if prog != "tail":
            return
        args = args.removeprefix("TAILONLY ")
    real = subprocess.run([shutil.which(prog) or prog, *args.split()], cwd=text_files, capture_output=True,
                          check=True).stdout.decode()
    assert call(reg, prog, args=args) == real


def test_head_tail_errors(reg, text_files):
    assert call(reg, "tail", args="-f big.txt").startswith("Error: tail: unsupported option '-f'")
    # GNU's stderr, newline and all: upstream returned it whole
    assert call(reg, "head", args="missing.txt") == (
        "Error: head: cannot open 'missing.txt' for reading: No such file or directory\n")
    assert call(reg, "head", args="-n x big.txt") == "Error: head: invalid number of lines: 'x'\n"
    assert call(reg, "head", args="../../etc/passwd") == "Error: head: path not allowed: ../../etc/passwd\n"
    assert call(reg, "head", args="") == ""


def test_cloc(reg, root):
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text('"""Doc."""\n\nimport os  # code\n# comment\nx = 1\n')
    (root / "src" / "b.go").write_text("package main\n\n/* block\n   comment */\nfunc main() {} // trailing\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "dep.js").write_text("var x = 1;\n")
    out = call(reg, "cloc", args="--exclude-dir=node_modules .")
    lines = out.splitlines()
    # cloc's words: "1 file" in the singular, and the padding left on the line its progress overwrote
    assert lines[:3] == ["       3 text files.", "       3 unique files." + " " * 30, "       1 file ignored."]
    assert "Language                     files          blank        comment           code" in lines
    assert "Python                           1              1              2              2" in lines
    assert "Go                               1              1              2              2" in lines
    assert "SUM:                             2              2              4              4" in lines
    data = json.loads(call(reg, "cloc", args="--json src"))
    assert data["Python"] == {"nFiles": 1, "blank": 1, "comment": 2, "code": 2}
    assert data["SUM"] == {"nFiles": 2, "blank": 2, "comment": 4, "code": 4}
    assert data["header"]["n_files"] == 2
    assert call(reg, "cloc").startswith("Usage: cloc [options]")
    assert call(reg, "cloc", args="--by-file .") == (
        "Error: cloc: unsupported option '--by-file' (supported: --exclude-dir=D1,D2, --include-lang=L1,L2, "
        "--exclude-lang=L1,L2, --json)")


# --- todos -----------------------------------------------------------------------------------------------------

def test_todos(reg, root):
    assert call(reg, "todoread") == '{"output":"[]","title":"0 todos"}'
    assert not (root / ".agent").exists()
    todos = [{"task": "Do something", "content": "Do this task", "status": "pending", "priority": "medium"},
             {"id": "x", "CONTENT": "  second  ", "status": "completed", "priority": "low"}]
    assert call(reg, "todowrite", todos_json=json.dumps(todos)) == (
        '{"output":"Successfully updated 2 todos","title":"Updated todo list with 1 active todos"}')
    assert call(reg, "todoread") == (
        '{"output":"[{\\"id\\":\\"task-1\\",\\"content\\":\\"Do this task\\",\\"status\\":\\"pending\\",'
        '\\"priority\\":\\"medium\\"},{\\"id\\":\\"x\\",\\"content\\":\\"  second  \\",\\"status\\":\\"completed\\",'
        '\\"priority\\":\\"low\\"}]","title":"1 todos"}')
    (saved,) = (root / ".agent" / "sessions").glob("*/todos.json")
    assert json.loads(saved.read_text())["todos"][0]["id"] == "task-1"


@pytest.mark.parametrize(
    ("todos", "error"),
    [
        ([{"content": "a", "status": "doing", "priority": "low"}],
         "invalid status 'doing' for todo 1. Must be one of: pending, in_progress, completed, cancelled"),
        ([{"content": "a", "status": "pending", "priority": "urgent"}],
         "invalid priority 'urgent' for todo 1. Must be one of: high, medium, low"),
        ([{"content": "a", "status": "pending", "priority": "low"}, {"content": " ", "status": "pending",
                                                                      "priority": "low"}],
         "todo content cannot be empty for todo 2"),
        ([{"content": "a", "status": "in_progress", "priority": "low"},
          {"content": "b", "status": "in_progress", "priority": "low"}],
         "only one todo can be in_progress at a time, found 2"),
    ],
)
def test_todo_validation(reg, todos, error):
    assert call(reg, "todowrite", todos_json=json.dumps(todos)) == "Error: " + error
    assert call(reg, "todoread") == '{"output":"[]","title":"0 todos"}'


def test_todo_bad_json(reg):
    assert call(reg, "todowrite", todos_json="[{").startswith("Error: invalid todos JSON: ")
    assert call(reg, "todowrite", todos_json="") == (
        '{"output":"Successfully updated 0 todos","title":"Updated todo list with 0 active todos"}')


# --- web -------------------------------------------------------------------------------------------------------

@pytest.fixture
def site(static_site: StaticSite) -> StaticSite:
    return static_site


def test_web_fetch_and_cache(root, site):
    port = site.start("127.0.0.1")
    site.routes = {"/page": (200, {"Content-Type": "text/html; charset=utf-8"}, b"<h1>Hi</h1>"),
                    "/data": (200, {"Content-Type": "application/json"}, b'{"a": 1}'),
                    "/bin": (200, {"Content-Type": "image/png"}, b"\x89PNG"),
                    "/moved": (302, {"Location": "/page"}, b"")}
    reg = agenttools.toolset("coder", root=str(root), allow_private_network=True)
    url = f"http://127.0.0.1:{port}/page"
    out = json.loads(call(reg, "web_fetch", url=url))
    assert out == {"path": f".agent/cache/webfetch/{cache_name(url)}.html", "statusCode": 200,
                   "contentType": "text/html; charset=utf-8"}
    assert (root / out["path"]).read_bytes() == b"<h1>Hi</h1>"
    assert list(json.loads(call(reg, "web_fetch", url=url))) == ["path", "statusCode", "contentType"]
    assert json.loads(call(reg, "web_fetch", url=f"http://127.0.0.1:{port}/data"))["path"].endswith(".json")
    assert json.loads(call(reg, "web_fetch", url=f"http://127.0.0.1:{port}/moved"))["statusCode"] == 200
    assert call(reg, "web_fetch", url=f"http://127.0.0.1:{port}/bin") == "Error: unsupported content type: image/png"
    assert call(reg, "web_fetch", url=f"http://127.0.0.1:{port}/nothing") == (
        "Error: HTTP request failed with status code: 404")
    assert call(reg, "web_fetch", url="ftp://example.com/") == "Error: URL must start with http:// or https://"


def test_private_addresses_refused_by_default(root, site):
    port = site.start("127.0.0.1")
    site.routes = {"/page": (200, {"Content-Type": "text/plain"}, b"secret")}
    reg = agenttools.toolset("coder", root=str(root))
    assert call(reg, "web_fetch", url=f"http://127.0.0.1:{port}/page") == (
        "Error: refusing to connect to 127.0.0.1 (127.0.0.1): a loopback, private, link-local or reserved address")
    assert call(reg, "web_fetch", url=f"http://localhost:{port}/page").startswith("Error: refusing to connect")
    assert not (root / ".agent").exists()


def test_redirect_to_a_private_address_is_refused(root, site, monkeypatch):
    """127.0.0.2 plays a public host; its redirect to 127.0.0.1 must be refused on the second hop."""
    public_port = site.start("127.0.0.2")
    private_port = site.start("127.0.0.1")
    site.routes = {"/go": (302, {"Location": f"http://127.0.0.1:{private_port}/secret"}, b""),
                    "/secret": (200, {"Content-Type": "text/plain"}, b"metadata"),
                    "/ok": (200, {"Content-Type": "text/plain"}, b"fine")}
    real_public = web._public
    monkeypatch.setattr(web, "_public", lambda address: address == "127.0.0.2" or real_public(address))
    real_getaddrinfo = socket.getaddrinfo

    def fake_getaddrinfo(host, *args, **kwargs):
        return real_getaddrinfo("127.0.0.2" if host == "public.test" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    reg = agenttools.toolset("coder", root=str(root))
    assert json.loads(call(reg, "web_fetch", url=f"http://public.test:{public_port}/ok"))["statusCode"] == 200
    assert call(reg, "web_fetch", url=f"http://public.test:{public_port}/go") == (
        "Error: refusing to connect to 127.0.0.1 (127.0.0.1): a loopback, private, link-local or reserved address")


@pytest.mark.parametrize(
    ("address", "public"),
    [("8.8.8.8", True), ("2606:4700:4700::1111", True), ("127.0.0.1", False), ("10.1.2.3", False),
     ("172.16.0.1", False), ("192.168.1.1", False), ("169.254.169.254", False), ("::1", False),
     ("fc00::1", False), ("fe80::1", False), ("::ffff:127.0.0.1", False), ("0.0.0.0", False),  # noqa: S104
     ("224.0.0.1", False), ("100.64.0.1", False)],
)
def test_address_policy(address, public):
    assert web._public(address) is public


def test_body_cap_and_timeout(root, site):
    port = site.start("127.0.0.1")
    site.routes = {"/big": (200, {"Content-Type": "text/plain"}, b"x" * 5000)}
    reg = agenttools.toolset("coder", root=str(root), allow_private_network=True, max_file_size=1000)
    assert call(reg, "web_fetch", url=f"http://127.0.0.1:{port}/big") == "Error: response body exceeds 1000 bytes"


@pytest.mark.parametrize(
    ("url", "name"),
    [("https://www.example.com", "www.example.com__cdb4d88d"),
     ("https://Example.com/Docs/Page-1.html?x=1", "example.com_docs_page_1.html_47662b1c"),
     ("http://localhost:8080/api/v1/", "localhost_8080_api_v1_9241975e")],
)
def test_cache_names(url, name):
    assert cache_name(url) == name


def test_html_to_markdown(reg, root):
    (root / "page.html").write_text("<h1>Title</h1><p>Hi <b>there</b></p><ul><li>a</li></ul><script>evil()</script>")
    assert call(reg, "html_to_markdown", path="page.html") == (
        '{"inputPath":"page.html","outputPath":"page.md","success":true}')
    markdown = (root / "page.md").read_text()
    assert markdown.startswith("# Title\n")
    assert "Hi **there**" in markdown
    assert "- a" in markdown
    assert "evil" not in markdown
    (root / "noext").write_text("<p>x</p>")
    assert json.loads(call(reg, "html_to_markdown", path="noext"))["outputPath"] == "noext.md"
    assert call(reg, "html_to_markdown", path="missing.html") == "Error: input file does not exist: missing.html"
    assert call(reg, "html_to_markdown", path="") == "Error: path cannot be empty"


def test_html_to_markdown_never_writes_into_git_metadata(reg, root):
    (root / ".git").mkdir()
    (root / ".git" / "hooks.html").write_text("<p>x</p>")
    assert call(reg, "html_to_markdown", path=".git/hooks.html") == (
        "Error: path not allowed: .git/hooks.md (inside git metadata)")
    assert not (root / ".git" / "hooks.md").exists()


def test_html_to_markdown_caps_the_file_it_reads(root):
    (root / "big.html").write_text("<p>" + "x" * 2000 + "</p>")
    small = agenttools.toolset("coder", root=str(root), max_file_size=1000)
    assert call(small, "html_to_markdown", path="big.html").startswith("Error: cannot read big.html: ")
    assert not (root / "big.md").exists()


def test_script_stripping_is_the_lazy_regex_in_linear_time():
    lazy = re.compile(r"(?is)<(script|style)\b.*?</\1\s*>")
    rng = random.Random(7)  # noqa: S311 - seeded test data
    parts = ["<script>", "</script>", "<style>", "</style >", "<SCRIPT a=1>", "</Script>", "x", "<scripts>",
             "</script", ">", "<style", "\n"]
    for _ in range(3000):
        html = "".join(rng.choice(parts) for _ in range(rng.randint(0, 14)))
        assert strip_scripts(html) == lazy.sub("", html), html
    # 300,000 unclosed tags: the lazy regex scans to the end from each one (hours); this is one pass
    hostile = "<script" * 300_000 + "<style>a</style>"
    started = time.monotonic()
    assert strip_scripts(hostile) == "<script" * 300_000
    assert time.monotonic() - started < 10


def test_an_unknown_tool_is_not_found(reg):
    out = reg.call("nope", {})
    assert (out.is_error, out.text) == (True, "Error: tool not found: nope")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "  x", "}", "c\r"]), max_size=40),
       st.lists(st.sampled_from(["a", "b", "", "  x", "}", "d"]), max_size=40), st.integers(0, 260))
def test_edit_file_diff_is_go_difflib_with_its_junk_heuristic(before, after, padding):
    """coder's diff comes from the edit family; it must equal difflib's (go-difflib's) unified diff, junk included."""
    old = "\n".join(["}"] * padding + before)  # past 200 lines, a line in over 1% of them is junk to the matcher
    new = "\n".join(["}"] * padding + after)
    expected = "".join(difflib.unified_diff([line + "\n" for line in old.split("\n")],
                                            [line + "\n" for line in new.split("\n")], "p", "p", n=3))
    assert coder_diff("p", old, new) == expected
