"""A pool of workspaces on Ray: one actor per workspace, each holding its own toolset (the ``ray`` extra).

``WorkspacePool("gemini", roots=[...])`` starts one Ray actor per root; each builds
``agenttools.toolset(name, root=root, sandbox=..., **options)`` and keeps it for its life, with its state (the
shell's cwd, background tasks, todos). ``pool[i]`` is an ordinary :class:`~agenttools.Registry` whose tools have
the toolset's own definitions (fetched once, when the pool starts) and whose calls run in actor ``i``: calls to
different workspaces run in parallel, calls to one workspace one at a time, in the order they were made.
``pool.call_many([(i, name, arguments), ...])`` runs a batch that way. Answers cross the process boundary whole:
text, content blocks (images too), ``is_error``, ``structured`` and, where it pickles, ``data``.

Cancelling an ``acall`` cancels the remote call (``ray.cancel``): the actor's call is cancelled as a local
``acall`` is, and the command it runs is killed. An actor that dies (killed, out of memory) fails its in-flight
call with one line saying so, and is replaced by a fresh one (``max_restarts`` times) whose toolset starts from
scratch: the workspace's files stay, its state does not. Whatever a dead actor's commands left running is killed
by a small reaper process each actor starts.

Ray is not started by the import. The pool uses the Ray runtime this process is connected to (``ray.init(...)``
called before, or ``RAY_ADDRESS``); with none it calls ``ray.init()`` for a local one, without the dashboard and
without forwarding the workers' logs. See docs/scale-out.md.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import logging
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import uuid
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from agenttools import git, shell
from agenttools._calls import run_coroutine
from agenttools.blocks import TextBlock
from agenttools.errors import AgentToolsError, ConfigError, GitError, ToolFailure, code_of
from agenttools.output import ToolOutput, error_code
from agenttools.registry import Registry
from agenttools.tool import Tool

__all__ = ["WorkerDiedError", "WorkerInfo", "WorkspacePool", "WorkspaceWorker"]

WORKER_VARIABLE = "AGENTTOOLS_POOL_WORKER"
"""The environment variable marking every process a workspace actor starts (its reaper finds them by it)."""
CLOSE_TIMEOUT = 10.0
"""Seconds ``close()`` waits for the actors to close their toolsets, then for their processes to end."""
GIT_TIMEOUT = 600.0
"""Seconds one git command of :meth:`WorkspacePool.from_git` may take."""
LOST_STATE = "its state (shell cwd, background tasks, todos) was lost"

_REAPER = """\
import sys
sys.stdin.buffer.read()
from agenttools.shell import _kill_marked
_kill_marked({("%s=" + sys.argv[1]).encode()})
""" % WORKER_VARIABLE  # noqa: UP031 - a literal {} in the code: no format()
"""The reaper: waits until the actor's end of the pipe closes (the actor died), then kills what carries its mark."""
_SAME_TEXT = b"t"
_SAME_CONTENT = b"c"
_DATA_KINDS = (_SAME_TEXT, _SAME_CONTENT)
_FUNCTION_FIELDS = frozenset({"handler", "is_async", "render_error", "native_arguments"})


class WorkerDiedError(AgentToolsError):
    """A workspace's actor died during a call (or before it); the call's answer says whether it was replaced."""

    code = "worker_died"


@attrs.frozen(kw_only=True)
class WorkerInfo:
    """One workspace of a pool, as :meth:`WorkspacePool.workers` reports it."""

    index: int
    """The workspace's position in the pool."""
    root: str
    """The workspace's root directory (on the actor's node)."""
    alive: bool
    """Whether an actor serves the workspace (False once its restarts are spent, or after ``close()``)."""
    deaths: int
    """How many times the workspace's actor died (each death replaced it while ``max_restarts`` allowed)."""
    pid: int | None
    """The actor's process id (on its node), None when it is gone or did not answer."""
    node_id: str | None
    """The Ray node the actor runs on."""
    actor: Any = attrs.field(repr=False)
    """The Ray actor handle (None when gone)."""


# --- what crosses the process boundary -------------------------------------------------------------------------

def _by_reference(function: Any) -> bytes | None:
    """A module-level function pickled by its name (a toolset's ``render_error``), else None."""
    if not isinstance(function, types.FunctionType) or "<" in function.__qualname__:
        return None
    try:
        return pickle.dumps(function)
    except Exception:  # noqa: BLE001 - not importable by name: the actor words those errors instead
        return None


def _loaded(blob: bytes | None) -> Any:
    if blob is None:
        return None
    try:
        return pickle.loads(blob)  # noqa: S301 - our own actor's bytes, as Ray's own results are
    except Exception:  # noqa: BLE001 - not importable here: the actor words those errors instead
        return None


