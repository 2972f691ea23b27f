"""Serve any toolset over the Model Context Protocol with the official ``mcp`` SDK (1.x or 2.x).

The low-level ``Server`` API is used so that our schemas, annotations and texts are served unchanged (no argument
re-validation by the SDK, no re-derived schemas). Every client session gets its own toolset instance — its own
session cwd and background tasks — created on its first request and closed when the session goes away or the
server stops (SIGTERM and SIGHUP included).

Every session runs its calls on its own threads, at most ``max_calls`` at once (the rest wait their turn), so a
saturated session never delays another. A call whose request is cancelled (``notifications/cancelled``), whose
HTTP client disconnects, or whose session ends is cancelled: the shell command it runs has its process group
killed.

With ``from_roots`` (``agenttools serve --roots``), a session whose client declares the ``roots`` capability gets
its toolset from the client's roots: every ``file://`` root that names an existing directory becomes an allowed
directory and the first one the root. The roots are asked for (``roots/list``) on the session's first request and
again on the first request after the client sends ``notifications/roots/list_changed``; a changed list gives the
session a fresh toolset (its shell cwd, background tasks and todos start over), and the old one is closed once its
running calls end. A client whose roots name no directory here gets the command line's directories (and a later
list naming none changes nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import re
import signal
import tempfile
import threading
import urllib.parse
import warnings
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, cast

if os.name == "posix":
    import fcntl

from agenttools import __version__
from agenttools._calls import CallProgress, watching_progress
from agenttools.blocks import text_of
from agenttools.hooks.audit import AuditLog
from agenttools.mcp_client import NATIVE_META, STRICT_META, TEXT_META, TITLE_META, VALIDATES_META
from agenttools.output import ToolOutput, well_formed
from agenttools.registry import CallLimiter, Registry
from agenttools.sdk import mcp as mcp_shapes

__all__ = ["DEFAULT_MAX_CALLS", "DEFAULT_MAX_SESSIONS", "DEFAULT_MAX_UNANSWERED", "DEFAULT_REQUEST_TIMEOUT",
           "MAX_BODY", "build_server", "serve", "served"]

DEFAULT_MAX_CALLS = 8
"""Calls one session runs at once; its further calls wait for one of them to finish."""
_CLIENT_GONE = "agenttools.client_gone"
"""ASGI scope key of the event set when the HTTP client that sent a request disconnects."""
_CALLS_END = 5.0
"""Seconds a closing session waits for its cancelled calls' threads to return."""
_GRACEFUL_SHUTDOWN = 5
"""Seconds uvicorn waits for open requests on SIGTERM before cancelling them."""
_EOF_SETTLE = 0.25
"""Seconds a stdio server still answers after the end of its input, before its calls are cancelled."""
_ROOTS_WAIT = 10.0
"""Seconds a session waits for its client to answer ``roots/list`` before it serves the command line's directories."""


def _require_mcp() -> Any:
    try:
        import mcp.types as types
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("the MCP server needs the 'mcp' package: pip install 'agenttools[mcp]'") from None
    return types


