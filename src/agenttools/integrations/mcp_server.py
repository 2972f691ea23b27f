"""Serve any toolset over the Model Context Protocol with the official ``mcp`` SDK (1.x or 2.x).

The low-level ``Server`` API is used so that our schemas, annotations and texts are served unchanged (no argument
re-validation by the SDK, no re-derived schemas). Every client session gets its own toolset instance — its own
session cwd and background tasks — created on its first request and closed when the session goes away or the
server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import threading
import weakref
from collections.abc import Callable
from typing import Any, Literal

from agenttools._output import DataBlock, ImageBlock, TextBlock, ToolOutput
from agenttools.registry import Registry

__all__ = ["build_server", "serve"]


def _require_mcp() -> Any:
    try:
        import mcp.types as types
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("the MCP server needs the 'mcp' package: pip install 'agenttools[mcp]'") from None
    return types


class _Sessions:
    """One registry per client session.

    HTTP sessions are keyed by their ``Mcp-Session-Id`` and closed when the SDK discards the session (client
    DELETE, idle timeout); other connections are keyed by their connection object and closed when it is
    collected. Everything still open is closed at shutdown.
    """

    def __init__(self, factory: Callable[[], Registry]) -> None:
        self.factory = factory
        self._by_object: weakref.WeakKeyDictionary[Any, Registry] = weakref.WeakKeyDictionary()
        self._by_id: dict[str, Registry] = {}
        self._open: list[Registry] = []
        self._lock = threading.Lock()

    def get(self, key: Any) -> Registry:
        with self._lock:
            table: Any = self._by_id if isinstance(key, str) else self._by_object
            registry: Registry | None = table.get(key)
            if registry is None:
                registry = self.factory()
                table[key] = registry
                self._open.append(registry)
                if not isinstance(key, str):
                    weakref.finalize(key, registry.close)
            return registry

    def end(self, session_id: str) -> None:
        """Close the registry of an HTTP session that ended."""
        with self._lock:
            registry = self._by_id.pop(session_id, None)
        if registry is not None:
            registry.close()

    def close_all(self) -> None:
        with self._lock:
            registries, self._open = self._open, []
        for registry in registries:
            registry.close()


def _content(types: Any, out: ToolOutput) -> list[Any]:
    blocks: list[Any] = []
    for block in out.content:
        if isinstance(block, TextBlock):
            blocks.append(types.TextContent.model_validate({"type": "text", "text": block.text}))
        elif isinstance(block, ImageBlock):
            blocks.append(types.ImageContent.model_validate({"type": "image", "data": block.data,
                                                             "mimeType": block.mime_type}))
        elif isinstance(block, DataBlock):
            blocks.append(types.EmbeddedResource.model_validate({"type": "resource", "resource": {
                "uri": f"data:{block.mime_type};base64", "mimeType": block.mime_type, "blob": block.data}}))
    return blocks


def _result(types: Any, out: ToolOutput) -> Any:
    return types.CallToolResult.model_validate({"content": _content(types, out), "isError": out.is_error})


def build_server(factory: Callable[[], Registry], *, name: str = "agenttools") -> tuple[Any, _Sessions]:
    """Build an MCP low-level server whose sessions each get ``factory()``'s registry.

    Returns:
        The ``mcp`` server, and the session table (close it when the server stops).
    """
    types = _require_mcp()
    from mcp.server.lowlevel import Server

    template = factory()
    try:
        tools = [types.Tool.model_validate(d) for d in template.definitions("mcp")]
    finally:
        template.close()
    sessions = _Sessions(factory)

    async def call(session: Any, tool: str, arguments: dict[str, Any] | None) -> Any:
        return _result(types, await sessions.get(session).acall(tool, arguments or {}))

    if "on_call_tool" in inspect.signature(Server.__init__).parameters:  # mcp 2.x: constructor handlers
        async def on_list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=tools)

        async def on_call_tool(ctx: Any, params: Any) -> Any:
            # ctx.session is per request in mcp 2.x: key on the HTTP session id, else on the connection
            request = getattr(ctx, "request", None)
            session_id = request.headers.get("mcp-session-id") if request is not None else None
            key = session_id or getattr(ctx.session, "_connection", None) or ctx.session
            return await call(key, params.name, params.arguments)

        server = Server(name, on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    else:  # mcp 1.x: decorators, and request_context for the session
        legacy: Any = Server(name)

        @legacy.list_tools()  # type: ignore[untyped-decorator]
        async def list_tools() -> list[Any]:
            return tools

        @legacy.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
        async def call_tool(tool: str, arguments: dict[str, Any]) -> Any:
            return await call(legacy.request_context.session, tool, arguments)

        server = legacy

    return server, sessions


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _http_app(server: Any, host: str, sessions: _Sessions) -> Any:
    if hasattr(server, "streamable_http_app"):  # mcp 2.x
        app = server.streamable_http_app(host=host)
        manager = server.session_manager
        discard = getattr(manager, "_discard_session", None)
        if discard is not None:  # close a session's tools as soon as the SDK drops the session

            async def discard_and_close(session_id: str, transport: Any) -> None:
                try:
                    await discard(session_id, transport)
                finally:
                    sessions.end(session_id)

            manager._discard_session = discard_and_close
        return app
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager  # pragma: no cover - mcp 1.x
    from starlette.applications import Starlette  # pragma: no cover
    from starlette.routing import Mount  # pragma: no cover

    manager = StreamableHTTPSessionManager(app=server)  # pragma: no cover

    @contextlib.asynccontextmanager  # pragma: no cover
    async def lifespan(app: Any) -> Any:
        async with manager.run():
            yield

    return Starlette(routes=[Mount("/mcp", app=manager.handle_request)], lifespan=lifespan)  # pragma: no cover


def serve(
    factory: Callable[[], Registry],
    *,
    transport: Literal["stdio", "http"] = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    name: str = "agenttools",
) -> None:
    """Serve the toolset that ``factory`` builds until the client disconnects (stdio) or the process stops (http).

    Over HTTP the endpoint is ``http://HOST:PORT/mcp`` (streamable HTTP), bound to 127.0.0.1 unless told otherwise.
    """
    server, sessions = build_server(factory, name=name)
    try:
        if transport == "stdio":
            asyncio.run(_serve_stdio(server))
        else:
            import uvicorn

            uvicorn.run(_http_app(server, host, sessions), host=host, port=port, log_level="warning")
    finally:
        sessions.close_all()
