"""Fuzzing: random JSON arguments against every tool of every toolset never raise, never hang, and come back
as text (an error text when the arguments are wrong).

A bounded, seeded run in CI; ``AGENTTOOLS_FUZZ_EXAMPLES=5000 pytest tests/security/test_fuzz.py`` runs longer.
Commands given to shell tools are drawn from a harmless list (a fuzzer must not run random shell text), and URLs
never name a host (no network beyond loopback in tests).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agenttools

EXAMPLES = int(os.environ.get("AGENTTOOLS_FUZZ_EXAMPLES", "40"))
CALL_BOUND = 20.0  # seconds: every call returns well within its own timeouts

SAFE_COMMANDS = ["true", "echo fuzz", "exit 3", "printf 'a\\nb'", "cat missing-file", "ls"]
SHELL_KEYS = {"command"}
URL_KEYS = {"url"}

scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=10)
path_like = st.sampled_from(["a.txt", "sub", "sub/b.txt", ".", "..", "/etc/passwd", "../outside", "", "x\x00y",
                             "sub/../a.txt", "link", "~", "a.txt/", "nested/new.txt"])


def _value(key: str) -> st.SearchStrategy[Any]:
    if key in SHELL_KEYS:
        return st.sampled_from(SAFE_COMMANDS) | st.lists(st.sampled_from(SAFE_COMMANDS), max_size=2) | scalars.filter(
            lambda v: not isinstance(v, str))
    if key in URL_KEYS:
        return st.text(alphabet="abc/?#%", max_size=10) | json_values.filter(lambda v: not isinstance(v, str))
    if "path" in key or key in {"file", "directory", "working_dir"}:
        return path_like | json_values
    return json_values


def _arguments(properties: list[str]) -> st.SearchStrategy[Any]:
    known = st.fixed_dictionaries({}, optional={key: _value(key) for key in properties})
    extra = st.dictionaries(st.text(max_size=6), json_values, max_size=2)
    dicts = st.tuples(known, extra).map(lambda pair: {**pair[1], **pair[0]})
    raw = st.sampled_from(["", "{", "[]", "null", "42", '"text"', "{\"a\": }", "\x00", "{}" * 3])
    return dicts | dicts.map(json.dumps) | raw | st.lists(scalars, max_size=3)


def _toolsets(root: Path) -> dict[str, agenttools.Registry]:
    return {name: agenttools.toolset(name, root=str(root)) for name in ("gemini", "editor", "assistant", "coder")}


def _tools() -> list[tuple[str, str, list[str]]]:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        found = []
        for toolset, reg in _toolsets(Path(scratch)).items():
            for definition in reg.definitions("json-schema"):
                properties = list(definition["parameters"].get("properties", {}))
                found.append((toolset, definition["name"], properties))
            reg.close()
        content = agenttools.toolset("content")
        found += [("content", d["name"], list(d["parameters"].get("properties", {})))
                  for d in content.definitions("json-schema")]
        return found


TOOLS = _tools()


@pytest.fixture(scope="module")
def registries(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzzroot")
    (root / "a.txt").write_text("alpha\nbeta\n")
    (root / "sub").mkdir()
    (root / "sub" / "b.txt").write_text("gamma\n")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.txt").write_text("secret\n")
    (root / "link").symlink_to(outside)
    regs = {**_toolsets(root), "content": agenttools.toolset("content")}
    yield root, outside, regs
    for reg in regs.values():
        reg.close()


@pytest.mark.parametrize(("toolset", "tool", "properties"), TOOLS, ids=[f"{t}.{n}" for t, n, _ in TOOLS])
def test_random_arguments_never_raise_or_hang(registries, toolset, tool, properties):
    _root, outside, regs = registries
    reg = regs[toolset]

    @settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(arguments=_arguments(properties))
    def check(arguments: Any) -> None:
        started = time.monotonic()
        out = reg.call(tool, arguments)
        assert isinstance(out, agenttools.ToolOutput)
        assert isinstance(out.text, str)
        assert "Traceback (most recent call last)" not in out.text
        assert time.monotonic() - started < CALL_BOUND
        assert (outside / "secret.txt").read_text() == "secret\n"  # nothing outside the root changed
        assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]

    check()
