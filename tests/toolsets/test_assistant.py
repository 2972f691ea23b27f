"""The assistant toolset: every text and flow of the contract, on real files, processes and a loopback webhook."""

from __future__ import annotations

import http.server
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest

import agenttools
from agenttools.process import ProcessManager
from agenttools.toolsets.assistant.texts import go_duration, go_mode
from conftest import host_pid, process_alive, processes_running


@pytest.fixture
def root(tmp_path) -> Path:
    work = tmp_path / "ws"
    work.mkdir()
    (work / "a.txt").write_text("foo\nbar\nfoo\n")
    return work


@pytest.fixture
def sent() -> list[tuple[str, str]]:
    return []


@pytest.fixture
def reg(root, sent):
    class Recorder:
        def send(self, chat_id: str, content: str) -> None:
            sent.append((chat_id, content))

    def broken(chat_id: str, content: str) -> None:
        raise ConnectionError("telegram is down")

    with agenttools.toolset("assistant", root=str(root), channels={"telegram-main": Recorder(),
                                                                   "fn": lambda c, m: sent.append((c, m)),
                                                                   "broken": broken}) as registry:
        yield registry


def call(reg, name, **args):
    out = reg.call(name, args)
    return out.text


def ok(reg, name, **args):
    out = reg.call(name, args)
    assert not out.is_error, out.text
    return json.loads(out.text)


def test_names(reg):
    assert reg.names() == ("read", "write", "edit", "list", "delete", "file", "exec", "process", "message")


def test_read(reg, root):
    assert call(reg, "read", path="a.txt") == '{"success":true,"path":"a.txt","content":"foo\\nbar\\nfoo\\n","size":12}'
    (root / "u.txt").write_text("<héllo & ünïcode>")
    assert call(reg, "read", path="u.txt") == '{"success":true,"path":"u.txt","content":"<héllo & ünïcode>","size":20}'
    assert call(reg, "read", path="nope") == f"ERROR: failed to read file: open {root}/nope: no such file or directory"
    assert call(reg, "read", path=".") == f"ERROR: failed to read file: read {root}: is a directory"
    assert call(reg, "read", path="   ") == "ERROR: path is required"
    assert call(reg, "read", path=3) == "ERROR: path is required"
    assert call(reg, "read", path="../../etc/passwd") == "ERROR: path not allowed: " + os.path.normpath(
        str(root / "../../etc/passwd"))
    out = reg.call("read", {"path": "a.txt"})
    assert out.is_error is False


def test_symlink_escape_is_refused(reg, root, tmp_path):
    (tmp_path / "secret.txt").write_text("s")
    (root / "link").symlink_to(tmp_path / "secret.txt")
    assert call(reg, "read", path="link") == f"ERROR: path not allowed: {root}/link"
    assert call(reg, "write", path="link", content="x") == f"ERROR: path not allowed: {root}/link"
    assert (tmp_path / "secret.txt").read_text() == "s"
    assert call(reg, "delete", path="link") == '{"success":true,"path":"link"}'  # removes the link, not the target
    assert (tmp_path / "secret.txt").exists()


def test_write(reg, root):
    old = os.umask(0o077)
    try:
        assert call(reg, "write", path="deep/new.txt", content="hé") == '{"success":true,"path":"deep/new.txt","size":3}'
    finally:
        os.umask(old)
    assert (root / "deep" / "new.txt").read_text() == "hé"
    assert oct(os.stat(root / "deep" / "new.txt").st_mode & 0o777) == "0o644"
    assert oct(os.stat(root / "deep").st_mode & 0o777) == "0o755"
    assert call(reg, "write", path="x.txt") == "ERROR: write: missing required parameter 'content'"
    assert call(reg, "write", path="x.txt", content=5) == "ERROR: write: missing required parameter 'content'"
    assert call(reg, "write", path=".", content="x").startswith(f"ERROR: failed to write file: open {root}:")


def test_edit_text_mode(reg, root):
    assert call(reg, "edit", path="a.txt", old_text="foo", new_text="baz") == (
        '{"success":true,"path":"a.txt","changes":2,"size":12}')
    assert (root / "a.txt").read_text() == "baz\nbar\nbaz\n"
    assert call(reg, "edit", path="a.txt", old_text="baz", new_text="q", replace_all="false") == (
        '{"success":true,"path":"a.txt","changes":1,"size":10}')
    assert (root / "a.txt").read_text() == "q\nbar\nbaz\n"
    assert call(reg, "edit", path="a.txt", old_text="zz", new_text="q") == "ERROR: old_text not found in file"
    assert call(reg, "edit", path="a.txt", old_text="", new_text="q") == "ERROR: old_text must not be empty when provided"
    assert call(reg, "edit", path="a.txt", old_text="q", new_text="q") == "ERROR: edit made no changes"
    assert call(reg, "edit", path="a.txt", old_text="q") == "ERROR: new_text is required"
    assert call(reg, "edit", path="nope", old_text="a", new_text="b") == (
        f"ERROR: failed to read file: open {root}/nope: no such file or directory")