def _tool_fields(tool: Tool) -> dict[str, Any]:
    """A tool's definition as plain data: every field but the functions, and which functions it has."""
    fields = {field.name: getattr(tool, field.name) for field in attrs.fields(Tool)
              if field.name not in _FUNCTION_FIELDS}
    fields["native"] = {fmt: dict(declared) for fmt, declared in tool.native.items()}
    fields["render_error"] = _by_reference(tool.render_error)
    fields["native_arguments"] = tool.native_arguments is not None
    return fields


def _portable_error(error: BaseException) -> BaseException:
    """``error`` if it survives pickling, else a RuntimeError with its text."""
    try:
        pickle.loads(pickle.dumps(error))  # noqa: S301 - our own bytes
    except Exception:  # noqa: BLE001 - an exception that cannot travel: its text does
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def _pickled_data(data: Any) -> bytes | None:
    """``data`` pickled with the cause and context of an exception (pickling drops both), or None."""
    attempts: list[tuple[Any, Any, Any]] = [(data, None, None)]
    if isinstance(data, BaseException) and (data.__cause__ is not None or data.__context__ is not None):
        attempts.insert(0, (data, data.__cause__, data.__context__))
    for attempt in attempts:
        with contextlib.suppress(Exception):  # what does not pickle stays behind
            return pickle.dumps(attempt, protocol=pickle.HIGHEST_PROTOCOL)
    return None


def pack(output: ToolOutput) -> tuple[Any, ...]:
    """A ToolOutput as the tuple an actor answers with (see :func:`unpack`)."""
    content = output.content
    plain = len(content) == 1 and isinstance(content[0], TextBlock) and content[0].text == output.text
    data = output.data
    blob: bytes | None
    if data is None:
        blob = None
    elif isinstance(data, str) and data == output.text:
        blob = _SAME_TEXT
    elif data is content:
        blob = _SAME_CONTENT
    else:
        blob = _pickled_data(data)
    code = error_code(output)
    return output.text, output.is_error, None if plain else content, output.structured, blob, code


def unpack(wire: tuple[Any, ...]) -> ToolOutput:
    """The ToolOutput an actor answered: its text, content, ``is_error``, ``structured`` and error code intact.

    ``data`` is the tool's own value where it could be pickled there and unpickled here; else None, or for a
    failure a :class:`~agenttools.ToolFailure` with the same error code.
    """
    text, is_error, content, structured, blob, code = wire
    data: Any = None
    if blob == _SAME_TEXT:
        data = text
    elif blob is not None and blob not in _DATA_KINDS:
        try:
            data, cause, context = pickle.loads(blob)  # noqa: S301 - our own actor's bytes, as Ray's own results are
        except Exception:  # noqa: BLE001 - a type this process cannot rebuild: the value stays behind
            data = None
        else:
            if isinstance(data, BaseException):
                data.__cause__ = cause if isinstance(cause, BaseException) else data.__cause__
                data.__context__ = context if isinstance(context, BaseException) else data.__context__
    if content is None:
        output = ToolOutput(text=text, is_error=is_error, data=data, structured=structured)
    else:
        output = ToolOutput(text=text, is_error=is_error, content=content, data=data, structured=structured)
    if blob == _SAME_CONTENT:
        output = attrs.evolve(output, data=output.content)
    if is_error and code is not None and code_of(output.data) != code:
        output = attrs.evolve(output, data=ToolFailure(text, code=code, data=output.data))
    return output


# --- the actor ---------------------------------------------------------------------------------------------------

