"""An OpenTelemetry span per call, as the GenAI semantic conventions name tool execution."""

from __future__ import annotations

import json
import threading
from typing import Any

from agenttools.output import ToolOutput, error_code
from agenttools.tool import ToolCall

__all__ = ["Tracing"]


class Tracing:
    """An ``execute_tool {tool}`` span for every call, a child of the span current when the call starts.

    Attributes follow the OpenTelemetry GenAI conventions for tool execution: ``gen_ai.operation.name``
    (``execute_tool``), ``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.type`` (``function``) and, on
    failure, ``error.type`` (the error code) with an error status. With ``capture_content`` the arguments
    (``gen_ai.tool.call.arguments``, JSON) and the text the model sees (``gen_ai.tool.call.result``) are recorded
    too: they may hold file contents and secrets, so it is off by default.

    Args:
        tracer: An OpenTelemetry ``Tracer``; None takes ``trace.get_tracer("agenttools")`` from the global
            provider (set by the application, with the OpenTelemetry SDK or a distribution).
        capture_content: Record arguments and results.

    Raises:
        ImportError: ``opentelemetry-api`` is not installed (``pip install 'agenttools[otel]'``).
    """

    def __init__(self, tracer: Any = None, capture_content: bool = False) -> None:
        try:
            from opentelemetry import trace
        except ImportError:
            raise ImportError("Tracing needs opentelemetry-api: pip install 'agenttools[otel]'") from None
        self._trace = trace
        self._tracer = tracer if tracer is not None else trace.get_tracer("agenttools")
        self.capture_content = bool(capture_content)
        self._open: dict[tuple[str, float], list[Any]] = {}  # (call id, arrival): spans of calls not yet ended
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Tracing(capture_content={self.capture_content})"

    def _start(self, call: ToolCall) -> Any:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.call_id,
            "gen_ai.tool.type": "function",
        }
        if call.tool is not None:
            attributes["gen_ai.tool.description"] = call.tool.description[:1000]
        if self.capture_content:
            attributes["gen_ai.tool.call.arguments"] = json.dumps(call.arguments, ensure_ascii=False, default=str)
        return self._tracer.start_span(f"execute_tool {call.name}", kind=self._trace.SpanKind.INTERNAL,
                                       attributes=attributes)

    def before(self, call: ToolCall) -> None:
        """Start the call's span."""
        span = self._start(call)
        with self._lock:  # the model picks call ids: two calls at once may share one, and each span must end
            self._open.setdefault((call.call_id, call.started), []).append(span)

    async def abefore(self, call: ToolCall) -> None:
        """As :meth:`before`."""
        self.before(call)

    def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        """End the call's span (one is made now for a call no ``before`` saw), marked as an error when it failed."""
        key = (call.call_id, call.started)
        with self._lock:
            spans = self._open.get(key)
            span = spans.pop() if spans else None
            if spans == []:
                del self._open[key]
        if span is None:
            span = self._start(call)
        if output.is_error:
            span.set_attribute("error.type", error_code(output) or "tool_error")
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, output.text.partition("\n")[0][:500]))
        if self.capture_content:
            span.set_attribute("gen_ai.tool.call.result", output.text)
        span.end()
        return output

    async def aafter(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        """As :meth:`after`."""
        return self.after(call, output)
