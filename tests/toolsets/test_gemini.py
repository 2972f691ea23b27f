"""The gemini toolset: every success and error text of the contract, on real files, git and processes."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

import agenttools
from agenttools import ImageBlock
from agenttools.toolsets.gemini.texts import DESCRIPTIONS, PARAMETERS

INVALID = "Error: Invalid parameters provided. Reason: "


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a.txt").write_text("hello\nworld\n")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("def main():\n    print('Hello')\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "debug.log").write_text("hello log\n")
    return root


@pytest.fixture
def reg(project) -> agenttools.Registry:
    return agenttools.toolset("gemini", root=str(project))


def call(reg, name, **args):
    return reg.call(name, args)


def test_names_descriptions_and_schemas(reg):
    assert reg.names() == ("list_directory", "read_file", "write_file", "replace", "search_file_content", "glob",
                           "run_shell_command")
    defs = {d["name"]: d for d in reg.definitions("json-schema")}
    for name in reg.names():
        assert defs[name]["description"] == DESCRIPTIONS[name]
        assert defs[name]["parameters"] == PARAMETERS[name]
        assert "additionalProperties" not in defs[name]["parameters"]
    assert DESCRIPTIONS["write_file"] == ("Writes content to a specified file in the local filesystem.\n\n      "
                                          "The user has the ability to modify `content`. If modified, this will be "
                                          "stated in the response.")
    assert PARAMETERS["replace"]["properties"]["expected_replacements"]["minimum"] == 1
    gemini = {d["name"]: d for d in reg.definitions("gemini")}
    assert gemini["glob"]["parameters"]["properties"]["case_sensitive"]["type"] == "BOOLEAN"


def test_unknown_root():
    with pytest.raises(agenttools.ConfigError):
        agenttools.toolset("gemini")


# --- list_directory --------------------------------------------------------------------------------------------

def test_list_directory(reg, project):
    (project / "B.md").write_text("")
    (project / "_x").write_text("")
    out = call(reg, "list_directory", path=str(project))
    assert not out.is_error
    assert out.text == (f"Directory listing for {project}:\n[DIR] src\n_x\n.gitignore\na.txt\nB.md"
                        "\n\n(2 items were git-ignored)")


def test_list_directory_errors(reg, project):
    assert call(reg, "list_directory", path="src").text == INVALID + "Path must be absolute: src"
    assert call(reg, "list_directory", path="/etc").text == (
        INVALID + f"Path must be within the root directory ({project}): /etc")
    assert call(reg, "list_directory", path=str(project) + "-evil").text == (
        INVALID + f"Path must be within the root directory ({project}): {project}-evil")
    missing = f"{project}/nope"
    assert call(reg, "list_directory", path=missing).text == (
        f"Error listing directory: ENOENT: no such file or directory, stat '{missing}'")
    assert call(reg, "list_directory", path=f"{project}/a.txt").text == f"Error: Path is not a directory: {project}/a.txt"
    assert reg.call("list_directory", {}).text == INVALID + "params must have required property 'path'"
    assert reg.call("list_directory", {"path": 3}).text == INVALID + "params/path must be string"
    assert reg.call("list_directory", {"path": str(project), "ignore": "x"}).text == INVALID + "params/ignore must be array"


def test_list_directory_empty_ignore_and_no_gitignore(reg, project):
    (project / "empty").mkdir()
    assert call(reg, "list_directory", path=f"{project}/empty").text == f"Directory {project}/empty is empty."
    (project / "src" / "util.py").write_text("")
    (project / "src" / "util.pyc").write_text("")
    out = call(reg, "list_directory", path=f"{project}/src/", ignore=["*.pyc", "m?in.py"])
    assert out.text == f"Directory listing for {project}/src/:\nutil.py"
    out = call(reg, "list_directory", path=str(project), respect_git_ignore=False)
    assert out.text == (f"Directory listing for {project}:\n[DIR] .git\n[DIR] empty\n[DIR] src\n.gitignore\n"
                        "a.txt\ndebug.log")
    out = call(reg, "list_directory", path=f"{project}/src", ignore=["*"])
    assert out.text == f"Directory listing for {project}/src:\n"


def test_list_directory_symlink_escape(reg, project, tmp_path):
    (tmp_path / "outside").mkdir()
    (project / "out").symlink_to(tmp_path / "outside", target_is_directory=True)
    assert call(reg, "list_directory", path=f"{project}/out").text == (
        INVALID + f"Path must be within the root directory ({project}): {project}/out")


# --- read_file -------------------------------------------------------------------------------------------------

def test_read_file_exact(reg, project):
    out = call(reg, "read_file", absolute_path=f"{project}/a.txt")
    assert (out.text, out.is_error) == ("hello\nworld\n", False)


def test_read_file_ranges_and_truncation(reg, project):
    (project / "many.txt").write_text("".join(f"{i}\n" for i in range(2000)))
    out = call(reg, "read_file", absolute_path=f"{project}/many.txt")
    assert out.text.startswith("[File content truncated: showing lines 1-2000 of 2001 total lines. Use "
                               "offset/limit parameters to view more.]\n0\n1\n")
    assert out.text.endswith("\n1999")
    out = call(reg, "read_file", absolute_path=f"{project}/many.txt", offset=10, limit=2)
    assert out.text == ("[File content truncated: showing lines 11-12 of 2001 total lines. Use offset/limit "
                        "parameters to view more.]\n10\n11")
    assert call(reg, "read_file", absolute_path=f"{project}/many.txt", offset=5000).text == ""
    (project / "long.txt").write_text("y" * 2500 + "\nok\n")
    assert call(reg, "read_file", absolute_path=f"{project}/long.txt").text == (
        "[File content partially truncated: some lines exceeded maximum length of 2000 characters.]\n"
        + "y" * 2000 + "... [truncated]\nok\n")


def test_read_file_errors(reg, project):
    assert call(reg, "read_file", absolute_path="a.txt").text == (
        INVALID + "File path must be absolute, but was relative: a.txt. You must provide an absolute path.")
    assert call(reg, "read_file", absolute_path="/etc/passwd").text == (
        INVALID + f"File path must be within the root directory ({project}): /etc/passwd")
    assert call(reg, "read_file", absolute_path=f"{project}/a.txt", offset=-1).text == (
        INVALID + "Offset must be a non-negative number")
    assert call(reg, "read_file", absolute_path=f"{project}/a.txt", limit=0).text == (
        INVALID + "Limit must be a positive number")
    missing = call(reg, "read_file", absolute_path=f"{project}/nope.txt")
    assert (missing.text, missing.is_error) == (f"File not found: {project}/nope.txt", True)
    assert call(reg, "read_file", absolute_path=f"{project}/src").text == (
        f"Path is a directory, not a file: {project}/src")
    (project / ".geminiignore").write_text("secret.*\n")
    (project / "secret.env").write_text("k")
    assert call(reg, "read_file", absolute_path=f"{project}/secret.env").text == (
        INVALID + f"File path '{project}/secret.env' is ignored by .geminiignore pattern(s).")


def test_read_file_large(reg, project):
    with open(project / "huge.txt", "wb") as handle:
        handle.truncate(21 * 1024 * 1024)
    out = call(reg, "read_file", absolute_path=f"{project}/huge.txt")
    assert out.text == (f"Error reading file {project}/huge.txt: File size exceeds the 20MB limit: "
                        f"{project}/huge.txt (21.00MB)")


def test_read_file_fifo_does_not_hang(reg, project):
    os.mkfifo(project / "pipe")
    start = time.monotonic()
    out = call(reg, "read_file", absolute_path=f"{project}/pipe")
    assert out.is_error
    assert out.text == f"Error reading file {project}/pipe: {project}/pipe is a fifo, not a regular file"
    assert time.monotonic() - start < 5


def test_read_file_binary_image_svg(reg, project):
    (project / "prog.bin").write_bytes(b"\x7fELF\x00\x01")
    out = call(reg, "read_file", absolute_path=f"{project}/prog.bin")
    assert (out.text, out.is_error) == ("Cannot display content of binary file: prog.bin", False)
    png = b"\x89PNG\r\n\x1a\n" + bytes(16)
    (project / "img.png").write_bytes(png)
    out = call(reg, "read_file", absolute_path=f"{project}/img.png")
    assert out.text == "Binary content of type image/png was processed."
    assert out.content == (ImageBlock(data=base64.b64encode(png).decode(), mime_type="image/png"),)
    (project / "doc.pdf").write_bytes(b"%PDF-1.4")
    out = call(reg, "read_file", absolute_path=f"{project}/doc.pdf")
    assert out.text == "Binary content of type application/pdf was processed."
    assert out.content[0].mime_type == "application/pdf"
    (project / "pic.svg").write_text("<svg/>")
    assert call(reg, "read_file", absolute_path=f"{project}/pic.svg").text == "<svg/>"


# --- write_file ------------------------------------------------------------------------------------------------

def test_write_file(reg, project):
    out = call(reg, "write_file", file_path=f"{project}/new/dir/n.txt", content="fresh\n")
    assert out.text == f"Successfully created and wrote to new file: {project}/new/dir/n.txt."
    assert (project / "new" / "dir" / "n.txt").read_text() == "fresh\n"
    out = call(reg, "write_file", file_path=f"{project}/a.txt", content="  spaced  \n")
    assert out.text == f"Successfully overwrote file: {project}/a.txt."
    assert (project / "a.txt").read_text() == "  spaced  \n"  # no trim quirk


def test_write_file_errors(reg, project):
    assert call(reg, "write_file", file_path="x.txt", content="").text == INVALID + "File path must be absolute: x.txt"
    assert call(reg, "write_file", file_path="/tmp/x.txt", content="").text == (
        INVALID + f"File path must be within the root directory ({project}): /tmp/x.txt")
    assert call(reg, "write_file", file_path=f"{project}/src", content="").text == (
        INVALID + f"Path is a directory, not a file: {project}/src")
    assert reg.call("write_file", {"file_path": f"{project}/x"}).text == (
        INVALID + "params must have required property 'content'")


def test_write_file_keeps_crlf_and_symlinks(reg, project):
    (project / "win.txt").write_bytes(b"a\r\nb\r\n")
    call(reg, "write_file", file_path=f"{project}/win.txt", content="c\nd\n")
    assert (project / "win.txt").read_bytes() == b"c\r\nd\r\n"
    (project / "alias.txt").symlink_to(project / "a.txt")
    call(reg, "write_file", file_path=f"{project}/alias.txt", content="via link\n")
    assert (project / "alias.txt").is_symlink()
    assert (project / "a.txt").read_text() == "via link\n"


# --- replace ---------------------------------------------------------------------------------------------------

def test_replace(reg, project):
    path = f"{project}/a.txt"
    assert call(reg, "replace", file_path=path, old_string="world", new_string="there").text == (
        f"Successfully modified file: {path} (1 replacements).")
    assert (project / "a.txt").read_text() == "hello\nthere\n"
    (project / "m.txt").write_text("x x x")
    assert call(reg, "replace", file_path=f"{project}/m.txt", old_string="x", new_string="$&",
                expected_replacements=3).text == f"Successfully modified file: {project}/m.txt (3 replacements)."
    assert (project / "m.txt").read_text() == "$& $& $&"


def test_replace_errors(reg, project):
    path = f"{project}/a.txt"
    assert call(reg, "replace", file_path=path, old_string="zzz", new_string="y").text == (
        f"Failed to edit, 0 occurrences found for old_string in {path}. No edits made. The exact text in "
        "old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, "
        "indentation, and context. Use read_file tool to verify.")
    assert call(reg, "replace", file_path=path, old_string="l", new_string="L").text == (
        f"Failed to edit, Expected 1 occurrence but found 3 for old_string in file: {path}")
    assert call(reg, "replace", file_path=path, old_string="l", new_string="L", expected_replacements=2).text == (
        f"Failed to edit, Expected 2 occurrences but found 3 for old_string in file: {path}")
    assert call(reg, "replace", file_path=f"{project}/nope", old_string="a", new_string="b").text == (
        f"File not found: {project}/nope")
    assert call(reg, "replace", file_path=path, old_string="", new_string="b").text == (
        f"File already exists, cannot create: {path}")
    assert call(reg, "replace", file_path=f"{project}/src", old_string="a", new_string="b").text == (
        "Error preparing edit: EISDIR: illegal operation on a directory, read")
    assert call(reg, "replace", file_path=path, old_string="a", new_string="b", expected_replacements=0).text == (
        INVALID + "params/expected_replacements must be >= 1")
    assert call(reg, "replace", file_path="a.txt", old_string="a", new_string="b").text == (
        INVALID + "File path must be absolute: a.txt")
    assert (project / "a.txt").read_text() == "hello\nworld\n"


def test_replace_creates_and_keeps_crlf(reg, project):
    assert call(reg, "replace", file_path=f"{project}/made.txt", old_string="", new_string="new\n").text == (
        f"Created new file: {project}/made.txt with provided content.")
    (project / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    call(reg, "replace", file_path=f"{project}/w.txt", old_string="one\ntwo", new_string="1\n2")
    assert (project / "w.txt").read_bytes() == b"1\r\n2\r\n"


# --- search_file_content ---------------------------------------------------------------------------------------

def test_search(reg, project):
    out = call(reg, "search_file_content", pattern="hello")
    assert out.text == ('Found 2 matches for pattern "hello" in path ".":\n---\nFile: a.txt\nL1: hello\n---\n'
                        "File: src/main.py\nL2: print('Hello')\n---")
    out = call(reg, "search_file_content", pattern="def", path="src", include="*.py")
    assert out.text == 'Found 1 match for pattern "def" in path "src" (filter: "*.py"):\n---\nFile: main.py\nL1: def main():\n---'
    assert call(reg, "search_file_content", pattern="zzz").text == 'No matches found for pattern "zzz" in path ".".'
    assert call(reg, "search_file_content", pattern="zzz", include="*.md").text == (
        'No matches found for pattern "zzz" in path "." (filter: "*.md").')


def test_search_trims_lines_like_javascript(reg, project):
    # String.prototype.trim(): Unicode spaces and U+FEFF in any order go; U+001C (not JS whitespace) stays
    (project / "t.txt").write_text(" \ufeff \u3000\ufeff trimmed\u00a0\t\nkeep\x1c\n", encoding="utf-8")
    out = call(reg, "search_file_content", pattern="trimmed|keep", include="t.txt")
    assert out.text.endswith("File: t.txt\nL1: trimmed\nL2: keep\x1c\n---")


def test_search_errors(reg, project):
    assert call(reg, "search_file_content", pattern="[[").text == (
        INVALID + "Invalid regular expression pattern provided: [[. Error: Invalid regular expression: /[[/: "
        "Unterminated character class")
    assert call(reg, "search_file_content", pattern="x", path="nope").text == (
        INVALID + f"Failed to access path stats for {project}/nope: Error: ENOENT: no such file or directory, "
        f"stat '{project}/nope'")
    assert call(reg, "search_file_content", pattern="x", path="a.txt").text == (
        INVALID + f"Failed to access path stats for {project}/a.txt: Error: Path is not a directory: {project}/a.txt")
    assert call(reg, "search_file_content", pattern="x", path="..").text == (
        INVALID + f'Path validation failed: Attempted path ".." resolves outside the allowed root directory "{project}".')
    assert reg.call("search_file_content", {}).text == INVALID + "params must have required property 'pattern'"


# --- glob ------------------------------------------------------------------------------------------------------

def test_glob_recency_order(reg, project):
    old = time.time() - 3 * 86400
    for name in ("b.py", "A.py", "c.py"):
        (project / name).write_text("")
        os.utime(project / name, (old, old))
    (project / "new.py").write_text("")
    (project / "newer.py").write_text("")
    now = time.time()
    os.utime(project / "new.py", (now - 60, now - 60))
    out = call(reg, "glob", pattern="*.py")
    assert out.text == (f'Found 5 file(s) matching "*.py" within {project}, sorted by modification time (newest '
                        f"first):\n{project}/newer.py\n{project}/new.py\n{project}/A.py\n{project}/b.py\n{project}/c.py")


def test_glob_messages(reg, project):
    assert call(reg, "glob", pattern="*.nope").text == f'No files found matching pattern "*.nope" within {project}.'
    assert call(reg, "glob", pattern="*.log").text == (
        f'No files found matching pattern "*.log" within {project}. (1 files were git-ignored)')
    (project / "x.log").write_text("")
    (project / "keep.txt").write_text("")
    out = call(reg, "glob", pattern="*.*", path=".")
    assert out.text.startswith(f'Found 3 file(s) matching "*.*" within {project} (2 additional files were '
                               "git-ignored), sorted by modification time (newest first):\n")
    assert call(reg, "glob", pattern="*", path="nope").text == INVALID + f"Search path does not exist {project}/nope"
    assert call(reg, "glob", pattern="*", path="a.txt").text == INVALID + f"Search path is not a directory: {project}/a.txt"
    assert call(reg, "glob", pattern="*", path="../..").text == (
        INVALID + f'Search path ("{project.parent.parent}") resolves outside the tool\'s root directory ("{project}").')
    assert call(reg, "glob", pattern="  ").text == INVALID + "The 'pattern' parameter cannot be empty."
    assert call(reg, "glob", pattern="*.TXT", case_sensitive=True).text.startswith("No files found")


# --- run_shell_command -----------------------------------------------------------------------------------------

def _fields(text: str) -> dict[str, str]:
    keys = ["Command", "Directory", "Stdout", "Stderr", "Error", "Exit Code", "Signal", "Background PIDs",
            "Process Group PGID"]
    out, current = {}, None
    for line in text.split("\n"):
        key = next((k for k in keys if line.startswith(k + ": ")), None)
        if key and (current is None or keys.index(key) == keys.index(current) + 1):
            current = key
            out[key] = line[len(key) + 2:]
        else:
            out[current] += "\n" + line
    return out


def test_shell_success_format(reg, project):
    out = call(reg, "run_shell_command", command="echo hi")
    fields = _fields(out.text)
    assert out.text == (f"Command: echo hi\nDirectory: (root)\nStdout: hi\n\nStderr: (empty)\nError: (none)\n"
                        f"Exit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: "
                        f"{fields['Process Group PGID']}")
    assert fields["Process Group PGID"].isdigit()
    assert not out.is_error


def test_shell_error_pipe_directory(reg, project):
    fields = _fields(call(reg, "run_shell_command", command="ls missing-file").text)
    assert fields["Stdout"] == "(empty)"
    assert "missing-file" in fields["Stderr"]
    assert fields["Exit Code"] == "2"
    assert _fields(call(reg, "run_shell_command", command="printf 'a\\nb\\n' | wc -l").text)["Stdout"] == "2\n"
    fields = _fields(call(reg, "run_shell_command", command="pwd", directory="src").text)
    assert (fields["Directory"], fields["Stdout"]) == ("src", f"{project}/src\n")


def test_shell_rejections(reg, project):
    assert call(reg, "run_shell_command", command="echo $(whoami)").text == (
        "Command rejected: echo $(whoami)\nReason: Command substitution using $() is not allowed for security reasons")
    assert call(reg, "run_shell_command", command="   ").text == "Command rejected:    \nReason: Command cannot be empty."
    assert call(reg, "run_shell_command", command="&&").text == (
        "Command rejected: &&\nReason: Could not identify command root to obtain permission from user.")
    assert call(reg, "run_shell_command", command="ls", directory="/tmp").text == (
        "Command rejected: ls\nReason: Directory cannot be absolute. Must be relative to the project root directory.")
    assert call(reg, "run_shell_command", command="ls", directory="nope").text == (
        "Command rejected: ls\nReason: Directory must exist.")
    assert reg.call("run_shell_command", {"command": 5}).text == (
        "Command rejected: 5\nReason: params/command must be string")
    assert call(reg, "run_shell_command", command="echo `whoami`").is_error is False


def test_shell_background_and_timeout(project):
    reg = agenttools.toolset("gemini", root=str(project), shell_timeout=1)
    fields = _fields(reg.call("run_shell_command", {"command": "sleep 2 &"}).text)
    assert fields["Background PIDs"].isdigit()
    out = reg.call("run_shell_command", {"command": "sleep 30"})
    fields = _fields(out.text)
    assert fields["Error"] == "Command timed out after 1 seconds."
    assert fields["Signal"] == "SIGTERM"
    assert out.is_error


def test_everything_through_json_strings(reg, project):
    out = reg.call("read_file", json.dumps({"absolute_path": f"{project}/a.txt"}))
    assert out.text == "hello\nworld\n"


def test_hostile_inputs_never_traceback_or_escape(reg, project, tmp_path):
    assert call(reg, "read_file", absolute_path=f"{project}/a\x00.txt").text == (
        INVALID + f"path contains a NUL byte: '{project}/a\\x00.txt'")
    assert call(reg, "write_file", file_path=f"{project}/x\x00", content="x").is_error
    os.mknod(project / "null-device", 0o600 | 0o020000, os.makedev(1, 3))
    out = call(reg, "read_file", absolute_path=f"{project}/null-device")
    assert out.text == f"Error reading file {project}/null-device: {project}/null-device is a character device, not a regular file"
    (tmp_path / "outside").mkdir()
    (project / "escape").symlink_to(tmp_path / "outside", target_is_directory=True)
    out = call(reg, "write_file", file_path=f"{project}/escape/pwned.txt", content="x")
    assert out.text == INVALID + f"File path must be within the root directory ({project}): {project}/escape/pwned.txt"
    assert not (tmp_path / "outside" / "pwned.txt").exists()
    out = call(reg, "replace", file_path=f"{project}/escape/new.txt", old_string="", new_string="x")
    assert out.is_error
    assert not (tmp_path / "outside" / "new.txt").exists()
    assert call(reg, "glob", pattern="{a,b").text.startswith("Error during glob search operation: invalid glob '{a,b'")
    out = call(reg, "search_file_content", pattern="x", include="[abc")  # a git pathspec: names "[abc" itself
    assert out.text == 'No matches found for pattern "x" in path "." (filter: "[abc").'
    out = call(reg, "search_file_content", pattern="x", include="{" * 40 + "a,b" + "}" * 40)
    assert out.is_error and out.text.endswith("glob pattern nests braces deeper than 32 levels")
    for text in (out.text, call(reg, "list_directory", path=f"{project}/escape").text):
        assert "Traceback" not in text


def test_list_directory_in_a_subdirectory_of_the_repository(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg" / "build").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("build/\n*.tmp\n")
    (repo / "pkg" / "a.tmp").write_text("")
    (repo / "pkg" / "b.py").write_text("")
    (repo / "pkg" / "build" / "out.o").write_text("")
    reg = agenttools.toolset("gemini", root=str(repo / "pkg"))  # the root is below the repository's top
    assert reg.call("list_directory", {"path": str(repo / "pkg")}).text == (
        f"Directory listing for {repo}/pkg:\nb.py\n\n(2 items were git-ignored)")
    assert reg.call("list_directory", {"path": str(repo / "pkg" / "build")}).text == (
        f"Directory listing for {repo}/pkg/build:\n\n\n(1 items were git-ignored)")


@pytest.mark.parametrize("pattern", ["./sub/*.py", "././sub/*.py", "{root}/sub/*.py"])
def test_glob_takes_dot_slash_and_absolute_patterns_as_upstream(tmp_path, pattern):
    """Gemini CLI 0.1.13 (node-glob) matches ``./sub/*.py`` and ``<root>/sub/*.py`` like ``sub/*.py``."""
    (tmp_path / "sub").mkdir()
    for index, name in enumerate(("b.py", "C.PY")):
        (tmp_path / "sub" / name).write_text("x\n")
        os.utime(tmp_path / "sub" / name, (time.time() - 60 + index, time.time() - 60 + index))
    shown = pattern.replace("{root}", str(tmp_path))
    with agenttools.toolset("gemini", root=str(tmp_path)) as reg:
        out = reg.call("glob", {"pattern": shown})
    assert out.text == (f'Found 2 file(s) matching "{shown}" within {tmp_path}, sorted by modification time '
                        f"(newest first):\n{tmp_path}/sub/C.PY\n{tmp_path}/sub/b.py")


def test_an_absolute_glob_naming_another_place_matches_nothing(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.py").write_text("x\n")
    with agenttools.toolset("gemini", root=str(tmp_path / "root")) as reg:
        out = reg.call("glob", {"pattern": f"{tmp_path}/other/*.py"})
    assert out.text == f'No files found matching pattern "{tmp_path}/other/*.py" within {tmp_path}/root.'
