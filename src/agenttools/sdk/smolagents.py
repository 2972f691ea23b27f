"""smolagents tools (``smolagents.Tool``) for agenttools registries; smolagents is imported only when used.

Each tool runs through the registry's ``call`` (smolagents is synchronous) and answers with ``out.text``, the
observation the agent shows. A failed call raises :class:`~agenttools.errors.ToolFailure` carrying our text, which
smolagents turns into ``AgentToolExecutionError``: the step records the error, the model sees it as
``Error executing tool '<name>' with arguments {...}: ToolFailure: <our text>`` and the run goes on.

The schema: smolagents builds the definitions it sends from ``Tool.inputs`` with
``smolagents.models.get_tool_json_schema``, which drops root keywords (``additionalProperties``, ``$defs``),
derives ``required`` from a ``nullable`` flag and flattens ``anyOf``. ``inputs`` holds our property schemas
verbatim (plus ``nullable`` for optional ones), so that path loses as little as it can; for the exact schema use
a model class with the :class:`ExactSchemas` mixin (``exact_schemas(OpenAIModel)(...)``), which swaps in each
tool's verbatim definition (``Tool.exact_definition``) for what ``get_tool_json_schema`` made.

Images and cancellation need the agent: ``toolset.attach(agent)`` registers a step callback that puts the images
of the step's results into ``ActionStep.observations_images`` (the way smolagents shows a model images) and lets
``agent.interrupt()`` cancel a running call (its shell command is killed).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import copy
import json
import keyword
import logging
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from agenttools.blocks import Answer, ImageBlock
from agenttools.errors import ToolFailure
from agenttools.schema import json_type
from agenttools.schema.transform import Unrepresentable, inline_refs
from agenttools.sdk import openai as openai_sdk
from agenttools.tool import Tool

__all__ = ["ExactSchemas", "SmolagentsTools", "exact_schemas", "smolagents_name", "tools"]

_JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
_RESERVED = frozenset({"final_answer"})
_POLL = 0.05
"""Seconds between checks of ``agent.interrupt_switch`` while a call runs."""
_MAX_PENDING_IMAGES = 64


def _logger() -> logging.Logger:
    return logging.getLogger("agenttools.sdk.smolagents")


def smolagents_name(name: str) -> str:
    """The smolagents name of a tool: a Python identifier that is not a keyword (``-`` becomes ``_``)."""
    out = name.replace("-", "_")
    return out + "_" if keyword.iskeyword(out) else out


def _types_of(schema: Any) -> list[str] | str:
    """The JSON types a property schema admits, for smolagents' ``type`` key (which every input must have)."""
    if not isinstance(schema, dict):
        return list(_JSON_TYPES)
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        kinds = [str(k) for k in kind]
    elif isinstance(branches := schema.get("anyOf", schema.get("oneOf")), list):
        kinds = []
        for branch in branches:
            sub = _types_of(branch)
            kinds.extend([sub] if isinstance(sub, str) else sub)
    elif "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        kinds = [json_type(v) for v in values]
    else:
        return list(_JSON_TYPES)
    if "number" in kinds and "integer" not in kinds:
        kinds.append("integer")  # smolagents' pre-check takes an int for "number" only when type is a string
    unique = list(dict.fromkeys(kinds))
    return unique[0] if len(unique) == 1 else unique


def _inputs(parameters: dict[str, Any], precheck: bool) -> dict[str, dict[str, Any]]:
    """The ``inputs`` of a smolagents tool: our property schemas, verbatim but for what smolagents needs.

    Each gets the ``type``/``description`` keys smolagents requires, and ``nullable`` when optional (smolagents
    derives ``required`` from it); local ``$ref``s are inlined, since ``get_tool_json_schema`` sends no ``$defs``.
    """
    required = set(parameters.get("required", ()))
    with contextlib.suppress(Unrepresentable):  # a recursive $ref stays (an ExactSchemas model sends its $defs)
        parameters = inline_refs(parameters)
    out: dict[str, dict[str, Any]] = {}
    for name, schema in parameters.get("properties", {}).items():
        if not precheck:  # smolagents' pre-check lets any value of a known argument through; the registry checks
            entry: dict[str, Any] = {"type": list(_JSON_TYPES), "nullable": True}
            if isinstance(schema, dict) and "description" in schema:
                entry["description"] = schema["description"]
        else:
            entry = copy.deepcopy(schema) if isinstance(schema, dict) else {}
            if "type" not in entry:
                entry["type"] = _types_of(entry)
            branches = entry.get("anyOf")
            if branches is not None and not all(isinstance(b, dict) and "type" in b for b in branches):
                del entry["anyOf"]  # get_tool_json_schema reads every branch's "type" (KeyError); "type" says it
            if name not in required:
                entry["nullable"] = True  # a null sent back means "use the default" (the registry drops it)
        entry.setdefault("description", "")
        out[name] = entry
    return out


