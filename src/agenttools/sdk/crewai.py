"""CrewAI tools (``crewai``; imported only when used).

Each tool becomes a ``crewai.tools.BaseTool``. CrewAI wants ``args_schema`` to be a pydantic model class and renders
the schema from ``args_schema.model_json_schema()``; our model has no fields (so CrewAI neither validates, coerces
nor fills in defaults: the registry validates) and returns our schema from ``model_json_schema``:

- native function calling (the provider LLMs): CrewAI always sends ``"strict": true``, so the schema is our
  OpenAI-strict form (:func:`agenttools.sdk.openai.parameters`; optional parameters required-but-nullable, a null
  meaning "the default"), which CrewAI's own strict pass (``generate_model_description``) leaves unchanged;
- the ReAct text prompt (an LLM without native function calling): the ``Tool Arguments:`` line shows our canonical
  JSON Schema verbatim (CrewAI's rendering would mark every parameter required and drop the nulls).

A failed call returns CrewAI's ``ToolFailure`` (our text as ``message``, no ``code`` so the text stays exact; our
error code in ``details``): the model sees our text; CrewAI records it on the task's ``tool_failures``, emits
``ToolFailureDetectedEvent`` and applies the ``tool_failure_policy`` (warn, ignore, raise). CrewAI tool results are
text only, so images and other inline data reach the model as our text (their placeholder), never as images.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agenttools.blocks import Answer
from agenttools.errors import code_of
from agenttools.sdk import json_schema, openai
from agenttools.sdk._schema_model import schema_model
from agenttools.tool import Tool

__all__ = ["crewai_name", "tools"]

_REASONS = {"invalid_arguments": "INVALID_INPUT", "unknown_tool": "UNKNOWN_TOOL"}


def _cache_unless_failed(_args: Any = None, result: Any = None) -> bool:
    """CrewAI ``cache_function`` of a read-only tool (module-level, so CrewAI can serialize it)."""
    from crewai.tools.tool_failure import ToolFailure

    return not isinstance(result, ToolFailure)


def _never_cache(_args: Any = None, _result: Any = None) -> bool:
    """CrewAI ``cache_function`` of a tool that may change things: a repeated call runs again."""
    return False


def crewai_name(name: str) -> str:
    """The name CrewAI shows the model for a tool named ``name`` (its ``sanitize_tool_name``).

    CrewAI lower-cases, splits camelCase, turns ``-`` into ``_`` and trims ``_``: ``readFile`` is called
    ``read_file``, ``my-tool`` ``my_tool``, ``_x`` ``x``. Calls still reach the tool under its own name.
    """
    from crewai.utilities.string_utils import sanitize_tool_name

    return str(sanitize_tool_name(name))


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, dict[str, Any]], Awaitable[Answer]]) -> list[Any]:
    """One CrewAI ``BaseTool`` per tool, running each call through ``call`` (CrewAI runs tools synchronously).

    ``_arun`` (for direct async use; CrewAI 1.x's agent loop never calls it) goes through ``acall``. Successful
    results of read-only tools may be cached when the crew enables ``cache``; failures never are.

    Raises:
        ImportError: crewai is not installed.
        ValueError: Two tools would get the same CrewAI name (see :func:`crewai_name`).
    """
    try:
        from crewai.tools import BaseTool
        from crewai.tools.structured_tool import CrewStructuredTool
        from crewai.tools.tool_failure import ToolFailure, ToolFailureReason
    except ImportError:  # pragma: no cover - exercised without the framework
        raise ImportError("CrewAI tools need crewai: pip install 'agenttools[crewai]'") from None
    from pydantic import PrivateAttr

    tool_list = list(defined)
    seen: dict[str, str] = {}
    for tool in tool_list:
        shown = crewai_name(tool.name)
        if shown in seen:
            raise ValueError(f"tools {seen[shown]!r} and {tool.name!r} would both be called {shown!r} in CrewAI")
        seen[shown] = tool.name
    canonical = {d["name"]: d["parameters"] for d in json_schema.definitions(tool_list)}

    def args_model(tool: Tool) -> type[Any]:
        # no fields: CrewAI's validation (``model_validate(...).model_dump()``) passes every argument through
        return schema_model(f"{tool.name}_arguments", openai.parameters(tool, True)[0])

    def answer(out: Answer) -> str | ToolFailure:
        if not out.is_error:
            return out.text
        code = code_of(getattr(out, "data", None))
        reason = ToolFailureReason[_REASONS.get(code, "TOOL_REPORTED")]
        return ToolFailure(message=out.text, reason=reason, details={"code": code})

    def react_description(name: str, parameters: dict[str, Any], description: str) -> str:
        # CrewAI's own ``format_description_for_llm`` layout, with our schema as it is
        return (f"Tool Name: {crewai_name(name)}\nTool Arguments: {json.dumps(parameters, indent=2)}\n"
                f"Tool Description: {description}")

    class AgentToolsStructuredTool(CrewStructuredTool):  # type: ignore[misc,unused-ignore]
        """The structured tool CrewAI's ReAct loop renders and runs, with our canonical schema in the prompt."""

        _parameters: dict[str, Any] = PrivateAttr(default_factory=dict)

        @property
        def formatted_description(self) -> str:
            return react_description(self.name, self._parameters, self.description)

    class AgentToolsTool(BaseTool):  # type: ignore[misc,unused-ignore]
        """An agenttools tool as a CrewAI tool: our schema, our validation, our answers."""

        _tool: Tool = PrivateAttr()

        @property
        def tool(self) -> Tool:
            """The agenttools tool (its hints: ``read_only``, ``is_destructive``... for CrewAI hooks)."""
            return self._tool

        @property
        def formatted_description(self) -> str:
            return react_description(self.name, canonical[self._tool.name], self.description)

        def _run(self, **kwargs: Any) -> Any:  # str, or a ToolFailure
            return answer(call(self._tool.name, kwargs))

        async def _arun(self, **kwargs: Any) -> Any:
            return answer(await acall(self._tool.name, kwargs))

        def to_structured_tool(self) -> CrewStructuredTool:
            structured = AgentToolsStructuredTool(
                name=self.name, description=self.description, args_schema=self.args_schema, func=self._run,
                result_as_answer=self.result_as_answer, max_usage_count=self.max_usage_count,
                current_usage_count=self.current_usage_count, cache_function=self.cache_function,
                tool_failure_policy=self.tool_failure_policy)
            structured._parameters = canonical[self._tool.name]
            structured._original_tool = self
            return structured

    out = []
    for tool in tool_list:
        crew_tool = AgentToolsTool(name=tool.name, description=tool.description, args_schema=args_model(tool),
                                   cache_function=_cache_unless_failed if tool.read_only else _never_cache)
        crew_tool._tool = tool
        out.append(crew_tool)
    return out
