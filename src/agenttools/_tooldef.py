"""Checks on tool definitions, and running a coroutine from sync code (helpers of the registry)."""

from __future__ import annotations

import contextvars
import json
import re
import threading
from collections.abc import Awaitable, Mapping
from typing import Any

NAME_PATTERN = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}\Z")


def check_name(name: Any) -> list[str]:
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        return [f"name {name!r} must match {NAME_PATTERN.pattern[:-2]}$ (portable across OpenAI, Anthropic, "
                "Gemini and MCP)"]
    return []


def check_description(description: Any) -> list[str]:
    if not isinstance(description, str) or not description.strip():
        return ["no description: write a docstring (its text before 'Args:' is the description) or pass "
                "description="]
    return []


def check_parameters(parameters: Any) -> list[str]:
    if not isinstance(parameters, Mapping):
        return [f"parameters must be a JSON Schema object, got {type(parameters).__name__}"]
    problems = []
    if parameters.get("type") != "object":
        problems.append('parameters must have "type": "object" at the root')
    if any(k in parameters for k in ("anyOf", "oneOf", "allOf")):
        problems.append("parameters must not combine schemas (anyOf/oneOf/allOf) at the root")
    props = parameters.get("properties", {})
    if not isinstance(props, Mapping) or not all(isinstance(v, Mapping | bool) for v in props.values()):
        problems.append("parameters.properties must map names to schemas")
        props = {}
    problems.extend(f"required property {r!r} is not in properties"
                    for r in parameters.get("required", ()) if r not in props)
    try:
        json.dumps(parameters, allow_nan=False)
    except (TypeError, ValueError) as exc:
        problems.append(f"parameters are not JSON: {exc}")
    return problems


def run_coroutine(awaitable: Awaitable[Any]) -> Any:
    """Run an awaitable to completion from sync code, even when this thread already runs an event loop."""
    import asyncio

    async def wrap() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrap())
    box: dict[str, Any] = {}
    context = contextvars.copy_context()  # the caller's context variables (sessions) follow the call

    def target() -> None:
        try:
            box["value"] = context.run(asyncio.run, wrap())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="agenttools-call")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