def test_edit_line_mode(reg, root):
    assert call(reg, "edit", path="a.txt", start_line="2", end_line=2, new_text="B1\nB2") == (
        '{"success":true,"path":"a.txt","changes":1,"size":14}')
    assert (root / "a.txt").read_text() == "foo\nB1\nB2\nfoo\n"
    assert call(reg, "edit", path="a.txt", start_line=5, end_line=5, new_text="end") == (
        '{"success":true,"path":"a.txt","changes":1,"size":17}')  # the empty "line" after the final newline
    assert call(reg, "edit", path="a.txt", start_line=9, end_line=9, new_text="x") == "ERROR: line range out of bounds"
    assert call(reg, "edit", path="a.txt", start_line=3, end_line=2, new_text="x") == "ERROR: end_line must be >= start_line"
    assert call(reg, "edit", path="a.txt", new_text="x") == "ERROR: either old_text or start_line/end_line is required"
    assert call(reg, "edit", path="a.txt", start_line=1, end_line=1, new_text="foo") == "ERROR: edit made no changes"
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    ok(reg, "edit", path="w.txt", start_line=2, end_line=2, new_text="2a\n2b")
    assert (root / "w.txt").read_bytes() == b"one\r\n2a\r\n2b\r\nthree\r\n"


def test_list(reg, root):
    (root / "sub").mkdir()
    os.chmod(root / "sub", 0o755)
    os.chmod(root / "a.txt", 0o644)
    (root / "link").symlink_to("a.txt")
    data = ok(reg, "list", path=".")
    assert data == {"success": True, "path": ".", "count": 3, "files": [
        {"name": "a.txt", "path": "a.txt", "type": "file", "size": 12, "mode": "-rw-r--r--"},
        {"name": "link", "path": "link", "type": "file", "size": 5, "mode": "Lrwxrwxrwx"},
        {"name": "sub", "path": "sub", "type": "directory", "size": os.lstat(root / "sub").st_size,
         "mode": "drwxr-xr-x"}]}
    assert list(json.loads(call(reg, "list", path="sub"))) == ["success", "path", "files", "count"]
    assert call(reg, "list", path="sub") == '{"success":true,"path":"sub","files":[],"count":0}'
    assert call(reg, "list", path="nope") == f"ERROR: failed to list directory: open {root}/nope: no such file or directory"
    assert ok(reg, "list", path="sub/../sub")["path"] == "sub/../sub"


def test_go_mode_strings():
    import stat

    assert go_mode(stat.S_IFREG | 0o4755) == "urwxr-xr-x"
    assert go_mode(stat.S_IFDIR | 0o1777) == "dtrwxrwxrwx"
    assert go_mode(stat.S_IFIFO | 0o644) == "prw-r--r--"
    assert go_mode(stat.S_IFCHR | 0o666) == "Dcrw-rw-rw-".replace("D", "")


def test_delete(reg, root):
    (root / "empty").mkdir()
    (root / "full").mkdir()
    (root / "full" / "f").write_text("")
    assert call(reg, "delete", path="a.txt") == '{"success":true,"path":"a.txt"}'
    assert call(reg, "delete", path="empty") == '{"success":true,"path":"empty"}'
    assert call(reg, "delete", path="full") == f"ERROR: failed to delete file: remove {root}/full: directory not empty"
    assert call(reg, "delete", path="a.txt") == f"ERROR: failed to delete file: remove {root}/a.txt: no such file or directory"
    assert call(reg, "delete", path=".") == f"ERROR: path not allowed: {root}"


def test_file_legacy(reg, root):
    (root / "d").mkdir()
    assert ok(reg, "file", operation="read_file", path="a.txt")["content"] == "foo\nbar\nfoo\n"
    assert ok(reg, "file", path="a.txt")["content"] == "foo\nbar\nfoo\n"  # inferred read_file
    assert ok(reg, "file", path="new.txt", content="x") == {"success": True, "path": "new.txt", "size": 1}
    assert call(reg, "file", path="d") == '{"success":true,"path":"d","files":null,"count":0}'
    (root / "d" / "f").write_text("")
    listing = ok(reg, "file", operation="list_dir", path="d")
    assert listing["files"][0]["mtime"] == int(os.stat(root / "d" / "f").st_mtime)
    assert ok(reg, "file", operation="delete_file", path="new.txt") == {"success": True, "path": "new.txt"}
    assert call(reg, "file") == "ERROR: operation not specified, use one of: read_file, write_file, list_dir, delete_file"
    assert call(reg, "file", operation="zap", path="x") == "ERROR: unknown operation: zap"
    assert call(reg, "file", operation="read_file") == "ERROR: path is required"