def _start_reaper(marker: str) -> tuple[int, subprocess.Popen[bytes]]:
    """Start the reaper (in a session of its own, so it outlives the actor); the pipe end the actor keeps open."""
    read_end, write_end = os.pipe()  # both close on exec: commands never hold the actor's end
    try:
        reaper = subprocess.Popen([sys.executable, "-c", _REAPER, marker], stdin=read_end,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    return write_end, reaper


def _takes_sandbox(name: str) -> bool:
    """Whether a toolset takes a ``sandbox`` option (the pool's default is not given to those that run nothing)."""
    from agenttools.toolsets import BUILTIN, _load, declared_options

    if name in BUILTIN:
        return any(option.name == "sandbox" for option in declared_options(name))
    try:
        target = _load(name, name)
        parameters = inspect.signature(target).parameters.values()
    except (ConfigError, TypeError, ValueError):
        return True  # the toolset's own error says what is wrong
    return any(p.name == "sandbox" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


class WorkspaceWorker:
    """The Ray actor of one workspace: its toolset, its calls one at a time, and a reaper for what it leaves.

    Not used directly: :class:`WorkspacePool` starts it with ``ray.remote``. Building the toolset never fails the
    actor: the error is kept and reported by :meth:`describe` (and by every call).

    Args:
        toolset: The toolset's name (``agenttools.toolset``).
        root: The workspace's root directory.
        options: The toolset's other options.
    """

    def __init__(self, toolset: str, root: str, options: dict[str, Any]) -> None:
        from agenttools.toolsets import toolset as build

        self._marker = uuid.uuid4().hex
        os.environ[WORKER_VARIABLE] = self._marker  # every process started from now on carries it
        self._pipe, self._reaper = _start_reaper(self._marker)
        self._turn = 0  # the sequence number of the call whose turn it is
        self._finished: set[int] = set()  # calls past their turn (ran, or cancelled before it)
        self._waiting: dict[int, asyncio.Future[None]] = {}
        self._running: int | None = None
        self._registry: Registry | None = None
        self._error: BaseException | None = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if options.get("sandbox") == "auto" and not _takes_sandbox(toolset):
                    options = {key: value for key, value in options.items() if key != "sandbox"}
                self._registry = build(toolset, root=root, **options)
            except Exception as exc:  # noqa: BLE001 - reported by describe(), raised by the pool
                self._error = _portable_error(exc)
        self._warnings = [(str(w.message), w.category) for w in caught]

    async def describe(self) -> dict[str, Any]:
        """The toolset's tools as data (every definition field, error wording by reference), or its error."""
        import ray

        info: dict[str, Any] = {"pid": os.getpid(), "node_id": ray.get_runtime_context().get_node_id(),
                                "warnings": self._warnings}
        if self._registry is None:
            info["error"] = self._error
            return info
        info["render_error"] = _by_reference(getattr(self._registry, "_render_error", None))
        info["tools"] = [_tool_fields(tool) for tool in self._registry]
        return info

    async def pid(self) -> tuple[int, str]:
        """This actor's process id and Ray node id."""
        import ray

        return os.getpid(), ray.get_runtime_context().get_node_id()

    def _done(self, seq: int) -> None:
        """Call ``seq`` is past its turn: hand the turn on, past any call skipped before it came."""
        if seq >= self._turn:
            self._finished.add(seq)
        while self._turn in self._finished:
            self._finished.discard(self._turn)
            self._turn += 1
        waiter = self._waiting.get(self._turn)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def call(self, seq: int, name: str, arguments: dict[str, Any]) -> tuple[Any, ...]:
        """Run call number ``seq`` once the calls numbered before it are done (cancelling it kills its command).

        Ray may start an async actor's tasks out of order; the pool numbers each workspace's calls, and they run
        here one at a time in that order.
        """
        if seq < self._turn or seq in self._finished:  # skipped before it came
            return pack(ToolOutput(text=f"The call to {name} was cancelled", is_error=True))
        if seq != self._turn:
            waiter = self._waiting[seq] = asyncio.get_running_loop().create_future()
            try:
                await waiter
            except asyncio.CancelledError:
                self._done(seq)
                raise
            finally:
                del self._waiting[seq]
        self._running = seq
        try:
            if self._registry is None:
                text = f"the workspace's toolset could not be built: {self._error}"
                output = ToolOutput(text=text, is_error=True, data=self._error)
            else:
                output = await self._registry.acall(name, arguments)
        finally:
            self._running = None
            self._done(seq)
        return pack(output)

    async def skip(self, seq: int) -> None:
        """Call ``seq`` was cancelled by its caller: if it has not started, it never will, and its turn passes."""
        if seq == self._running or seq < self._turn:
            return  # running (ray.cancel stops it) or over
        waiter = self._waiting.get(seq)
        if waiter is not None:
            waiter.cancel()  # its call ends cancelled, and hands the turn on
        else:
            self._done(seq)

    async def native_arguments(self, name: str, payload: dict[str, Any]) -> tuple[bool, Any]:
        """``(True, arguments)`` of a native call item's payload, or ``(False, the error)``."""
        try:
            if self._registry is None:
                raise RuntimeError(f"the workspace's toolset could not be built: {self._error}")
            convert = self._registry[name].native_arguments
            return True, dict(payload) if convert is None else convert(payload)
        except Exception as exc:  # noqa: BLE001 - raised again by the pool, where the registry words it
            return False, _portable_error(exc)

    async def close(self) -> tuple[int, int, str]:
        """Close the toolset (its background processes end); this actor's and its reaper's pids, and the node."""
        import ray

        if self._registry is not None:  # not after the call running now: closing kills its command
            await asyncio.to_thread(self._registry.close)
        return os.getpid(), self._reaper.pid, ray.get_runtime_context().get_node_id()


# --- the pool ----------------------------------------------------------------------------------------------------

_ACTOR_CLASS: Any = None
_INIT_LOCK = threading.Lock()


def _ray() -> Any:
    """The ``ray`` module, connected: to the runtime already initialised, else to a new local one."""
    try:
        import ray
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("a pool of workspaces needs Ray: pip install 'agenttools[ray]'") from None
    with _INIT_LOCK:
        if not ray.is_initialized():
            ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    return ray


def _actor_class(ray: Any) -> Any:
    global _ACTOR_CLASS  # made once, on first use (ray.remote needs Ray imported)
    if _ACTOR_CLASS is None:
        _ACTOR_CLASS = ray.remote(WorkspaceWorker)
    return _ACTOR_CLASS


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _reason(error: BaseException) -> str:
    """Why an actor died, in a few words, from Ray's many-line message."""
    text = str(getattr(error, "error_msg", "") or error)
    if "ray.kill" in text:
        return "killed by ray.kill"
    if getattr(error, "preempted", False):
        return "its node was preempted"
    found = re.search(r"Worker exit type: (\w+)(?: Worker exit detail: ([^\n]*?)(?:\.\s|\.?$))?", text, re.M)
    if found:
        kind, detail = found.group(1), found.group(2) or ""
        if kind == "SYSTEM_ERROR":
            return "its process ended unexpectedly: killed, out of memory or crashed"
        if kind == "NODE_OUT_OF_MEMORY":
            return "out of memory: Ray's memory monitor killed it"
        return _one_line(f"{kind.lower().replace('_', ' ')}: {detail}" if detail else kind.lower())
    found = re.search(r"The actor is dead because ([^\n]*?)(?:\.\s|\.?$)", text, re.M)
    if found:
        return _one_line(found.group(1))
    if getattr(error, "actor_init_failed", False):
        return "its creation failed"
    return _one_line(text.splitlines()[0] if text else type(error).__name__)


class _Workspace:
    """The driver's side of one workspace: the current actor, its generation, and the deaths seen."""

    def __init__(self, pool: WorkspacePool, index: int, root: str) -> None:
        self._pool = pool
        self.index = index
        self.root = root
        self.lock = threading.Lock()
        self.actor: Any = None
        self.generation = 0
        self.deaths = 0
        self.last_reason = ""
        self.closed = False
        self.calls = 0  # calls made to the current actor: the next one's sequence number

    def start(self) -> Any:
        self.actor = self._pool._spawn(self.index, self.root, self.generation)
        self.calls = 0
        return self.actor

    def failed(self, text: str, error: BaseException | None = None) -> ToolOutput:
        return ToolOutput(text=text, is_error=True, data=error if error is not None else ToolFailure(text))

    def gone(self) -> ToolOutput:
        if self.closed:
            return self.failed(f"the workspace {self.index} worker is closed (the pool was closed)")
        text = (f"the workspace {self.index} worker is gone: it died {self.deaths} times ({self.last_reason}) and "
                f"max_restarts is {self._pool.max_restarts}")
        return self.failed(text, WorkerDiedError(text))

    def died(self, generation: int, error: BaseException) -> ToolOutput:
        """The answer of a call whose actor died; the first call to see a death replaces the actor (or not)."""
        ray = self._pool._ray
        reason = _reason(error)
        with self.lock:
            if self.generation == generation and not self.closed:
                self.deaths += 1
                self.last_reason = reason
                old, self.actor = self.actor, None
                self.generation += 1
                with contextlib.suppress(Exception):
                    ray.kill(old, no_restart=True)
                limit = self._pool.max_restarts
                if limit < 0 or self.deaths <= limit:
                    self.start()
            restarted = self.actor is not None
        if restarted:
            text = (f"the workspace {self.index} worker died ({reason}); it was restarted with a fresh toolset: "
                    f"{LOST_STATE}")
        elif self.closed:
            return self.gone()
        else:
            text = (f"the workspace {self.index} worker died ({reason}); it was not restarted (it died "
                    f"{self.deaths} times, max_restarts is {self._pool.max_restarts}): {LOST_STATE}, and its later "
                    f"calls fail")
        return self.failed(text, WorkerDiedError(text))

    async def run(self, name: str, arguments: dict[str, Any]) -> ToolOutput:
        """One call in the workspace's actor; cancelling it cancels the remote call."""
        ray = self._pool._ray
        with self.lock:
            actor, generation, seq = self.actor, self.generation, self.calls
            if actor is None:
                return self.gone()
            ref = actor.call.remote(seq, name, arguments)  # numbered in the order made: run in that order
            self.calls += 1
        try:
            wire = await asyncio.wrap_future(ref.future())
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                ray.cancel(ref)  # the actor's task is cancelled: its acall kills the command
            with contextlib.suppress(Exception):
                actor.skip.remote(seq)  # and if it never started, the calls after it do not wait for it
            raise
        except ray.exceptions.ActorDiedError as exc:
            return self.died(generation, exc)
        except ray.exceptions.RayActorError as exc:  # unavailable for now (a network partition), maybe not dead
            return self.failed(f"the workspace {self.index} worker could not be reached ({_reason(exc)}); the call "
                               f"may or may not have run", exc)
        except ray.exceptions.TaskCancelledError as exc:
            return self.failed(f"the call to {name} in workspace {self.index} was cancelled", exc)
        except ray.exceptions.RayError as exc:
            cause = getattr(exc, "cause", None) or exc
            detail = _one_line(str(cause).strip().splitlines()[-1] if str(cause).strip() else "")
            return self.failed(f"the workspace {self.index} worker failed: {type(cause).__name__}: {detail}", exc)
        return unpack(wire)

    def native_arguments(self, name: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """A native call item's arguments, converted in the actor (a blocking round trip)."""
        ray = self._pool._ray
        with self.lock:
            actor = self.actor
        if actor is None:
            raise WorkerDiedError(self.gone().text)
        try:
            ok, value = ray.get(actor.native_arguments.remote(name, dict(payload)), timeout=60)
        except ray.exceptions.RayError as exc:
            raise WorkerDiedError(f"the workspace {self.index} worker could not convert the call: "
                                  f"{_reason(exc)}") from None
        if not ok:
            raise value
        return dict(value)


def _local_tool(fields: Mapping[str, Any], workspace: _Workspace) -> Tool:
    """The actor's tool as a local Tool: the same definition, its calls made in the actor."""
    fields = dict(fields)
    renderer = _loaded(fields.pop("render_error"))
    has_native = fields.pop("native_arguments")
    # arguments are validated here only where the toolset's own wording of the errors came along; else there
    validate = bool(fields.pop("validate")) and renderer is not None
    name = str(fields["name"])

    async def handler(arguments: dict[str, Any]) -> ToolOutput:
        return await workspace.run(name, arguments)

    native: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    if has_native:
        def native(payload: Mapping[str, Any]) -> dict[str, Any]:
            return workspace.native_arguments(name, payload)

    return Tool(**fields, handler=handler, is_async=True, validate=validate, render_error=renderer,
                native_arguments=native)


def _wait_gone(pids: Iterable[int], timeout: float) -> None:
    """Wait up to ``timeout`` seconds for local processes to end (zombies count as ended)."""
    deadline = time.monotonic() + timeout
    left = set(pids)
    while left and time.monotonic() < deadline:
        for pid in list(left):
            try:
                with open(f"/proc/{pid}/stat", "rb") as handle:
                    if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                        left.discard(pid)
            except (OSError, IndexError):
                left.discard(pid)
        if left:
            time.sleep(0.05)


def _remove_tree(path: str) -> None:
    for _ in range(3):  # a process killed a moment ago may still have been writing into it
        shutil.rmtree(path, ignore_errors=True)
        if not os.path.lexists(path):
            return
        time.sleep(0.2)


class WorkspacePool:
    """Workspaces on Ray: one actor per root, each with its own toolset; ``pool[i]`` is workspace ``i``'s Registry.

    Args:
        toolset: A toolset name (``agenttools.toolset``) that takes ``root`` and ``sandbox``.
        roots: One directory per workspace: absolute paths on the node where its actor runs (a relative path is
            taken from this process's working directory).
        sandbox: Where the workspaces' commands run (``"auto"``, ``"bwrap"`` or ``"none"``: see docs/security.md);
            the default is not given to a toolset that takes no ``sandbox`` option (``filesystem``).
        max_restarts: How many times a workspace's actor that dies is replaced by a fresh one (``-1``: always).
        actor_options: Ray options of each actor (``num_cpus``, ``memory``, ``resources``, ``scheduling_strategy``,
            ``runtime_env``...). By default Ray's for an actor: placed on a node with a CPU, holding none while it
            runs, so a pool may have more workspaces than the cluster has CPUs.
        **toolset_options: The toolset's other options (``deny``, ``shell_timeout``...), the same for every
            workspace.

    Raises:
        ConfigError: No roots, a bad ``max_restarts`` or ``actor_options``, or an option the toolset rejects (its
            own error, raised as an actor met it; so is a root that does not exist there).
    """

    def __init__(self, toolset: str, roots: Sequence[str | os.PathLike[str]], *, sandbox: str = "auto",
                 max_restarts: int = 1, actor_options: Mapping[str, Any] | None = None,
                 **toolset_options: Any) -> None:
        if isinstance(roots, str | bytes | os.PathLike) or not roots:
            raise ConfigError("WorkspacePool needs a list of roots, one per workspace")
        if not isinstance(max_restarts, int) or isinstance(max_restarts, bool) or max_restarts < -1:
            raise ConfigError(f"max_restarts must be an integer >= -1 (-1: always restart), got {max_restarts!r}")
        ours = sorted({"max_restarts", "max_task_retries", "name"} & set(actor_options or {}))
        if ours:
            raise ConfigError(f"actor_options cannot set {', '.join(ours)}: the pool names its actors and restarts "
                              "them itself (max_restarts=); a call is never retried")
        self.toolset = toolset
        self.max_restarts = max_restarts
        self._options = {"sandbox": sandbox, **toolset_options}
        self._actor_options = dict(actor_options or {})
        self._id = uuid.uuid4().hex[:12]
        self._closed = False
        self._cleanup: list[Callable[[], None]] = []
        self._ray = _ray()
        self._workspaces = [_Workspace(self, index, os.path.abspath(os.fspath(root)))
                            for index, root in enumerate(roots)]
        self._registries: list[Registry] = []
        try:
            self._start()
        except BaseException:
            self._kill_all()
            raise

    def _spawn(self, index: int, root: str, generation: int) -> Any:
        options: dict[str, Any] = {"name": f"agenttools-pool-{self._id}-{index}-{generation}",
                                   "max_restarts": 0, "max_task_retries": 0, **self._actor_options}
        return _actor_class(self._ray).options(**options).remote(self.toolset, root, self._options)

    def _start(self) -> None:
        ray = self._ray
        actors = [workspace.start() for workspace in self._workspaces]
        infos = ray.get([actor.describe.remote() for actor in actors])
        for info in infos:
            if "error" in info:
                raise info["error"]
        shown: set[str] = set()
        for message, category in infos[0]["warnings"]:
            if message not in shown:
                shown.add(message)
                warnings.warn(message, category if isinstance(category, type) else UserWarning, stacklevel=3)
        for workspace, info in zip(self._workspaces, infos, strict=True):
            tools = [_local_tool(fields, workspace) for fields in info["tools"]]
            self._registries.append(Registry(tools, render_error=_loaded(info["render_error"])))

    @classmethod
    def from_git(cls, repo: str | os.PathLike[str], commit: str, n: int, toolset: str = "gemini", *,
                 keep: bool = False, shared: bool | None = None, base_dir: str | os.PathLike[str] | None = None,
                 **kw: Any) -> WorkspacePool:
        """A pool of ``n`` workspaces, each a copy of ``repo`` checked out (detached) at ``commit``.

        The copies are made here, in a new temporary directory, by a git that runs nothing of the repository (no
        hooks, filters, fsmonitor or configuration of its own; no LFS smudging: pointer files stay pointers),
        and removed at ``close()`` unless ``keep``. The directory holds a bare mirror of the repository (its
        objects hard-linked, or fetched once from a URL) and one clone of it per workspace. On a cluster of
        several nodes the actors are placed on this one (unless ``actor_options`` says where), where the copies
        are.

        Args:
            repo: A local repository (path) or a URL (fetched once, without the user's git configuration: no
                credential helpers).
            commit: A commit, tag or branch name.
            n: How many workspaces.
            toolset: The toolset of every workspace.
            keep: Leave the copies on disk at ``close()`` (``pool.base_dir`` says where).
            shared: Each copy borrows the mirror's objects (``git clone --shared``: cheap) or copies them (False).
                By default they borrow where sandboxed commands can read the mirror (not in ``/tmp`` or a home,
                which the sandbox hides) and the toolset is not ``coder`` (whose ``git_diff`` refuses objects from
                outside the workspace).
            base_dir: Where the temporary directory is made (default: ``/var/tmp``, else the system's).
            **kw: :class:`WorkspacePool`'s other arguments (``sandbox``, ``max_restarts``, toolset options).

        Raises:
            GitError: git failed (its message), or ``commit`` is not a commit of ``repo``.
            ConfigError: ``n`` is not a positive integer, or :class:`WorkspacePool` refused its arguments.
        """
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ConfigError(f"from_git needs n >= 1 workspaces, got {n!r}")
        base = tempfile.mkdtemp(prefix="agenttools-pool-", dir=_default_base() if base_dir is None
                                else os.fspath(base_dir))
        if shared is None:
            shared = toolset != "coder" and (kw.get("sandbox") == "none" or not _hidden_in_sandbox(base))
        try:
            roots = _git_copies(os.fspath(repo), commit, n, base, shared=shared)
            ray = _ray()
            options = dict(kw.pop("actor_options", None) or {})
            if "scheduling_strategy" not in options and sum(1 for node in ray.nodes() if node.get("Alive")) > 1:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

                here = ray.get_runtime_context().get_node_id()
                options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id=here, soft=False)
            pool = cls(toolset, roots, actor_options=options, **kw)
        except BaseException:
            _remove_tree(base)
            raise
        if not keep:
            pool._cleanup.append(weakref.finalize(pool, _remove_tree, base))
        pool.base_dir = base
        return pool

    base_dir: str | None = None
    """The temporary directory :meth:`from_git` made the workspaces in (None for a pool of given roots)."""

    @property
    def roots(self) -> tuple[str, ...]:
        """Each workspace's root directory."""
        return tuple(workspace.root for workspace in self._workspaces)

    def __len__(self) -> int:
        return len(self._workspaces)

    def __getitem__(self, index: int) -> Registry:
        return self._registries[index]

    def __iter__(self) -> Iterator[Registry]:
        return iter(self._registries)

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"{len(self)} workspaces"
        return f"<WorkspacePool {self.toolset!r}: {state}>"

    def __enter__(self) -> WorkspacePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call_many(self, calls: Iterable[tuple[int, str, Mapping[str, Any] | str | None]]) -> list[ToolOutput]:
        """Run ``(workspace, tool, arguments)`` calls: in parallel across workspaces, in order within one.

        Returns:
            The outputs, in the order of ``calls``.

        Raises:
            IndexError: A workspace index out of range (nothing runs).
        """
        return list(run_coroutine(self.acall_many(calls)))

    async def acall_many(self, calls: Iterable[tuple[int, str, Mapping[str, Any] | str | None]],
                         ) -> list[ToolOutput]:
        """Like :meth:`call_many`, without blocking the event loop; cancelling it cancels the calls running."""
        batch = list(calls)
        chains: dict[int, list[int]] = {}
        for position, (index, _, _) in enumerate(batch):
            if not isinstance(index, int) or not -len(self) <= index < len(self):
                raise IndexError(f"call {position}: no workspace {index!r} (the pool has {len(self)})")
            chains.setdefault(index % len(self), []).append(position)
        outputs: list[ToolOutput | None] = [None] * len(batch)

        async def chain(index: int, positions: list[int]) -> None:
            for position in positions:
                _, name, arguments = batch[position]
                outputs[position] = await self._registries[index].acall(name, arguments)

        await asyncio.gather(*(chain(index, positions) for index, positions in chains.items()))
        return [output for output in outputs if output is not None]

    def workers(self) -> list[WorkerInfo]:
        """Each workspace's actor now: alive or not, how often it died, its process id and node (one round trip)."""
        ray = self._ray
        current = []
        for workspace in self._workspaces:
            with workspace.lock:
                current.append((workspace, workspace.actor))
        refs = [actor.pid.remote() if actor is not None else None for _, actor in current]
        infos = []
        for (workspace, actor), ref in zip(current, refs, strict=True):
            pid = node = None
            if ref is not None:
                with contextlib.suppress(ray.exceptions.RayError):
                    pid, node = ray.get(ref, timeout=30)
            infos.append(WorkerInfo(index=workspace.index, root=workspace.root, alive=actor is not None,
                                    deaths=workspace.deaths, pid=pid, node_id=node, actor=actor))
        return infos

    def close(self) -> None:
        """End every actor (closing its toolset first: background processes end) and remove ``from_git`` copies.

        Waits, up to :data:`CLOSE_TIMEOUT` seconds each, for the toolsets to close and for the actors' processes
        on this node to end. Safe to call more than once; later calls fail with a line saying the pool is closed.
        """
        if self._closed:
            return
        self._closed = True
        ray = self._ray
        actors = []
        for workspace in self._workspaces:
            with workspace.lock:
                workspace.closed = True
                if workspace.actor is not None:
                    actors.append(workspace.actor)
                workspace.actor = None
        refs = [actor.close.remote() for actor in actors]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=CLOSE_TIMEOUT) if refs else ([], [])
        here = ray.get_runtime_context().get_node_id()
        pids: list[int] = []
        for ref in ready:
            with contextlib.suppress(ray.exceptions.RayError):
                actor_pid, reaper_pid, node = ray.get(ref)
                if node == here:  # processes of other nodes are not ours to watch
                    pids += [actor_pid, reaper_pid]
        for actor in actors:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        _wait_gone(pids, CLOSE_TIMEOUT)
        for cleanup in self._cleanup:
            cleanup()

    def _kill_all(self) -> None:
        ray = self._ray
        for workspace in self._workspaces:
            workspace.closed = True
            if workspace.actor is not None:
                with contextlib.suppress(Exception):
                    ray.kill(workspace.actor, no_restart=True)
                workspace.actor = None
        self._closed = True


# --- workspaces from git -----------------------------------------------------------------------------------------

def _scheme(repo: str) -> str | None:
    """The transport of a URL (``https``, ``ssh``...), None for a local path."""
    found = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", repo)
    if found:
        return found.group(1).lower()
    if re.match(r"[^/:]+@[^/:]+:", repo):  # scp-like user@host:path
        return "ssh"
    return None


def _default_base() -> str:
    """Where ``from_git`` makes its directory: ``/var/tmp`` (the sandbox shows it), else the system's temp dir."""
    for candidate in ("/var/tmp", tempfile.gettempdir()):  # noqa: S108 - the conventional place, on purpose
        if os.path.isdir(candidate) and os.access(candidate, os.W_OK | os.X_OK):
            return candidate
    return tempfile.gettempdir()


def _hidden_in_sandbox(path: str) -> bool:
    """Whether sandboxed commands cannot see ``path``: the sandbox gives them a private ``/tmp`` and home."""
    real = os.path.realpath(path)
    hidden = {"/tmp", os.path.expanduser("~"), os.environ.get("HOME", "")} - {"", "/"}  # noqa: S108 - what it hides
    return any(real == place or real.startswith(place.rstrip("/") + "/") for place in hidden)


def _git_copies(repo: str, commit: str, n: int, base: str, *, shared: bool) -> list[str]:
    """``n`` copies of ``repo`` at ``commit`` under ``base`` (``w0``, ``w1``...), made by a git that runs nothing.

    First a bare mirror, ``base/source.git`` (a local repository's objects hard-linked, a URL's fetched once);
    then each workspace, a clone of the mirror that borrows its objects (``shared``) or copies them, checked out
    detached at the commit. git runs with no system, global or repository configuration of the source (the
    clones' own configs are fresh), no hooks, no templates, and no filter, diff or fsmonitor program defined.
    """
    try:
        executable = git.find_git()
    except GitError as exc:
        raise GitError(f"from_git: {exc}") from None
    home = os.path.join(base, ".git-home")
    os.mkdir(home)
    scheme = _scheme(repo)
    protocols = "file" if scheme in (None, "file") else f"file:{scheme}"
    env = git.safe_env(home, {"GIT_ALLOW_PROTOCOL": protocols})
    prefix = [executable, "--no-pager"]
    for override in git.GIT_OVERRIDES:
        if scheme == "ssh" and override.startswith("core.sshCommand"):
            continue
        prefix += ["-c", override]
    prefix += ["-c", "advice.detachedHead=false", "-c", "init.templateDir=", "-c", "core.symlinks=true"]

    def run(*args: str, cwd: str = base) -> str:
        done = shell.run_command([*prefix, *args], cwd=cwd, env=env, timeout=GIT_TIMEOUT)  # its process group
        if done.error is not None and not done.timed_out:
            raise GitError(f"from_git: git {args[0]} failed: {_one_line(done.error)}")
        if done.timed_out:
            raise GitError(f"from_git: git {args[0]} took more than {GIT_TIMEOUT:g} s")
        if done.exit_code != 0:
            detail = _one_line(done.stderr) or f"exit status {done.exit_code}"
            raise GitError(f"from_git: git {args[0]} failed: {detail}")
        return done.stdout

    source = repo
    if scheme is None:
        source = os.path.abspath(repo)
        if not os.path.isdir(source):
            raise GitError(f"from_git: no repository at {source}")
    mirror = os.path.join(base, "source.git")
    run("clone", "--bare", "--quiet", "--template=", "--", source, mirror)
    sha = ""
    for candidate in (commit, f"refs/remotes/origin/{commit}"):
        with contextlib.suppress(GitError):
            sha = run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{candidate}^{{commit}}",
                      cwd=mirror).strip()
        if sha:
            break
    if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", sha):
        raise GitError(f"from_git: {commit!r} is not a commit of {repo}")
    roots = [os.path.join(base, f"w{index}") for index in range(n)]
    how = "--shared" if shared else "--no-hardlinks"

    def copy(root: str) -> None:
        run("clone", how, "--no-checkout", "--quiet", "--template=", "--", mirror, root)
        run("checkout", "--quiet", "--detach", sha, cwd=root)

    with concurrent.futures.ThreadPoolExecutor(max(1, min(n, 2 * (os.cpu_count() or 2)))) as executor:
        for future in [executor.submit(copy, root) for root in roots]:
            future.result()
    return roots