async def _until(call: Coroutine[Any, Any, Answer], stop: Callable[[], bool]) -> Answer | None:
    """Await ``call``; None when ``stop()`` turned true first (the call was cancelled and has ended)."""
    task = asyncio.ensure_future(call)
    while True:
        done, _ = await asyncio.wait({task}, timeout=_POLL)
        if done:
            return task.result()
        if stop():
            task.cancel()
            try:
                return await task  # it finished meanwhile
            except asyncio.CancelledError:
                return None


class SmolagentsTools(list):  # type: ignore[type-arg]
    """The ``smolagents.Tool`` list for one agent, with the step callback that shows the model its images."""

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        self._images: collections.deque[Any] = collections.deque(maxlen=_MAX_PENDING_IMAGES)
        self._agent: Any = None
        self._lock = threading.Lock()

    def attach(self, agent: Any) -> Any:
        """Register :meth:`step_callback` on ``agent`` and let ``agent.interrupt()`` cancel running calls.

        One toolset serves one agent. Returns the agent.
        """
        from smolagents.memory import ActionStep

        agent.step_callbacks.register(ActionStep, self.step_callback)
        self._agent = agent
        return agent

    def step_callback(self, step: Any, agent: Any = None) -> None:
        """Move the images of this step's results into ``step.observations_images`` (shown before its observation)."""
        with self._lock:
            images = list(self._images)
            self._images.clear()
        if images:
            step.observations_images = [*(step.observations_images or []), *images]

    def _keep(self, images: list[Any]) -> None:
        with self._lock:
            self._images.extend(images)

    def _interrupted(self) -> Callable[[], bool] | None:
        agent = self._agent
        if agent is None:
            return None
        return lambda: bool(getattr(agent, "interrupt_switch", False))


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, dict[str, Any]], Awaitable[Answer]], *, strict: bool | None = None,
          precheck: bool = True) -> SmolagentsTools:
    """One ``smolagents.Tool`` per tool, running each call through ``call`` (or ``acall`` once attached).

    Args:
        defined: The tools.
        call: Runs a call (a registry's ``call``).
        acall: Runs a call asynchronously (a registry's ``acall``); used after ``attach(agent)`` so that
            ``agent.interrupt()`` cancels a running call.
        strict: Definitions in OpenAI strict form (``agenttools.sdk.openai.parameters``; optional parameters become
            nullable and a null means the default) with ``"strict": true``; None follows each tool's preference.
        precheck: Let smolagents' own argument check (types, required, unknown keys) answer first, with its
            wording. False declares every argument as optional and of any type in ``inputs`` so only the registry
            checks (our error text); use it only with an :class:`ExactSchemas` model, since without one the model
            is sent ``inputs``.

    Raises:
        ImportError: smolagents is not installed (``pip install smolagents``).
        ValueError: Two tools share a smolagents name, or a tool is named ``final_answer``.
    """
    try:
        from smolagents.agent_types import AgentImage
        from smolagents.tools import Tool as SmolagentsTool
        from smolagents.utils import is_valid_name
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("smolagents tools need smolagents: pip install 'agenttools[smolagents]'") from None

    toolset = SmolagentsTools()

    def run(name: str, arguments: dict[str, Any]) -> Answer:
        stop = toolset._interrupted()
        if stop is None:
            return call(name, arguments)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            out = asyncio.run(_until(acall(name, arguments), stop))  # type: ignore[arg-type]
            if out is None:
                raise ToolFailure(f"The call to {name} was cancelled", code="cancelled") from None
            return out
        return call(name, arguments)  # agent.run() on an event loop's thread: no loop of our own here

    def images_of(out: Answer) -> list[Any]:
        found = []
        for block in out.content:
            if isinstance(block, ImageBlock):
                try:
                    # AgentImage is smolagents' image type; memory holds its PIL image (an AgentImage itself does
                    # not survive the deepcopy smolagents makes of the messages)
                    found.append(AgentImage(block.to_bytes()).to_raw())
                except Exception as error:  # noqa: BLE001 - an image PIL cannot open (SVG) is left to the text
                    _logger().debug("image %s not shown to the model: %s", block.mime_type, error)
        return found

    class AgentToolsTool(SmolagentsTool):  # type: ignore[misc]
        """A registry tool as a ``smolagents.Tool``."""

        output_type = "string"
        skip_forward_signature_validation = True

        def __init__(self, tool: Tool, name: str, parameters: dict[str, Any], is_strict: bool) -> None:
            self.name = name
            self.description = tool.description
            self.inputs = _inputs(parameters, precheck)
            self.parameters = parameters
            """The JSON Schema the model is shown (in the system prompt and by an ExactSchemas model)."""
            function: dict[str, Any] = {"name": name, "description": tool.description,
                                        "parameters": copy.deepcopy(parameters)}
            if is_strict:
                function["strict"] = True
            self.exact_definition = {"type": "function", "function": function}
            """The tool definition an :class:`ExactSchemas` model sends."""
            self.agenttools_tool = tool
            """The agenttools tool, with its hints (``read_only``, ``is_destructive``...)."""
            super().__init__()

        def validate_arguments(self) -> None:  # our schema was checked when the tool was defined
            if not is_valid_name(self.name):
                raise ValueError(f"tool name {self.name!r} is not a Python identifier")

        def forward(self, **kwargs: Any) -> str:
            out = run(self.agenttools_tool.name, kwargs)
            if out.is_error:
                raise ToolFailure(out.text)
            images = images_of(out)
            if images:
                toolset._keep(images)
            return out.text

        def to_tool_calling_prompt(self) -> str:
            return (f"{self.name}: {self.description}\n    Takes inputs: {json.dumps(self.parameters)}\n"
                    f"    Returns an output of type: {self.output_type}")

    seen: dict[str, str] = {}
    for tool in defined:
        name = smolagents_name(tool.name)
        if name in _RESERVED:
            raise ValueError(f"tool {tool.name!r}: smolagents reserves the name {name!r} for the agent's answer")
        if name in seen:
            raise ValueError(f"tools {seen[name]!r} and {tool.name!r} are both {name!r} in smolagents")
        seen[name] = tool.name
        parameters, is_strict = openai_sdk.parameters(tool, strict)
        toolset.append(AgentToolsTool(tool, name, parameters, is_strict))
    return toolset


