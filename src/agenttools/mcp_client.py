"""Registries whose tools live in an MCP server: ``Registry.from_mcp`` and ``Registry.afrom_mcp``.

A remote registry is an ordinary :class:`~agenttools.Registry`: definitions, ``call``/``acall``/``run``, hooks,
composition, every SDK format and framework adapter. Its tools come from the server's ``tools/list`` (names,
descriptions, input and output schemas, hints, titles); a call is a ``tools/call`` whose result comes back as a
:class:`~agenttools.ToolOutput` — text, images and other inline data, ``isError``, ``structuredContent``.

The session runs on a private event-loop thread (a URL or a command), so the registry works from sync code, from
any event loop and from many threads at once; a given ``mcp.ClientSession`` keeps running on its own loop
(``await Registry.afrom_mcp(session)``). Cancelling an ``acall`` abandons the request: the SDK sends
``notifications/cancelled``. ``close()`` ends the session and, for a command, its process.

With our own server (``agenttools serve``) the answers are the local toolset's, byte for byte: the server sends an
answer's text along in ``_meta`` where its content cannot carry it (an image result's text), and marks its tools as
wording their own argument errors, so the client sends their arguments as given. Other servers' tools have their
arguments validated here, against the server's schemas, before anything is sent.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from agenttools.blocks import ContentBlock, DataBlock, ImageBlock, TextBlock, text_of
from agenttools.output import ToolOutput
from agenttools.sdk import mcp as mcp_shapes
from agenttools.tool import Tool

__all__ = ["NATIVE_META", "STRICT_META", "TEXT_META", "TITLE_META", "VALIDATES_META", "CallFailed", "RemoteError",
           "answer", "connect", "connect_session", "session_loop", "tool_of", "usable_tools"]

TEXT_META = "agenttools/text"
"""``_meta`` key of a result: the answer's text, where the content blocks cannot carry it (an image's text)."""
VALIDATES_META = "agenttools/validates"
"""``_meta`` key of a tool: the server words argument errors itself (as its toolset's contract does)."""
STRICT_META = "agenttools/strict"
"""``_meta`` key of a tool: its preferred strict mode (``Tool.strict``), for definitions made with ``strict=None``."""
TITLE_META = "agenttools/title"
"""``_meta`` key of a tool: its own title (MCP shows every tool with one; a tool without has none here)."""
NATIVE_META = "agenttools/native"
"""``_meta`` key of a tool: its providers' own declarations (``Tool.native``), emitted in their formats."""
CONNECT_TIMEOUT = 30.0
"""Seconds to open a session (start the command, or reach the URL) and list the tools."""


class RemoteError(ConnectionError):
    """The MCP server could not be reached, or its session could not be opened again."""


class CallFailed(Exception):  # noqa: N818 - the call failed; the registry answers it as an error
    """The server answered a call with a JSON-RPC error, or with an answer the SDK refused: sent once, failed."""


def _transport_lost(error: BaseException) -> bool:
    """Whether an error of ``session.call_tool`` means the connection is gone (not the server's answer)."""
    if type(error).__name__ == "MCPError" or hasattr(error, "error"):
        # the SDK's CONNECTION_CLOSED, or an HTTP session the server no longer knows (404 "Session not found")
        text = str(error).lower()
        return "connection closed" in text or "session not found" in text or "session terminated" in text
    # pydantic's ValidationError: the answer is malformed, the session is fine; OSError, anyio's closed streams,
    # httpx's transport errors, a session that is gone: the transport is lost
    return type(error).__name__ != "ValidationError"


def _require_mcp() -> Any:
    try:
        import mcp
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("a registry over MCP needs the 'mcp' package: pip install 'agenttools[mcp]'") from None
    return mcp


def _dump(model: Any) -> dict[str, Any]:
    """An SDK object (mcp 1.x or 2.x) as its wire dict."""
    dumped: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


def _blocks(content: Sequence[Mapping[str, Any]]) -> tuple[ContentBlock, ...]:
    """MCP content as our blocks: text, images, and other inline data (audio, a resource's blob)."""
    out: list[ContentBlock] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            out.append(TextBlock(text=str(block.get("text", ""))))
        elif kind == "image":
            out.append(ImageBlock(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", ""))))
        elif kind == "audio":
            out.append(DataBlock(data=str(block.get("data", "")), mime_type=str(block.get("mimeType", ""))))
        elif kind == "resource":
            resource = block.get("resource") or {}
            if "blob" in resource:
                out.append(DataBlock(data=str(resource["blob"]),
                                     mime_type=str(resource.get("mimeType") or "application/octet-stream")))
            else:
                out.append(TextBlock(text=str(resource.get("text", ""))))
        elif kind == "resource_link":
            out.append(TextBlock(text=str(block.get("uri", ""))))
    return tuple(out)


def answer(result: Mapping[str, Any], output_schema: Mapping[str, Any] | None = None) -> ToolOutput:
    """A ``CallToolResult`` dict as a :class:`~agenttools.ToolOutput`.

    The text is the ``_meta`` text our server sends along, else the text blocks joined by newlines (an image as
    ``[image: image/png]``). ``structuredContent`` becomes ``structured``, unwrapped from ``{"result": value}``
    when the tool's output schema (its own, not MCP's wrapper) is not an object.
    """
    blocks = _blocks(result.get("content") or [])
    meta = result.get("_meta") or {}
    sent = meta.get(TEXT_META)
    text = sent if isinstance(sent, str) else text_of(blocks)
    structured = result.get("structuredContent")
    if structured is not None and output_schema is not None and mcp_shapes.wrapped(output_schema) \
            and isinstance(structured, dict):
        structured = structured.get("result")
    content = blocks or (TextBlock(text=text),)
    return ToolOutput(text=text, content=content, is_error=bool(result.get("isError")), data=dict(result),
                      structured=structured)


def tool_of(definition: Mapping[str, Any], run: Callable[[str, dict[str, Any]], Awaitable[ToolOutput]]) -> Tool:
    """The :class:`~agenttools.Tool` of an MCP tool definition dict, its calls made by ``run(name, arguments)``."""
    name = str(definition["name"])
    hints = definition.get("annotations") or {}
    output_schema = mcp_shapes.unwrapped_output_schema(definition.get("outputSchema"))
    meta = definition.get("_meta") or {}
    validates = bool(meta.get(VALIDATES_META))
    # our server titles every tool and says which title is the tool's own; another server's title is its own
    title = meta.get(TITLE_META) if validates else (definition.get("title") or hints.get("title"))
    strict = meta.get(STRICT_META)
    native = meta.get(NATIVE_META)

    async def handler(arguments: dict[str, Any]) -> ToolOutput:
        return await run(name, arguments)

    read_only = bool(hints.get("readOnlyHint", False))
    return Tool.from_schema(
        name=name, description=str(definition.get("description") or ""),
        parameters=definition.get("inputSchema") or {"type": "object", "properties": {}},
        handler=handler, is_async=True, title=title if isinstance(title, str) else None, read_only=read_only,
        destructive=hints.get("destructiveHint", None if read_only else True),
        idempotent=bool(hints.get("idempotentHint", False)), open_world=bool(hints.get("openWorldHint", True)),
        output_schema=output_schema, validate=not validates, strict=strict if isinstance(strict, bool) else None,
        native=dict(native) if isinstance(native, Mapping) else {})


class _Link:
    """One MCP client session on a private event-loop thread, re-opened once if it is lost."""

    def __init__(self, opener: Callable[[contextlib.AsyncExitStack, Any], Awaitable[Any]], label: str) -> None:
        self._opener = opener
        self.on_tools: Callable[[list[dict[str, Any]]], None] | None = None  # told the new list on list_changed
        self.label = label
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="agenttools-mcp-client", daemon=True)
        self._thread.start()
        self._lock = threading.Lock()
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._held: concurrent.futures.Future[None] | None = None
        self.definitions: list[dict[str, Any]] = []
        self._generation = 0
        self.closed = False
        self._pending: set[concurrent.futures.Future[Any]] = set()

    def open(self) -> None:
        """Open the session and list the tools (blocking; at most :data:`CONNECT_TIMEOUT` seconds)."""
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._held = asyncio.run_coroutine_threadsafe(self._hold(ready), self.loop)
        try:
            ready.result(CONNECT_TIMEOUT)
        except concurrent.futures.TimeoutError:
            self._held.cancel()
            raise RemoteError(f"cannot open an MCP session with {self.label}: no answer within "
                              f"{CONNECT_TIMEOUT:g} s") from None
        except Exception as exc:  # noqa: BLE001 - whatever stopped the session from opening, in one line
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise RemoteError(f"cannot open an MCP session with {self.label}: {reason}") from None

    async def _hold(self, ready: concurrent.futures.Future[None]) -> None:
        self._stop = asyncio.Event()
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await self._opener(stack, self._on_message)
                listed = await session.list_tools()
                self.definitions = [_dump(tool) for tool in listed.tools]
                self._session = session
                self._generation += 1
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported to whoever waits for the session
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RemoteError(type(exc).__name__))
        finally:
            self._session = None

    async def _on_message(self, message: Any) -> None:
        """The SDK's message handler: a ``notifications/tools/list_changed`` lists the tools again."""
        root = getattr(message, "root", message)
        if type(root).__name__ == "ToolListChangedNotification" and self._session is not None:
            with contextlib.suppress(Exception):  # the session went away meanwhile: nothing to follow
                listed = await self._session.list_tools()
                self.definitions = [_dump(tool) for tool in listed.tools]
                if self.on_tools is not None:
                    self.on_tools(self.definitions)

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``tools/call`` on the link's loop; the session is opened again once if it was lost.

        Only a lost transport opens a new session (and sends the call again): the server's JSON-RPC error, or an
        answer the SDK refuses, is the call's failure (:class:`CallFailed`), sent once.
        """
        session, generation = self._session, self._generation
        try:
            if session is None:
                raise RemoteError("the session is closed")
            return _dump(await session.call_tool(name, arguments))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a lost transport: one new session; anything else: the answer
            first = " ".join(str(exc).split()) or type(exc).__name__
            if not _transport_lost(exc):
                raise CallFailed(f"the MCP server's answer to {name} was refused: {first}") from None
        if not await asyncio.to_thread(self._reopen, generation):
            raise RemoteError(f"the MCP session with {self.label} was lost ({first}) and could not be opened again")
        return _dump(await self._session.call_tool(name, arguments))

    def _reopen(self, generation: int) -> bool:
        with self._lock:
            if self._generation != generation and self._session is not None:
                return True  # another call opened it meanwhile
            self._end()
            try:
                self.open()
            except RemoteError:
                return False
            return True

    def _end(self) -> None:
        stop, held = self._stop, self._held
        if stop is not None:
            self.loop.call_soon_threadsafe(stop.set)
        if held is not None:
            with contextlib.suppress(Exception):
                held.result(10)

    def is_closed(self) -> bool:
        """Whether :meth:`close` was called (read anew each time: another thread sets it)."""
        return self.closed

    def close(self) -> None:
        """End the session (and a command's process), then the loop thread; calls still running end with an error."""
        self.closed = True
        for future in list(self._pending):
            future.cancel()  # their tasks are cancelled on the loop: the SDK sends notifications/cancelled
        self._end()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self.loop.is_running():
            self.loop.close()

    def runner(self, schemas: Mapping[str, Mapping[str, Any] | None]) -> Callable[[str, dict[str, Any]],
                                                                               Awaitable[ToolOutput]]:
        """How a tool's handler runs a call: on the link's loop, awaited from whatever loop calls."""
        async def run(name: str, arguments: dict[str, Any]) -> ToolOutput:
            unsendable = _not_unicode(arguments)
            if unsendable is not None:
                return ToolOutput(text=unsendable, is_error=True)
            if self.closed:
                return ToolOutput(text=f"the registry over {self.label} is closed", is_error=True)
            future = asyncio.run_coroutine_threadsafe(self.call(name, arguments), self.loop)
            self._pending.add(future)
            future.add_done_callback(self._pending.discard)
            try:
                result = await asyncio.wrap_future(future)
            except (RemoteError, CallFailed) as exc:
                return ToolOutput(text=str(exc), is_error=True, data=exc)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self.is_closed() and (task is None or not task.cancelling()):  # closed here, not by our caller
                    return ToolOutput(text=f"the registry over {self.label} was closed during the call",
                                      is_error=True)
                raise
            return answer(result, schemas.get(name))

        return run


def _not_unicode(arguments: Any) -> str | None:
    """Why ``arguments`` cannot travel over MCP (text that is not Unicode: lone surrogates), or None."""
    try:
        json.dumps(arguments, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return ("the arguments hold text that is not valid Unicode (a lone surrogate, as a name that is not UTF-8 "
                "reads in Python): JSON-RPC cannot carry it to the MCP server")
    except (TypeError, ValueError):
        return None  # not JSON at all: the server (or the SDK) says what is wrong
    return None


def _opener(target: str | Sequence[str]) -> tuple[Callable[[contextlib.AsyncExitStack, Any], Awaitable[Any]], str]:
    mcp = _require_mcp()
    from mcp import ClientSession

    if isinstance(target, str):
        from mcp.client.streamable_http import streamable_http_client

        async def open_http(stack: contextlib.AsyncExitStack, handler: Any) -> Any:
            streams = await stack.enter_async_context(streamable_http_client(target))
            session = await stack.enter_async_context(ClientSession(streams[0], streams[1], message_handler=handler))
            await session.initialize()
            return session

        return open_http, target
    argv = [str(part) for part in target]
    if not argv:
        raise ValueError("from_mcp: the command to start the server is empty")
    from mcp.client.stdio import stdio_client

    params = mcp.StdioServerParameters(command=argv[0], args=argv[1:])

    async def open_stdio(stack: contextlib.AsyncExitStack, handler: Any) -> Any:
        read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(ClientSession(read, write, message_handler=handler))
        await session.initialize()
        return session

    return open_stdio, " ".join(argv)


def connect(target: str | Sequence[str], on_tools: Callable[[list[Tool]], None] | None = None,
            ) -> tuple[list[Tool], Callable[[], None]]:
    """Open a session with the server at ``target`` (a URL, or a command's argv); its tools and how to close it.

    ``on_tools`` is told the server's new tool list each time it sends ``notifications/tools/list_changed``.
    """
    opener, label = _opener(target)
    link = _Link(opener, label)
    try:
        link.open()
    except BaseException:
        link.close()
        raise
    schemas: dict[str, dict[str, Any] | None] = {}

    def tools_of(definitions: list[dict[str, Any]]) -> list[Tool]:
        schemas.update({d["name"]: mcp_shapes.unwrapped_output_schema(d.get("outputSchema")) for d in definitions})
        return usable_tools(definitions, run)

    run = link.runner(schemas)
    if on_tools is not None:
        link.on_tools = lambda definitions: on_tools(tools_of(definitions))
    try:
        return tools_of(link.definitions), link.close
    except BaseException:
        link.close()
        raise


def usable_tools(definitions: Sequence[Mapping[str, Any]],
                 run: Callable[[str, dict[str, Any]], Awaitable[ToolOutput]]) -> list[Tool]:
    """The tools of ``definitions`` a registry can hold; each other one skipped with a ``UserWarning`` saying why.

    A tool without a description is described by its name; a name a registry refuses (empty, a space, a name already
    taken) or a schema it cannot use skips the tool.
    """
    tools: list[Tool] = []
    for definition in definitions:
        name = definition.get("name")
        if not definition.get("description") and isinstance(name, str):
            definition = {**definition, "description": name}
        try:
            tool = tool_of(definition, run)
        except Exception as exc:  # noqa: BLE001 - one odd tool must not cost the others
            reason = " ".join(str(exc).split()) or type(exc).__name__
            warnings.warn(f"MCP tool {name!r} skipped: {reason}", UserWarning, stacklevel=3)
            continue
        if any(existing.name == tool.name for existing in tools):
            warnings.warn(f"MCP tool {name!r} skipped: a tool of that name was listed before", UserWarning,
                          stacklevel=3)
            continue
        tools.append(tool)
    return tools


def session_loop(session: Any) -> asyncio.AbstractEventLoop | None:
    """The event loop an open ``mcp.ClientSession`` runs on (read off its anyio task group), or None."""
    group = getattr(session, "_task_group", None)
    task = getattr(getattr(group, "cancel_scope", None), "_host_task", None)
    get_loop = getattr(task, "get_loop", None)
    loop = get_loop() if callable(get_loop) else None
    return loop if isinstance(loop, asyncio.AbstractEventLoop) else None


async def connect_session(session: Any) -> list[Tool]:
    """The tools of an open ``mcp.ClientSession``, their calls made on the loop running now (the session's)."""
    loop = asyncio.get_running_loop()
    definitions = [_dump(tool) for tool in (await session.list_tools()).tools]
    schemas = {d["name"]: mcp_shapes.unwrapped_output_schema(d.get("outputSchema")) for d in definitions}

    async def on_loop(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return _dump(await session.call_tool(name, arguments))

    async def run(name: str, arguments: dict[str, Any]) -> ToolOutput:
        unsendable = _not_unicode(arguments)
        if unsendable is not None:
            return ToolOutput(text=unsendable, is_error=True)
        if asyncio.get_running_loop() is loop:
            result = await on_loop(name, arguments)
        else:
            result = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(on_loop(name, arguments), loop))
        return answer(result, schemas.get(name))

    return [tool_of(d, run) for d in definitions]