class _Session:
    """One client session: its registry, the limiter its calls run on, and how to tell it the tool list changed.

    The registry is None until it is built (a session that follows its client's roots builds it once it has them),
    and is replaced when those roots change; a replaced registry is closed when its last running call ends.
    """

    def __init__(self, registry: Registry | None, max_calls: int) -> None:
        self.registry: Registry | None = None
        self.limiter = CallLimiter(max_calls)
        self.roots: tuple[str, ...] | None = None  # the client's roots the registry was built from
        self.roots_stale = True  # ask the client for its roots before the next request
        self._rooting = asyncio.Lock()
        self._peer: Any = None  # the SDK's session of the last request: it sends notifications
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sending: set[Any] = set()
        self._running: dict[int, int] = {}  # id(registry) -> calls running on it
        self._retired: dict[int, Registry] = {}  # replaced registries that still run calls
        self._closing: list[threading.Thread] = []
        if registry is not None:
            self.replace(registry)

    def watch(self, peer: Any) -> None:
        """Remember where this session's requests come from (called on the event loop, for every request)."""
        self._peer = peer
        self._loop = asyncio.get_running_loop()

    def replace(self, registry: Registry) -> None:
        """Serve ``registry`` from now on; the one it replaces is closed once its running calls end."""
        old, self.registry = self.registry, registry
        registry.on_change(self._changed)
        if old is None:
            return
        if self._running.get(id(old)):
            self._retired[id(old)] = old
        else:
            self._close_soon(old)
        if old.definitions("mcp") != registry.definitions("mcp"):
            self._changed()

    @contextlib.contextmanager
    def running(self) -> Any:
        """The registry to call, counted as running a call until the block ends."""
        registry = self.registry
        assert registry is not None  # noqa: S101 - built before any call reaches here
        self._running[id(registry)] = self._running.get(id(registry), 0) + 1
        try:
            yield registry
        finally:
            left = self._running.pop(id(registry)) - 1
            if left:
                self._running[id(registry)] = left
            elif id(registry) in self._retired:
                self._close_soon(self._retired.pop(id(registry)))

    def _changed(self) -> None:
        """The registry gained or lost a tool: send ``notifications/tools/list_changed`` (from any thread)."""
        peer, loop = self._peer, self._loop
        if peer is None or loop is None or loop.is_closed():
            return
        try:
            current = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        if current is loop:
            task = loop.create_task(self._notify(peer))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
        else:
            asyncio.run_coroutine_threadsafe(self._notify(peer), loop)

    def _close_soon(self, registry: Registry) -> None:
        """Close a registry no call uses any more, in a thread: killing its processes takes a moment."""
        thread = threading.Thread(target=registry.close, name="agenttools-registry-close", daemon=True)
        self._closing = [t for t in self._closing if t.is_alive()] + [thread]
        thread.start()

    @staticmethod
    async def _notify(peer: Any) -> None:
        with contextlib.suppress(Exception):  # a client gone away: nobody to tell
            await peer.send_tool_list_changed()

    def close(self) -> None:
        self.limiter.cancel_all()  # running calls kill their process groups ...
        self.limiter.join(_CALLS_END)  # ... and return
        for registry in [*self._retired.values(), *([self.registry] if self.registry is not None else [])]:
            registry.close()  # background processes, and everything carrying the session marker
        self._retired.clear()
        for thread in self._closing:
            thread.join(_CALLS_END)


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

    def get(self, key: Any, *, build: bool = True) -> _Session:
        """The session of ``key``, made on its first request: with ``factory()``'s registry, or none yet."""
        with self._lock:
            table: Any = self._by_id if isinstance(key, str) else self._by_object
            session: _Session | None = table.get(key)
            if session is None:
                session = _Session(self.factory() if build else None, self.max_calls)
                table[key] = session
                self._live[id(session)] = session
                if not isinstance(key, str):
                    weakref.finalize(key, self._release, session)
            return session

    def find(self, key: Any) -> _Session | None:
        """The session of ``key`` if it has one."""
        with self._lock:
            table: Any = self._by_id if isinstance(key, str) else self._by_object
            return table.get(key)  # type: ignore[no-any-return]

    def live(self) -> list[_Session]:
        """The sessions open now."""
        with self._lock:
            return list(self._live.values())

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


def _result(types: Any, out: ToolOutput, schema: dict[str, Any] | None = None) -> Any:
    # the registry hands out well-formed text only: a name that is not UTF-8 shows as U+FFFD (output.well_formed)
    shaped = mcp_shapes.result(out, schema)
    if text_of(out.content) != out.text:  # an image's text, say: sent along, for Registry.from_mcp to restore
        shaped["_meta"] = {TEXT_META: out.text}
    return types.CallToolResult.model_validate(shaped)


def _listed(types: Any, registry: Registry) -> list[Any]:
    """A registry's tools as MCP ``Tool``s, with what our client (``Registry.from_mcp``) needs in ``_meta``.

    Each is marked as wording its own argument errors, and carries its preferred strict mode and its providers'
    native declarations (Anthropic's text editor, Responses' ``apply_patch``), so that the client's definitions are
    the toolset's own in every format.
    """
    listed = []
    for tool, definition in zip(registry, registry.definitions("mcp"), strict=True):
        meta: dict[str, Any] = {VALIDATES_META: True}
        if tool.title:
            meta[TITLE_META] = tool.title  # MCP titles every tool; this is the tool's own title
        if tool.strict is not None:
            meta[STRICT_META] = tool.strict
        if tool.native:
            meta[NATIVE_META] = {fmt: dict(declared) for fmt, declared in tool.native.items()}
        listed.append(types.Tool.model_validate({**definition, "_meta": meta}))
    return listed


def served(registry: Registry, *, read_only: bool = False, audit: AuditLog | None = None) -> Registry:
    """What a session is served of ``registry``: only its read-only tools when asked, calls logged to ``audit``.

    ``agenttools serve --read-only --audit-log PATH`` builds each session's registry this way (one log for every
    session). The registry's own hooks stay; approvals need a person, so they stay in Python.
    """
    if read_only:
        registry = registry.select([tool.name for tool in registry if tool.read_only])
    return registry if audit is None else registry.with_hooks(audit)


