"""Toolset options: typed and checked when a toolset is built, the same path options on every path toolset."""

from __future__ import annotations

import importlib
import inspect
import json

import pytest

import agenttools
from agenttools import ConfigError
from agenttools.toolsets import BUILTIN
from agenttools.workspace import parse_size

PATH_TOOLSETS = ("gemini", "editor", "assistant", "coder")


def _options(name: str):
    return importlib.import_module(BUILTIN[name].partition(":")[0]).OPTIONS


def _refused(name: str, match: str, **options) -> str:
    with pytest.raises(ConfigError, match=match) as info:
        agenttools.toolset(name, **options)
    assert "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("value", ["False", "no", "0", 0, 1, None.__class__, "true"])
def test_a_bool_takes_only_true_or_false(tmp_path, value):
    text = _refused("coder", "allow_private_network", root=tmp_path, allow_private_network=value)
    assert "must be True or False, got" in text


@pytest.mark.parametrize(("toolset", "option", "value"), [
    ("gemini", "shell_timeout", "abc"), ("gemini", "shell_timeout", -1), ("gemini", "shell_timeout", 0),
    ("gemini", "shell_timeout", float("inf")), ("gemini", "shell_timeout", True),
    ("gemini", "max_output", -5), ("gemini", "max_output", "lots"), ("gemini", "max_matches", 0),
    ("gemini", "max_matches", 2.5), ("editor", "max_tasks", -1), ("editor", "bash_timeout", "30"),
    ("editor", "background_timeout", "1h"), ("assistant", "max_running", "16"),
    ("editor", "max_file_size", "100 bananas"), ("coder", "max_file_size", -1),
    ("content", "max_total_size", "x"),
])
def test_wrong_values_are_refused_with_one_line_naming_the_option(tmp_path, toolset, option, value):
    options = {"docroot": str(tmp_path)} if toolset == "content" else {"root": str(tmp_path)}
    text = _refused(toolset, f"option '{option}' of toolset '{toolset}' must be", **options, **{option: value})
    assert repr(value)[:20] in text


def test_none_means_never_where_the_option_says_so(tmp_path):
    with agenttools.toolset("gemini", root=tmp_path, shell_timeout=None) as reg:
        assert reg.call("run_shell_command", {"command": "echo ok"}).text.startswith("Command: echo ok")
    with agenttools.toolset("editor", root=tmp_path, background_timeout=None, bash_timeout=5):
        pass


@pytest.mark.parametrize(("text", "size"), [("100B", 100), ("100b", 100), ("10KB", 10240), ("10kb", 10240),
                                            ("1MiB", 1 << 20), ("1mib", 1 << 20), ("2G", 2 << 30), ("512", 512),
                                            ("1.5K", 1536)])
def test_sizes_take_any_common_unit(text, size):
    assert parse_size(text) == size


def test_a_size_option_limits_reads(tmp_path):
    (tmp_path / "big.txt").write_text("x" * 200)
    with agenttools.toolset("editor", root=tmp_path, max_file_size="100B") as reg:
        assert reg.call("view", {"path": "big.txt"}).text.startswith("[FILE_TOO_LARGE] file ")
    with agenttools.toolset("coder", root=tmp_path, max_file_size="1KB") as reg:
        assert reg.call("read_file", {"path": "big.txt"}).text == "x" * 200


def test_unknown_options_name_the_valid_ones_with_a_did_you_mean(tmp_path):
    text = _refused("gemini", "has no option 'shell_timout'", root=tmp_path, shell_timout=3)
    assert "did you mean 'shell_timeout'?" in text
    assert "root, allow_dirs, deny, max_file_size, shell_timeout, max_output, max_matches" in text
    assert "did you mean" not in _refused("coder", "has no option 'zzz'", root=tmp_path, zzz=1)


def test_root_must_be_an_existing_directory(tmp_path):
    for name in PATH_TOOLSETS:
        assert "needs the option 'root'" in _refused(name, "root", )
        _refused(name, "does not exist", root=tmp_path / "missing")
        (tmp_path / "file").write_text("")
        _refused(name, "is not a directory", root=tmp_path / "file")
        _refused(name, "must be an existing directory", root=42)


