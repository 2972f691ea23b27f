"""LlamaIndex tools (``FunctionTool`` subclasses) for agenttools registries; llama-index-core is imported when used.

Schema: ``ToolMetadata.get_parameters_dict()`` rebuilds the parameters from ``fn_schema.model_json_schema()`` and
keeps only ``type``/``properties``/``required``/``definitions``/``$defs`` (dropping ``additionalProperties``).
Each tool's metadata here returns our schema verbatim from ``get_parameters_dict()`` (what ``to_openai_tool()``,
the OpenAI, Anthropic and Bedrock integrations read) and its ``fn_schema`` is a pydantic model whose
``model_json_schema()`` is the same schema (what the Google GenAI integration reads).

Results: a ``ToolOutput`` whose ``blocks`` are our content (``TextBlock``, ``ImageBlock``, ``DocumentBlock``,
``AudioBlock``/``VideoBlock``; our text first when the content has none), ``is_error`` set for a failed call
(the model sees our error text as the tool message), ``raw_output`` the structured result or the text.
FunctionAgent and AgentWorkflow await ``acall`` (the registry's ``acall``): cancelling the run cancels the call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agenttools.blocks import Answer, DataBlock, ImageBlock, TextBlock
from agenttools.errors import ToolFailure
from agenttools.sdk import openai as openai_sdk
from agenttools.sdk._schema_model import schema_model
from agenttools.tool import Tool

__all__ = ["blocks", "tools"]


def blocks(out: Answer) -> list[Any]:
    """A tool's answer as LlamaIndex content blocks; our text leads when the content has no text of its own."""
    from llama_index.core.base.llms.types import AudioBlock, DocumentBlock, VideoBlock
    from llama_index.core.base.llms.types import ImageBlock as LlamaImageBlock
    from llama_index.core.base.llms.types import TextBlock as LlamaTextBlock

    found: list[Any] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            found.append(LlamaTextBlock(text=block.text))
            continue
        data = block.data.encode("ascii")  # base64: LlamaIndex keeps base64 bytes as they are
        mime = block.mime_type
        if isinstance(block, ImageBlock):
            found.append(LlamaImageBlock(image=data, image_mimetype=mime))
        elif isinstance(block, DataBlock) and mime.startswith("audio/"):
            found.append(AudioBlock(audio=data, format=mime.split("/", 1)[1]))
        elif isinstance(block, DataBlock) and mime.startswith("video/"):
            found.append(VideoBlock(video=data, video_mimetype=mime))
        else:
            found.append(DocumentBlock(data=data, document_mimetype=mime))
    if not any(isinstance(b, LlamaTextBlock) for b in found) and out.text.strip():
        found.insert(0, LlamaTextBlock(text=out.text))
    return found


def tools(defined: Iterable[Tool], call: Callable[[str, dict[str, Any]], Answer],
          acall: Callable[[str, dict[str, Any]], Awaitable[Answer]], *, strict: bool | None = None,
          return_direct: bool = False) -> list[Any]:
    """One LlamaIndex ``FunctionTool`` per tool, running each call through ``call``/``acall`` (a registry's).

    Args:
        defined: The tools.
        call: Runs a call (a registry's ``call``): sync paths (``tool.call``, ``llm.predict_and_call``).
        acall: Runs a call asynchronously (a registry's ``acall``): the agents (``FunctionAgent``, ``ReActAgent``,
            ``AgentWorkflow``) await ``tool.acall``.
        strict: Parameters in OpenAI strict form (``agenttools.sdk.openai.parameters``: optional parameters become
            nullable, a null means the default), for an LLM created with ``strict=True`` (``OpenAI(strict=True)``
            sends ``"strict": true`` for every tool); None follows each tool's preference.
        return_direct: The agent ends with a successful result as its answer (``ToolMetadata.return_direct``).

    Raises:
        ImportError: llama-index-core is not installed (``pip install llama-index-core``).
    """
    try:
        from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("LlamaIndex tools need llama-index-core: pip install 'agenttools[llama-index]'") from None


    class ExactToolMetadata(ToolMetadata):
        """Tool metadata whose parameters are the tool's JSON Schema, verbatim (no key filtering)."""

        def get_parameters_dict(self) -> dict[str, Any]:
            if self.fn_schema is None:
                return super().get_parameters_dict()
            return self.fn_schema.model_json_schema()

    class AgentToolsTool(FunctionTool):
        """A registry tool as a LlamaIndex ``FunctionTool``: calls answer with a ``ToolOutput`` of our content."""

        def __init__(self, tool: Tool, metadata: ToolMetadata) -> None:
            name = tool.name

            # ``fn``/``async_fn`` are what CodeActAgent puts in its sandbox (and what LlamaIndex inspects): the text,
            # or ToolFailure with our text. The agents call ``acall``/``call`` below.
            def run(**arguments: Any) -> str:
                return _text(call(name, arguments))

            async def arun(**arguments: Any) -> str:
                return _text(await acall(name, arguments))

            for fn in (run, arun):
                fn.__name__ = fn.__qualname__ = name
                fn.__doc__ = tool.description
            super().__init__(fn=run, async_fn=arun, metadata=metadata)
            self.agenttools_tool = tool
            """The agenttools tool, with its hints (``read_only``, ``is_destructive``...)."""

        def _arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
            if not args:
                return kwargs
            names = list(self.agenttools_tool.parameters.get("properties", {}))
            if len(args) == 1 and not kwargs and len(names) == 1:  # LlamaIndex passes a lone argument alone
                return {names[0]: args[0]}
            raise TypeError(f"{self.metadata.name} takes keyword arguments")

        def _output(self, out: Answer, arguments: dict[str, Any]) -> Any:
            structured = getattr(out, "structured", None)
            return ToolOutput(tool_name=self.metadata.get_name(), blocks=blocks(out), raw_input=arguments,
                              raw_output=out.text if structured is None else structured, is_error=out.is_error)

        def call(self, *args: Any, **kwargs: Any) -> Any:
            arguments = self._arguments(args, kwargs)
            return self._output(call(self.agenttools_tool.name, arguments), arguments)

        async def acall(self, *args: Any, **kwargs: Any) -> Any:
            arguments = self._arguments(args, kwargs)
            return self._output(await acall(self.agenttools_tool.name, arguments), arguments)

    out = []
    for tool in defined:
        parameters, _ = openai_sdk.parameters(tool, strict)
        metadata = ExactToolMetadata(name=tool.name, description=tool.description, return_direct=return_direct,
                                     fn_schema=schema_model(f"{tool.name}_arguments", parameters))
        out.append(AgentToolsTool(tool, metadata))
    return out


def _text(out: Answer) -> str:
    if out.is_error:
        raise ToolFailure(out.text)
    return out.text