def build_server(factory: Callable[[], Registry], *, name: str = "agenttools",
                 max_calls: int = DEFAULT_MAX_CALLS,
                 from_roots: Callable[[Sequence[str]], Registry] | None = None) -> tuple[Any, _Sessions]:
    """Build an MCP low-level server whose sessions each get ``factory()``'s registry.

    Args:
        factory: Builds one session's registry.
        name: The server name clients see.
        max_calls: Calls one session runs at once; its further calls wait their turn.
        from_roots: Builds the registry of a session whose client declares roots, from those roots (real paths of
            existing directories, at least one), and again when they change. ``factory`` serves the sessions of
            clients without roots, or whose roots name no directory.

    Returns:
        The ``mcp`` server, and the session table (close it when the server stops).
    """
    types = _require_mcp()
    from mcp.server.lowlevel import Server

    tools = _template_tools(types, factory, from_roots)
    sessions = _Sessions(factory, max_calls)

    async def ready(key: Any, peer: Any, request_id: Any) -> _Session:
        """The session of a request, its registry built (from the client's roots, when it follows them)."""
        if from_roots is None or not _declares_roots(types, peer):
            session = sessions.get(key)
        else:
            session = sessions.get(key, build=False)
            await _follow_roots(types, session, peer, request_id, factory, from_roots)
        session.watch(peer)
        return session

    async def listed(key: Any, peer: Any, request_id: Any) -> list[Any]:
        """The tools a session sees now (the first listing, before its toolset exists, builds it)."""
        try:
            session = await ready(key, peer, request_id)
        except Exception:  # noqa: BLE001 - the toolset cannot start: its calls will say why
            return tools
        registry = session.registry
        return tools if registry is None else _listed(types, registry)

    async def call(key: Any, tool: str, arguments: dict[str, Any] | None, gone: Any = None,
                   request_id: Any = None, progress: Callable[[float, str], Awaitable[None]] | None = None,
                   peer: Any = None) -> Any:
        try:
            session = await ready(key, peer, request_id)
        except Exception as exc:  # noqa: BLE001 - e.g. the root is gone: the model reads why, as for any tool error
            reason = " ".join(str(exc).split()) or type(exc).__name__
            return _result(types, ToolOutput(text=f"the toolset could not start for this session: {reason}",
                                             is_error=True))
        with session.running() as registry:
            work = registry.acall(tool, arguments or {}, limiter=session.limiter,
                                  call_id=None if request_id is None else str(request_id))
            schema = registry[tool].output_schema if tool in registry else None
            with watching_progress() as done:  # the call's commands count their output into it
                if progress is not None:
                    work = _with_progress(work, progress, done)
                if gone is None:
                    return _result(types, await work, schema)
                return _result(types, await _unless_gone(work, gone), schema)

    def roots_changed(key: Any) -> None:
        """The client says its roots changed: ask for them again before the session's next request."""
        session = sessions.find(key)
        if session is not None:
            session.roots_stale = True

    if "on_call_tool" in inspect.signature(Server.__init__).parameters:  # mcp 2.x: constructor handlers
        def key_of(ctx: Any) -> Any:
            # ctx.session is per request in mcp 2.x: key on the HTTP session id, else on the connection
            request = getattr(ctx, "request", None)
            session_id = request.headers.get("mcp-session-id") if request is not None else None
            return session_id or getattr(ctx.session, "_connection", None) or ctx.session

        async def on_list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=await listed(key_of(ctx), ctx.session, ctx.request_id))

        async def on_call_tool(ctx: Any, params: Any) -> Any:
            request = getattr(ctx, "request", None)
            gone = request.scope.get(_CLIENT_GONE) if request is not None else None
            request_id = getattr(ctx, "request_id", None)
            return await call(key_of(ctx), params.name, params.arguments, gone, request_id,
                              _progress_reporter(ctx.session, getattr(ctx, "meta", None), request_id),
                              peer=ctx.session)

        async def on_roots_list_changed(ctx: Any, params: Any) -> None:
            roots_changed(key_of(ctx))

        handlers: dict[str, Any] = {"on_list_tools": on_list_tools, "on_call_tool": on_call_tool}
        with warnings.catch_warnings():  # roots are deprecated by MCP 2026-07-28; clients still declare them
            warnings.simplefilter("ignore")
            if from_roots is not None:
                handlers["on_roots_list_changed"] = on_roots_list_changed
            server = Server(name, version=__version__, **handlers)
    else:  # mcp 1.x: decorators, and request_context for the session
        legacy: Any = Server(name, version=__version__)

        @legacy.list_tools()  # type: ignore[untyped-decorator]
        async def list_tools() -> list[Any]:
            context = legacy.request_context
            return await listed(context.session, context.session, getattr(context, "request_id", None))

        @legacy.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
        async def call_tool(tool: str, arguments: dict[str, Any]) -> Any:
            context = legacy.request_context
            request_id = getattr(context, "request_id", None)
            return await call(context.session, tool, arguments, request_id=request_id,
                              progress=_progress_reporter(context.session, getattr(context, "meta", None),
                                                          request_id), peer=context.session)

        async def legacy_roots_changed(notification: Any) -> None:
            # mcp 1.x hands notification handlers no session: every session asks again (one request each)
            for session in sessions.live():
                session.roots_stale = True

        if from_roots is not None:
            legacy.notification_handlers[types.RootsListChangedNotification] = legacy_roots_changed
        server = legacy
    _announce_tools_changed(server)
    return server, sessions


