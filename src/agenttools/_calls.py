"""How a tool call runs: its cancel scope, per-owner concurrency for calls in threads, coroutines from sync code.

A sync tool awaited through :meth:`Registry.acall <agenttools.registry.Registry.acall>` runs in a worker thread
inside a :class:`CallScope` (a context variable). When the awaiting task is cancelled — an MCP client sent
``notifications/cancelled``, dropped its connection, or its session ended — the scope is cancelled; the shell
family polls :func:`current_scope` while a command runs and kills the command's process group, so the thread
returns promptly instead of running on unseen. Work done in the thread itself — the directory walker, the Python
search backend, line counting, the filesystem toolset's tree — checks the scope between directories and files
(:func:`raise_if_cancelled`) and stops with :class:`CallCancelledError`, which nobody sees: the awaiting task is
gone. Only reads are stopped this way; a write is never cut in the middle.

A :class:`CallLimiter` gives one owner (an MCP session) its own bounded set of worker threads, so a saturated
owner only queues its own calls.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from agenttools._lazy import lazy_module
from agenttools.errors import ToolTimeoutError

if TYPE_CHECKING:
    import asyncio
else:
    asyncio = lazy_module("asyncio")  # about 10 ms to import: loaded by the first async call, not by a sync one

__all__ = ["CallCancelledError", "CallLimiter", "CallProgress", "CallScope", "current_progress", "current_scope",
           "raise_if_cancelled", "run_coroutine", "run_sync", "watching_progress"]

T = TypeVar("T")

_SCOPE: contextvars.ContextVar[CallScope | None] = contextvars.ContextVar("agenttools_call_scope", default=None)


class CallScope:
    """Whether one tool call was cancelled; thread-safe, set once."""

    def __init__(self) -> None:
        self._event = threading.Event()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()

    def cancel(self) -> None:
        """Mark the call cancelled: what it runs (shell commands) is killed at the next poll."""
        self._event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for cancellation; whether the call was cancelled."""
        return self._event.wait(timeout)


class CallProgress:
    """What a running call has done so far, for progress reports (the MCP server's): bytes of command output."""

    __slots__ = ("output_bytes",)

    def __init__(self) -> None:
        self.output_bytes = 0
        """Bytes the call's foreground commands have printed so far (stdout and stderr)."""


_PROGRESS: contextvars.ContextVar[CallProgress | None] = contextvars.ContextVar("agenttools_call_progress",
                                                                                 default=None)


def current_progress() -> CallProgress | None:
    """The progress record of the call running in this context, when someone is watching it; else None."""
    return _PROGRESS.get()


@contextlib.contextmanager
def watching_progress() -> Iterator[CallProgress]:
    """Give the calls started in this context (and the threads they run on) a progress record to fill."""
    progress = CallProgress()
    token = _PROGRESS.set(progress)
    try:
        yield progress
    finally:
        _PROGRESS.reset(token)


def current_scope() -> CallScope | None:
    """The cancel scope of the tool call running in this context, or None outside :func:`run_sync`."""
    return _SCOPE.get()


class CallCancelledError(ToolTimeoutError):
    """The tool call was cancelled while it ran in process (a walk, a search); the thread stops with this.

    A :class:`~agenttools.ToolTimeoutError` (and so a ``TimeoutError``), so code that stops on a timeout stops on
    it too; rendered like any failure if anyone still awaits the call (a session closing under it).
    """

    code = "cancelled"

    def __init__(self) -> None:
        super().__init__("the tool call was cancelled", seconds=0.0)


def raise_if_cancelled(scope: CallScope | None) -> None:
    """Raise :class:`CallCancelledError` if ``scope`` (from :func:`current_scope`, taken once) was cancelled.

    Cheap (an attribute load and an event flag): loops call it once per directory or file.
    """
    if scope is not None and scope._event.is_set():
        raise CallCancelledError


class CallLimiter:
    """At most ``max_running`` calls of one owner run at once, each in its own daemon thread; the others wait.

    Waiting calls start first come, first served; a waiting call that is cancelled never starts. A running call's
    slot is given back when its thread returns, not when its awaiting task is cancelled, so cancelling cannot be
    used to run more threads than the limit. Use one limiter per event loop.

    Args:
        max_running: Calls running at once (at least 1).
    """

    def __init__(self, max_running: int = 8) -> None:
        if max_running < 1:
            raise ValueError(f"max_running must be at least 1, got {max_running}")
        self.max_running = max_running
        self._semaphore: asyncio.Semaphore | None = None
        self._scopes: set[CallScope] = set()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._closed = False

    @property
    def running(self) -> int:
        """Calls whose thread is running now."""
        with self._lock:
            return len(self._scopes)

    def cancel_all(self) -> None:
        """Cancel every running call and refuse new ones (the owner is going away)."""
        with self._lock:
            self._closed = True
            scopes = list(self._scopes)
        for scope in scopes:
            scope.cancel()

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds until no call's thread is running; whether none is."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._scopes, timeout)

    def _done(self, scope: CallScope) -> None:
        with self._idle:
            self._scopes.discard(scope)
            self._idle.notify_all()

    async def run(self, scope: CallScope, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in a daemon thread once a slot is free, in a copy of this context with ``scope`` set.

        Raises:
            RuntimeError: The limiter was closed by :meth:`cancel_all`.
        """
        if self._semaphore is None:
            self._semaphore = asyncio.Semaphore(self.max_running)
        semaphore = self._semaphore
        await semaphore.acquire()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        context = contextvars.copy_context()
        context.run(_SCOPE.set, scope)

        def settle(value: Any, error: BaseException | None) -> None:
            if not future.done():
                if error is not None:
                    future.set_exception(error)
                else:
                    future.set_result(value)

        def release() -> None:
            semaphore.release()

        def target() -> None:
            value: Any = None
            error: BaseException | None = None
            try:
                value = context.run(fn, *args)
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
                error = exc
            finally:
                self._done(scope)
            try:
                loop.call_soon_threadsafe(settle, value, error)
                loop.call_soon_threadsafe(release)
            except RuntimeError:  # the loop is closed: nobody waits any more
                pass

        with self._lock:
            closed = self._closed
            if not closed:
                self._scopes.add(scope)
        if closed:
            semaphore.release()
            raise RuntimeError("the session is closed")
        try:
            threading.Thread(target=target, name="agenttools-call", daemon=True).start()
        except BaseException:
            self._done(scope)
            semaphore.release()
            raise
        return await future


async def run_sync(fn: Callable[..., T], *args: Any, limiter: CallLimiter | None = None) -> T:
    """Await ``fn(*args)`` run in a worker thread inside a fresh :class:`CallScope`; cancelling cancels the scope.

    Without a limiter the loop's default executor runs it. Context variables follow the call.
    """
    scope = CallScope()
    try:
        if limiter is not None:
            return await limiter.run(scope, fn, *args)
        context = contextvars.copy_context()
        context.run(_SCOPE.set, scope)
        return await asyncio.get_running_loop().run_in_executor(None, context.run, fn, *args)
    except asyncio.CancelledError:
        scope.cancel()  # the awaiting task is gone: stop what the thread runs
        raise


def run_coroutine(awaitable: Awaitable[Any]) -> Any:
    """Run an awaitable to completion from sync code, even when this thread already runs an event loop."""
    async def wrap() -> Any:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrap())
    box: dict[str, Any] = {}
    context = contextvars.copy_context()  # the caller's context variables (sessions) follow the call

    def target() -> None:
        try:
            box["value"] = context.run(asyncio.run, wrap())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the calling thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="agenttools-call")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
