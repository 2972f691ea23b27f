"""Serve any toolset over the Model Context Protocol with the official ``mcp`` SDK (1.x or 2.x).

The low-level ``Server`` API is used so that our schemas, annotations and texts are served unchanged (no argument
re-validation by the SDK, no re-derived schemas). Every client session gets its own toolset instance — its own
session cwd and background tasks — created on its first request and closed when the session goes away or the
server stops (SIGTERM and SIGHUP included).

Every session runs its calls on its own threads, at most ``max_calls`` at once (the rest wait their turn), so a
saturated session never delays another. A call whose request is cancelled (``notifications/cancelled``), whose
HTTP client disconnects, or whose session ends is cancelled: the shell command it runs has its process group
killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import signal
import threading
import weakref
from collections.abc import Callable
from typing import Any, Literal

from agenttools import __version__
from agenttools.output import ToolOutput
from agenttools.registry import CallLimiter, Registry
from agenttools.sdk import mcp as mcp_shapes

__all__ = ["DEFAULT_MAX_CALLS", "build_server", "serve"]

DEFAULT_MAX_CALLS = 8
"""Calls one session runs at once; its further calls wait for one of them to finish."""
_CLIENT_GONE = "agenttools.client_gone"
"""ASGI scope key of the event set when the HTTP client that sent a request disconnects."""
_CALLS_END = 5.0
"""Seconds a closing session waits for its cancelled calls' threads to return."""
_GRACEFUL_SHUTDOWN = 5
"""Seconds uvicorn waits for open requests on SIGTERM before cancelling them."""


def _require_mcp() -> Any:
    try:
        import mcp.types as types
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("the MCP server needs the 'mcp' package: pip install 'agenttools[mcp]'") from None
    return types


class _Session:
    """One client session: its registry and the limiter its calls run on."""

    def __init__(self, registry: Registry, max_calls: int) -> None:
        self.registry = registry
        self.limiter = CallLimiter(max_calls)

    def close(self) -> None:
        self.limiter.cancel_all()  # running calls kill their process groups ...
        self.limiter.join(_CALLS_END)  # ... and return
        self.registry.close()  # background processes, and everything carrying the session marker


class _Sessions:
    """One registry (and call limiter) per client session.

    HTTP sessions are keyed by their ``Mcp-Session-Id`` and closed when the SDK discards the session (client
    DELETE, idle timeout); other connections are keyed by their connection object and closed when it is
    collected. Everything still open is closed at shutdown.
    """

    def __init__(self, factory: Callable[[], Registry], max_calls: int = DEFAULT_MAX_CALLS) -> None:
        self.factory = factory
        self.max_calls = max_calls
        self._by_object: weakref.WeakKeyDictionary[Any, _Session] = weakref.WeakKeyDictionary()
        self._by_id: dict[str, _Session] = {}
        self._live: dict[int, _Session] = {}
        self._closing: set[threading.Thread] = set()
        self._lock = threading.RLock()  # re-entered by a signal handler that interrupts the main thread

    def __len__(self) -> int:
        """Sessions open now."""
        with self._lock:
            return len(self._live)

    def get(self, key: Any) -> _Session:
        with self._lock:
            table: Any = self._by_id if isinstance(key, str) else self._by_object
            session: _Session | None = table.get(key)
            if session is None:
                session = _Session(self.factory(), self.max_calls)
                table[key] = session
                self._live[id(session)] = session
                if not isinstance(key, str):
                    weakref.finalize(key, self._release, session)
            return session

    def _release(self, session: _Session) -> None:
        with self._lock:
            live = self._live.pop(id(session), None) is not None
        if live:
            session.close()

    def end(self, session_id: str) -> None:
        """Close the session of an HTTP session id that ended (a no-op for an unknown id)."""
        with self._lock:
            session = self._by_id.pop(session_id, None)
        if session is not None:
            self._release(session)

    def end_soon(self, session_id: str) -> None:
        """Like :meth:`end`, in a thread: killing process groups takes a moment the event loop must not wait."""
        with self._lock:
            if session_id not in self._by_id:
                return
            thread = threading.Thread(target=self._end_tracked, args=(session_id,), name="agenttools-session-end",
                                      daemon=True)
            self._closing.add(thread)
        thread.start()

    def _end_tracked(self, session_id: str) -> None:
        try:
            self.end(session_id)
        finally:
            with self._lock:
                self._closing.discard(threading.current_thread())

    def close_all(self) -> None:
        """Close every open session, and wait (up to 30 s) for sessions still being closed."""
        with self._lock:
            sessions = list(self._live.values())
            self._live.clear()
            self._by_id.clear()
            closing = list(self._closing)
        for session in sessions:
            session.close()
        for thread in closing:
            thread.join(30)


def _result(types: Any, out: ToolOutput) -> Any:
    return types.CallToolResult.model_validate(mcp_shapes.result(out))


