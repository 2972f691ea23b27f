"""The assistant toolset against TGIFAI/friday at d828a5d (the repository's HEAD; no other commit is named).

Every case of friday's Go tests for these tools (internal/agent/tool/shellx/shell_test.go: filex and msgx have
none) is ported here, then the texts its code words (internal/agent/tool/{filex,shellx,msgx}/*.go, registry.go,
and the agent's ``"ERROR: " + err.Error()`` / ``sonic.MarshalString(res)`` in internal/agent/compact.go).
Expected texts are copied from that source, not read from it at test time. Where agenttools deliberately
differs, the case asserts our behaviour and names the deviation of docs/toolsets/assistant.md.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import agenttools

MIB = 1 << 20  # shellx: maxExecOutputBytes, maxProcessBufferBytes
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$")


def compact(value: Any) -> str:
    """What sonic.MarshalString gives for friday's result maps (keys in the order we emit them)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.fixture
def root(tmp_path: Path) -> str:
    work = tmp_path / "ws"
    work.mkdir()
    return os.path.realpath(work)


@pytest.fixture
def sent() -> list[tuple[str, str]]:
    return []


@pytest.fixture
def reg(root: str, sent: list[tuple[str, str]]):
    with agenttools.toolset("assistant", root=root,
                            channels={"tg": lambda chat, text: sent.append((chat, text))}) as registry:
        yield registry


def text(reg, name: str, **args: Any) -> str:
    return reg.call(name, args).text


def data(reg, name: str, **args: Any) -> Any:
    out = reg.call(name, args)
    assert not out.is_error, out.text
    return json.loads(out.text)