def test_one_string_for_a_list_option_is_one_item(tmp_path):
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / "ok.txt").write_text("fine\n")
    with agenttools.toolset("editor", root=tmp_path, deny_dirs="**/.env") as reg:
        assert reg.call("view", {"path": ".env"}).text.startswith("[ACCESS_DENIED]")
        assert reg.call("view", {"path": "ok.txt"}).text == "1\tfine\n"
    other = tmp_path.parent / f"{tmp_path.name}-other"
    other.mkdir()
    (other / "o.txt").write_text("other\n")
    with agenttools.toolset("coder", root=tmp_path, allow_dirs=str(other)) as reg:  # one directory, not its letters
        assert reg.call("read_file", {"path": str(other / "o.txt")}).text == "other\n"
    _refused("assistant", "must be a list of glob strings", root=tmp_path, deny=[""])
    _refused("assistant", "must be a list of glob strings", root=tmp_path, deny={"a": 1})


def test_every_path_toolset_takes_the_same_path_options():
    for name in PATH_TOOLSETS:
        declared = {option.name: option.kind for option in _options(name)}
        deny = "deny_dirs" if name == "editor" else "deny"
        assert {"root": "dir", "allow_dirs": "dirs", deny: "globs", "max_file_size": "size"}.items() \
            <= declared.items(), name
        build = importlib.import_module(BUILTIN[name].partition(":")[0]).build
        assert set(declared) == set(inspect.signature(build).parameters)  # every option declared, and no other


def _secret_tree(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / ".env").write_text("TOKEN=TOPSECRET\n")
    (root / "sub" / ".env").write_text("TOKEN=TOPSECRET\n")
    (root / "app.py").write_text("print('hello')\n")
    return root


@pytest.mark.parametrize(("toolset", "tool", "args"), [
    ("gemini", "read_file", {"absolute_path": "{root}/.env"}),
    ("gemini", "search_file_content", {"pattern": "TOKEN"}),
    ("gemini", "glob", {"pattern": "**/.env"}),
    ("gemini", "list_directory", {"path": "{root}"}),
    ("gemini", "write_file", {"file_path": "{root}/.env", "content": "x"}),
    ("editor", "view", {"path": "."}),
    ("assistant", "read", {"path": ".env"}),
    ("assistant", "list", {"path": "."}),
    ("assistant", "write", {"path": "sub/.env", "content": "x"}),
    ("coder", "read_file", {"path": ".env"}),
    ("coder", "list_files", {}),
    ("coder", "glob", {"pattern": "**/.env"}),
    ("coder", "rg", {"pattern": "TOKEN"}),
    ("coder", "rg", {"pattern": "TOKEN", "args": "--hidden -g .env -g **/.env --no-ignore"}),
    ("coder", "head", {"args": "sub/.env"}),
    ("coder", "cloc", {"args": "."}),
])
@pytest.mark.parametrize("backend", ["rg", "python"])
def test_deny_wins_everywhere(tmp_path, monkeypatch, toolset, tool, args, backend):
    monkeypatch.setenv("AGENTTOOLS_SEARCH_BACKEND", backend)
    root = _secret_tree(tmp_path)
    deny = {"deny_dirs" if toolset == "editor" else "deny": ["**/.env"]}
    with agenttools.toolset(toolset, root=root, **deny) as reg:
        given = {k: v.replace("{root}", str(root)) if isinstance(v, str) else v for k, v in args.items()}
        out = reg.call(tool, given)
    shown = out.text.replace("'**/.env'", "")  # a refusal may name the deny pattern
    for value in given.values():
        shown = shown.replace(str(value), "")  # ... and echo what was asked
    assert "TOPSECRET" not in out.text and ".env" not in shown, out.text
    assert (root / ".env").read_text() == "TOKEN=TOPSECRET\n"
    assert (root / "sub" / ".env").read_text() == "TOKEN=TOPSECRET\n"


def test_deny_leaves_git_diff_out(tmp_path):
    import subprocess

    root = _secret_tree(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "x"], cwd=root, check=True)
    (root / ".env").write_text("TOKEN=TOPSECRET-CHANGED\n")
    (root / "app.py").write_text("print('changed')\n")
    with agenttools.toolset("coder", root=root, deny=["**/.env"]) as reg:
        text = reg.call("git_diff").text
    assert "print('changed')" in text and "TOPSECRET" not in text


def test_the_content_toolset_checks_its_sizes(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n" * 100)
    reg = agenttools.toolset("content", docroot=str(tmp_path), categories=[{"name": "docs", "dir": "docs"}],
                             max_file_size="10B")
    out = json.loads(reg.call("get_category_content", {"category": "docs"}).text)
    assert out["error_type"] == "io_error" and "over the 10-byte limit" in out["error"]
