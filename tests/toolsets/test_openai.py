"""The openai toolset: apply_patch and shell, as function tools and as the Responses API's native items.

Shapes are checked with the openai SDK's own types (openai.types.responses). Patch texts are Codex 0.169.0's
(tests/fidelity/test_patch_upstream.py runs the real binary).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

import agenttools
from agenttools.errors import ConfigError
from agenttools.toolsets.openai.texts import APPLY_PATCH_DESCRIPTION

responses = pytest.importorskip("openai.types.responses")
from openai.types.responses import (  # noqa: E402
    ApplyPatchTool,
    FunctionShellTool,
    FunctionToolParam,
    ResponseApplyPatchToolCall,
    ResponseFunctionShellToolCall,
)
from openai.types.responses.response_input_item_param import (  # noqa: E402
    ApplyPatchCallOutput,
    ShellCallOutput,
)


@pytest.fixture
def reg(tmp_path: Path) -> Any:
    with agenttools.toolset("openai", root=str(tmp_path)) as registry:
        yield registry


def test_function_form_applies_a_patch(reg: Any, tmp_path: Path) -> None:
    out = reg.call("apply_patch", {"input": "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"})
    assert not out.is_error
    assert out.text == "Success. Updated the following files:\nA a.txt\n"
    assert (tmp_path / "a.txt").read_text() == "hi\n"


def test_function_form_failure_is_the_reference_stderr(reg: Any, tmp_path: Path) -> None:
    out = reg.call("apply_patch", {"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch"})
    assert out.is_error
    assert out.text == f"Failed to read file to update {tmp_path}/a.txt: No such file or directory (os error 2)\n"


def test_definitions(reg: Any, tmp_path: Path) -> None:
    native = reg.definitions("openai-responses")
    assert native == [{"type": "apply_patch"}, {"type": "shell"}]
    ApplyPatchTool.model_validate(native[0])
    FunctionShellTool.model_validate(native[1])
    chat = reg.definitions("openai")
    assert chat[0]["function"]["name"] == "apply_patch"
    assert chat[0]["function"]["description"] == APPLY_PATCH_DESCRIPTION
    assert chat[0]["function"]["parameters"]["properties"]["input"] == {
        "type": "string", "description": "The entire contents of the apply_patch command"}
    assert [d["name"] for d in reg.definitions("anthropic")] == ["apply_patch", "shell"]
    mixed = (reg | agenttools.toolset("gemini", root=str(tmp_path))).definitions("openai-responses")
    assert mixed[:2] == native
    for definition in mixed[2:]:
        TypeAdapter(FunctionToolParam).validate_python(definition)


def test_native_apply_patch_call(reg: Any, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    call = {"type": "apply_patch_call", "call_id": "c1", "status": "completed",
            "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-hi\n+ho\n"}}
    item = reg.run(call)
    assert item == {"type": "apply_patch_call_output", "call_id": "c1", "status": "completed",
                    "output": "Success. Updated the following files:\nM a.txt\n"}
    TypeAdapter(ApplyPatchCallOutput).validate_python(item)
    assert (tmp_path / "a.txt").read_text() == "ho\n"
    again = reg.run(ResponseApplyPatchToolCall.model_validate({**call, "id": "apc_1", "call_id": "c2"}))
    assert again["status"] == "failed"
    assert again["output"] == f"Failed to find expected lines in {tmp_path}/a.txt:\nhi\n"


def test_native_create_and_delete(reg: Any, tmp_path: Path) -> None:
    created = reg.run({"type": "apply_patch_call", "call_id": "c1", "status": "completed",
                       "operation": {"type": "create_file", "path": "d/n.txt", "diff": "+one\n+two"}})
    assert created["status"] == "completed"
    assert (tmp_path / "d/n.txt").read_text() == "one\ntwo\n"
    deleted = reg.run({"type": "apply_patch_call", "call_id": "c2", "status": "completed",
                       "operation": {"type": "delete_file", "path": "d/n.txt"}})
    assert deleted["output"] == "Success. Updated the following files:\nD d/n.txt\n"
    assert not (tmp_path / "d/n.txt").exists()


def test_a_patch_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    """A patch larger than max_file_size is refused before it is read: the function form and native items."""
    text = "Invalid patch: the patch is larger than 200 bytes (max_patch_size); split it into smaller patches\n"
    with agenttools.toolset("openai", root=str(tmp_path), max_file_size=200) as small:
        out = small.call("apply_patch", {"input": "*** Begin Patch\n*** Add File: a.txt\n" + "+x\n" * 100
                                                  + "*** End Patch"})
        assert out.is_error
        assert out.text == text
        item = small.run({"type": "apply_patch_call", "call_id": "c1", "status": "completed",
                          "operation": {"type": "create_file", "path": "a.txt", "diff": "+x\n" * 100}})
        assert item == {"type": "apply_patch_call_output", "call_id": "c1", "status": "failed", "output": text}
        assert not (tmp_path / "a.txt").exists()
        ok = small.run({"type": "apply_patch_call", "call_id": "c2", "status": "completed",
                        "operation": {"type": "create_file", "path": "a.txt", "diff": "+x\n" * 10}})
        assert ok["status"] == "completed"


def test_native_patch_outside_the_root_fails(reg: Any, tmp_path: Path) -> None:
    item = reg.run({"type": "apply_patch_call", "call_id": "c1", "status": "completed",
                    "operation": {"type": "create_file", "path": "../escape.txt", "diff": "+x"}})
    assert item["status"] == "failed"
    assert "is outside the allowed directories" in item["output"]
    assert not (tmp_path.parent / "escape.txt").exists()


def test_native_shell_call(reg: Any, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("content\n")
    call = {"type": "shell_call", "call_id": "s1", "status": "completed", "id": "sh_1",
            "action": {"commands": ["cat f.txt", "echo oops >&2; exit 3", "sleep 5", "echo never"],
                       "timeout_ms": 300, "max_output_length": 1000}}
    item = reg.run(ResponseFunctionShellToolCall.model_validate(call))
    TypeAdapter(ShellCallOutput).validate_python(item)
    assert item["type"] == "shell_call_output"
    assert item["call_id"] == "s1"
    assert item["max_output_length"] == 1000
    assert item["output"] == [
        {"stdout": "content\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {"stdout": "", "stderr": "oops\n", "outcome": {"type": "exit", "exit_code": 3}},
        {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}},
    ]


def test_shell_function_form_and_output_cap(reg: Any) -> None:
    out = reg.call("shell", {"commands": ["printf 0123456789; printf abcdef >&2"], "max_output_length": 12})
    assert not out.is_error
    assert json.loads(out.text) == [{"stdout": "0123456789", "stderr": "ab",
                                     "outcome": {"type": "exit", "exit_code": 0}}]
    assert out.data == {"output": json.loads(out.text), "max_output_length": 12}


def test_shell_runs_in_the_root(reg: Any, tmp_path: Path) -> None:
    out = reg.call("shell", {"commands": ["pwd"]})
    assert json.loads(out.text)[0]["stdout"] == f"{tmp_path.resolve()}\n"


def test_malformed_native_items_are_refused(reg: Any) -> None:
    with pytest.raises(ValueError, match="operation"):
        reg.run({"type": "apply_patch_call", "call_id": "c1", "operation": {"type": "rename", "path": "a"}})
    with pytest.raises(ValueError, match="action"):
        reg.run({"type": "shell_call", "call_id": "c1"})


def test_options() -> None:
    with pytest.raises(ConfigError):
        agenttools.toolset("openai")
    with pytest.raises(ConfigError):
        agenttools.toolset("openai", root=".", timeout_ms=0)


def test_shell_output_cap_keeps_the_first_characters_not_a_marker(reg: Any) -> None:
    # 3,000 two-byte characters cut to 10: the first 10 of them (run_shell's head/tail marker used to come out).
    out = reg.call("shell", {"commands": ["head -c 3000 /dev/zero | tr '\\0' 'x' | sed 's/x/\u00e9/g'"],
                             "max_output_length": 10})
    assert json.loads(out.text)[0]["stdout"] == "\u00e9" * 10


def test_shell_output_cap_of_the_toolset_is_a_ceiling(tmp_path: Path) -> None:
    with agenttools.toolset("openai", root=str(tmp_path), max_output_length=100) as small:
        out = small.call("shell", {"commands": ["head -c 100000 /dev/zero | tr '\\0' 'y'"],
                                   "max_output_length": 10**9})
    entry = json.loads(out.text)[0]
    assert entry["stdout"] == "y" * 100
    assert out.data["max_output_length"] == 10**9  # echoed as the call named it


def test_native_items_without_a_call_id_run_nothing(reg: Any, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    for call_id in (None, "", 5):
        item = {"type": "apply_patch_call", "status": "completed",
                "operation": {"type": "delete_file", "path": "a.txt"}}
        if call_id is not None:
            item["call_id"] = call_id
        with pytest.raises(ValueError, match="call_id"):
            reg.run(item)
    assert (tmp_path / "a.txt").read_text() == "hi\n"


@pytest.mark.parametrize("item", [
    {"type": ["apply_patch_call"], "call_id": "c1"},
    {"type": "apply_patch_call", "call_id": "c1", "operation": {"type": ["x"], "path": "a"}},
    {"type": "apply_patch_call", "call_id": "c1", "operation": {"type": "update_file", "path": "a.txt", "diff": 5}},
    {"type": "apply_patch_call", "call_id": "c1", "operation": {"type": "delete_file", "path": 7}},
    {"type": "shell_call", "call_id": "c1", "action": "ls"},
])
def test_malformed_native_items_raise_a_value_error(reg: Any, item: dict[str, Any]) -> None:
    with pytest.raises(ValueError):  # never a TypeError from deep inside
        reg.run(item)


def test_a_native_diff_the_model_got_wrong_is_a_failed_item(reg: Any, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    item = reg.run({"type": "apply_patch_call", "call_id": "c1", "status": "completed",
                    "operation": {"type": "update_file", "path": "a.txt", "diff": "@@\n-a\n+b\n*** Delete File: x"}})
    TypeAdapter(ApplyPatchCallOutput).validate_python(item)
    assert item["status"] == "failed"
    assert item["call_id"] == "c1"
    assert item["output"].startswith("Invalid patch: the update_file operation may only change 'a.txt'")
    assert (tmp_path / "a.txt").read_text() == "a\n"


def test_the_sdk_layer_reads_native_items_without_the_patch_family() -> None:
    """Imports point down: the SDK shapes pass the operation on; the openai toolset turns it into a patch."""
    code = ("import sys, agenttools.sdk as sdk\n"
            "p = sdk.parse_call({'type': 'apply_patch_call', 'call_id': 'c', 'status': 'completed',"
            " 'operation': {'type': 'delete_file', 'path': 'a.txt'}})\n"
            "assert p.native and p.name == 'apply_patch' and p.arguments == {'type': 'delete_file', 'path': 'a.txt'}\n"
            "print('agenttools.patch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False"
