"""The anthropic toolset: native definitions (checked with the SDKs' own types), confinement, options, and the
behaviour its deviations promise (tabs and line endings kept, a directory listed without a shell, bash that ends).

Texts are pinned from the reference, computer-use-demo/computer_use_demo/tools/edit.py and bash.py of
anthropics/claude-quickstarts at 370e18d4a20ff5fd4bc1a6bf11d5105b2383977c (tests/fidelity/test_anthropic_upstream.py
runs the reference itself).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import anthropic.types
import mcp.types
import openai.types.chat
import openai.types.responses
import pydantic
import pytest
from google.genai import types as gtypes

import agenttools
from agenttools.errors import ConfigError
from conftest import gone, host_pid, read_pid

E = "str_replace_based_edit_tool"


@pytest.fixture
def reg(tmp_path):
    with agenttools.toolset("anthropic", root=str(tmp_path)) as registry:
        yield registry


def test_definitions_are_anthropics_native_types(reg):
    emitted = reg.definitions("anthropic")
    assert emitted == [{"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
                       {"type": "bash_20250124", "name": "bash"}]
    adapter = pydantic.TypeAdapter(anthropic.types.ToolUnionParam)
    assert [adapter.validate_python(d) for d in emitted] == emitted
    pydantic.TypeAdapter(anthropic.types.ToolTextEditor20250728Param).validate_python(emitted[0])
    pydantic.TypeAdapter(anthropic.types.ToolBash20250124Param).validate_python(emitted[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reg.definitions("anthropic", strict=True) == emitted
    emitted[0]["name"] = "changed"  # each call returns fresh dicts
    assert reg.definitions("anthropic")[0]["name"] == "str_replace_based_edit_tool"


def test_max_characters_goes_into_the_definition_and_clips_a_view(tmp_path):
    (tmp_path / "f.txt").write_text("abcdefghij\n")
    with agenttools.toolset("anthropic", root=str(tmp_path), max_characters=4) as reg:
        definition = reg.definitions("anthropic")[0]
        assert definition == {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool",
                              "max_characters": 4}
        pydantic.TypeAdapter(anthropic.types.ToolTextEditor20250728Param).validate_python(definition)
        out = reg.call(E, {"command": "view", "path": f"{tmp_path}/f.txt"})
    assert out.text.startswith(f"Here's the result of running `cat -n` on {tmp_path}/f.txt:\n     1\tabcd"
                               "<response clipped><NOTE>To save on context only part of this file")
    with pytest.raises(ConfigError, match="max_characters"):
        agenttools.toolset("anthropic", root=str(tmp_path), max_characters=0)


def test_other_formats_get_function_definitions_the_sdks_accept(reg):
    for definition in reg.definitions("openai") + reg.definitions("openai", strict=True):
        assert openai.types.chat.ChatCompletionFunctionTool.model_validate(definition)
    names = [d["function"]["name"] for d in reg.definitions("openai")]
    assert names == ["str_replace_based_edit_tool", "bash"]
    for definition in reg.definitions("openai-responses"):
        assert openai.types.responses.FunctionTool.model_validate(definition)
    for definition in reg.definitions("gemini"):
        assert gtypes.FunctionDeclaration.model_validate(definition)
    for definition in reg.definitions("mcp"):
        assert mcp.types.Tool.model_validate(definition)
    schema = reg.definitions("json-schema")[0]["parameters"]
    assert schema["required"] == ["command", "path"]
    assert schema["properties"]["command"]["enum"] == ["view", "create", "str_replace", "insert"]
    assert "insert_text" in schema["properties"]
    assert json.dumps(reg.definitions("mcp"))  # plain JSON


def test_native_definitions_are_per_format_and_leave_other_tools_alone(tmp_path):
    ours = agenttools.toolset("anthropic", root=str(tmp_path))
    extra = agenttools.Registry()

    @extra.tool
    def ping(x: int) -> str:
        """Answer."""
        return str(x)

    combined = ours | extra
    emitted = combined.definitions("anthropic")
    assert emitted[:2] == [{"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
                           {"type": "bash_20250124", "name": "bash"}]
    assert emitted[2]["name"] == "ping" and "input_schema" in emitted[2]
    combined.close()


def test_view_create_edit_insert(reg, tmp_path):
    path = f"{tmp_path}/x.py"
    assert reg.call(E, {"command": "create", "path": path, "file_text": "a\nb\n"}).text == \
        f"File created successfully at: {path}"
    assert reg.call(E, {"command": "view", "path": path, "view_range": [1, 2]}).text == \
        f"Here's the result of running `cat -n` on {path}:\n     1\ta\n     2\tb\n"
    out = reg.call(E, {"command": "str_replace", "path": path, "old_str": "b", "new_str": "B"})
    assert out.text == (f"The file {path} has been edited. Here's the result of running `cat -n` on a snippet of "
                        f"{path}:\n     1\ta\n     2\tB\n     3\t\nReview the changes and make sure they are as "
                        "expected. Edit the file again if necessary.")
    out = reg.call(E, {"command": "insert", "path": path, "insert_line": 0, "insert_text": "top"})
    assert not out.is_error
    assert (tmp_path / "x.py").read_text() == "top\na\nB\n"


def test_errors_are_the_references(reg, tmp_path):
    assert reg.call(E, {"command": "view", "path": "x.py"}).text == \
        "The path x.py is not an absolute path, it should start with `/`. Maybe you meant x.py?"
    out = reg.call(E, {"command": "view", "path": f"{tmp_path}/nope"})
    assert (out.text, out.is_error) == (f"The path {tmp_path}/nope does not exist. Please provide a valid path.", True)
    (tmp_path / "f.txt").write_text("x\n")
    assert reg.call(E, {"command": "undo_edit", "path": f"{tmp_path}/f.txt"}).text == (
        "Unrecognized command undo_edit. The allowed commands for the str_replace_based_edit_tool tool are: view, "
        "create, str_replace, insert")


def test_edits_keep_tabs_and_line_endings_of_untouched_lines(reg, tmp_path):
    (tmp_path / "t.py").write_bytes(b"def f():\r\n\tx = 1\r\n\treturn x\r\n")
    out = reg.call(E, {"command": "str_replace", "path": f"{tmp_path}/t.py", "old_str": "        x = 1",
                       "new_str": "        x = 2\n        y = 3"})
    assert not out.is_error, out.text
    # the matched span (the tab included) is replaced as the model wrote it; the other lines keep tab and CRLF
    assert (tmp_path / "t.py").read_bytes() == b"def f():\r\n        x = 2\r\n        y = 3\r\n\treturn x\r\n"
    out = reg.call(E, {"command": "insert", "path": f"{tmp_path}/t.py", "insert_line": 4, "insert_text": "\t# end"})
    assert (tmp_path / "t.py").read_bytes() == \
        b"def f():\r\n        x = 2\r\n        y = 3\r\n\treturn x\r\n\t# end\r\n"


def test_a_directory_is_listed_without_a_shell(reg, tmp_path):
    odd = tmp_path / "a dir; touch pwned"
    (odd / "in").mkdir(parents=True)
    out = reg.call(E, {"command": "view", "path": str(odd)})
    assert out.text == (f"Here's the files and directories up to 2 levels deep in {odd}, excluding hidden items:\n"
                        f"{odd}\n{odd}/in\n\n")
    assert not (tmp_path / "pwned").exists()


def test_every_path_stays_inside_the_workspace(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("secret\n")
    (root / "link").symlink_to(tmp_path / "secret.txt")
    with agenttools.toolset("anthropic", root=str(root), deny=["*.env"]) as reg:
        (root / "x.env").write_text("k=v\n")
        for call in ({"command": "view", "path": f"{tmp_path}/secret.txt"},
                     {"command": "view", "path": f"{root}/link"},
                     {"command": "view", "path": f"{root}/../secret.txt"},
                     {"command": "create", "path": f"{tmp_path}/new.txt", "file_text": "x"},
                     {"command": "str_replace", "path": f"{root}/link", "old_str": "secret", "new_str": "x"},
                     {"command": "insert", "path": f"{root}/link", "insert_line": 0, "insert_text": "x"}):
            out = reg.call(E, call)
            assert out.is_error and "is outside the workspace" in out.text and "secret\n" not in out.text, out.text
        out = reg.call(E, {"command": "view", "path": f"{root}/x.env"})
        assert out.is_error and "denied" in out.text
        listing = reg.call(E, {"command": "view", "path": str(root)}).text
        assert "x.env" not in listing
    assert (tmp_path / "secret.txt").read_text() == "secret\n"
    assert not (tmp_path / "new.txt").exists()


def test_git_metadata_is_never_written(reg, tmp_path):
    (tmp_path / ".git").mkdir()
    out = reg.call(E, {"command": "create", "path": f"{tmp_path}/.git/config", "file_text": "x"})
    assert out.is_error and "git metadata" in out.text
    assert not (tmp_path / ".git" / "config").exists()


def test_a_fifo_is_refused_not_read(reg, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    out = reg.call(E, {"command": "view", "path": f"{tmp_path}/pipe"})
    assert out.is_error and "not a regular file" in out.text


def test_bash_session_persists_and_restarts(reg, tmp_path):
    assert reg.call("bash", {"command": "echo hi"}).text == "hi"
    assert reg.call("bash", {"command": "pwd"}).text == str(tmp_path)
    reg.call("bash", {"command": "cd /; X=1"})
    assert reg.call("bash", {"command": "pwd; echo $X"}).text == "/\n1"
    assert reg.call("bash", {"restart": True}).text == "tool has been restarted."
    assert reg.call("bash", {"command": "pwd; echo ${X:-unset}"}).text == f"{tmp_path}\nunset"
    out = reg.call("bash", {})
    assert (out.text, out.is_error) == ("no command provided.", True)


def test_bash_ends_commands_the_reference_never_ends(reg):
    assert reg.call("bash", {"command": "echo a # comment"}).text == "a"
    assert reg.call("bash", {"command": "cat <<'EOF'\n$HOME\nEOF"}).text == "$HOME"
    assert reg.call("bash", {"command": "sleep 0.05 &"}).text == ""
    assert reg.call("bash", {"command": "echo '<<exit>>' after"}).text == "<<exit>> after"
    assert reg.call("bash", {"command": "cat"}).text == ""  # stdin is /dev/null: nothing to wait for
    out = reg.call("bash", {"command": "cat <<EOF\nno terminator"})  # bash warns, then goes on
    assert out.is_error and "here-document at line 8 delimited by end-of-file (wanted `EOF')" in out.text, out.text
    assert out.data.output == "no terminator"
    out = reg.call("bash", {"command": "echo 'unclosed"})
    assert out.is_error and "unexpected EOF" in out.text
    assert reg.call("bash", {"command": "echo still here"}).text == "still here"


def test_bash_timeout_must_be_restarted(tmp_path):
    with agenttools.toolset("anthropic", root=str(tmp_path), bash_timeout=0.5) as reg:
        text = "timed out: bash has not returned in 0.5 seconds and must be restarted"
        assert (reg.call("bash", {"command": "sleep 5"}).text, True) == (text, True)
        assert reg.call("bash", {"command": "echo hi"}).text == text
        reg.call("bash", {"restart": True})
        assert reg.call("bash", {"command": "echo hi"}).text == "hi"


def test_closing_the_registry_ends_the_session_and_its_jobs(tmp_path):
    reg = agenttools.toolset("anthropic", root=str(tmp_path))
    pid = host_pid(int(reg.call("bash", {"command": "sleep 60 & echo $!"}).text))
    os.kill(pid, 0)
    reg.close()
    assert not _alive_after(pid, seconds=2)


def _alive_after(pid: int, *, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.02)
    return True


def test_run_answers_a_tool_use_block_the_api_accepts(reg):
    adapter = pydantic.TypeAdapter(anthropic.types.ToolResultBlockParam)
    block = anthropic.types.ToolUseBlock(type="tool_use", id="toolu_1", name="bash", input={"command": "echo hi"})
    answer = reg.run(block)
    assert answer == {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "hi"}],
                      "is_error": False}
    adapter.validate_python(answer)
    # a command that prints nothing: no text block at all (the API refuses an empty one), as the reference's loop
    silent = reg.run({"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"command": "true"}})
    assert silent == {"type": "tool_result", "tool_use_id": "toolu_2", "content": [], "is_error": False}
    adapter.validate_python(silent)


# --- attacks on the session: output that looks like its end, a shell that redirects itself, timeouts, threads ---


@pytest.mark.parametrize("setup", [
    "true",  # `$_` is the last word of the line before: the sentinel's in a naive session
    "trap 'echo \"$BASH_COMMAND\"' DEBUG",  # prints each command before it runs, the sentinel's echo included
    "exec 2>&1; set -v",  # echoes each line bash reads (the sentinel's echo) on stdout
    "exec 2>&1; set -x",  # traces the sentinel's echo on stdout
])
def test_nothing_a_command_prints_ends_it_early_or_shifts_the_next_ones_output(reg, setup):
    reg.call("bash", {"command": setup})
    first = reg.call("bash", {"command": 'echo "last=$_"; echo first'})
    assert "first" in first.text.splitlines(), first.text  # the output after `last=...` was not cut off
    for word in ("second", "third"):  # each answer holds its own command's output, never the one before
        out = reg.call("bash", {"command": f"echo {word}"})
        assert word in out.text.splitlines() and "first" not in out.text, out.text


def test_dollar_underscore_after_a_command_is_the_references(reg):
    """The reference's line is `<command>; echo '<<exit>>'`: `$_` in the next command is `<<exit>>` (which the
    reference then takes for its sentinel, cutting the output there: documented deviation 4)."""
    reg.call("bash", {"command": "true"})
    assert reg.call("bash", {"command": 'echo "$_"'}).text == "<<exit>>"


def test_aliases_and_functions_named_like_the_sessions_words_change_nothing(reg):
    reg.call("bash", {"command": "printf() { :; }; eval() { :; }; echo() { builtin echo \"E $*\"; }"})
    assert reg.call("bash", {"command": "echo y"}).text == "E y"
    reg.call("bash", {"command": "shopt -s expand_aliases; alias eval='echo EVAL' printf='echo PRINTF' builtin=:"})
    assert reg.call("bash", {"command": "echo z"}).text == "E z"


def test_a_command_that_redirects_the_shells_stdout_for_good_still_ends(tmp_path):
    with agenttools.toolset("anthropic", root=str(tmp_path), bash_timeout=20) as reg:
        started = time.monotonic()
        assert reg.call("bash", {"command": "exec >log.txt"}).text == ""
        out = reg.call("bash", {"command": "echo into the log; echo oops >&2"})
        assert (out.text, out.is_error) == ("oops", True)
        assert time.monotonic() - started < 10
        assert (tmp_path / "log.txt").read_text() == "into the log\n"


def test_a_nul_byte_in_a_command_is_dropped_as_bash_drops_it_not_the_rest_of_the_command(reg, tmp_path):
    assert reg.call("bash", {"command": "echo a\x00b; echo c > after.txt"}).text == "ab"
    assert (tmp_path / "after.txt").read_text() == "c\n"


def test_a_timeout_kills_the_command_and_its_jobs_and_the_session_stays_timed_out(tmp_path):
    text = "timed out: bash has not returned in 1.0 seconds and must be restarted"
    with agenttools.toolset("anthropic", root=str(tmp_path), bash_timeout=1) as reg:
        out = reg.call("bash", {"command": "sleep 300 & echo $! > job.pid; echo $$ > bash.pid; sleep 301"})
        assert (out.text, out.is_error) == (text, True)
        assert gone(read_pid(tmp_path / "job.pid")) and gone(read_pid(tmp_path / "bash.pid"))
        assert (reg.call("bash", {"command": "echo hi"}).text, True) == (text, True)  # not "bash has exited"
        assert reg.call("bash", {"restart": True}).text == "tool has been restarted."
        assert reg.call("bash", {"command": "echo hi"}).text == "hi"


def test_a_bash_that_exits_takes_its_jobs_with_it(tmp_path):
    with agenttools.toolset("anthropic", root=str(tmp_path)) as reg:
        out = reg.call("bash", {"command": "sleep 300 & echo $! > job.pid; exit 3"})
        assert out.text == "<system>tool must be restarted</system>\nbash has exited with returncode 3"
        assert gone(read_pid(tmp_path / "job.pid"))


def test_concurrent_first_calls_share_one_session_and_close_ends_it(tmp_path):
    reg = agenttools.toolset("anthropic", root=str(tmp_path))
    barrier = threading.Barrier(6)
    pids: list[str] = []

    def call() -> None:
        barrier.wait()
        pids.append(reg.call("bash", {"command": "echo $$"}).text)

    threads = [threading.Thread(target=call) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(pids)) == 1, pids  # a second session would be lost: nothing would ever close it
    pid = host_pid(int(pids[0]))
    reg.close()
    assert gone(pid)


def test_a_restart_from_another_thread_ends_a_running_command_at_once(tmp_path):
    with agenttools.toolset("anthropic", root=str(tmp_path), bash_timeout=60) as reg:
        reg.call("bash", {"command": "true"})
        answers = []
        worker = threading.Thread(target=lambda: answers.append(reg.call("bash", {"command": "sleep 300"})))
        worker.start()
        time.sleep(0.5)
        assert reg.call("bash", {"restart": True}).text == "tool has been restarted."
        worker.join(20)
        assert not worker.is_alive()
        assert answers[0].is_error and "bash has exited" in answers[0].text
        assert reg.call("bash", {"command": "echo fresh"}).text == "fresh"


def test_many_sessions_leave_no_descriptor_or_process_behind(tmp_path):
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        with agenttools.toolset("anthropic", root=str(tmp_path)) as reg:
            pid = host_pid(int(reg.call("bash", {"command": "echo $$"}).text))
            reg.call("bash", {"restart": True})
        assert gone(pid)
    assert len(os.listdir("/proc/self/fd")) <= before


# --- attacks on the editor ---


def test_a_name_that_is_not_utf8_is_listed_with_a_replacement_character(reg, tmp_path):
    os.mkdir(os.fsencode(tmp_path) + b"/bad\xff")
    out = reg.call(E, {"command": "view", "path": str(tmp_path)})
    assert f"{tmp_path}/bad\ufffd\n" in out.text
    out.text.encode("utf-8")  # no lone surrogate: the text can be sent


def test_create_in_git_metadata_is_refused_with_the_documented_text(reg, tmp_path):
    (tmp_path / ".git").mkdir()
    out = reg.call(E, {"command": "create", "path": f"{tmp_path}/.git/hooks", "file_text": "x"})
    assert (out.text, out.is_error) == (
        f"The path {tmp_path}/.git/hooks is inside git metadata and cannot be written.", True)


def test_create_with_text_that_is_not_unicode_writes_nothing(reg, tmp_path):
    """The reference's text for a lone surrogate (Python's encode error); the reference also leaves an empty file."""
    out = reg.call(E, {"command": "create", "path": f"{tmp_path}/c.txt", "file_text": "x\udcff"})
    assert (out.text, out.is_error) == (
        "Ran into 'utf-8' codec can't encode character '\\udcff' in position 1: surrogates not allowed while "
        f"trying to write to {tmp_path}/c.txt", True)
    assert not (tmp_path / "c.txt").exists()


_CALL_UNPRIVILEGED = r"""
import json, sys
import agenttools
root, calls = sys.argv[1], json.loads(sys.argv[2])
with agenttools.toolset("anthropic", root=root) as reg:
    print(json.dumps([[out.text, out.is_error] for out in (reg.call("str_replace_based_edit_tool", c) for c in calls)]))
