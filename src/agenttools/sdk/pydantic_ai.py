"""pydantic-ai toolset for agenttools tools (``pip install pydantic-ai-slim``; imported only when used).

:func:`tools` returns one ``AbstractToolset`` holding every tool. Each tool is a ``ToolDefinition`` whose
``parameters_json_schema`` is our canonical schema, verbatim (or our OpenAI-strict form when strict), and every call
goes through the registry's ``acall``, which validates, runs the hooks and never raises:

* success: the text; with images or other inline data, a ``ToolReturn`` whose ``return_value`` holds the text and
  ``BinaryContent`` items (sent natively in the tool result where the provider can, else as a trailing user message);
* bad arguments (an error code in :data:`RETRY_CODES`: not JSON, not an object, a schema violation, a rejected path
  or pattern): ``ModelRetry(text)`` — a ``'retried'`` tool return that counts against the tool's retry budget, like
  pydantic-ai's own validation errors (past the budget, pydantic-ai ends the run with ``UnexpectedModelBehavior``);
* any other failure: ``ToolFailed(text)`` — a ``'failed'`` tool return, no retry budget used (``MCPToolset`` with
  ``tool_error_behavior='failed'``); ``tool_error_behavior='retry'`` gives ``ModelRetry`` instead (MCP's default).
"""

from __future__ import annotations

import base64
import copy
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from agenttools.blocks import Answer, DataBlock, ImageBlock, TextBlock
from agenttools.errors import code_of
from agenttools.schema import canonicalize
from agenttools.sdk import openai
from agenttools.tool import Tool

if TYPE_CHECKING:
    from pydantic_ai.toolsets import AbstractToolset

__all__ = ["RETRY_CODES", "tools"]

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}\Z")
"""Tool names every provider pydantic-ai talks to accepts (pydantic-ai itself sends names as they are)."""

RETRY_CODES = frozenset({"invalid_input", "invalid_arguments", "invalid_path", "invalid_pattern", "unknown_tool",
                         "invalid_parameters"})
"""Error codes (:func:`agenttools.errors.code_of`) that mean "fix the arguments": answered with ``ModelRetry``.

``invalid_parameters`` is the Gemini toolset's own parameter check ("Error: Invalid parameters provided. Reason: ...":
a relative path, a bad regular expression).
"""

_UNPARSED = "\x00agenttools:unparsed"
"""Key under which the arguments validator hands on arguments that are not a JSON object, for the registry to word."""


def _argument_error(out: Answer) -> bool:
    return out.is_error and code_of(getattr(out, "data", None)) in RETRY_CODES