class ExactSchemas:
    """Mixin for a ``smolagents.models.Model``: our tools are sent with their exact definitions.

    ``class Model(ExactSchemas, OpenAIModel): ...`` (or :func:`exact_schemas`). Every smolagents model builds its
    request in ``Model._prepare_completion_kwargs``; this replaces the entry ``get_tool_json_schema`` made for
    each of our tools with ``tool.exact_definition``. Other tools are left as smolagents made them.
    """

    def _prepare_completion_kwargs(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        completion: dict[str, Any] = super()._prepare_completion_kwargs(*args, **kwargs)  # type: ignore[misc]
        called = kwargs.get("tools_to_call_from", args[3] if len(args) > 3 else None) or []
        exact = {t.name: t.exact_definition for t in called if getattr(t, "exact_definition", None) is not None}
        specs = completion.get("tools")
        if exact and isinstance(specs, list):
            completion["tools"] = [
                copy.deepcopy(exact[name]) if (name := (spec.get("function") or {}).get("name")) in exact else spec
                for spec in specs]
        return completion


def exact_schemas(model_class: type) -> type:
    """``model_class`` with :class:`ExactSchemas` mixed in: ``exact_schemas(OpenAIModel)(model_id=...)``."""
    return type(f"Exact{model_class.__name__}", (ExactSchemas, model_class), {})