def wait_finished(reg, process_id: str, seconds: float = 5.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        status = data(reg, "process", action="status", process_id=process_id)
        if not status["running"]:
            return status
        assert time.monotonic() < deadline, status
        time.sleep(0.05)


# --- shellx/shell_test.go -------------------------------------------------------------------------------------

def test_parse_command_arg_string_and_slice(reg, root):
    # TestParseCommandArgSupportsStringAndSlice/string: a string runs in a shell, displayed as given (trimmed).
    assert text(reg, "exec", command="  echo hello ") == compact(
        {"success": True, "command": "echo hello", "exit_code": 0, "stdout": "hello\n", "stderr": "",
         "working_dir": root})
    # TestParseCommandArgSupportsStringAndSlice/slice: program "echo", argv ["hello"], displayed joined by spaces.
    assert text(reg, "exec", command=["echo", "hello"]) == compact(
        {"success": True, "command": "echo hello", "exit_code": 0, "stdout": "hello\n", "stderr": "",
         "working_dir": root})


def test_exec_supports_command_array(reg, root):
    # TestExecToolExecuteSupportsCommandArray: [LookPath("echo"), "hello-from-array"] runs without a shell.
    echo = shutil.which("echo")
    assert echo is not None
    assert text(reg, "exec", command=[echo, "hello-from-array"]) == compact(
        {"success": True, "command": f"{echo} hello-from-array", "exit_code": 0, "stdout": "hello-from-array\n",
         "stderr": "", "working_dir": root})


def test_exec_timeout_returns_error(reg):
    # TestExecToolTimeoutReturnsError: "sleep 2" with timeout 0.1 fails with "command timeout after 100ms"
    # (fmt.Errorf("command timeout after %v", timeout), a time.Duration printed by Go).
    started = time.monotonic()
    assert text(reg, "exec", command="sleep 2", timeout=0.1) == "ERROR: command timeout after 100ms"
    assert time.monotonic() - started < 1.5


def test_exec_returns_stdout_stderr_and_exit_code(reg, root):
    # TestExecToolReturnsStdoutStderrAndExitCode: a non-zero exit is a result (success false), not an error.
    assert text(reg, "exec", command="echo out; echo err >&2; exit 7") == compact(
        {"success": False, "command": "echo out; echo err >&2; exit 7", "exit_code": 7, "stdout": "out\n",
         "stderr": "err\n", "working_dir": root})


def test_process_lifecycle(reg, root):
    # TestProcessToolLifecycle: start, poll status until it is no longer running, log has the output, list has it.
    started = data(reg, "process", action="start", command="echo started; sleep 1")
    assert list(started) == ["success", "process_id", "running", "command", "working_dir", "started_at"]
    assert (started["success"], started["process_id"], started["running"], started["command"],
            started["working_dir"]) == (True, "proc-1", True, "echo started; sleep 1", root)
    assert RFC3339.match(started["started_at"])
    status = wait_finished(reg, "proc-1")
    assert RFC3339.match(status["ended_at"])
    # snapshotStatus: process_id, command, working_dir, running, started_at, then ended_at and exit_code once
    # finished; "error" only when Wait failed.
    assert text(reg, "process", action="status", process_id="proc-1") == compact(
        {"process_id": "proc-1", "command": "echo started; sleep 1", "working_dir": root, "running": False,
         "started_at": started["started_at"], "ended_at": status["ended_at"], "exit_code": 0})
    # logProcess: the status plus the last `tail` bytes of each stream (default 4096) and the tail used.
    assert text(reg, "process", action="log", process_id="proc-1") == compact(
        {"process_id": "proc-1", "command": "echo started; sleep 1", "working_dir": root, "running": False,
         "started_at": started["started_at"], "ended_at": status["ended_at"], "exit_code": 0,
         "stdout": "started\n", "stderr": "", "tail": 4096})
    # listProcesses: a bare array of snapshots.
    assert text(reg, "process", action="list") == compact([status])


def test_exec_timeout_capped_at_max(reg):
    # TestExecToolTimeoutCappedAtMax: resolveTimeout({"timeout": 9999}) is maxTimeout (600s). Only the timeout
    # error would print the cap (after ten minutes), so this checks that a huge timeout is accepted and runs.
    assert data(reg, "exec", command="echo fast", timeout=9999)["stdout"] == "fast\n"


def test_exec_output_truncation(reg):
    # TestExecToolOutputTruncation: ~1.6 MiB of output gives truncated=true and stdout of at most 1 MiB.
    line = "a" * 79
    out = data(reg, "exec", command=f"yes '{line}' | head -n 20000", timeout=10)
    assert out["truncated"] is True
    assert len(out["stdout"].encode()) <= MIB
    assert list(out)[-1] == "truncated"
    # friday keeps the first 1 MiB (iobuf.LimitedBuffer); we keep the head and the tail with a marker between
    # them (deviation 5): the head is friday's.
    assert out["stdout"].startswith((line + "\n") * 1000)
    assert re.search(r"\n\[\.\.\. \d+ bytes of output omitted \.\.\.\]\n", out["stdout"])


def test_resolve_work_dir(reg, root):
    os.mkdir(os.path.join(root, "sub"))
    os.mkdir(os.path.join(root, "inner"))
    # TestResolveWorkDir/empty returns workspace
    assert data(reg, "exec", command="pwd")["working_dir"] == root
    assert data(reg, "exec", command="pwd", working_dir="  ")["working_dir"] == root
    # TestResolveWorkDir/relative path joined with workspace
    out = data(reg, "exec", command="pwd", working_dir="sub")
    assert (out["working_dir"], out["stdout"]) == (os.path.join(root, "sub"), os.path.join(root, "sub") + "\n")
    # TestResolveWorkDir/absolute path inside workspace allowed (reported as given)
    inner = os.path.join(root, "inner")
    out = data(reg, "exec", command="pwd", working_dir=inner)
    assert (out["working_dir"], out["stdout"]) == (inner, inner + "\n")
    # TestResolveWorkDir/absolute path outside workspace rejected: friday silently runs in the workspace instead;
    # we refuse the call, so a command meant for another directory never runs here (deviation 1).
    outside = str(Path(root).parent)
    assert text(reg, "exec", command="pwd", working_dir=outside) == f"ERROR: path not allowed: {outside}"
    assert text(reg, "process", action="start", command="pwd", working_dir=outside) == (
        f"ERROR: path not allowed: {outside}")


def test_process_active_limit(reg):
    # TestProcessToolActiveLimit: maxActiveProcesses (16) long runners, then the next start is refused with
    # fmt.Errorf("too many active processes (%d/%d), kill some before starting new ones", ...).
    for index in range(16):
        assert data(reg, "process", action="start", command="sleep 30")["process_id"] == f"proc-{index + 1}"
    assert text(reg, "process", action="start", command="echo should-fail") == (
        "ERROR: too many active processes (16/16), kill some before starting new ones")
    # startProcess checks the limit before it parses the command.
    assert text(reg, "process", action="start") == (
        "ERROR: too many active processes (16/16), kill some before starting new ones")
    for index in range(16):
        assert data(reg, "process", action="kill", process_id=f"proc-{index + 1}")["killed"] is True


def test_process_kill(reg, root):
    # TestProcessToolKill: start "sleep 5", kill it, and status reports it not running within 4 seconds.
    started = data(reg, "process", action="start", command="sleep 5")
    killed = data(reg, "process", action="kill", process_id=started["process_id"])
    # killProcess: the status taken right after SIGKILL to the group, plus killed = whether it was running.
    assert list(killed)[:5] == ["process_id", "command", "working_dir", "running", "started_at"]
    assert (killed["process_id"], killed["command"], killed["working_dir"], killed["killed"]) == (
        "proc-1", "sleep 5", root, True)
    status = wait_finished(reg, "proc-1", 4)
    # waitProcess: an ExitError from a signal has ExitCode() -1 and the text "signal: killed".
    assert text(reg, "process", action="status", process_id="proc-1") == compact(
        {"process_id": "proc-1", "command": "sleep 5", "working_dir": root, "running": False,
         "started_at": started["started_at"], "ended_at": status["ended_at"], "exit_code": -1,
         "error": "signal: killed"})
    # A second kill finds it finished: killed false, nothing sent.
    assert data(reg, "process", action="kill", process_id="proc-1")["killed"] is False


# --- shellx/exec.go and process.go: the texts of the code -------------------------------------------------------

def test_parse_command_arg_errors(reg):
    # parseCommandArg: nil (missing), numbers and objects are "command is required and must be string or []string";
    # a blank string, and an array whose items are all blank after gconv.To[string] + TrimSpace, are
    # "command is required".
    assert text(reg, "exec") == "ERROR: command is required and must be string or []string"
    assert text(reg, "exec", command=5) == "ERROR: command is required and must be string or []string"
    assert text(reg, "exec", command={"a": 1}) == "ERROR: command is required and must be string or []string"
    assert text(reg, "exec", command="   ") == "ERROR: command is required"
    assert text(reg, "exec", command=[]) == "ERROR: command is required"
    assert text(reg, "exec", command=[" ", "", None]) == "ERROR: command is required"
    # Array items are gconv.To[string]: numbers printed (FormatFloat 'f' -1), null and objects are "" (dropped).
    out = data(reg, "exec", command=["  printf", "%s|", 5, 1.5, None, {"x": 1}, True, " a b "])
    assert (out["command"], out["stdout"]) == ("printf %s| 5 1.5 true a b", "5|1.5|true|a b|")


def test_exec_start_failures(reg, root):
    # exec.Command(name) with no separator in name: LookPath's error comes from Start.
    assert text(reg, "exec", command=["no-such-program-xyz", "a"]) == (
        'ERROR: command execution failed: exec: "no-such-program-xyz": executable file not found in $PATH')
    # A path: the child's execve fails: &PathError{Op: "fork/exec", Path: name, Err: errno}.
    assert text(reg, "exec", command=["/no/such/prog"]) == (
        "ERROR: command execution failed: fork/exec /no/such/prog: no such file or directory")
    Path(root, "plain.txt").write_text("x")
    assert text(reg, "exec", command=["./plain.txt"]) == (
        "ERROR: command execution failed: fork/exec ./plain.txt: permission denied")
    # A working_dir that does not exist: with Setpgid set os.StartProcess skips its "chdir" check, so the child's
    # chdir error is reported against the program (the shell) - we run bash (deviation 5).
    bash = shutil.which("bash")
    assert text(reg, "exec", command="true", working_dir="nodir") == (
        f"ERROR: command execution failed: fork/exec {bash}: no such file or directory")
    assert text(reg, "exec", command="true", working_dir="plain.txt") == (
        f"ERROR: command execution failed: fork/exec {bash}: not a directory")
    # startProcess wraps the same errors as "start process failed: %w".
    assert text(reg, "process", action="start", command=["no-such-program-xyz"]) == (
        'ERROR: start process failed: exec: "no-such-program-xyz": executable file not found in $PATH')
    assert text(reg, "process", action="start", command="true", working_dir="nodir") == (
        f"ERROR: start process failed: fork/exec {bash}: no such file or directory")
    assert text(reg, "process", action="list") == "[]"


def test_exec_timeout_argument(reg):
    # resolveTimeout: gconv.To[float64] - numeric strings count, true is 1 second, <= 0 means the default (60s).
    assert text(reg, "exec", command="sleep 2", timeout="0.2") == "ERROR: command timeout after 200ms"
    assert data(reg, "exec", command="echo ok", timeout=0)["stdout"] == "ok\n"
    assert data(reg, "exec", command="echo ok", timeout="soon")["stdout"] == "ok\n"
    started = time.monotonic()
    assert text(reg, "exec", command="sleep 3", timeout=True) == "ERROR: command timeout after 1s"
    assert time.monotonic() - started < 2.5


def test_process_texts(reg, root):
    # Execute: action is gconv.To[string], trimmed, lower-cased; "" is "action is required".
    assert text(reg, "process") == "ERROR: action is required"
    assert text(reg, "process", action="  ") == "ERROR: action is required"
    assert text(reg, "process", action="Fly") == "ERROR: unsupported action: fly"
    assert text(reg, "process", action=7) == "ERROR: unsupported action: 7"
    assert text(reg, "process", action=" LIST ") == "[]"
    # getProcessByArgs: process_id, else pid (both gconv.To[string], trimmed).
    assert text(reg, "process", action="status") == "ERROR: process_id is required"
    assert text(reg, "process", action="log", process_id=" ", pid=" ") == "ERROR: process_id is required"
    assert text(reg, "process", action="kill", process_id="proc-9") == "ERROR: process not found: proc-9"
    assert text(reg, "process", action="status", pid=3) == "ERROR: process not found: 3"
    started = data(reg, "process", action="start", command=["sh", "-c", "printf 'abcdef'; printf 'XYZ' >&2"])
    assert started["command"] == "sh -c printf 'abcdef'; printf 'XYZ' >&2"
    wait_finished(reg, "proc-1")
    assert data(reg, "process", action="status", process_id="", pid=" proc-1 ")["process_id"] == "proc-1"
    # logProcess: tail is gconv.To[int]; <= 0 is 4096, more than 1 MiB is 1 MiB; Tail(n) is the last n bytes.
    log = data(reg, "process", action="log", process_id="proc-1", tail="3")
    assert (log["stdout"], log["stderr"], log["tail"]) == ("def", "XYZ", 3)
    assert data(reg, "process", action="log", process_id="proc-1", tail="3.0")["tail"] == 3
    assert data(reg, "process", action="log", process_id="proc-1", tail="3.5")["tail"] == 4096
    assert data(reg, "process", action="log", process_id="proc-1", tail=2.9)["stdout"] == "ef"
    assert data(reg, "process", action="log", process_id="proc-1", tail=-1)["tail"] == 4096
    assert data(reg, "process", action="log", process_id="proc-1", tail=10**9)["tail"] == MIB
    # waitProcess: an exit status is ExitCode() and err.Error().
    data(reg, "process", action="start", command="exit 3")
    assert (wait_finished(reg, "proc-2")["exit_code"], wait_finished(reg, "proc-2")["error"]) == (3, "exit status 3")


# --- filex/*.go -------------------------------------------------------------------------------------------------

def test_read(reg, root):
    Path(root, "a.txt").write_text("hi\n")
    # ReadTool: "path" is the argument as given; size is len(content) in bytes.
    assert text(reg, "read", path=" a.txt ") == '{"success":true,"path":" a.txt ","content":"hi\\n","size":3}'
    # fsGuard.resolvePath trims; "" is "path is required"; a non-string is "".
    assert text(reg, "read", path="  ") == "ERROR: path is required"
    assert text(reg, "read") == "ERROR: path is required"
    assert text(reg, "read", path=["a.txt"]) == "ERROR: path is required"
    # os.ReadFile errors, wrapped "failed to read file: %w".
    assert text(reg, "read", path="nope") == f"ERROR: failed to read file: open {root}/nope: no such file or directory"
    assert text(reg, "read", path=".") == f"ERROR: failed to read file: read {root}: is a directory"
    # checkPathAllowed: "path not allowed: %s" with the cleaned absolute path.
    assert text(reg, "read", path="../x/../y") == f"ERROR: path not allowed: {os.path.dirname(root)}/y"
    assert text(reg, "read", path="//etc//passwd") == "ERROR: path not allowed: /etc/passwd"


def test_write(reg, root):
    # WriteTool checks content before the path: "write: missing required parameter 'content'".
    assert text(reg, "write") == "ERROR: write: missing required parameter 'content'"
    assert text(reg, "write", path="x.txt", content=5) == "ERROR: write: missing required parameter 'content'"
    assert text(reg, "write", content="x") == "ERROR: path is required"
    # MkdirAll(dir, 0755) then WriteFile(path, 0644); size is len(content) in bytes.
    assert text(reg, "write", path="d/e/f.txt", content="hé") == '{"success":true,"path":"d/e/f.txt","size":3}'
    assert Path(root, "d/e/f.txt").read_bytes() == "hé".encode()
    assert text(reg, "write", path="d/e/f.txt", content="") == '{"success":true,"path":"d/e/f.txt","size":0}'
    assert Path(root, "d/e/f.txt").read_bytes() == b""


def test_edit(reg, root):
    target = Path(root, "a.txt")
    target.write_text("foo\nbar\nfoo\n")
    # EditTool reads the file before it looks at the edit: a missing file is a read error whatever the arguments.
    assert text(reg, "edit", path="nope") == f"ERROR: failed to read file: open {root}/nope: no such file or directory"
    # applyEdit: new_text must be a string.
    assert text(reg, "edit", path="a.txt", old_text="foo") == "ERROR: new_text is required"
    assert text(reg, "edit", path="a.txt", old_text="foo", new_text=1) == "ERROR: new_text is required"
    assert text(reg, "edit", path="a.txt", old_text="", new_text="x") == (
        "ERROR: old_text must not be empty when provided")
    assert text(reg, "edit", path="a.txt", old_text="zzz", new_text="x") == "ERROR: old_text not found in file"
    assert text(reg, "edit", path="a.txt", old_text="foo", new_text="foo") == "ERROR: edit made no changes"
    # replace_all defaults to true; changes is strings.Count; size is len(updated).
    assert text(reg, "edit", path="a.txt", old_text="foo", new_text="baz") == (
        '{"success":true,"path":"a.txt","changes":2,"size":12}')
    assert target.read_text() == "baz\nbar\nbaz\n"
    # replace_all is gconv.To[bool]: strconv.ParseBool strings; anything unparsable is false (first match only).
    assert text(reg, "edit", path="a.txt", old_text="baz", new_text="q", replace_all="yes") == (
        '{"success":true,"path":"a.txt","changes":1,"size":10}')
    assert target.read_text() == "q\nbar\nbaz\n"
    assert text(reg, "edit", path="a.txt", old_text="a", new_text="A", replace_all="T") == (
        '{"success":true,"path":"a.txt","changes":2,"size":10}')
    assert target.read_text() == "q\nbAr\nbAz\n"
    assert text(reg, "edit", path="a.txt", old_text="A", new_text="a", replace_all=0) == (
        '{"success":true,"path":"a.txt","changes":1,"size":10}')
    assert target.read_text() == "q\nbar\nbAz\n"


def test_edit_line_mode(reg, root):
    target = Path(root, "a.txt")
    target.write_text("l1\nl2\nl3\n")
    # Line mode: start_line/end_line are gconv.To[int] ("2", "2.0", 2.7 are 2; "2.5" and " 2" are 0; true is 1).
    assert text(reg, "edit", path="a.txt", new_text="x") == "ERROR: either old_text or start_line/end_line is required"
    assert text(reg, "edit", path="a.txt", new_text="x", start_line="2.5", end_line=2) == (
        "ERROR: either old_text or start_line/end_line is required")
    assert text(reg, "edit", path="a.txt", new_text="x", start_line=" 2", end_line=2) == (
        "ERROR: either old_text or start_line/end_line is required")
    assert text(reg, "edit", path="a.txt", new_text="x", start_line=3, end_line=2) == (
        "ERROR: end_line must be >= start_line")
    # strings.Split(content, "\n"): "l1\nl2\nl3\n" is 4 lines, the last empty.
    assert text(reg, "edit", path="a.txt", new_text="x", start_line=5, end_line=5) == (
        "ERROR: line range out of bounds")
    assert text(reg, "edit", path="a.txt", new_text="l2", start_line=2, end_line=2) == "ERROR: edit made no changes"
    assert text(reg, "edit", path="a.txt", new_text="B1\nB2", start_line="2.0", end_line=2.7) == (
        '{"success":true,"path":"a.txt","changes":1,"size":12}')
    assert target.read_text() == "l1\nB1\nB2\nl3\n"
    assert text(reg, "edit", path="a.txt", new_text="top", start_line=True, end_line=True) == (
        '{"success":true,"path":"a.txt","changes":1,"size":13}')
    assert target.read_text() == "top\nB1\nB2\nl3\n"
    assert text(reg, "edit", path="a.txt", new_text="end", start_line=5, end_line=5) == (
        '{"success":true,"path":"a.txt","changes":1,"size":16}')
    assert target.read_text() == "top\nB1\nB2\nl3\nend"
    assert text(reg, "edit", path="a.txt", new_text="", start_line=2, end_line=4) == (
        '{"success":true,"path":"a.txt","changes":1,"size":8}')
    assert target.read_text() == "top\n\nend"


def test_list(reg, root):
    Path(root, "b.txt").write_text("12345")
    os.chmod(Path(root, "b.txt"), 0o640)
    Path(root, "a").mkdir()
    os.chmod(Path(root, "a"), 0o750)
    Path(root, "ln").symlink_to("b.txt")
    dir_size = os.lstat(Path(root, "a")).st_size
    # ListTool: os.ReadDir order (by name); entry.Info() is lstat; a symlink is a "file" with its own size;
    # path is filepath.Join(<path as given>, name); mode is FileMode.String().
    assert text(reg, "list", path=".") == compact(
        {"success": True, "path": ".", "files": [
            {"name": "a", "path": "a", "type": "directory", "size": dir_size, "mode": "drwxr-x---"},
            {"name": "b.txt", "path": "b.txt", "type": "file", "size": 5, "mode": "-rw-r-----"},
            {"name": "ln", "path": "ln", "type": "file", "size": 5, "mode": "Lrwxrwxrwx"}], "count": 3})
    assert text(reg, "list", path="a") == '{"success":true,"path":"a","files":[],"count":0}'
    Path(root, "a", "f").write_text("")
    assert data(reg, "list", path="./a/")["files"][0]["path"] == "a/f"
    assert data(reg, "list", path=root + "//a")["files"][0]["path"] == root + "/a/f"
    assert text(reg, "list", path="nope") == (
        f"ERROR: failed to list directory: open {root}/nope: no such file or directory")


def test_delete(reg, root):
    Path(root, "f.txt").write_text("x")
    Path(root, "full").mkdir()
    Path(root, "full", "x").write_text("")
    Path(root, "empty").mkdir()
    # DeleteTool: os.Remove - a file or an empty directory; errors wrapped "failed to delete file: %w".
    assert text(reg, "delete", path="f.txt") == '{"success":true,"path":"f.txt"}'
    assert text(reg, "delete", path="empty") == '{"success":true,"path":"empty"}'
    assert text(reg, "delete", path="f.txt") == (
        f"ERROR: failed to delete file: remove {root}/f.txt: no such file or directory")
    assert text(reg, "delete", path="full") == f"ERROR: failed to delete file: remove {root}/full: directory not empty"
    assert text(reg, "delete", path=" ") == "ERROR: path is required"


def test_file_tool(reg, root):
    Path(root, "a.txt").write_text("abc")
    Path(root, "d").mkdir()
    # FileTool.Execute: a non-string operation is inferred (content -> write_file, a directory -> list_dir, else
    # read_file); without path nothing is inferred.
    assert text(reg, "file") == "ERROR: operation not specified, use one of: read_file, write_file, list_dir, delete_file"
    assert text(reg, "file", content="x") == (
        "ERROR: operation not specified, use one of: read_file, write_file, list_dir, delete_file")
    assert text(reg, "file", operation="", path="a.txt") == (
        "ERROR: operation not specified, use one of: read_file, write_file, list_dir, delete_file")
    assert text(reg, "file", path="a.txt") == '{"success":true,"path":"a.txt","content":"abc","size":3}'
    assert text(reg, "file", operation=None, path="a.txt") == '{"success":true,"path":"a.txt","content":"abc","size":3}'
    # list_dir: `var files []map...` stays nil for an empty directory (null); entries carry mtime (Unix seconds).
    assert text(reg, "file", path="d") == '{"success":true,"path":"d","files":null,"count":0}'
    # The operation is matched exactly: no trimming, no case folding.
    assert text(reg, "file", operation="LIST_DIR", path="d") == "ERROR: unknown operation: LIST_DIR"
    assert text(reg, "file", operation="list_dir ", path="d") == "ERROR: unknown operation: list_dir "
    # write_file checks the path first, then content ("write_file: missing required parameter 'content'").
    assert text(reg, "file", operation="write_file") == "ERROR: path is required"
    assert text(reg, "file", operation="write_file", path="n.txt") == (
        "ERROR: write_file: missing required parameter 'content'")
    assert text(reg, "file", path="n.txt", content="xy") == '{"success":true,"path":"n.txt","size":2}'
    Path(root, "d", "f").write_text("")
    os.chmod(Path(root, "d", "f"), 0o644)
    assert text(reg, "file", operation="list_dir", path="d") == compact(
        {"success": True, "path": "d", "files": [{"name": "f", "path": "d/f", "type": "file", "size": 0,
                                                  "mode": "-rw-r--r--",
                                                  "mtime": int(os.stat(Path(root, "d", "f")).st_mtime)}],
         "count": 1})
    # The file tool's own resolvePath does not trim: " a.txt" is a file named " a.txt".
    assert text(reg, "file", operation="read_file", path=" a.txt") == (
        f"ERROR: failed to read file: open {root}/ a.txt: no such file or directory")
    assert text(reg, "file", operation="delete_file", path="n.txt") == '{"success":true,"path":"n.txt"}'
    assert text(reg, "file", operation="read_file", path="") == "ERROR: path is required"


# --- msgx/msg.go --------------------------------------------------------------------------------------------------

def test_message(reg, sent):
    # getStringArg: the first of the keys whose gconv.To[string] value, trimmed, is not empty.
    assert text(reg, "message", chanId="tg", chatId="42", content="hello") == (
        '{"success":true,"chanId":"tg","chatId":"42","content":"hello"}')
    assert text(reg, "message", chanId=" ", channel_id=" tg ", chat_id=12, content="  padded  ") == (
        '{"success":true,"chanId":"tg","chatId":"12","content":"padded"}')
    assert text(reg, "message", chan_id="tg", chatId=1e21, content=2.5) == (
        '{"success":true,"chanId":"tg","chatId":"1000000000000000000000","content":"2.5"}')
    assert text(reg, "message", channelId="tg", chatId=True, content="x") == (
        '{"success":true,"chanId":"tg","chatId":"true","content":"x"}')
    assert sent == [("42", "hello"), ("12", "padded"), ("1000000000000000000000", "2.5"), ("true", "x")]
    assert text(reg, "message", chatId="1", content="x") == "ERROR: chanId is required"
    assert text(reg, "message", chanId="tg", content="x") == "ERROR: chatId is required"
    assert text(reg, "message", chanId="tg", chatId="1", content="   ") == (
        "ERROR: send_message: missing required parameter 'content'")
    assert text(reg, "message", chanId="nope", chatId="1", content="x") == "ERROR: channel not found: nope"
    assert len(sent) == 4


# --- registry.go and the tool definitions -----------------------------------------------------------------------

def test_registry_errors(reg):
    # Registry.Get: "tool not found: %s"; ExecuteToolCall: "failed to parse tool arguments: %w".
    assert reg.call("time", {}).text == "ERROR: tool not found: time"
    assert reg.call("read", "{oops").text.startswith("ERROR: failed to parse tool arguments: ")


# Each ToolInfo's Desc and its ParamsOneOf as eino's ToJSONSchema renders it (properties sorted, required in that
# order), from filex/*.go, shellx/exec.go, shellx/process.go and msgx/msg.go at d828a5d.
UPSTREAM_TOOLS: dict[str, tuple[str, dict[str, tuple[str, str]], list[str]]] = {
    "read": ("Read file content from an allowed path", {"path": ("string", "File path to read")}, ["path"]),
    "write": ("Write content to a file in allowed paths",
              {"content": ("string", "Full file content to write"), "path": ("string", "File path to write")},
              ["content", "path"]),
    "edit": ("Edit file by text replacement or line range replacement",
             {"end_line": ("integer", "1-based end line (for line-range mode)"),
              "new_text": ("string", "Replacement text"),
              "old_text": ("string", "Text to replace (omit to use line-range mode)"),
              "path": ("string", "File path to edit"),
              "replace_all": ("boolean", "Replace all matches (default true)"),
              "start_line": ("integer", "1-based start line (for line-range mode)")},
             ["new_text", "path"]),
    "list": ("List files in an allowed directory", {"path": ("string", "Directory path to list")}, ["path"]),
    "delete": ("Delete a file in allowed paths", {"path": ("string", "File path to delete")}, ["path"]),
    "file": ("File operations: read_file(path), write_file(path, content), list_dir(path), delete_file(path)",
             {"content": ("string", "File content (required for write_file)"),
              "operation": ("string", "Operation to perform: read_file, write_file, list_dir, delete_file"),
              "path": ("string", "File or directory path")},
             ["path"]),
    "exec": ("Execute short-lived commands",
             {"command": ("string", "Command string (shell) or JSON array of argv strings"),
              "timeout": ("number", "Timeout in seconds (optional, default 60, max 600)"),
              "working_dir": ("string", "Working directory (optional, defaults to workspace)")},
             ["command"]),
    "process": ("Manage long-running background processes",
                {"action": ("string", "Action to perform: start, status, log, kill, list"),
                 "command": ("string", "Command string or JSON array of argv strings (required for start)"),
                 "process_id": ("string", "Process ID (required for status, log, kill)"),
                 "tail": ("integer", "Max bytes per stream to return (optional, log only, default 4096)"),
                 "working_dir": ("string", "Working directory (optional, start only)")},
                ["action"]),
    "message": ("Send a message to a specific channel/chat",
                {"chanId": ("string", "Channel ID to send the message to"),
                 "chatId": ("string", "Chat ID within the channel"),
                 "content": ("string", "Message content to send")},
                ["chanId", "chatId", "content"]),
}
UPSTREAM_ENUMS = {("file", "operation"): ["read_file", "write_file", "list_dir", "delete_file"],
                  ("process", "action"): ["start", "status", "log", "kill", "list"]}


@pytest.mark.parametrize("name", list(UPSTREAM_TOOLS))
def test_tool_definitions(reg, name):
    description, properties, required = UPSTREAM_TOOLS[name]
    expected_properties = {}
    for key, (kind, desc) in properties.items():
        prop: dict[str, Any] = {"type": kind}
        if (name, key) in UPSTREAM_ENUMS:
            prop["enum"] = UPSTREAM_ENUMS[name, key]
        prop["description"] = desc
        expected_properties[key] = prop
    tool = reg[name]
    assert tool.description == description
    assert compact(tool.parameters) == compact(
        {"properties": expected_properties, "type": "object", "required": required})
