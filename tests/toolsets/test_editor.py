"""The editor toolset: every spec scenario and contract text, on real files and processes."""

from __future__ import annotations

import base64
import os
import stat
import time
from pathlib import Path

import pytest

import agenttools
from agenttools import ImageBlock
from agenttools.toolsets.editor.texts import DESCRIPTIONS, PARAMETERS
from conftest import processes_running

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(20)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(20)


@pytest.fixture
def root(tmp_path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    return work


@pytest.fixture
def reg(root):
    with agenttools.toolset("editor", root=str(root)) as registry:
        yield registry


def call(reg, name, **args):
    return reg.call(name, args)


def test_definitions(reg):
    assert reg.names() == ("view", "str_replace", "create_file", "bash", "task_output")
    for definition in reg.definitions("json-schema"):
        assert definition["description"] == DESCRIPTIONS[definition["name"]]
        assert definition["parameters"] == PARAMETERS[definition["name"]]
        assert definition["parameters"]["additionalProperties"] is False


# --- view: files -----------------------------------------------------------------------------------------------

def test_view_whole_file(reg, root):
    (root / "three.txt").write_text("a\nb\nc\n")
    assert call(reg, "view", path="three.txt").text == "1\ta\n2\tb\n3\tc\n"
    (root / "ten.txt").write_text("".join("x\n" for _ in range(10)))
    assert call(reg, "view", path="ten.txt").text.startswith(" 1\tx\n 2\tx\n")
    (root / "empty.txt").write_text("")
    assert call(reg, "view", path="empty.txt").text == ""
    (root / "nonl.txt").write_text("a\nb")
    assert call(reg, "view", path="nonl.txt").text == "1\ta\n2\tb\n"


def test_view_ranges(reg, root):
    (root / "hundred.txt").write_text("".join(f"l{i}\n" for i in range(1, 101)))
    assert call(reg, "view", path="hundred.txt", view_range=[10, 12]).text == "10\tl10\n11\tl11\n12\tl12\n"
    out = call(reg, "view", path="hundred.txt", view_range=[10, 20]).text
    assert out.splitlines()[0] == "10\tl10"
    assert out.splitlines()[-1] == "20\tl20"
    (root / "fortytwo.txt").write_text("".join(f"l{i}\n" for i in range(1, 43)))
    out = call(reg, "view", path="fortytwo.txt", view_range=[10, 100]).text
    assert len(out.splitlines()) == 33
    assert out.splitlines()[-1] == "42\tl42"


@pytest.mark.parametrize(
    ("view_range", "text"),
    [
        ([100, 200], "[INVALID_INPUT] invalid view_range: start 100 exceeds total lines 42 in {p}"),
        ([0, 5], "[INVALID_INPUT] invalid view_range: start must be >= 1, got 0"),
        ([3, 1], "[INVALID_INPUT] invalid view_range: start 3 > end 1"),
        ([10, -1], "[INVALID_INPUT] invalid view_range: start 10 > end -1"),
        ([43, 50], "[INVALID_INPUT] invalid view_range: start 43 exceeds total lines 42 in {p}"),
    ],
)
def test_view_range_errors(reg, root, view_range, text):
    (root / "fortytwo.txt").write_text("".join(f"l{i}\n" for i in range(1, 43)))
    out = call(reg, "view", path="fortytwo.txt", view_range=view_range)
    assert out.is_error
    assert out.text == text.format(p=root / "fortytwo.txt")


def test_view_range_of_other_length_is_ignored(reg, root):
    (root / "two.txt").write_text("a\nb\n")
    assert call(reg, "view", path="two.txt", view_range=[1]).text == "1\ta\n2\tb\n"


def test_view_range_drops_cr_but_whole_file_keeps_it(reg, root):
    (root / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    assert call(reg, "view", path="crlf.txt", view_range=[1, 2]).text == "1\ta\n2\tb\n"
    assert call(reg, "view", path="crlf.txt").text == "1\ta\r\n2\tb\r\n"


def test_long_lines_and_large_files(reg, root):
    (root / "min.js").write_text("x" * 5000 + "\n")
    assert call(reg, "view", path="min.js").text == "1\t" + "x" * 2000 + "... [truncated, 5000 chars total]\n"
    (root / "cjk.txt").write_text("\u4e16" * 2500)
    assert call(reg, "view", path="cjk.txt").text.endswith("... [truncated, 2500 chars total]\n")
    (root / "big.txt").write_text("".join(f"{i}\n" for i in range(5000)))
    out = call(reg, "view", path="big.txt").text
    assert out.endswith("2000\t1999\n\n[Truncated: file has 5000 lines. Use view_range to read specific sections.]")
    assert len(out.splitlines()) == 2002


def test_range_near_the_start_of_a_big_file_does_not_read_it_all(reg, root, monkeypatch):
    big = root / "big10mb.txt"
    with open(big, "w") as handle:
        line = "y" * 99 + "\n"
        for _ in range(100_000):
            handle.write(line)
    import agenttools._lines as lines_module

    read = []
    real_iter = lines_module.iter_decoded

    def counting(handle, encoding, chunk_size=1 << 16):
        for chunk in real_iter(handle, encoding, chunk_size=chunk_size):
            read.append(len(chunk))
            yield chunk

    monkeypatch.setattr(lines_module, "iter_decoded", counting)
    assert call(reg, "view", path="big10mb.txt", view_range=[1, 10]).text.startswith(" 1\t" + "y" * 99)
    assert sum(read) < 200_000  # a couple of 64 KiB chunks, not 10 MB


def test_binary_images_and_sizes(reg, root):
    (root / "prog.wasm").write_bytes(b"\x00asm" + bytes(100))
    assert call(reg, "view", path="prog.wasm").text == "Binary file (104 bytes)"
    (root / "big.bin").write_bytes(b"\x00" * int(2.4 * 1024 * 1024))
    assert call(reg, "view", path="big.bin").text == "Binary file (2.4 MB)"
    (root / "img.png").write_bytes(PNG)
    out = call(reg, "view", path="img.png")
    assert out.content == (ImageBlock(data=base64.b64encode(PNG).decode(), mime_type="image/png"),)
    assert not out.is_error
    (root / "photo.jpg").write_bytes(JPEG)
    assert call(reg, "view", path="photo.jpg").content[0].mime_type == "image/jpeg"
    (root / "photo.dat").write_bytes(PNG)
    assert call(reg, "view", path="photo.dat").content[0].mime_type == "image/png"
    (root / "logo.SVG").write_text("<svg/>")
    assert call(reg, "view", path="logo.SVG").content == (ImageBlock(data=base64.b64encode(b"<svg/>").decode(),
                                                                     mime_type="image/svg+xml"),)
    (root / "band.txt").write_text("BM is a band\n")
    assert call(reg, "view", path="band.txt").text == "1\tBM is a band\n"


def test_utf16_with_bom_is_text(reg, root):
    (root / "u16.txt").write_bytes("hello\nworld\n".encode("utf-16"))
    assert call(reg, "view", path="u16.txt").text == "1\thello\n2\tworld\n"


def test_max_file_size(root):
    with agenttools.toolset("editor", root=str(root), max_file_size="1KB") as reg:
        (root / "big.txt").write_text("x" * 2048)
        out = call(reg, "view", path="big.txt")
        assert out.text == f"[FILE_TOO_LARGE] file {root}/big.txt is 2048 bytes, exceeds maximum 1024 bytes"
        (root / "big.png").write_bytes(PNG + bytes(2048))
        assert call(reg, "view", path="big.png").text.startswith("[FILE_TOO_LARGE]")
        out = call(reg, "create_file", path="c.txt", content="x" * 2000)
        assert out.text == "[FILE_TOO_LARGE] content is 2000 bytes, exceeds maximum 1024 bytes"
        assert call(reg, "str_replace", path="big.txt", old_str="x", new_str="y").text.startswith("[FILE_TOO_LARGE]")


def test_view_follows_symlinks_and_missing_paths(reg, root):
    (root / "target.txt").write_text("real\n")
    (root / "link.txt").symlink_to(root / "target.txt")
    assert call(reg, "view", path="link.txt").text == "1\treal\n"
    out = call(reg, "view", path="missing.txt")
    assert (out.text, out.is_error) == (f"[PATH_NOT_FOUND] {root}/missing.txt does not exist", True)


def test_view_fifo_does_not_hang(reg, root):
    os.mkfifo(root / "pipe")
    start = time.monotonic()
    out = call(reg, "view", path="pipe")
    assert out.text == f"[IO_ERROR] could not read {root}/pipe: it is a fifo, not a regular file"
    assert time.monotonic() - start < 5


# --- view: directories -----------------------------------------------------------------------------------------

def test_directory_tree(reg, root):
    for d in (".github/workflows", "node_modules/x", ".git/objects", "src/pkg/deep"):
        (root / d).mkdir(parents=True)
    for f in (".dockerignore", ".env", ".env.example", "src/main.go", "src/pkg/deep/too_deep.go"):
        (root / f).write_text("")
    (root / "link").symlink_to("/usr/local/bin")
    assert call(reg, "view", path=".").text == (
        "proj/\n"
        "├── .dockerignore\n"
        "├── .env\n"
        "├── .env.example\n"
        "├── .github/\n"
        "│   └── workflows/\n"
        "├── link -> /usr/local/bin\n"
        "└── src/\n"
        "    ├── main.go\n"
        "    └── pkg/\n"
    )


def test_directory_tree_leaves_out_denied_entries(root):
    for d in ("secrets/keys", "src/.private", "src/pkg", "docs"):
        (root / d).mkdir(parents=True)
    for f in ("secrets/a.pem", "secrets/keys/b.pem", "src/.private/token", "src/pkg/x.go", "src/.env", "docs/r.md",
              ".env"):
        (root / f).write_text("")
    with agenttools.toolset("editor", root=str(root), deny_dirs=["secrets", "**/.private", "**/.env"]) as reg:
        tree = (
            "proj/\n"
            "├── docs/\n"
            "│   └── r.md\n"
            "└── src/\n"
            "    └── pkg/\n"
        )
        assert call(reg, "view", path=".").text == tree
        assert call(reg, "view", path=str(root)).text == tree
        assert call(reg, "view", path="src").text == "src/\n└── pkg/\n    └── x.go\n"
        assert call(reg, "view", path="secrets").text.startswith("[ACCESS_DENIED] path not allowed: access denied")


# --- scoping ---------------------------------------------------------------------------------------------------

def test_scoping(root, tmp_path):
    (root / ".env").write_text("SECRET=1")
    (tmp_path / "outside.txt").write_text("x")
    (root / "escape").symlink_to(tmp_path / "outside.txt")
    with agenttools.toolset("editor", root=str(root), deny_dirs=["**/.env"]) as reg:
        assert call(reg, "view", path="/etc/hostname").text == (
            '[ACCESS_DENIED] path not allowed: access denied: path "/etc/hostname" is outside allowed directories')
        assert call(reg, "view", path=".env").text == (
            f'[ACCESS_DENIED] path not allowed: access denied: path "{root}/.env" matches deny pattern "**/.env"')
        assert call(reg, "view", path="escape").text.startswith("[ACCESS_DENIED] path not allowed: access denied: "
                                                                f'path "{tmp_path}/outside.txt"')
        assert call(reg, "create_file", path="../evil.txt", content="x").text.startswith("[ACCESS_DENIED]")
        assert call(reg, "str_replace", path="../outside.txt", old_str="x", new_str="y").text.startswith(
            "[ACCESS_DENIED]")
    assert not (tmp_path / "evil.txt").exists()
    assert (tmp_path / "outside.txt").read_text() == "x"
    with agenttools.toolset("editor", root=str(root), allow_dirs=["/"]) as opened:
        assert not call(opened, "view", path=str(tmp_path / "outside.txt")).is_error


# --- str_replace -----------------------------------------------------------------------------------------------

def test_str_replace_unique_with_snippet(reg, root):
    (root / "test.txt").write_text("hello world\nfoo bar\nbaz\n")
    out = call(reg, "str_replace", path="test.txt", old_str="foo bar", new_str="replaced")
    assert out.text == f"Replaced in {root}/test.txt\n\n1\thello world\n2\treplaced\n3\tbaz\n4\t\n"
    (root / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    out = call(reg, "str_replace", path="long.txt", old_str="line 10\n", new_str="ten\n")
    assert out.text == f"Replaced in {root}/long.txt\n\n" + "".join(
        f"{n:>2}\t{'ten' if n == 10 else f'line {n}'}\n" for n in range(6, 15))


def test_str_replace_errors(reg, root):
    (root / "a.txt").write_text("x x x")
    assert call(reg, "str_replace", path="a.txt", old_str="x", new_str="y").text == (
        f"[STR_REPLACE_AMBIGUOUS] found 3 occurrences in {root}/a.txt; match must be unique (use replace_all to "
        "replace all)")
    assert call(reg, "str_replace", path="a.txt", old_str="zz").text == f"[STR_REPLACE_NOT_FOUND] old_str not found in {root}/a.txt"
    assert call(reg, "str_replace", path="a.txt", old_str="zz", replace_all=True).text.startswith(
        "[STR_REPLACE_NOT_FOUND]")
    assert call(reg, "str_replace", path="missing.txt", old_str="", new_str="y").text == (
        "[INVALID_INPUT] old_str must not be empty")
    assert call(reg, "str_replace", path="missing.txt", old_str="a").text == (
        f"[PATH_NOT_FOUND] {root}/missing.txt does not exist")
    assert reg.call("str_replace", {"path": "a.txt"}).text == (
        "[INVALID_INPUT] missing required argument 'old_str'")
    assert reg.call("str_replace", {"path": "a.txt", "old_str": "x", "bogus": 1}).text == (
        "[INVALID_INPUT] unknown argument 'bogus'")


def test_str_replace_all_delete_and_attributes(reg, root):
    target = root / "many.txt"
    target.write_bytes(b"a\r\n" * 15)
    os.chmod(target, 0o755)
    assert call(reg, "str_replace", path="many.txt", old_str="a\n", new_str="b\n", replace_all=True).text == (
        f"Replaced 15 occurrences in {target}")
    assert target.read_bytes() == b"b\r\n" * 15
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o755
    assert call(reg, "str_replace", path="many.txt", old_str="b\r\n", replace_all=True).text == (
        f"Replaced 15 occurrences in {target}")
    assert target.read_bytes() == b""
    (root / "one.txt").write_text("keep DROP keep")
    assert call(reg, "str_replace", path="one.txt", old_str=" DROP").text == f"Replaced in {root}/one.txt\n\n1\tkeep keep\n"
    (root / "solo.txt").write_text("only")
    assert call(reg, "str_replace", path="solo.txt", old_str="only").text == f"Replaced in {root}/solo.txt\n\n"


# --- create_file -----------------------------------------------------------------------------------------------

def test_create_file(reg, root):
    old_umask = os.umask(0o077)
    try:
        out = call(reg, "create_file", path="src/pkg/new/file.go", content="package new\n")
    finally:
        os.umask(old_umask)
    target = root / "src" / "pkg" / "new" / "file.go"
    assert out.text == f"Created {target} (12 bytes)"
    assert target.read_text() == "package new\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644
    for directory in (root / "src", root / "src" / "pkg", root / "src" / "pkg" / "new"):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o755
    os.chmod(target, 0o600)
    assert call(reg, "create_file", path="src/pkg/new/file.go", content="é").text == f"Created {target} (2 bytes)"
    assert target.read_text() == "é"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    (root / "adir").mkdir()
    assert call(reg, "create_file", path="adir", content="x").text == (
        f"[IO_ERROR] could not write {root}/adir: open {root}/adir: is a directory")


# --- bash and task_output --------------------------------------------------------------------------------------

def test_bash_output_format(reg):
    assert call(reg, "bash", command="echo hello").text == "exit_code: 0\n\nstdout:\nhello\n"
    assert call(reg, "bash", command="exit 42").text == "exit_code: 42\n"
    assert call(reg, "bash", command="echo err >&2").text == "exit_code: 0\n\nstderr:\nerr\n"
    assert call(reg, "bash", command="echo out; echo err >&2; false").text == (
        "exit_code: 1\n\nstderr:\nerr\n\nstdout:\nout\n")  # the real status (upstream reported 0)
    assert call(reg, "bash", command="printf 'a\\n\\n\\n'").text == "exit_code: 0\n\nstdout:\na\n"
    assert call(reg, "bash", command="printf 'no newline'").text == "exit_code: 0\n\nstdout:\nno newline\n"
    out = call(reg, "bash", command="   ")
    assert (out.text, out.is_error) == ("[BASH_EMPTY_COMMAND] command must not be empty", True)


def test_bash_cwd_persists_for_every_tool(reg, root):
    (root / "sub").mkdir()
    (root / "sub" / "f.txt").write_text("inside sub\n")
    assert call(reg, "bash", command="cd sub").text == "exit_code: 0\n"
    assert call(reg, "bash", command="pwd").text == f"exit_code: 0\n\nstdout:\n{root}/sub\n"
    assert call(reg, "view", path="f.txt").text == "1\tinside sub\n"
    assert call(reg, "create_file", path="g.txt", content="g").text == f"Created {root}/sub/g.txt (1 bytes)"
    out = call(reg, "bash", command="cd /nonexistent")
    assert out.text.startswith("exit_code: 1\n\nstderr:\n")
    assert "No such file or directory" in out.text
    assert call(reg, "bash", command="pwd").text == f"exit_code: 0\n\nstdout:\n{root}/sub\n"


def test_bash_timeout_kills_the_group(reg, root):
    start = time.monotonic()
    out = call(reg, "bash", command="echo partial; sleep 30", timeout=500)
    assert out.text == "Command timed out after 500ms\n\nexit_code: -1\n\nstdout:\npartial\n"
    assert time.monotonic() - start < 10
    out = call(reg, "bash", command="trap 'echo got_sigterm; exit 0' TERM; sleep 30 & wait", timeout=500)
    assert out.text == "Command timed out after 500ms\n\nexit_code: 0\n\nstdout:\ngot_sigterm\n"


def test_bash_long_lines_and_big_output(reg):
    out = call(reg, "bash", command="head -c 100000 /dev/zero | tr '\\0' a")
    assert out.text.startswith("exit_code: 0\n\nstdout:\n" + "a" * 30000 + "\n\n[Truncated: output was 100001 "
                               "characters, showing first 30000]")  # the last line gets its "\n", as upstream


def test_background_tasks(reg):
    out = call(reg, "bash", command="echo started; sleep 0.5; echo done >&2; exit 3", run_in_background=True)
    first, second = out.text.split("\n")
    task_id = first.removeprefix("task_id: ")
    assert len(task_id) == 16
    assert second == "Command started in background."
    time.sleep(0.2)
    assert call(reg, "task_output", task_id=task_id).text == "status: running\n\nstdout:\nstarted\n"
    time.sleep(0.8)
    assert call(reg, "task_output", task_id=task_id).text == (
        "status: completed\nexit_code: 3\n\nstderr:\ndone\n\nstdout:\nstarted\n")
    out = call(reg, "task_output", task_id=task_id)
    assert (out.text, out.is_error) == (f"[BASH_TASK_NOT_FOUND] task not found: {task_id}", True)


def test_background_limit_and_close_kills(root):
    reg = agenttools.toolset("editor", root=str(root), max_tasks=2)
    ids = [call(reg, "bash", command=f"echo $$ > pid{i}; sleep 60.{i}1", run_in_background=True).text.split("\n")[0]
           for i in range(2)]
    assert all(i.startswith("task_id: ") for i in ids)
    out = call(reg, "bash", command="true", run_in_background=True)
    assert out.text == ("[BASH_TASK_LIMIT] could not add background task: maximum concurrent background task "
                        "limit (2) reached")
    deadline = time.monotonic() + 10
    def written(i: int) -> bool:
        return (root / f"pid{i}").exists() and bool((root / f"pid{i}").read_text().strip())

    def started() -> bool:  # the pid file is written just before the shell starts `sleep`: wait for both
        return all(written(i) and processes_running("sleep", f"60.{i}1") for i in range(2))

    try:
        while not started() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started()
    finally:
        reg.close()
    time.sleep(0.3)
    assert not any(processes_running("sleep", f"60.{i}1") for i in range(2))


def test_background_timeout(root):
    with agenttools.toolset("editor", root=str(root), background_timeout=0.3) as reg:
        task = call(reg, "bash", command="sleep 30", run_in_background=True).text.split("\n")[0][9:]
        time.sleep(1.0)
        assert call(reg, "task_output", task_id=task).text == (
            "status: completed (killed by background task timeout)\nexit_code: -1\n")


def test_background_tasks_die_with_the_interpreter(root):
    import subprocess
    import sys

    script = (
        "import agenttools, time\n"
        f"reg = agenttools.toolset('editor', root={str(root)!r})\n"
        "reg.call('bash', {'command': 'echo $$ > orphan.pid; sleep 60.61', 'run_in_background': True})\n"
        "for _ in range(100):\n"
        "    time.sleep(0.05)\n"
        f"    p = __import__('pathlib').Path({str(root / 'orphan.pid')!r})\n"
        "    if p.exists() and p.read_text().strip(): break\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert (root / "orphan.pid").read_text().strip()
    deadline = time.monotonic() + 15
    while processes_running("sleep", "60.61"):
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_bash_streams_read_line_by_line_as_upstream(reg):
    """Go's bufio.Scanner: the last line gets its newline, a CRLF loses its CR (stdout and stderr alike)."""
    out = call(reg, "bash", command="printf 'out\\r\\nlast'; printf 'err' >&2")
    assert out.text == "exit_code: 0\n\nstderr:\nerr\n\nstdout:\nout\nlast\n"