def _template_tools(types: Any, factory: Callable[[], Registry],
                    from_roots: Callable[[Sequence[str]], Registry] | None) -> list[Any]:
    """The tools listed to a session whose toolset cannot start (its calls say why)."""
    with contextlib.ExitStack() as stack:
        try:
            template = factory()
        except Exception:
            if from_roots is None:
                raise
            empty = stack.enter_context(tempfile.TemporaryDirectory(prefix="agenttools-roots-"))  # no root yet
            template = from_roots([os.path.realpath(empty)])
        try:
            return _listed(types, template)
        finally:
            template.close()


def _declares_roots(types: Any, peer: Any) -> bool:
    """Whether the client of ``peer`` (the SDK's server session) declared the ``roots`` capability."""
    try:
        return bool(peer.check_client_capability(types.ClientCapabilities(roots=types.RootsCapability())))
    except Exception:  # noqa: BLE001 - no initialized session to ask
        return False


async def _follow_roots(types: Any, session: _Session, peer: Any, request_id: Any, factory: Callable[[], Registry],
                        from_roots: Callable[[Sequence[str]], Registry]) -> None:
    """Build the session's registry from its client's roots, or rebuild it when they changed since."""
    if not session.roots_stale and session.registry is not None:
        return
    async with session._rooting:
        if not session.roots_stale and session.registry is not None:
            return
        session.roots_stale = False
        try:
            roots = await _client_roots(types, peer, request_id)
            if session.registry is not None and (not roots or roots == session.roots):
                return  # as the reference filesystem server: roots naming no directory here change nothing
            registry = await asyncio.to_thread(from_roots, roots) if roots else await asyncio.to_thread(factory)
        except BaseException:
            session.roots_stale = True  # the next request tries again
            raise
        session.roots = roots
        session.replace(registry)


async def _client_roots(types: Any, peer: Any, request_id: Any) -> tuple[str, ...]:
    """The client's roots that name existing directories (real paths, in its order); none when it cannot say."""
    from mcp.shared.message import ServerMessageMetadata

    request: Any = types.ListRootsRequest(method="roots/list")
    if hasattr(types.ServerRequest, "model_validate"):  # mcp 1.x: requests travel in a RootModel union
        request = types.ServerRequest(request)
    metadata = ServerMessageMetadata(related_request_id=request_id) if request_id is not None else None
    try:
        answer = await asyncio.wait_for(peer.send_request(request, types.ListRootsResult, metadata=metadata),
                                        _ROOTS_WAIT)
    except Exception:  # noqa: BLE001 - an error, a malformed answer or no answer: the command line's directories
        return ()
    found = (_root_dir(str(root.uri)) for root in answer.roots)
    return tuple(dict.fromkeys(path for path in found if path is not None))


def _root_dir(uri: str) -> str | None:
    """The real path of a ``file://`` root naming an existing directory on this machine, else None."""
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme.lower() != "file" or parts.netloc.lower() not in ("", "localhost") or parts.query:
        return None
    path = urllib.parse.unquote(parts.path, errors="surrogateescape")
    if not path.startswith("/") or "\0" in path:
        return None
    real = os.path.realpath(path)
    return real if os.path.isdir(real) else None


