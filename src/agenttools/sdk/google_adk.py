"""Google ADK tools (``google-adk``; imported only when used).

Each tool becomes a ``google.adk.tools.BaseTool`` whose ``FunctionDeclaration`` carries our canonical JSON Schema
verbatim in ``parameters_json_schema`` (google-genai >= 1.x; older versions get the converted OpenAPI subset of
:func:`agenttools.sdk.gemini.gemini_legacy` in ``parameters``). ``run_async`` awaits ``acall``, so cancelling the
ADK run cancels the call (and kills a shell command it runs).

What the model gets back, in ADK's own conventions (``FunctionTool`` and Gemini's ``FunctionResponse`` docs):

- success: ``{"result": text}`` (the wrapper ADK itself puts around a non-dict return);
- failure: ``{"error": text}`` (what ``FunctionTool`` returns for bad arguments, a rejected confirmation or an
  unknown tool; Gemini reads the ``error`` key as error details). The tool never raises: a raised exception ends
  the ADK run unless an ``on_tool_error_callback`` answers it;
- images and other inline data (PDF): ``google.genai.types.Part``s returned next to the text, which ADK moves into
  ``FunctionResponse.parts`` (multimodal function responses); the text stays in ``response``.

The hints go where ADK has a place: ``custom_metadata["agenttools"]`` (all hints, for plugins and callbacks) and
ADK's confirmation gate (``require_confirmation``). ``is_long_running`` stays False: ADK uses it for calls whose
result arrives later from outside, and it ends the agent's turn after the call.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from agenttools.blocks import Answer, DataBlock, ImageBlock
from agenttools.sdk import gemini, json_schema
from agenttools.tool import Tool

__all__ = ["ConfirmationPolicy", "response", "tools"]

ConfirmationPolicy = bool | Callable[[Tool, Mapping[str, Any]], bool]
"""Whether a call waits for a human's approval: always, never, or ``(tool, arguments) -> bool`` per call."""

_MEDIA_KEY = "media"


def response(out: Answer) -> dict[str, Any]:
    """A tool's answer as an ADK tool result: ``{"result" | "error": text}``, plus inline data as ``Part``s.

    ADK takes the ``Part``s under ``"media"`` out of the dict into ``FunctionResponse.parts``; the model sees
    ``{"result": text}`` (or ``{"error": text}``) as the ``FunctionResponse.response``.
    """
    from google.genai import types

    result: dict[str, Any] = {"error" if out.is_error else "result": out.text}
    media = [types.Part.from_bytes(data=block.to_bytes(), mime_type=block.mime_type)
             for block in out.content if isinstance(block, ImageBlock | DataBlock)]
    if media:
        result[_MEDIA_KEY] = media
    return result


def _hints(tool: Tool) -> dict[str, Any]:
    return {"title": tool.title, "read_only": tool.read_only, "destructive": tool.is_destructive,
            "idempotent": tool.idempotent, "open_world": tool.open_world}


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, dict[str, Any]], Awaitable[Answer]], *,
          require_confirmation: ConfirmationPolicy = False) -> list[Any]:
    """One ADK ``BaseTool`` per tool, each running its calls through ``acall`` (a registry's).

    Args:
        defined: The tools (a :class:`~agenttools.Registry` iterates over its tools).
        call: The registry's ``call``; unused (ADK runs every tool through ``run_async``), kept for the shared
            adapter signature.
        acall: The registry's ``acall``.
        require_confirmation: ADK's human-in-the-loop gate: True, or a predicate ``(tool, arguments)`` (e.g.
            ``lambda tool, args: tool.is_destructive``) that holds a call until the client answers ADK's
            ``adk_request_confirmation`` call; meanwhile the model sees ADK's ``{"error": "This tool call
            requires confirmation, please approve or reject."}``.

    Raises:
        ImportError: google-adk is not installed.
        ToolDefinitionError: Only with google-genai lacking ``parameters_json_schema``: a schema Gemini's legacy
            ``parameters`` cannot express (a recursive ``$ref``).
    """
    del call
    try:
        from google.adk.tools.base_tool import BaseTool
        from google.adk.tools.tool_context import ToolContext
        from google.genai import types
    except ImportError:  # pragma: no cover - exercised without the framework
        raise ImportError("Google ADK tools need google-adk: pip install 'agenttools[google-adk]'") from None

    tool_list = list(defined)
    if "parameters_json_schema" in types.FunctionDeclaration.model_fields:
        declarations = [types.FunctionDeclaration(name=d["name"], description=d["description"],
                                                  parameters_json_schema=d["parameters"])
                        for d in json_schema.definitions(tool_list)]
    else:  # pragma: no cover - google-genai before parameters_json_schema
        declarations = [types.FunctionDeclaration.model_validate(d) for d in gemini.definitions(tool_list)]

    class AgentToolsTool(BaseTool):
        """An agenttools tool as an ADK tool: our schema, our validation, our answers."""

        def __init__(self, tool: Tool, declaration: types.FunctionDeclaration) -> None:
            super().__init__(name=tool.name, description=tool.description,
                             custom_metadata={"agenttools": _hints(tool)})
            self.tool = tool
            self._declaration = declaration

        def _get_declaration(self) -> types.FunctionDeclaration:
            # A copy under the current name: ADK toolsets rename a copied tool (``tool_name_prefix``) and mutate
            # the declaration they get; the registry is still called under the tool's own name.
            return self._declaration.model_copy(update={"name": self.name}, deep=True)

        async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
            return response(await acall(self.tool.name, dict(args)))

        async def check_require_confirmation(self, args: dict[str, Any], tool_context: ToolContext) -> bool:
            if callable(require_confirmation):
                return bool(require_confirmation(self.tool, copy.deepcopy(args)))
            return bool(require_confirmation)

        def _detect_error_in_response(self, result: Any) -> str | None:
            """ADK's telemetry hook (as on ``FunctionTool``): a failed call is reported as ``TOOL_ERROR``."""
            return "TOOL_ERROR" if isinstance(result, dict) and "error" in result else None

    return [AgentToolsTool(tool, declaration) for tool, declaration in zip(tool_list, declarations, strict=True)]