def test_exec(reg, root):
    assert call(reg, "exec", command="echo hi; echo err >&2; exit 3") == (
        f'{{"success":false,"command":"echo hi; echo err >&2; exit 3","exit_code":3,"stdout":"hi\\n",'
        f'"stderr":"err\\n","working_dir":"{root}"}}')
    data = ok(reg, "exec", command=["  printf", "%s|", " a b ", ""], working_dir=".")
    assert (data["command"], data["stdout"], data["success"]) == ("printf %s| a b", "a b|", True)
    (root / "sub").mkdir()
    assert ok(reg, "exec", command="pwd", working_dir="sub")["stdout"] == f"{root}/sub\n"
    assert call(reg, "exec", command="   ") == "ERROR: command is required"
    assert call(reg, "exec") == "ERROR: command is required and must be string or []string"
    assert call(reg, "exec", command=[" ", ""]) == "ERROR: command is required"
    assert call(reg, "exec", command={"x": 1}) == "ERROR: command is required and must be string or []string"
    assert call(reg, "exec", command=["no-such-program-xyz"]) == (
        'ERROR: command execution failed: exec: "no-such-program-xyz": executable file not found in $PATH')
    assert call(reg, "exec", command="ls", working_dir="../..") == "ERROR: path not allowed: " + os.path.normpath(
        str(root / "../.."))


def test_exec_timeout_kills_the_group(reg, root):
    start = time.monotonic()
    assert call(reg, "exec", command="sleep 30.31 & echo $! > child.pid; wait", timeout=0.3) == (
        "ERROR: command timeout after 300ms")
    assert time.monotonic() - start < 10
    assert (root / "child.pid").read_text().strip()
    time.sleep(0.3)
    assert not processes_running("sleep", "30.31")


def test_exec_output_cap(reg):
    data = ok(reg, "exec", command="head -c 3000000 /dev/zero | tr '\\0' x")
    assert data["truncated"] is True
    assert len(data["stdout"]) < 1024 * 1024 + 100
    assert list(data)[-1] == "truncated"


@pytest.mark.parametrize(("seconds", "text"), [(0.1, "100ms"), (60, "1m0s"), (120, "2m0s"), (1.5, "1.5s"),
                                               (3600, "1h0m0s"), (0.0000015, "1.5µs"), (90.25, "1m30.25s")])
def test_go_durations(seconds, text):
    assert go_duration(seconds) == text




RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$")


def test_process_flow_with_children(reg, root):
    started = ok(reg, "process", action=" START ", command="echo out; (sleep 60 & echo $! > grandchild.pid; wait) & "
                                                           "echo err >&2; wait")
    assert list(started) == ["success", "process_id", "running", "command", "working_dir", "started_at"]
    assert (started["process_id"], started["running"], started["working_dir"]) == ("proc-1", True, str(root))
    assert RFC3339.match(started["started_at"])
    deadline = time.monotonic() + 5
    pid_file = root / "grandchild.pid"
    while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    grandchild = host_pid(int((root / "grandchild.pid").read_text()))
    while ok(reg, "process", action="log", process_id="proc-1", tail="2")["stderr"] != "r\n" and \
            time.monotonic() < deadline:  # the shell may write "err" a moment after the grandchild's pid file
        time.sleep(0.05)
    status = ok(reg, "process", action="status", pid="proc-1")
    assert status == {"process_id": "proc-1", "command": started["command"], "working_dir": str(root),
                      "running": True, "started_at": started["started_at"]}
    log = ok(reg, "process", action="log", process_id="proc-1", tail="2")
    assert (log["stdout"], log["stderr"], log["tail"]) == ("t\n", "r\n", 2)
    assert ok(reg, "process", action="log", process_id="proc-1", tail=0)["tail"] == 4096
    assert ok(reg, "process", action="log", process_id="proc-1", tail=10**9)["tail"] == 1024 * 1024
    killed = ok(reg, "process", action="kill", process_id="proc-1")
    assert killed["killed"] is True
    time.sleep(0.5)
    after = ok(reg, "process", action="status", process_id="proc-1")
    assert (after["running"], after["exit_code"], after["error"]) == (False, -1, "signal: killed")
    assert RFC3339.match(after["ended_at"])
    assert not process_alive(grandchild)
    assert ok(reg, "process", action="kill", process_id="proc-1")["killed"] is False
    ok(reg, "process", action="start", command=["sh", "-c", "exit 3"])
    time.sleep(0.3)
    listed = json.loads(call(reg, "process", action="list"))
    assert [p["process_id"] for p in listed] == ["proc-1", "proc-2"]
    assert (listed[1]["command"], listed[1]["exit_code"], listed[1]["error"]) == ("sh -c exit 3", 3, "exit status 3")