def _hints(tool: Tool) -> dict[str, Any]:
    """The tool's hints under MCP's names, as ``MCPToolset`` puts them in ``ToolDefinition.metadata``."""
    hints: dict[str, Any] = {"readOnlyHint": tool.read_only, "destructiveHint": tool.is_destructive,
                             "idempotentHint": tool.idempotent, "openWorldHint": tool.open_world}
    if tool.title:
        hints["title"] = tool.title
    return hints


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, dict[str, Any]], Awaitable[Answer]], *, id: str | None = None,
          strict: bool | None = None, max_retries: int | None = None,
          tool_error_behavior: Literal["failed", "retry"] = "failed",
          requires_approval: bool | Callable[[Tool], bool] = False, timeout: float | None = None,
          ) -> AbstractToolset[Any]:
    """A pydantic-ai toolset of ``defined``, each call run through ``acall`` (a registry's).

    pydantic-ai runs tools on its event loop only, so ``call`` is not used: ``Agent.run_sync`` works too.
    Cancelling the agent run (or a ``timeout``) cancels ``acall``, which kills a running command.

    Args:
        defined: The tools (a registry, or a selection of it).
        call: The registry's ``call`` (unused; part of the common adapter signature).
        acall: The registry's ``acall``.
        id: The toolset id (needed for durable execution, e.g. Temporal).
        strict: True: our OpenAI-strict form of each schema (optional parameters nullable, null meaning the
            default) with ``ToolDefinition.strict=True``; False: never strict; None: each tool's preference, and
            for a tool without one ``strict=None`` (the provider decides; OpenAI goes strict only when the schema
            already is).
        max_retries: Retry budget of each tool for argument errors; None: the agent's ``retries``.
        tool_error_behavior: ``"failed"`` (default): other tool errors are ``ToolFailed``; ``"retry"``: ``ModelRetry``.
        requires_approval: True, or a predicate on the tool (``lambda t: t.is_destructive``): those tools are
            ``kind='unapproved'`` — pydantic-ai defers their calls as ``DeferredToolRequests.approvals``.
        timeout: Seconds per call (``ToolDefinition.timeout``); on expiry the call is cancelled and the model gets
            ``ModelRetry("Timed out after <n> seconds.")``, as ``FunctionToolset`` does.

    Raises:
        ImportError: pydantic-ai is not installed.
        ValueError: A tool name providers reject, or two tools with one name.
    """
    del call  # pydantic-ai only awaits tools
    try:
        import anyio
        import pydantic_core
        from pydantic_ai.exceptions import ModelRetry, ToolFailed
        from pydantic_ai.messages import BinaryContent, ToolReturn
        from pydantic_ai.tools import RunContext, ToolDefinition
        from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("pydantic-ai tools need pydantic-ai-slim: pip install 'agenttools[pydantic-ai]'") from None

    class _Arguments:
        """The arguments validator: any JSON object passes as it is; anything else is handed on for the registry.

        So every argument error — not JSON, not an object, a schema violation — is worded by the registry and
        reaches the model as a ``ModelRetry`` with our text, not as pydantic's ``json_invalid`` list.
        """

        def validate_json(self, input: str | bytes | bytearray, *,
                          allow_partial: bool | Literal["off", "on", "trailing-strings"] = False,
                          **_: Any) -> dict[str, Any]:
            partial: bool | Literal["trailing-strings"]
            if allow_partial == "off":
                partial = False
            elif allow_partial == "on":
                partial = True
            else:
                partial = allow_partial
            try:
                value = pydantic_core.from_json(input, allow_partial=partial)
            except ValueError:
                raw = input if isinstance(input, str) else bytes(input).decode("utf-8", "replace")
                return {_UNPARSED: raw}
            return self.validate_python(value)

        def validate_python(self, input: Any, **_: Any) -> dict[str, Any]:
            return dict(input) if isinstance(input, dict) else {_UNPARSED: input}

    validator = _Arguments()
    names: set[str] = set()
    definitions: list[ToolDefinition] = []
    for tool in defined:
        if not NAME_PATTERN.match(tool.name):
            raise ValueError(f"tool name {tool.name!r} must match {NAME_PATTERN.pattern[:-2]}$ for pydantic-ai's "
                             "providers (OpenAI, Anthropic, Gemini, Bedrock)")
        if tool.name in names:
            raise ValueError(f"two tools are named {tool.name!r}")
        names.add(tool.name)
        want = tool.strict if strict is None else strict
        if want:
            schema, is_strict = openai.parameters(tool, True)
            tool_strict: bool | None = is_strict
        else:
            schema, tool_strict = canonicalize(tool.parameters), (None if want is None else False)
        approval = requires_approval(tool) if callable(requires_approval) else requires_approval
        definitions.append(ToolDefinition(
            name=tool.name, description=tool.description, parameters_json_schema=copy.deepcopy(schema),
            strict=tool_strict, kind="unapproved" if approval else "function", timeout=timeout,
            metadata={"annotations": _hints(tool)},
            return_schema=copy.deepcopy(tool.output_schema) if tool.output_schema else None))

    def answer(out: Answer) -> Any:
        if out.is_error:
            if tool_error_behavior == "retry" or _argument_error(out):
                raise ModelRetry(out.text)
            raise ToolFailed(out.text)
        if not any(isinstance(block, ImageBlock | DataBlock) for block in out.content):
            return out.text
        items: list[Any] = []
        for block in out.content:
            if isinstance(block, TextBlock):
                items.append(block.text)
            else:
                items.append(BinaryContent.narrow_type(BinaryContent(data=base64.b64decode(block.data),
                                                                     media_type=block.mime_type)))
        if not any(isinstance(item, str) for item in items):
            items.insert(0, out.text)  # the text (e.g. "[image: image/png]") leads, as in our other SDK shapes
        return ToolReturn(return_value=items)

    class AgentToolsToolset(AbstractToolset[Any]):
        """agenttools tools as a pydantic-ai toolset."""

        def __init__(self) -> None:
            self._id = id

        @property
        def id(self) -> str | None:
            return self._id

        @property
        def label(self) -> str:
            return f"agenttools toolset {self._id!r}" if self._id else "agenttools toolset"

        async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
            retries = ctx.max_retries if max_retries is None else max_retries
            return {definition.name: ToolsetTool(toolset=self, tool_def=copy.deepcopy(definition),
                                                 max_retries=retries, args_validator=validator)
                    for definition in definitions}

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                            tool: ToolsetTool[Any]) -> Any:
            arguments: Any = tool_args.get(_UNPARSED, tool_args)
            limit = tool.tool_def.timeout  # read off the definition, as FunctionToolset does: `prepare` may change it
            if limit is None:
                return answer(await acall(name, arguments))
            try:
                with anyio.fail_after(limit):
                    out = await acall(name, arguments)
            except TimeoutError:
                raise ModelRetry(f"Timed out after {limit} seconds.") from None  # FunctionToolset's words
            return answer(out)

    return AgentToolsToolset()