"""


def _drop_capabilities() -> None:  # pragma: no cover - runs in the child, before exec
    """Empty the capability bounding set: after exec, uid 0 has no capabilities (an ordinary user's checks)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(64):
        if libc.prctl(24, cap, 0, 0, 0) != 0 and ctypes.get_errno() != errno.EINVAL:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _unprivileged(root: Path, calls: list[dict[str, object]]) -> list[list[object]]:
    """The answers to ``calls`` as a user without privileges: in a child without capabilities when we are root."""
    if os.geteuid() != 0:
        with agenttools.toolset("anthropic", root=str(root)) as reg:
            return [[out.text, out.is_error] for out in (reg.call(E, c) for c in calls)]
    done = subprocess.run([sys.executable, "-c", _CALL_UNPRIVILEGED, str(root), json.dumps(calls)],
                          preexec_fn=_drop_capabilities, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="capabilities are Linux's")
def test_a_write_the_os_refuses_is_worded_on_the_path_given_as_the_reference_words_it(tmp_path):
    """The reference's ``path.write_text`` fails with ``[Errno 13] Permission denied: '<path>'`` (edit.py)."""
    (tmp_path / "ro.txt").write_text("ro\n")
    os.chmod(tmp_path / "ro.txt", 0o444)
    (tmp_path / "rodir").mkdir()
    os.chmod(tmp_path / "rodir", 0o555)
    answers = _unprivileged(tmp_path, [
        {"command": "str_replace", "path": f"{tmp_path}/ro.txt", "old_str": "ro", "new_str": "rw"},
        {"command": "insert", "path": f"{tmp_path}/ro.txt", "insert_line": 0, "insert_text": "rw"},
        {"command": "create", "path": f"{tmp_path}/rodir/f.txt", "file_text": "x"},
    ])
    os.chmod(tmp_path / "rodir", 0o755)
    ro, new = f"{tmp_path}/ro.txt", f"{tmp_path}/rodir/f.txt"
    assert answers == [
        [f"Ran into [Errno 13] Permission denied: '{ro}' while trying to write to {ro}", True],
        [f"Ran into [Errno 13] Permission denied: '{ro}' while trying to write to {ro}", True],
        [f"Ran into [Errno 13] Permission denied: '{new}' while trying to write to {new}", True],
    ]
    assert (tmp_path / "ro.txt").read_text() == "ro\n"
    assert os.listdir(tmp_path / "rodir") == []