def test_process_errors(reg):
    assert call(reg, "process") == "ERROR: action is required"
    assert call(reg, "process", action="fly") == "ERROR: unsupported action: fly"
    assert call(reg, "process", action="status") == "ERROR: process_id is required"
    assert call(reg, "process", action="log", process_id="proc-9") == "ERROR: process not found: proc-9"
    assert call(reg, "process", action="start") == "ERROR: command is required and must be string or []string"
    assert call(reg, "process", action="list") == "[]"


def test_process_limit(root):
    with agenttools.toolset("assistant", root=str(root), max_running=2) as reg:
        for _ in range(2):
            ok(reg, "process", action="start", command="sleep 30")
        assert call(reg, "process", action="start", command="sleep 30") == (
            "ERROR: too many active processes (2/2), kill some before starting new ones")
        ok(reg, "process", action="kill", process_id="proc-1")
        time.sleep(0.3)
        assert ok(reg, "process", action="start", command="true")["process_id"] == "proc-3"


def test_process_manager_on_its_own(tmp_path):
    with ProcessManager(max_running=4, max_output=64, expire_after=0.5) as manager:
        first = manager.start("printf 'x%.0s' $(seq 1 200); echo; echo done", cwd=tmp_path)
        assert first.id == "proc-1"
        final = manager.wait(first.id, 5)
        assert final.exit_code == 0
        out, _ = manager.tail(first.id, 10)
        assert out == b"xxxxx\ndone\n"[-10:]
        assert len(manager.tail(first.id, 10_000)[0]) == 64  # the ring buffer keeps the last 64 bytes
        time.sleep(0.7)
        assert manager.list() == ()  # finished records expire
    assert manager.closed


def test_message(reg, sent):
    assert call(reg, "message", chanId="telegram-main", chatId="123456", content="Task completed.") == (
        '{"success":true,"chanId":"telegram-main","chatId":"123456","content":"Task completed."}')
    assert call(reg, "message", channel_id=" fn ", chat_id=42, content="x") == (
        '{"success":true,"chanId":"fn","chatId":"42","content":"x"}')
    assert ok(reg, "message", channelId="fn", chat_id=7.0, content="y")["chatId"] == "7"
    assert ok(reg, "message", chan_id="fn", chatId="1", content="z")["chanId"] == "fn"
    assert sent == [("123456", "Task completed."), ("42", "x"), ("7", "y"), ("1", "z")]
    assert call(reg, "message", chatId="1", content="x") == "ERROR: chanId is required"
    assert call(reg, "message", chanId="  ", chatId="1", content="x") == "ERROR: chanId is required"
    assert call(reg, "message", chanId="fn", content="x") == "ERROR: chatId is required"
    assert call(reg, "message", chanId="fn", chatId="1") == "ERROR: send_message: missing required parameter 'content'"
    assert call(reg, "message", chanId="nope", chatId="1", content="x") == "ERROR: channel not found: nope"
    assert call(reg, "message", chanId="broken", chatId="1", content="x") == (
        "ERROR: failed to send message: telegram is down")


class _Hook(http.server.BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []
    status = 200

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.path, dict(self.headers), body))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_webhook_channel_against_a_loopback_server(root):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    try:
        channel = agenttools.message.WebhookChannel(url=url, headers={"Authorization": "Bearer t"})
        with agenttools.toolset("assistant", root=str(root), channels={"ops": channel, "plain": url}) as reg:
            assert ok(reg, "message", chanId="ops", chatId="room-1", content="héllo")["content"] == "héllo"
            ok(reg, "message", chanId="plain", chatId=5, content="x")
            _Hook.status = 500
            assert call(reg, "message", chanId="ops", chatId="1", content="x") == (
                "ERROR: failed to send message: webhook answered 500 Internal Server Error")
        path, headers, body = _Hook.received[0]
        assert (path, headers["Authorization"], headers["Content-Type"]) == ("/hook", "Bearer t", "application/json")
        assert json.loads(body) == {"chat_id": "room-1", "content": "héllo"}
        assert json.loads(_Hook.received[1][2]) == {"chat_id": "5", "content": "x"}
    finally:
        _Hook.status = 200
        server.shutdown()
        server.server_close()


def test_invalid_json_and_unknown_tool(reg):
    assert reg.call("read", "{oops").text.startswith("ERROR: failed to parse tool arguments: arguments are not valid JSON")
    assert reg.call("fly", {}).text == "ERROR: tool not found: fly"