def _announce_tools_changed(server: Any) -> None:
    """Make the server's initialize result say ``tools.listChanged``: the SDK asks for it only through options."""
    from mcp.server.lowlevel.server import NotificationOptions

    create = server.create_initialization_options

    def with_tools_changed(notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
        return create(notification_options or NotificationOptions(tools_changed=True), *args, **kwargs)

    server.create_initialization_options = with_tools_changed


PROGRESS_EVERY = 1.0
"""Seconds between two progress notifications of a call whose request asked for them (the first after one)."""


def _progress_token(meta: Any) -> Any:
    """The ``progressToken`` of a request's ``_meta`` (a dict in mcp 2.x, a model in 1.x), or None."""
    if isinstance(meta, dict):
        return meta.get("progress_token", meta.get("progressToken"))
    return getattr(meta, "progressToken", getattr(meta, "progress_token", None))


def _progress_reporter(session: Any, meta: Any, request_id: Any) -> Callable[[float, str], Awaitable[None]] | None:
    """What sends a call's progress to its client; None when the request asked for none."""
    token = _progress_token(meta)
    if token is None:
        return None

    async def report(elapsed: float, message: str) -> None:
        await session.send_progress_notification(token, elapsed, None, message,
                                                 related_request_id=None if request_id is None else str(request_id))

    return report


async def _with_progress(work: Awaitable[ToolOutput], report: Callable[[float, str], Awaitable[None]],
                         done: CallProgress) -> ToolOutput:
    """Await ``work``, reporting every :data:`PROGRESS_EVERY` seconds how long it has run and what it printed."""
    import anyio

    outcome: list[ToolOutput] = []
    started = anyio.current_time()
    async with anyio.create_task_group() as group:
        async def tick() -> None:
            while True:
                await anyio.sleep(PROGRESS_EVERY)
                elapsed = round(anyio.current_time() - started, 1)
                message = f"running for {elapsed:.0f} s"
                if done.output_bytes:
                    message += f", {done.output_bytes:,} bytes of output"
                with contextlib.suppress(Exception):  # a client gone away: the call itself decides what happens
                    await report(elapsed, message)

        group.start_soon(tick)
        outcome.append(await work)
        group.cancel_scope.cancel()
    return outcome[0]


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


_TOKEN = re.compile(r'["\[\]{}]')
_BLANK = re.compile(r"[ \t\r\n]*")
_DECODER = json.JSONDecoder()
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _skip_blank(line: str, at: int) -> int:
    match = _BLANK.match(line, at)
    return at if match is None else match.end()


def _request_id(line: str) -> str | int | None:
    """The ``id`` of a line holding one JSON-RPC request (``method`` and ``id`` at its top level), else None.

    Only the top level is read; nested values are skipped by their brackets, so no nesting depth, number size or
    lone surrogate (what pydantic refuses) stops it. An id that could not be sent back counts as none.
    """
    keys: dict[str, Any] = {}
    depth = at = 0
    while (token := _TOKEN.search(line, at)) is not None:
        at = token.start()
        if line[at] != '"':
            depth += 1 if line[at] in "[{" else -1
            at += 1
            continue
        try:
            text, at = _scanstring(line, at + 1)
        except ValueError:
            return None
        colon = _skip_blank(line, at)
        if depth == 1 and line.startswith(":", colon):
            value: Any = True
            if text == "id":
                try:
                    value = _DECODER.raw_decode(line, _skip_blank(line, colon + 1))[0]
                except (ValueError, RecursionError):
                    value = None
            keys.setdefault(text, value)
    request_id = keys.get("id")
    if "method" not in keys or isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    if isinstance(request_id, str) and well_formed(request_id) != request_id:
        return None
    return request_id


class _StdinLines:
    """Standard input's lines for the SDK's stdio transport, read without a thread; unparseable requests answered.

    The SDK reads standard input in a worker thread nothing can cancel: after SIGINT, or once the client stopped
    reading the server's output, the server waited for the client's next line — forever while stdin stayed open,
    its sessions' processes still running. Here the event loop says when a line can be read, so the wait is
    cancelled like any other.

    A request line the SDK cannot parse (a lone surrogate escape, nesting or a number beyond pydantic's limits, a
    malformed request) is dropped by the SDK without a word, and the client waits for its answer forever. Such a
    line is answered here with a JSON-RPC error carrying its id (-32700 for JSON pydantic cannot read, -32600 for
    JSON that is not a valid message); a line with no usable id (a notification, garbage) is dropped as before.

    Args:
        fd: The descriptor to read (a private duplicate of standard input).
        parse: The SDK's parser of one message line; raises on what the SDK would drop.
        build: The SDK's builder of a message from its dict.
    """

    def __init__(self, fd: int, parse: Callable[[str], Any], build: Callable[[dict[str, Any]], Any]) -> None:
        self._fd = fd
        self._parse = parse
        self._build = build
        self._buffer = bytearray()
        self._scanned = 0
        self._pollable = True
        self.answer: Callable[[Any], Awaitable[None]] | None = None
        """Sends a message to the client (the transport's write stream), set once the transport is open."""

    def __aiter__(self) -> _StdinLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._line()
            if line is None:  # the client is gone (the SDK then cancels what is still running) ...
                await asyncio.sleep(_EOF_SETTLE)  # ... but what answers at once still does, as with a piped script
                raise StopAsyncIteration
            try:
                self._parse(line)
            except Exception as exc:  # noqa: BLE001 - whatever the SDK's parser refuses, the SDK would drop
                await self._reject(line, exc)
                continue
            return line

    async def _reject(self, line: str, error: Exception) -> None:
        request_id = _request_id(line)
        if request_id is None or self.answer is None:
            return
        from mcp.shared.message import SessionMessage

        errors = getattr(error, "errors", None)  # a pydantic ValidationError lists them
        first = errors()[0] if callable(errors) and errors() else {}
        if first.get("type") == "json_invalid":
            failure = {"code": -32700, "message": "Parse error", "data": well_formed(str(first.get("msg", "")))}
        else:
            failure = {"code": -32600, "message": "Invalid Request"}
        await self.answer(SessionMessage(self._build({"jsonrpc": "2.0", "id": request_id, "error": failure})))

    async def _line(self) -> str | None:
        """The next line (with its line feed), or None at the end of input."""
        while (end := self._buffer.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self._buffer)
            chunk = await self._read()
            if not chunk:  # end of input: the last line may lack its line feed
                if not self._buffer:
                    return None
                end = len(self._buffer) - 1
                break
            self._buffer += chunk
        line = bytes(self._buffer[:end + 1])
        del self._buffer[:end + 1]
        self._scanned = 0
        return line.decode("utf-8", errors="replace")  # as the SDK decodes standard input

    async def _read(self) -> bytes:
        if self._pollable:
            loop = asyncio.get_running_loop()
            ready: asyncio.Future[None] = loop.create_future()

            def readable() -> None:
                if not ready.done():
                    ready.set_result(None)

            try:
                loop.add_reader(self._fd, readable)
            except PermissionError:  # a regular file (serve < requests.jsonl) cannot be polled, and never blocks
                self._pollable = False
            else:
                try:
                    await ready
                finally:
                    loop.remove_reader(self._fd)
        return os.read(self._fd, 1 << 16)


def _message_codec(types: Any) -> tuple[Callable[[str], Any], Callable[[dict[str, Any]], Any]]:
    """The SDK's parser of a message line, as its stdio transport uses it, and its builder of a message."""
    adapter = getattr(types, "jsonrpc_message_adapter", None)
    if adapter is not None:  # mcp 2.x
        return (lambda line: adapter.validate_json(line, by_name=False)), adapter.validate_python
    return types.JSONRPCMessage.model_validate_json, types.JSONRPCMessage.model_validate  # pragma: no cover - 1.x


def _claim_stdin() -> int | None:
    """A private duplicate of standard input; fd 0 itself then reads the null device (None if that cannot be done).

    As the SDK does for its own reader: children never read the client's messages.
    """
    try:
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        return None
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        os.close(private)
        return None
    return private


def _release_stdin(private: int) -> None:
    with contextlib.suppress(OSError):
        os.dup2(private, 0)
    os.close(private)


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    private = _claim_stdin() if os.name == "posix" else None
    try:
        lines = None if private is None else _StdinLines(private, *_message_codec(_require_mcp()))
        async with stdio_server(stdin=cast(Any, lines)) as (read_stream, write_stream):
            if lines is not None:
                lines.answer = write_stream.send
            await _run_handshake_only(server, read_stream, write_stream)
    except* (BrokenPipeError, ConnectionResetError):
        pass  # the client stopped reading the server's output: the session is over, like when stdin closes
    finally:
        if private is not None:
            _release_stdin(private)


async def _run_handshake_only(server: Any, read_stream: Any, write_stream: Any) -> None:
    """Serve one stdio connection in the ``initialize`` handshake era only (see :func:`_handshake_era_only`)."""
    try:
        from mcp.server.runner import serve_loop
    except ImportError:  # mcp 1.x: the handshake is all there is
        await server.run(read_stream, write_stream, server.create_initialization_options())
        return
    async with server.lifespan(server) as lifespan_state:
        await serve_loop(server, read_stream, write_stream, lifespan_state=lifespan_state,
                         init_options=server.create_initialization_options())


def _handshake_versions() -> tuple[str, ...] | None:
    """The protocol revisions the installed SDK negotiates with ``initialize`` (None: mcp 1.x, all of them)."""
    try:
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
    except ImportError:
        return None
    return tuple(HANDSHAKE_PROTOCOL_VERSIONS)


def _handshake_era_only(app: Any) -> Any:
    """ASGI wrapper: refuse requests in MCP's stateless 2026-07-28 era, so clients open a session instead.

    That era carries no session: the SDK builds a connection per request, which would give every call a fresh
    toolset (no shell cwd, background task or todo list survives a call). A request whose ``MCP-Protocol-Version``
    header names a revision the handshake does not reach gets the JSON-RPC error -32022 listing those that it
    does; the SDK's clients (``mode="auto"``) then fall back to ``initialize``.
    """
    versions = _handshake_versions()
    if versions is None:  # pragma: no cover - mcp 1.x has no second era
        return app

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            header = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"mcp-protocol-version"),
                          None)
            if header is not None and header not in versions:
                body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                    "code": -32022, "message": f"protocol version {header} is not served: this server keeps a "
                                               f"toolset per session; use the initialize handshake",
                    "data": {"supported": list(versions), "requested": header}}}).encode()
                await send({"type": "http.response.start", "status": 400,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return wrapped


_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
"""Host names every HTTP server accepts in a request's ``Host`` (and ``Origin``) header."""
_WILDCARDS = ("0.0.0.0", "::", "")  # noqa: S104 - recognised, not bound


def _allowed_host_names(host: str, allowed_hosts: Sequence[str] = ()) -> list[str]:
    """The names a request's ``Host`` header may carry, IPv6 addresses in brackets.

    The loopback names, ``host`` unless it is a wildcard address (``0.0.0.0``, ``::``), and ``allowed_hosts``.
    """
    names = list(_LOOPBACK_NAMES)
    for name in (host, *allowed_hosts):
        name = name.strip()
        if name in _WILDCARDS:
            continue
        if ":" in name and not name.startswith("["):
            name = f"[{name}]"
        if name not in names:
            names.append(name)
    return names


def _transport_security(host: str, allowed_hosts: Sequence[str]) -> Any:
    """DNS-rebinding protection (``Host`` and ``Origin`` checks) for every bind address, wildcards included.

    The SDK turns it on only for a server bound to a loopback name; bound to 0.0.0.0 it accepted any ``Host``, so a
    web page on a rebound domain could drive the tools. None when the SDK has no such settings.
    """
    try:
        from mcp.server.transport_security import TransportSecuritySettings
    except ImportError:  # pragma: no cover - mcp before 1.10
        return None
    names = _allowed_host_names(host, allowed_hosts)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*names, *(f"{name}:*" for name in names)],
        allowed_origins=[f"{scheme}://{name}{port}" for name in names for scheme in ("http", "https")
                         for port in ("", ":*")],
    )


