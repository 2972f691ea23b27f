"""OpenAI Responses API: function tool definitions, ``function_call_output`` items, ``function_call`` items.

Also the API's native tool items: an ``apply_patch_call`` runs the ``apply_patch`` tool (its operation made a V4A
patch) and is answered with an ``apply_patch_call_output``; a ``shell_call`` runs the ``shell`` tool and is
answered with a ``shell_call_output`` (one entry per command, from the tool's ``data``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agenttools.blocks import Answer, ImageBlock, TextBlock, placeholder
from agenttools.sdk.openai import parameters
from agenttools.tool import Tool

__all__ = ["NATIVE_CALLS", "definitions", "native_result", "parse_call", "parse_native_call", "result"]

NATIVE_CALLS = {"apply_patch_call": "apply_patch", "shell_call": "shell"}
"""Native Responses call item types and the tool each runs."""


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """Responses ``tools`` entries (flat: ``{"type": "function", "name", ...}``), strict as for Chat."""
    out = []
    for tool in tools:
        schema, is_strict = parameters(tool, strict)
        out.append({"type": "function", "name": tool.name, "description": tool.description, "parameters": schema,
                    "strict": is_strict})
    return out


def result(out: Answer, call_id: str) -> dict[str, Any]:
    """A ``function_call_output`` item; images become ``input_image`` parts."""
    if not any(isinstance(b, ImageBlock) for b in out.content):
        return {"type": "function_call_output", "call_id": call_id, "output": out.text}
    parts: list[dict[str, Any]] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            parts.append({"type": "input_image", "image_url": f"data:{block.mime_type};base64,{block.data}"})
        else:
            parts.append({"type": "input_text", "text": placeholder(block)})
    if not any(p["type"] == "input_text" for p in parts):
        parts.insert(0, {"type": "input_text", "text": out.text})
    return {"type": "function_call_output", "call_id": call_id, "output": parts}


def parse_call(data: Mapping[str, Any]) -> tuple[str, Any, str | None] | None:
    """``(name, arguments, call_id)`` of a ``function_call`` item, or None when ``data`` is not one."""
    if data.get("type") != "function_call":
        return None
    return str(data.get("name")), data.get("arguments"), data.get("call_id")


def parse_native_call(data: Mapping[str, Any]) -> tuple[str, dict[str, Any], str] | None:
    """``(tool, payload, call_id)`` of an ``apply_patch_call`` or ``shell_call`` item, or None for others.

    The payload is the item's own: an ``apply_patch_call``'s operation (the tool's ``native_arguments`` turns it
    into the tool's arguments), a ``shell_call``'s action fields (already the ``shell`` tool's arguments).

    Raises:
        ValueError: The item is not a well-formed item of its type (no ``call_id``, no operation or an unknown
            operation type, no path or diff, no action): the API never sends such items.
    """
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in NATIVE_CALLS:
        return None
    call_id = data.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ValueError(f"a {kind} item needs a call_id (a non-empty string), got {call_id!r}")
    if kind == "apply_patch_call":
        operation = data.get("operation")
        if not isinstance(operation, Mapping):
            raise ValueError("an apply_patch_call item needs an operation")
        op_type, path, diff = operation.get("type"), operation.get("path"), operation.get("diff")
        if op_type not in ("create_file", "update_file", "delete_file"):
            raise ValueError(f"unknown apply_patch_call operation type {op_type!r}: use create_file, update_file "
                             "or delete_file")
        if not isinstance(path, str):
            raise ValueError(f"the {op_type} operation needs a path (a string), got {path!r}")
        if op_type != "delete_file" and not isinstance(diff, str):
            raise ValueError(f"the {op_type} operation needs a diff (a string), got {diff!r}")
        return NATIVE_CALLS[kind], dict(operation), call_id
    action = data.get("action")
    if not isinstance(action, Mapping):
        raise ValueError("a shell_call item needs an action")
    arguments = {key: action[key] for key in ("commands", "timeout_ms", "max_output_length")
                 if action.get(key) is not None}
    return NATIVE_CALLS[kind], arguments, call_id


def native_result(kind: str, out: Answer, call_id: str) -> dict[str, Any]:
    """The ``apply_patch_call_output`` or ``shell_call_output`` item answering a native call."""
    failed = bool(getattr(out, "is_error", False))
    if kind == "apply_patch_call":
        return {"type": "apply_patch_call_output", "call_id": call_id, "status": "failed" if failed else "completed",
                "output": out.text}
    data = getattr(out, "data", None)
    if not failed and isinstance(data, Mapping) and isinstance(data.get("output"), list):
        item: dict[str, Any] = {"type": "shell_call_output", "call_id": call_id, "status": "completed",
                                "output": [dict(entry) for entry in data["output"]]}
        if data.get("max_output_length") is not None:
            item["max_output_length"] = data["max_output_length"]
        return item
    return {"type": "shell_call_output", "call_id": call_id, "status": "completed",
            "output": [{"stdout": "", "stderr": out.text, "outcome": {"type": "exit", "exit_code": 1}}]}