def build_server(factory: Callable[[], Registry], *, name: str = "agenttools",
                 max_calls: int = DEFAULT_MAX_CALLS) -> tuple[Any, _Sessions]:
    """Build an MCP low-level server whose sessions each get ``factory()``'s registry.

    Args:
        factory: Builds one session's registry.
        name: The server name clients see.
        max_calls: Calls one session runs at once; its further calls wait their turn.

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
    sessions = _Sessions(factory, max_calls)

    async def call(key: Any, tool: str, arguments: dict[str, Any] | None, gone: Any = None) -> Any:
        session = sessions.get(key)
        work = session.registry.acall(tool, arguments or {}, limiter=session.limiter)
        if gone is None:
            return _result(types, await work)
        return _result(types, await _unless_gone(work, gone))

    if "on_call_tool" in inspect.signature(Server.__init__).parameters:  # mcp 2.x: constructor handlers
        async def on_list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=tools)

        async def on_call_tool(ctx: Any, params: Any) -> Any:
            # ctx.session is per request in mcp 2.x: key on the HTTP session id, else on the connection
            request = getattr(ctx, "request", None)
            session_id = request.headers.get("mcp-session-id") if request is not None else None
            gone = request.scope.get(_CLIENT_GONE) if request is not None else None
            key = session_id or getattr(ctx.session, "_connection", None) or ctx.session
            return await call(key, params.name, params.arguments, gone)

        server = Server(name, version=__version__, on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    else:  # mcp 1.x: decorators, and request_context for the session
        legacy: Any = Server(name, version=__version__)

        @legacy.list_tools()  # type: ignore[untyped-decorator]
        async def list_tools() -> list[Any]:
            return tools

        @legacy.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
        async def call_tool(tool: str, arguments: dict[str, Any]) -> Any:
            return await call(legacy.request_context.session, tool, arguments)

        server = legacy

    return server, sessions


async def _unless_gone(work: Any, gone: Any) -> ToolOutput:
    """Await ``work``, cancelling it (and the command it runs) if the HTTP client disconnects first."""
    import anyio

    outcome: list[ToolOutput] = []
    async with anyio.create_task_group() as group:
        async def watch() -> None:
            await gone.wait()
            group.cancel_scope.cancel()

        group.start_soon(watch)
        outcome.append(await work)
        group.cancel_scope.cancel()
    if not outcome:  # nobody is left to read the answer
        return ToolOutput(text="the client disconnected before the call finished; the call was cancelled",
                          is_error=True)
    return outcome[0]


def _watch_disconnects(app: Any) -> Any:
    """ASGI wrapper: each HTTP request's scope carries an event set once its client is gone.

    Without an event store, a streamable-HTTP response stream that the client dropped cannot be resumed, so the
    call it was waiting for is cancelled. The event is also set when the request's handling ends for any reason;
    by then its call has answered (or the session is ending).
    """

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        import anyio

        gone = anyio.Event()

        async def watched() -> Any:
            message = await receive()
            if message.get("type") == "http.disconnect":
                gone.set()
            return message

        try:
            await app({**scope, _CLIENT_GONE: gone}, watched, send)
        finally:
            gone.set()

    return wrapped


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
                    sessions.end_soon(session_id)

            manager._discard_session = discard_and_close
        return _watch_disconnects(app)
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager  # pragma: no cover - mcp 1.x
    from starlette.applications import Starlette  # pragma: no cover
    from starlette.routing import Mount  # pragma: no cover

    manager = StreamableHTTPSessionManager(app=server)  # pragma: no cover

    @contextlib.asynccontextmanager  # pragma: no cover
    async def lifespan(app: Any) -> Any:
        async with manager.run():
            yield

    return _watch_disconnects(Starlette(routes=[Mount("/mcp", app=manager.handle_request)],  # pragma: no cover
                                        lifespan=lifespan))


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP) if hasattr(signal, "SIGHUP") else (signal.SIGTERM,)


def _close_on_signals(sessions: _Sessions) -> Callable[[], None]:
    """Make SIGTERM and SIGHUP close every session before the process dies of the signal; returns the undo.

    Only from the main thread (Python's rule for signal handlers). Over HTTP uvicorn takes SIGTERM (and SIGINT)
    for its graceful shutdown while it runs; the sessions are closed when it returns.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def stop(signum: int, frame: object) -> None:
        try:
            sessions.close_all()
        finally:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    previous = {signum: signal.signal(signum, stop) for signum in _STOP_SIGNALS}

    def undo() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return undo


def serve(
    factory: Callable[[], Registry],
    *,
    transport: Literal["stdio", "http"] = "stdio",
    host: str = "127.0.0.1",
    port: int = 8000,
    name: str = "agenttools",
    max_calls: int = DEFAULT_MAX_CALLS,
) -> None:
    """Serve the toolset that ``factory`` builds until the client disconnects (stdio) or the process stops (http).

    Over HTTP the endpoint is ``http://HOST:PORT/mcp`` (streamable HTTP), bound to 127.0.0.1 unless told otherwise.
    SIGTERM and SIGHUP close every session (killing its processes) before the server exits.

    Args:
        factory: Builds one session's registry.
        transport: ``stdio`` or ``http``.
        host: HTTP bind address.
        port: HTTP port.
        name: The server name clients see.
        max_calls: Calls one session runs at once; its further calls wait their turn.
    """
    server, sessions = build_server(factory, name=name, max_calls=max_calls)
    undo = _close_on_signals(sessions)
    try:
        if transport == "stdio":
            asyncio.run(_serve_stdio(server))
        else:
            import uvicorn

            uvicorn.run(_http_app(server, host, sessions), host=host, port=port, log_level="warning",
                        timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN)
    finally:
        sessions.close_all()
        undo()