_GET_STREAM = "_GET_stream"
"""The key the SDK files a session's standalone GET stream under, among its requests' ids."""
MAX_BODY = 4 * 1024 * 1024
"""Bytes of one HTTP request body the server reads; a longer one is refused unread (a JSON-RPC error, 413)."""
DEFAULT_MAX_UNANSWERED = 256
"""Requests of one HTTP session whose answers are not yet written; past that the client is not reading its
answers, and the session is dropped."""
DEFAULT_MAX_SESSIONS = 1000
"""HTTP sessions open at once; a request that would open another gets a JSON-RPC error (503)."""


DEFAULT_REQUEST_TIMEOUT = 10.0
"""Seconds an HTTP client has to send a request's headers, and then its body: a slower one (slowloris) is cut off."""


def _slowloris_proof(request_timeout: float) -> type[Any]:
    """Uvicorn's h11 protocol, closing a connection whose request headers do not arrive within the timeout.

    uvicorn times out idle keep-alive connections, but waits for a request's headers forever: 200 clients sending a
    header byte a minute would hold 200 connections (and file descriptors) for good.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()  # the next request's headers: the same deadline

        def _arm(self) -> None:
            waiting_for = self.cycle
            if waiting_for is not None and not waiting_for.response_complete:
                return  # a pipelined request already runs: its own completion arms the timer again
            self.loop.call_later(request_timeout, self._too_slow, waiting_for)

        def _too_slow(self, waiting_for: Any) -> None:
            if self.cycle is waiting_for and not self.transport.is_closing():  # no new request since armed
                self.transport.close()

    return Protocol


def _rpc_error(status: int, code: int, message: str, request_id: Any = None) -> Callable[..., Awaitable[None]]:
    """An ASGI response: a JSON-RPC error object with HTTP ``status``."""
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}).encode()

    async def respond(send: Any) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    return respond


class _HttpGuard:
    """ASGI wrapper for POSTs: the checks the SDK lacks, answered as JSON-RPC errors.

    - a body over :data:`MAX_BODY` is refused before it is read whole (``Content-Length``) or as soon as it grows
      past the limit (chunked): ``-32600`` with status 413;
    - a request whose ``id`` is not a string or an integer (an object, a list, ``true``, ``null``, 1.5) gets no answer
      from the SDK (it takes it for a notification): ``-32600``, status 400;
    - a request id still in flight in the same session — ``1`` and ``"1"`` are the same id to the SDK — or the id
      the SDK keeps for the session's GET stream: ``-32600`` naming the id, status 409 (400 for the reserved one);
    - a body that does not arrive within ``request_timeout`` seconds: ``-32600``, status 408;
    - a session with more than ``max_unanswered`` requests whose answers are not yet written is dropped: its
      client is not reading, and its answers would pile up in memory. The request that found it gets ``-32000``
      (status 429); the session's later requests get the SDK's 404 "Session not found".
    """

    def __init__(self, app: Any, manager: Any, sessions: _Sessions, max_unanswered: int,
                 request_timeout: float = DEFAULT_REQUEST_TIMEOUT) -> None:
        self.app = app
        self.request_timeout = request_timeout
        self.manager = manager
        self.sessions = sessions
        self.max_unanswered = max_unanswered
        self.in_flight: dict[str, set[str]] = {}  # session id -> ids (their JSON) of requests being answered

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > MAX_BODY:
            await _rpc_error(413, -32600, f"Invalid Request: the body is over {MAX_BODY} bytes")(send)
            return
        chunks: list[bytes] = []
        size = 0
        deadline = asyncio.get_running_loop().time() + self.request_timeout
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - asyncio.get_running_loop().time()))
            except TimeoutError:
                await _rpc_error(408, -32600, f"Invalid Request: the body did not arrive within "
                                              f"{self.request_timeout:g} s")(send)
                return
            if message.get("type") == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                await _rpc_error(413, -32600, f"Invalid Request: the body is over {MAX_BODY} bytes")(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        session_id = headers.get(b"mcp-session-id", b"").decode("latin-1")
        request_id, refusal = self._request_id(body)
        if refusal is not None:
            await refusal(send)
            return
        key = None if request_id is None or not session_id else str(request_id)  # as the SDK keys its streams
        if key is not None:
            flying = self.in_flight.setdefault(session_id, set())
            if key in flying:
                await _rpc_error(409, -32600, f"Invalid Request: the request id {key} is in use by a request "
                                              "still being answered", request_id)(send)
                return
            if len(flying) >= self.max_unanswered:
                await self._drop(session_id)
                await _rpc_error(429, -32000, f"the session was dropped: {len(flying)} requests were not read",
                                 request_id)(send)
                return
            flying.add(key)
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        try:
            await self.app(scope, replay, send)
        finally:
            if key is not None:
                still = self.in_flight.get(session_id)
                if still is not None:
                    still.discard(key)
                    if not still:
                        self.in_flight.pop(session_id, None)

    @staticmethod
    def _request_id(body: bytes) -> tuple[Any, Callable[..., Awaitable[None]] | None]:
        """The id of a request in ``body`` (None for others), or the refusal of an id no answer can carry."""
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return None, None  # the SDK answers a parse error itself
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            return None, None
        request_id = message["id"]
        if request_id == _GET_STREAM:  # the SDK's own key for a session's GET stream: a request must not take it
            return None, _rpc_error(400, -32600, f"Invalid Request: the request id {_GET_STREAM} is reserved")
        if isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool)):
            return request_id, None
        return None, _rpc_error(400, -32600, "Invalid Request: a request id must be a string or an integer")

    async def _drop(self, session_id: str) -> None:
        """End an HTTP session: its transport (the SDK stops serving it) and its toolset."""
        transport = getattr(self.manager, "_server_instances", {}).get(session_id)
        if transport is not None:
            with contextlib.suppress(Exception):
                await transport.terminate()
        discard = getattr(self.manager, "_discard_session", None)
        if discard is not None and transport is not None:
            with contextlib.suppress(Exception):
                await discard(session_id, transport)
        self.sessions.end_soon(session_id)
        self.in_flight.pop(session_id, None)


def _http_app(server: Any, host: str, sessions: _Sessions, allowed_hosts: Sequence[str] = (),
              max_sessions: int = DEFAULT_MAX_SESSIONS, max_unanswered: int = DEFAULT_MAX_UNANSWERED,
              request_timeout: float = DEFAULT_REQUEST_TIMEOUT) -> Any:
    security = _transport_security(host, allowed_hosts)
    if hasattr(server, "streamable_http_app"):  # mcp 2.x
        app = server.streamable_http_app(host=host, transport_security=security, max_sessions=max_sessions)
        manager = server.session_manager
        discard = getattr(manager, "_discard_session", None)
        if discard is not None:  # close a session's tools as soon as the SDK drops the session

            async def discard_and_close(session_id: str, transport: Any) -> None:
                try:
                    await discard(session_id, transport)
                finally:
                    sessions.end_soon(session_id)

            manager._discard_session = discard_and_close
        return _handshake_era_only(_HttpGuard(_watch_disconnects(app), manager, sessions, max_unanswered,
                                              request_timeout))
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager  # pragma: no cover - mcp 1.x
    from starlette.applications import Starlette  # pragma: no cover
    from starlette.routing import Mount  # pragma: no cover

    takes = inspect.signature(StreamableHTTPSessionManager).parameters  # pragma: no cover
    extra = {"security_settings": security} if "security_settings" in takes else {}  # pragma: no cover
    manager = StreamableHTTPSessionManager(app=server, **extra)  # pragma: no cover

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
    allowed_hosts: Sequence[str] = (),
    from_roots: Callable[[Sequence[str]], Registry] | None = None,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    max_unanswered: int = DEFAULT_MAX_UNANSWERED,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
) -> None:
    """Serve the toolset that ``factory`` builds until the client disconnects (stdio) or the process stops (http).

    Over HTTP the endpoint is ``http://HOST:PORT/mcp`` (streamable HTTP), bound to 127.0.0.1 unless told otherwise.
    Requests must name this machine in their ``Host`` header as ``127.0.0.1``, ``localhost``, ``[::1]``, ``host``
    (unless a wildcard address) or one of ``allowed_hosts`` (DNS-rebinding protection), and a browser's ``Origin``
    likewise. There is no authentication. SIGTERM and SIGHUP (and SIGINT) close every session (killing its
    processes) before the server exits.

    Args:
        factory: Builds one session's registry.
        transport: ``stdio`` or ``http``.
        host: HTTP bind address.
        port: HTTP port.
        name: The server name clients see.
        max_calls: Calls one session runs at once; its further calls wait their turn.
        allowed_hosts: More names (or addresses) clients may reach an HTTP server by.
        from_roots: Builds the registry of a session whose client declares roots (see :func:`build_server`).
        max_sessions: HTTP sessions open at once; a request that would open another gets a JSON-RPC error (503).
        max_unanswered: Requests of one HTTP session whose answers are not yet written before the session is
            dropped (its client is not reading).
        request_timeout: Seconds an HTTP client has to send a request's headers, then its body.
    """
    server, sessions = build_server(factory, name=name, max_calls=max_calls, from_roots=from_roots)
    undo = _close_on_signals(sessions)
    try:
        if transport == "stdio":
            asyncio.run(_serve_stdio(server))
        else:
            import uvicorn

            uvicorn.run(_http_app(server, host, sessions, allowed_hosts, max_sessions, max_unanswered, request_timeout),
                        http=_slowloris_proof(request_timeout), host=host, port=port, log_level="warning",
                        timeout_graceful_shutdown=_GRACEFUL_SHUTDOWN)
    finally:
        sessions.close_all()
        undo()
