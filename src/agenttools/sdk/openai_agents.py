"""OpenAI Agents SDK function tools for agenttools tools (``pip install openai-agents``; imported only when used).

:func:`tools` returns one ``agents.FunctionTool`` per tool. ``params_json_schema`` is our OpenAI-strict form of the
tool's schema (:func:`agenttools.sdk.openai.parameters`: optional parameters nullable, a null meaning the default),
with ``strict_json_schema`` telling whether it is strict; ``on_invoke_tool`` hands the model's raw JSON arguments to
the registry's ``acall``, which validates, runs the hooks and never raises:

* success: the text; with images or other inline data, a list of ``ToolOutputText`` / ``ToolOutputImage`` (data
  URL) / ``ToolOutputFileContent`` items, the Responses ``function_call_output`` content parts;
* any failure: the error text, returned as the output — how the SDK documents errors for a hand-made
  ``FunctionTool`` ("return a string error message, which will be sent back to the LLM"): the Responses API has no
  error flag on a tool output. The tool's trace span gets the SDK's handled-error mark, ``SpanError("Error running
  tool (non-fatal)")``, as the SDK's own ``@function_tool`` failure path does.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from agenttools.blocks import Answer, DataBlock, ImageBlock, TextBlock
from agenttools.schema import canonicalize
from agenttools.sdk import openai
from agenttools.tool import Tool

if TYPE_CHECKING:
    from agents import FunctionTool

__all__ = ["NAME_PATTERN", "tools"]

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}\Z")
"""OpenAI's function name rule; the SDK sends an explicit ``FunctionTool.name`` as it is and the API rejects others."""


def _parameters(tool: Tool, strict: bool | None) -> tuple[dict[str, Any], bool]:
    if strict is False or (strict is None and not tool.strict):
        return canonicalize(tool.parameters), False
    return openai.parameters(tool, True)


def _filename(block: DataBlock) -> str:
    """OpenAI reads an inline file's type from its name: ``file.pdf``."""
    return "file" + (mimetypes.guess_extension(block.mime_type) or "")


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, Any], Awaitable[Answer]], *, strict: bool | None = True,
          needs_approval: bool | Callable[[Tool], bool] = False,
          timeout_seconds: float | None = None) -> list[FunctionTool]:
    """One ``agents.FunctionTool`` per tool, each call run through ``acall`` (a registry's).

    The SDK awaits every tool on its event loop (``Runner.run_sync`` too), so ``call`` is not used. Cancelling the
    run (or a ``timeout_seconds`` expiry) cancels ``acall``, which kills a running command.

    Args:
        defined: The tools (a registry, or a selection of it).
        call: The registry's ``call`` (unused; part of the common adapter signature).
        acall: The registry's ``acall``; it receives the model's arguments as the raw JSON string.
        strict: True (the SDK's recommendation): our OpenAI-strict schema, ``strict_json_schema=True`` (a schema that
            cannot be strict falls back to canonical and non-strict, with a warning); False: canonical, non-strict;
            None: each tool's own preference (``Tool.strict``).
        needs_approval: True, or a predicate on the tool (``lambda t: t.is_destructive``): the SDK interrupts the
            run before such a call (``result.interruptions``; ``state.approve``/``reject``, then run the state).
        timeout_seconds: Per-call timeout; on expiry the SDK cancels the call and tells the model
            ``Tool '<name>' timed out after <n> seconds.``

    Raises:
        ImportError: The Agents SDK is not installed.
        ValueError: A name OpenAI rejects, or two tools with one name.
    """
    del call  # the SDK only awaits tools
    try:
        from agents import (
            FunctionTool,
            RunContextWrapper,
            SpanError,
            ToolOutputFileContent,
            ToolOutputImage,
            ToolOutputText,
            get_current_span,
        )
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("Agents SDK tools need openai-agents: pip install 'agenttools[openai-agents]'") from None

    def output(out: Answer) -> str | list[ToolOutputText | ToolOutputImage | ToolOutputFileContent]:
        if out.is_error or not any(isinstance(block, ImageBlock | DataBlock) for block in out.content):
            return out.text
        items: list[ToolOutputText | ToolOutputImage | ToolOutputFileContent] = []
        for block in out.content:
            if isinstance(block, TextBlock):
                items.append(ToolOutputText(text=block.text))
            elif isinstance(block, ImageBlock):
                items.append(ToolOutputImage(image_url=f"data:{block.mime_type};base64,{block.data}"))
            else:
                items.append(ToolOutputFileContent(file_data=f"data:{block.mime_type};base64,{block.data}",
                                                   filename=_filename(block)))
        if not any(isinstance(item, ToolOutputText) for item in items):
            # the text leads: Chat Completions models keep only the text parts of a tool output
            items.insert(0, ToolOutputText(text=out.text))
        return items

    def mark_failed(ctx: RunContextWrapper[Any], name: str, text: str) -> None:
        span = get_current_span()
        if span is None:
            return
        run_config = getattr(ctx, "run_config", None)
        sensitive = run_config is None or run_config.trace_include_sensitive_data
        detail = text if sensitive else "Error details are redacted."
        span.set_error(SpanError(message="Error running tool (non-fatal)", data={"tool_name": name, "error": detail}))

    def invoker(name: str) -> Callable[[Any, str], Awaitable[Any]]:
        async def on_invoke_tool(ctx: Any, arguments: str) -> Any:
            out = await acall(name, arguments)
            if out.is_error:
                mark_failed(ctx, name, out.text)
            return output(out)

        return on_invoke_tool

    made: list[FunctionTool] = []
    names: set[str] = set()
    for tool in defined:
        if not NAME_PATTERN.match(tool.name):
            raise ValueError(f"tool name {tool.name!r} must match {NAME_PATTERN.pattern[:-2]}$ for OpenAI")
        if tool.name in names:
            raise ValueError(f"two tools are named {tool.name!r}")
        names.add(tool.name)
        schema, is_strict = _parameters(tool, strict)
        approval = needs_approval(tool) if callable(needs_approval) else needs_approval
        made.append(FunctionTool(name=tool.name, description=tool.description, params_json_schema=schema,
                                 on_invoke_tool=invoker(tool.name), strict_json_schema=is_strict,
                                 needs_approval=bool(approval), timeout_seconds=timeout_seconds))
    return made
