"""The Registry: tools defined once, described to every SDK, and called with validated arguments.

``Registry.call`` never raises for bad input or a failing tool: everything becomes a :class:`ToolOutput`, and
errors are rendered to text in exactly one place (the tool's ``render_error``, a toolset's contract wording, or
:func:`default_error_text`). Only definition mistakes raise, when a tool is registered.
"""

from __future__ import annotations

import atexit
import functools
import inspect
import itertools
import json
import os
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import attrs

from agenttools import schema, sdk
from agenttools._calls import CallLimiter, run_coroutine, run_sync
from agenttools._lazy import lazy_module
from agenttools.errors import (
    AgentToolsError,
    ArgumentsError,
    ToolDefinitionError,
    ToolFailure,
    UnknownToolError,
    ValidationIssue,
)
from agenttools.output import ToolOutput, default_error_text, structured_output, to_output, well_formed_output
from agenttools.schema import compile_check, validate, without_null_defaults
from agenttools.sdk import Format, langchain
from agenttools.tool import ErrorRenderer, Tool, ToolCall, check_description, check_name

__all__ = ["CallLimiter", "ErrorRenderer", "Registry", "Tool", "ToolOutput"]

if TYPE_CHECKING:
    import asyncio
    import logging

    from agenttools import mcp_client
    from agenttools.hooks import Hook
    from agenttools.sdk import crewai, google_adk, llama_index, openai_agents, pydantic_ai, smolagents
else:
    logging = lazy_module("logging")  # about 3 ms to import: loaded when the first failure is logged
    mcp_client = lazy_module("agenttools.mcp_client")  # the registry of an MCP server's tools: from_mcp
    asyncio = lazy_module("asyncio")  # (with concurrent.futures and logging) only for an MCP session
    # the framework adapters load with the first to_...() call: a process that never asks pays nothing
    crewai = lazy_module("agenttools.sdk.crewai")
    google_adk = lazy_module("agenttools.sdk.google_adk")
    llama_index = lazy_module("agenttools.sdk.llama_index")
    openai_agents = lazy_module("agenttools.sdk.openai_agents")
    pydantic_ai = lazy_module("agenttools.sdk.pydantic_ai")
    smolagents = lazy_module("agenttools.sdk.smolagents")


@functools.cache
def logger() -> logging.Logger:
    """The ``agenttools`` logger (with a NullHandler: silent until the application configures logging)."""
    log = logging.getLogger("agenttools")
    log.addHandler(logging.NullHandler())
    return log


F = TypeVar("F", bound=Callable[..., Any])


def _runs_here(loop: Any) -> bool:
    """Whether ``loop`` is the event loop running in this thread."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _readable(arguments: Any) -> dict[str, Any]:
    """The arguments of a call to an unknown tool, as far as they read as an object (for hooks that log it)."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str | bytes | bytearray):
        try:
            value = json.loads(arguments)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def _interrupted(name: str, error: BaseException) -> ToolOutput:
    """What the hooks see of a call stopped by a cancellation or an interrupt (the caller gets the exception)."""
    code = "interrupted" if isinstance(error, KeyboardInterrupt) else "cancelled"
    text = f"The call to {name} was {code}"
    return ToolOutput(text=text, is_error=True, data=ToolFailure(text, code=code))


def _structured_handler(call: Callable[[Mapping[str, Any]], Any], is_async: bool,
                        schema: Mapping[str, Any]) -> Callable[[dict[str, Any]], Any]:
    """A handler answering with :func:`~agenttools.output.structured_output` of what ``call`` returns."""
    if is_async:
        async def handle_async(arguments: dict[str, Any]) -> ToolOutput:
            return structured_output(await call(arguments), schema)

        return handle_async

    def handle(arguments: dict[str, Any]) -> ToolOutput:
        return structured_output(call(arguments), schema)

    return handle


def _checked_output(hook: Hook, output: Any) -> ToolOutput:
    if not isinstance(output, ToolOutput):
        raise TypeError(f"hook {hook!r} returned {type(output).__name__} from after; expected a ToolOutput")
    return output


class _Lifetime:
    """What a registry's tools hold, released once: shared by every registry made from it (hooks, selections)."""

    __slots__ = ("__weakref__", "closers")

    def __init__(self) -> None:
        self.closers: list[Callable[[], object]] = []

    def add(self, callback: Callable[[], object]) -> None:
        self.closers.append(callback)
        _UNCLOSED.add(self)

    def close(self) -> None:
        closers, self.closers = self.closers, []
        _UNCLOSED.discard(self)
        for callback in closers:
            try:
                callback()
            except Exception:  # one failing cleanup must not skip the others
                log = logger()
                log.exception("closing a registry resource failed")


_UNCLOSED: weakref.WeakSet[_Lifetime] = weakref.WeakSet()
"""Lifetimes with cleanups still to run; held weakly, so this never keeps a registry alive."""


@atexit.register
def _close_unclosed() -> None:
    """At interpreter exit, close every registry nobody closed (their background processes die with it)."""
    for lifetime in list(_UNCLOSED):
        lifetime.close()


def _new_call_id() -> str:
    return f"call_{next(_CALL_IDS):x}_{_CALL_PREFIX}"


_CALL_IDS = itertools.count(1)
_CALL_PREFIX = os.urandom(4).hex()  # tells apart the ids of two processes writing one audit log


class Registry:
    """An ordered set of tools: definitions for any SDK, and validated calls that never raise.

    Args:
        tools: Tools to start with.
        render_error: How errors become text for tools that have no renderer of their own.
    """

    def __init__(self, tools: Iterator[Tool] | list[Tool] | tuple[Tool, ...] = (), *,
                 render_error: ErrorRenderer | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._checks: dict[str, tuple[Tool, Callable[[Any], bool]]] = {}  # compiled on a tool's first call
        self._render_error: ErrorRenderer = render_error or default_error_text
        self._lifetime = _Lifetime()
        self._hooks: tuple[Hook, ...] = ()  # around calls of names no tool has
        self._tool_hooks: dict[str, tuple[Hook, ...]] = {}  # around each tool's calls; none: the fast path
        self._listeners: list[Callable[[], object]] = []  # told when a tool is added or removed
        for tool in tools:
            self.add(tool)

    def _derive(self, tools: Iterable[tuple[Tool, tuple[Hook, ...]]], hooks: tuple[Hook, ...]) -> Registry:
        """A registry over ``(tool, its hooks)`` pairs with this one's renderer and state."""
        derived = Registry(render_error=self._render_error)
        derived._lifetime = self._lifetime
        derived._hooks = hooks
        for tool, tool_hooks in tools:
            derived._tools[tool.name] = tool
            if tool_hooks or hooks:  # a tool without hooks must not fall back to those of unknown names
                derived._tool_hooks[tool.name] = tool_hooks
        return derived

    def _with_hooks(self, names: Iterable[str],
                    rename: Mapping[str, str] | None = None) -> list[tuple[Tool, tuple[Hook, ...]]]:
        """``(tool, its hooks)`` for the tools named, renamed as asked."""
        pairs = []
        for name in names:
            tool = self._tools[name]
            if rename and name in rename:
                tool = attrs.evolve(tool, name=rename[name])
            pairs.append((tool, self._tool_hooks.get(name, ())))
        return pairs

    def __repr__(self) -> str:
        if not self._tools:
            return "<Registry: no tools>"
        count = f"{len(self._tools)} tool{'' if len(self._tools) == 1 else 's'}"
        return f"<Registry {count}: {', '.join(self._tools)}>"

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name, tuple(self._tools)) from None

    def __or__(self, other: Registry) -> Registry:
        if not isinstance(other, Registry):
            return NotImplemented
        return Registry.combine(self, other)

    @staticmethod
    def combine(*registries: Registry) -> Registry:
        """One registry holding the tools of all of ``registries``, in order; each tool keeps its own hooks.

        Closing it closes each of them. Each tool keeps its own error wording and hooks; a name none of them has
        (an unknown tool, or a tool added later) passes through the hooks of all of them, each once, so a shared
        audit log still sees it. :meth:`with_hooks` on the result adds hooks around all of them.

        Raises:
            ToolDefinitionError: Two of them have a tool of the same name (both sources are named).
        """
        seen: dict[str, int] = {}
        problems = []
        for index, registry in enumerate(registries):
            if not isinstance(registry, Registry):
                raise ToolDefinitionError("Registry.combine", [f"argument {index + 1} is not a Registry: "
                                                               f"{type(registry).__name__}"])
            for name in registry._tools:
                if name in seen:
                    problems.append(f"tool {name!r} is already registered: in registry {seen[name] + 1} and in "
                                    f"registry {index + 1}")
                seen.setdefault(name, index)
        if problems:
            raise ToolDefinitionError("Registry.combine", problems)
        combined = Registry(render_error=registries[0]._render_error if registries else None)
        unknown: dict[int, Hook] = {}  # around a name none of them has: every hook of each, once
        for registry in registries:
            unknown.update((id(hook), hook) for hook in registry._hooks)
        combined._hooks = tuple(unknown.values())
        for registry in registries:
            combined._lifetime.add(registry._lifetime.close)
            for tool, hooks in registry._with_hooks(registry._tools):
                combined._tools[tool.name] = tool
                if hooks or combined._hooks:
                    combined._tool_hooks[tool.name] = hooks
        return combined

    def with_hooks(self, *hooks: Hook) -> Registry:
        """A new registry over the same tools and state whose calls pass through ``hooks``; this one is unchanged.

        The hooks run around every call in the order given (after this registry's own): each ``before`` in turn
        until one answers, the tool (unless one answered), then every ``after`` in reverse order, whether the
        call ran, was answered by a hook, or failed validation. See :mod:`agenttools.hooks`.

        Raises:
            ToolDefinitionError: A hook has none of ``before``, ``after``, ``abefore``, ``aafter``.
        """
        methods = ("before", "after", "abefore", "aafter")
        problems = [f"hook {index + 1} ({hook!r}) has none of {', '.join(methods)}" for index, hook in enumerate(hooks)
                    if not any(callable(getattr(hook, method, None)) for method in methods)]
        if problems:
            raise ToolDefinitionError("with_hooks", problems)
        return self._derive(((tool, (*hooks_of, *hooks)) for tool, hooks_of in self._with_hooks(self._tools)),
                            hooks=(*self._hooks, *hooks))

    def select(self, names: Iterable[str]) -> Registry:
        """A new registry with only the tools named (in this registry's order), sharing hooks, state and close().

        Raises:
            ToolDefinitionError: A name is not a tool here.
        """
        wanted = self._known(names, "select")
        return self._derive(self._with_hooks(name for name in self._tools if name in wanted), self._hooks)

    def without(self, names: Iterable[str]) -> Registry:
        """A new registry without the tools named, sharing hooks, state and close().

        Raises:
            ToolDefinitionError: A name is not a tool here.
        """
        unwanted = self._known(names, "without")
        return self._derive(self._with_hooks(name for name in self._tools if name not in unwanted), self._hooks)

    def prefixed(self, prefix: str) -> Registry:
        """A new registry whose tools are named ``prefix + name`` (errors that quote a tool name follow).

        Raises:
            ToolDefinitionError: A new name is not a valid tool name.
        """
        return self.renamed({name: prefix + name for name in self._tools})

    def renamed(self, names: Mapping[str, str]) -> Registry:
        """A new registry with tools renamed (``{"read_file": "open"}``), the others kept, sharing hooks and state.

        Raises:
            ToolDefinitionError: An old name is not a tool here, a new name is invalid, or two tools would share
                a name.
        """
        self._known(names, "renamed")
        problems = [f"{new!r}: {problem}" for new in names.values() for problem in check_name(new)]
        final = [names.get(name, name) for name in self._tools]
        problems += [f"two tools would be named {name!r}" for name in sorted({n for n in final if final.count(n) > 1})]
        if problems:
            raise ToolDefinitionError("renamed", problems)
        return self._derive(self._with_hooks(self._tools, names), self._hooks)

    def _known(self, names: Iterable[str], method: str) -> set[str]:
        if isinstance(names, str):
            names = [names]
        wanted = set(names)
        unknown = sorted(wanted - set(self._tools))
        if unknown:
            raise ToolDefinitionError(method, [f"no tool named {name!r} (tools: {', '.join(self._tools)})"
                                               for name in unknown])
        return wanted

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def on_close(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` when the registry is closed (toolsets use it to kill their background processes).

        A registry still open at interpreter exit is closed then. A registry that is merely garbage-collected is
        not: its tools may live on in another registry; what the callbacks release is owned (and finalized) by
        the toolset's own state.
        """
        self._lifetime.add(callback)

    def close(self) -> None:
        """Release what the tools hold (background processes, sessions). Safe to call more than once.

        Registries made from this one (:meth:`with_hooks`, :meth:`select`, ...) share its state: closing any of
        them closes it. Hooks are not closed (one hook may serve many registries).
        """
        self._lifetime.close()

    def names(self) -> tuple[str, ...]:
        """Tool names, in definition order."""
        return tuple(self._tools)

    def on_change(self, callback: Callable[[], object]) -> None:
        """Call ``callback()`` after a tool is added to or removed from this registry.

        The MCP server uses it to tell its clients the tool list changed. It runs on the thread that changed the
        registry; what it raises is logged.
        """
        self._listeners.append(callback)

    def _changed(self) -> None:
        for callback in list(self._listeners):
            try:
                callback()
            except Exception:  # noqa: BLE001 - a listener's failure must not undo the change
                logger().exception("a registry change listener failed")

    def _follow(self, tools: list[Tool]) -> None:
        """Hold exactly ``tools`` (a server's new tool list): the others removed, each new or changed one added."""
        wanted = {tool.name: tool for tool in tools}
        for name in [name for name in self._tools if name not in wanted]:
            self.remove(name)
        for name, tool in wanted.items():
            if name in self._tools:
                if self._tools[name].parameters == tool.parameters and \
                        self._tools[name].description == tool.description:
                    continue
                self.remove(name)
            self.add(tool)

    def remove(self, name: str) -> Tool:
        """Remove the tool ``name`` and return it.

        Raises:
            UnknownToolError: No tool has that name.
        """
        tool = self[name]
        del self._tools[name]
        self._tool_hooks.pop(name, None)
        self._checks.pop(name, None)
        self._changed()
        return tool

    def add(self, tool: Tool) -> Tool:
        """Add a tool; it keeps this registry's error renderer unless it has its own.

        Raises:
            ToolDefinitionError: A tool of that name is already registered.
        """
        if tool.name in self._tools:
            raise ToolDefinitionError(f"tool {tool.name!r}", ["a tool of that name is already registered"])
        if tool.render_error is None:
            tool = attrs.evolve(tool, render_error=self._render_error)
        self._tools[tool.name] = tool
        if self._hooks:
            self._tool_hooks[tool.name] = self._hooks
        self._changed()
        return tool

    @overload
    def tool(self, fn: F, /) -> F: ...
    @overload
    def tool(self, fn: None = None, /, *, name: str | None = None, description: str | None = None,
             title: str | None = None,
             read_only: bool = False, destructive: bool | None = None, idempotent: bool = False,
             open_world: bool = True, strict: bool | None = None) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        read_only: bool = False,
        destructive: bool | None = None,
        idempotent: bool = False,
        open_world: bool = True,
        strict: bool | None = None,
    ) -> Any:
        """Register a typed function as a tool: ``@reg.tool`` or ``@reg.tool(name=..., read_only=True)``.

        The description is the docstring's text before its first section; parameter descriptions come from its
        parameter entries (Google ``Args:``, NumPy ``Parameters``, Sphinx ``:param x:`` or Epydoc ``@param x:``)
        or ``Annotated[T, "text"]``. The function is returned unchanged.

        Raises:
            ToolDefinitionError: Every problem at once: no description, a lambda without a name, a bad name,
                an unsupported or missing annotation, ``*args``, a documented parameter that does not exist, a
                Google parameter section that cannot be read.
        """
        options: dict[str, Any] = {
            "name": name, "description": description, "title": title, "read_only": read_only,
            "destructive": destructive, "idempotent": idempotent, "open_world": open_world, "strict": strict,
        }
        if fn is None:
            return lambda f: self.tool(f, **options)
        self.add(self.function_tool(fn, **options))
        return fn

    @staticmethod
    def function_tool(fn: Callable[..., Any], *, name: str | None = None, description: str | None = None,
                      **options: Any) -> Tool:
        """Build (without registering) the Tool for a typed function; see :meth:`tool`."""
        own_name = getattr(fn, "__name__", None)
        anonymous = own_name is None or own_name == "<lambda>"
        label = name if name is not None else (repr(fn) if anonymous else str(own_name))
        problems: list[str] = []
        if not callable(fn):
            raise ToolDefinitionError(f"tool {label!r}", [f"{fn!r} is not callable"])
        if name is None and anonymous:
            problems.append("a lambda or callable object needs an explicit name=")
        else:
            problems += check_name(label)
        compiled = schema.function_schema(fn, problems)
        if description is None:
            description = schema.parse_docstring(inspect.getdoc(fn)).description
        problems += check_description(description)
        if problems or compiled is None:
            raise ToolDefinitionError(f"tool {label!r}", problems)
        text = description
        optional = frozenset(compiled.parameters["properties"]) - set(compiled.parameters["required"])
        handler: Callable[[dict[str, Any]], Any] = compiled.call
        if compiled.output_schema is not None:  # a structured result: its JSON value, and the same JSON as text
            handler = _structured_handler(compiled.call, compiled.is_async, compiled.output_schema)
        return Tool(name=label, description=text, parameters=compiled.parameters, handler=handler,
                    is_async=compiled.is_async, null_means_default=optional, null_defaults=True,
                    output_schema=compiled.output_schema,
                    **options)

    def definitions(self, format: Format = "json-schema", *, strict: bool | None = None) -> list[dict[str, Any]]:
        """Tool definitions for an SDK, one dict per tool, in definition order.

        Args:
            format: ``openai`` (Chat Completions), ``openai-responses``, ``anthropic``, ``gemini`` (one
                FunctionDeclaration dict per tool), ``mcp`` (with ``annotations``) or ``json-schema``.
            strict: True or False for every tool; None uses each tool's own preference (default: not strict).
                OpenAI always receives ``strict`` explicitly; a schema that cannot be strict falls back to
                ``strict: false`` with a warning. Anthropic receives ``strict: true`` only where it applies.

        Raises:
            ValueError: Unknown format.
        """
        return sdk.definitions(list(self._tools.values()), format, strict=strict)

    def _prepare(self, name: str, arguments: Any) -> tuple[Tool, dict[str, Any]]:
        tool = self[name]
        args = self._parse(tool, arguments)
        args = {k: v for k, v in args.items() if not (v is None and k in tool.null_means_default)}
        if tool.null_defaults:
            args = without_null_defaults(tool.parameters, args)
        if tool.validate:
            compiled = self._checks.get(name)
            if compiled is None or compiled[0] is not tool:  # first call, or the tool was replaced since
                compiled = self._checks[name] = (tool, compile_check(tool.parameters))
            if not compiled[1](args):  # not certainly valid: the full validator decides and words the issues
                issues = validate(tool.parameters, args)
                if issues:
                    raise ArgumentsError(tool.name, issues)
        return tool, args

    @staticmethod
    def _parse(tool: Tool, arguments: Any) -> dict[str, Any]:
        if arguments is None:
            return {}
        if isinstance(arguments, bytes | bytearray):
            try:
                arguments = arguments.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ArgumentsError(tool.name, [ValidationIssue(
                    path=(), keyword="json", message=f"arguments are not valid UTF-8: {exc}")]) from None
        if isinstance(arguments, str):
            if not arguments.strip():
                return {}
            try:
                arguments = json.loads(arguments, parse_constant=_reject_constant)
            except ValueError as exc:
                raise ArgumentsError(tool.name, [ValidationIssue(
                    path=(), keyword="json", message=f"arguments are not valid JSON: {exc}")]) from None
            except RecursionError:
                raise ArgumentsError(tool.name, [ValidationIssue(
                    path=(), keyword="json", message="arguments are nested too deeply")]) from None
        if not isinstance(arguments, Mapping):
            raise ArgumentsError(tool.name, [ValidationIssue(
                path=(), keyword="type", message="must be object", params={"type": "object"}, value=arguments)])
        return dict(arguments)

    def _failure(self, name: str, error: BaseException) -> ToolOutput:
        if isinstance(error, ToolFailure):  # exact text, whoever raised it: no renderer rewords it
            return ToolOutput(text=error.text, is_error=True, data=error if error.data is None else error.data)
        tool = self._tools.get(name)
        renderer = tool.render_error if tool and tool.render_error else self._render_error
        try:
            rendered = renderer(name, error)
        except Exception:  # a broken renderer must not break call()
            log = logger()
            log.exception("error renderer for %s failed", name)
            rendered = default_error_text(name, error)
        if isinstance(rendered, str):
            return ToolOutput(text=rendered, is_error=True, data=error)
        if isinstance(rendered, ToolOutput):
            return rendered if rendered.is_error else attrs.evolve(rendered, is_error=True)
        return ToolOutput(text=rendered.text, is_error=True, content=rendered.content, data=error)

    @staticmethod
    def _log(name: str, error: BaseException) -> None:
        if isinstance(error, AgentToolsError):
            logger().debug("tool %s failed: %s", name, error)
        else:
            logger().error("tool %s raised %s", name, type(error).__name__, exc_info=error)

    def call(self, name: str, arguments: Mapping[str, Any] | str | bytes | None = None, *,
             call_id: str | None = None) -> ToolOutput:
        """Validate ``arguments`` (a dict or a JSON string) and run the tool; never raises for bad input.

        ``null`` for an optional parameter means its default. Unknown tools, invalid JSON, schema violations
        and exceptions raised by the tool (or a hook) all come back as ``ToolOutput(is_error=True)`` with one line
        of text. ``call_id`` is handed to the hooks (one is generated when None).
        """
        hooks = self._hooks_of(name)
        if hooks:
            return self._hooked(name, arguments, call_id, hooks)
        try:
            tool, args = self._prepare(name, arguments)
            return well_formed_output(self._run_tool(tool, args))
        except (Exception, SystemExit) as error:  # noqa: BLE001 - call() never raises: every failure is output
            self._log(name, error)
            return well_formed_output(self._failure(name, error))

    def _hooks_of(self, name: str) -> tuple[Hook, ...]:
        """The hooks around calls of ``name`` (none: the plain path)."""
        return self._tool_hooks.get(name, self._hooks) if self._tool_hooks or self._hooks else ()

    @staticmethod
    def _run_tool(tool: Tool, args: dict[str, Any]) -> ToolOutput:
        """Run the tool's handler to completion (an async one too) and turn what it returns into an output."""
        result = tool.handler(args)
        if tool.is_async or inspect.isawaitable(result):
            result = run_coroutine(result)
        return to_output(result)

    def _start(self, name: str, arguments: Any, call_id: str | None) -> ToolCall:
        """The call as hooks see it before validation (arguments as far as they can be read)."""
        tool = self._tools.get(name)
        try:
            read = self._parse(tool, arguments) if tool is not None else _readable(arguments)
        except ArgumentsError:
            read = {}
        return ToolCall(name=name, arguments=read, tool=tool,
                        call_id=_new_call_id() if call_id is None or call_id == "" else str(call_id),
                        started=time.monotonic())

    def _answered(self, call: ToolCall, answer: Any, hook: Hook) -> tuple[ToolCall, ToolOutput | None]:
        """What a ``before`` returned: the call (with new arguments, validated again) and the output if it answered."""
        if answer is None:
            return call, None
        if isinstance(answer, ToolOutput):
            return call, answer
        if not isinstance(answer, ToolCall) or answer.name != call.name:
            raise TypeError(f"hook {hook!r} returned {answer!r} from before; expected None, a ToolOutput or the "
                            f"call with new arguments (the tool cannot change)")
        _, args = self._prepare(call.name, answer.arguments)
        return attrs.evolve(call, arguments=args), None

    def _after(self, hooks: tuple[Hook, ...], call: ToolCall, output: ToolOutput) -> ToolOutput:
        for hook in reversed(hooks):
            after = getattr(hook, "after", None)
            aafter = getattr(hook, "aafter", None) if after is None else None
            try:
                if after is not None:
                    output = _checked_output(hook, after(call, output))
                elif aafter is not None:  # a hook written only async is not skipped by a sync call
                    output = _checked_output(hook, run_coroutine(aafter(call, output)))
            except (Exception, SystemExit) as error:  # noqa: BLE001 - a hook's failure is the call's error text
                self._log(call.name, error)
                output = self._failure(call.name, error)
        return well_formed_output(output)

    def _hooked(self, name: str, arguments: Any, call_id: str | None, hooks: tuple[Hook, ...]) -> ToolOutput:
        call = self._start(name, arguments, call_id)
        output: ToolOutput | None = None
        try:
            tool, args = self._prepare(name, arguments)
            call = attrs.evolve(call, arguments=args)
            for hook in hooks:
                before = getattr(hook, "before", None)
                abefore = getattr(hook, "abefore", None) if before is None else None
                if before is not None:
                    answer = before(call)
                elif abefore is not None:  # a hook written only async (an approval) is not skipped by call()
                    answer = run_coroutine(abefore(call))
                else:
                    continue
                call, output = self._answered(call, answer, hook)
                if output is not None:
                    break
            if output is None:
                output = self._run_tool(tool, call.arguments)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - call() never raises: every failure is output
            self._log(name, error)
            output = self._failure(name, error)
        except BaseException as error:  # an interrupt: the hooks still see the call end (logged, span ended)
            self._after(hooks, call, _interrupted(name, error))
            raise
        return self._after(hooks, call, well_formed_output(output))

    async def _ahooked(self, name: str, arguments: Any, call_id: str | None, hooks: tuple[Hook, ...],
                       limiter: CallLimiter | None) -> ToolOutput:
        call = self._start(name, arguments, call_id)
        output: ToolOutput | None = None
        try:
            tool, args = self._prepare(name, arguments)
            call = attrs.evolve(call, arguments=args)
            for hook in hooks:
                abefore = getattr(hook, "abefore", None)
                before = getattr(hook, "before", None)
                if abefore is not None:
                    answer = await abefore(call)
                elif before is not None:
                    answer = before(call)
                else:
                    continue
                call, output = self._answered(call, answer, hook)
                if output is not None:
                    break
            if output is None:
                output = to_output(await self._arun_tool(tool, call.arguments, limiter))
        except (Exception, SystemExit) as error:  # noqa: BLE001 - acall() never raises: every failure is output
            self._log(name, error)
            output = self._failure(name, error)
        except BaseException as error:  # cancelled: the hooks still see the call end, then the cancellation goes on
            await self._aafter(hooks, call, _interrupted(name, error))
            raise
        return await self._aafter(hooks, call, well_formed_output(output))

    async def _aafter(self, hooks: tuple[Hook, ...], call: ToolCall, output: ToolOutput) -> ToolOutput:
        stopped: BaseException | None = None
        for hook in reversed(hooks):
            aafter = getattr(hook, "aafter", None)
            after = getattr(hook, "after", None)
            try:
                if aafter is not None:
                    output = _checked_output(hook, await aafter(call, output))
                elif after is not None:
                    output = _checked_output(hook, after(call, output))
            except (Exception, SystemExit) as error:  # noqa: BLE001 - a hook's failure is the call's error text
                self._log(call.name, error)
                output = self._failure(call.name, error)
            except BaseException as error:  # noqa: BLE001 - cancelled inside one hook: the hooks outside it still see the end
                stopped = stopped or error
                output = _interrupted(call.name, error)
        if stopped is not None:
            raise stopped
        return well_formed_output(output)

    @staticmethod
    async def _arun_tool(tool: Tool, args: dict[str, Any], limiter: CallLimiter | None) -> Any:
        if tool.is_async:
            return await tool.handler(args)
        result = await run_sync(tool.handler, args, limiter=limiter)
        if inspect.isawaitable(result):
            result = await result
        return result

    def run(self, tool_call: Any) -> dict[str, Any]:
        """Run a tool call from any SDK and answer in the same SDK's shape.

        Accepts an OpenAI Chat tool call, a Responses ``function_call`` item (or a native ``apply_patch_call`` /
        ``shell_call`` item), an Anthropic ``tool_use`` block or a Gemini ``function_call`` (part or call) — SDK
        objects or plain dicts — and returns the tool message / ``function_call_output`` (native output item) /
        ``tool_result`` / ``function_response`` part for it.

        Raises:
            ValueError: ``tool_call`` is not a tool call from a known SDK, or a malformed native item.
        """
        parsed = sdk.parse_call(tool_call)
        try:
            arguments = self._arguments_of(parsed)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - a native payload that cannot run fails the call
            self._log(parsed.name, error)
            failed = well_formed_output(self._failure(parsed.name, error))
            hooks = self._hooks_of(parsed.name)
            if hooks:  # the hooks see it fail, as they see a call that fails validation
                failed = self._after(hooks, self._start(parsed.name, parsed.arguments, parsed.call_id), failed)
            return parsed.shape(failed)
        return parsed.shape(self.call(parsed.name, arguments, call_id=parsed.call_id))

    async def arun(self, tool_call: Any) -> dict[str, Any]:
        """Like :meth:`run`, without blocking the event loop."""
        parsed = sdk.parse_call(tool_call)
        try:
            arguments = self._arguments_of(parsed)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - a native payload that cannot run fails the call
            self._log(parsed.name, error)
            failed = well_formed_output(self._failure(parsed.name, error))
            hooks = self._hooks_of(parsed.name)
            if hooks:  # the hooks see it fail, as they see a call that fails validation
                failed = await self._aafter(hooks, self._start(parsed.name, parsed.arguments, parsed.call_id),
                                            failed)
            return parsed.shape(failed)
        return parsed.shape(await self.acall(parsed.name, arguments, call_id=parsed.call_id))

    def _arguments_of(self, parsed: sdk.ParsedCall) -> Any:
        """The arguments of a parsed call: a native item's payload goes through its tool's ``native_arguments``."""
        tool = self._tools.get(parsed.name) if parsed.native else None
        if tool is None or tool.native_arguments is None:
            return parsed.arguments
        return tool.native_arguments(parsed.arguments)

    @classmethod
    def from_mcp(cls, target: str | Sequence[str] | Any) -> Registry:
        """A registry whose tools live in an MCP server (the ``mcp`` extra); see docs/mcp.md.

        Args:
            target: The server's streamable-HTTP URL (``"http://127.0.0.1:8000/mcp"``), the command that starts it
                over stdio (``["agenttools", "serve", "--toolset", "gemini", "--root", "/abs/p"]``), or an open
                ``mcp.ClientSession``: from a thread other than its loop's (e.g. ``asyncio.to_thread``), or with
                ``await Registry.afrom_mcp(session)`` on its loop (where nothing can wait for the listing).

        Raises:
            agenttools.mcp_client.RemoteError: The session cannot be opened (the message says why).
            TypeError: A ``ClientSession`` (use :meth:`afrom_mcp`) or another kind of target.
        """
        if isinstance(target, str) or (isinstance(target, Sequence) and not isinstance(target, bytes | bytearray)
                                       and all(isinstance(part, str) for part in target)):
            made: list[Registry] = []
            tools, close = mcp_client.connect(target, on_tools=lambda new: made[0]._follow(new) if made else None)
            registry = cls(tools)
            made.append(registry)
            registry.on_close(close)
            return registry
        if hasattr(target, "call_tool") and hasattr(target, "list_tools"):
            loop = mcp_client.session_loop(target)
            if loop is not None and loop.is_running() and not _runs_here(loop):  # from another thread: ask its loop
                future = asyncio.run_coroutine_threadsafe(mcp_client.connect_session(target), loop)
                return cls(future.result(mcp_client.CONNECT_TIMEOUT))
            raise TypeError("an mcp.ClientSession runs on its own event loop, which cannot wait here: "
                            "use `await agenttools.Registry.afrom_mcp(session)` on it")
        raise TypeError(f"from_mcp takes a URL, a command (a list of strings) or an mcp.ClientSession, "
                        f"got {type(target).__name__}")

    @classmethod
    async def afrom_mcp(cls, target: str | Sequence[str] | Any) -> Registry:
        """Like :meth:`from_mcp`, from async code; an open ``mcp.ClientSession`` keeps running on this loop."""
        if hasattr(target, "call_tool") and hasattr(target, "list_tools"):
            return cls(await mcp_client.connect_session(target))
        return await run_sync(cls.from_mcp, target)

    def to_langchain(self) -> list[Any]:
        """LangChain ``StructuredTool``s for these tools (the ``langchain`` extra); see docs/integrations.md."""
        return langchain.tools(self, self.call, self.acall)

    def to_openai_agents(self, *, strict: bool | None = True, needs_approval: bool | Callable[[Tool], bool] = False,
                         timeout_seconds: float | None = None) -> list[Any]:
        """OpenAI Agents SDK ``FunctionTool``s (the ``openai-agents`` extra); see docs/integrations.md.

        Args:
            strict: Our OpenAI-strict schemas (True, the SDK's default); False: canonical; None: each tool's choice.
            needs_approval: True, or a predicate on the tool (``lambda t: t.is_destructive``): the run stops for
                approval before such a call.
            timeout_seconds: Per-call timeout (the call is cancelled, its command killed).
        """
        return openai_agents.tools(self, self.call, self.acall, strict=strict, needs_approval=needs_approval,
                                   timeout_seconds=timeout_seconds)

    def to_pydantic_ai(self, *, id: str | None = None, strict: bool | None = None,
                       max_retries: int | None = None, tool_error_behavior: Literal["failed", "retry"] = "failed",
                       requires_approval: bool | Callable[[Tool], bool] = False,
                       timeout: float | None = None) -> Any:
        """A pydantic-ai toolset (``AbstractToolset``) of these tools (the ``pydantic-ai`` extra).

        Args:
            id: The toolset id (durable execution needs one).
            strict: True: our OpenAI-strict schemas; False: canonical; None: each tool's choice.
            max_retries: Retries of each tool for argument errors (default: the agent's).
            tool_error_behavior: Other failures as ``ToolFailed`` (default) or as ``ModelRetry``.
            requires_approval: True, or a predicate on the tool: such calls are deferred for approval.
            timeout: Seconds per call.
        """
        return pydantic_ai.tools(self, self.call, self.acall, id=id, strict=strict, max_retries=max_retries,
                                 tool_error_behavior=tool_error_behavior, requires_approval=requires_approval,
                                 timeout=timeout)

    def to_smolagents(self, *, strict: bool | None = None, precheck: bool = True) -> Any:
        """The ``smolagents.Tool``\\ s of these tools: a list with ``attach(agent)`` (the ``smolagents`` extra).

        Args:
            strict: Our OpenAI-strict schemas with ``"strict": true``; None: each tool's choice.
            precheck: Let smolagents check argument types first (its wording); False leaves every check to us.
        """
        return smolagents.tools(self, self.call, self.acall, strict=strict, precheck=precheck)

    def to_llama_index(self, *, strict: bool | None = None, return_direct: bool = False) -> list[Any]:
        """LlamaIndex ``FunctionTool``s (the ``llama-index`` extra); see docs/integrations.md.

        Args:
            strict: Our OpenAI-strict schemas (for an LLM made with ``strict=True``); None: each tool's choice.
            return_direct: A successful result ends the agent's run as its answer.
        """
        return llama_index.tools(self, self.call, self.acall, strict=strict, return_direct=return_direct)

    def to_google_adk(self, *, require_confirmation: bool | Callable[[Tool, Mapping[str, Any]], bool] = False,
                      ) -> list[Any]:
        """Google ADK ``BaseTool``s (the ``google-adk`` extra); see docs/integrations.md.

        Args:
            require_confirmation: True, or a predicate ``(tool, arguments)``: ADK holds such calls for approval.
        """
        return google_adk.tools(self, self.call, self.acall, require_confirmation=require_confirmation)

    def to_crewai(self) -> list[Any]:
        """CrewAI ``BaseTool``s (the ``crewai`` extra; text results only); see docs/integrations.md."""
        return crewai.tools(self, self.call, self.acall)

    async def acall(self, name: str, arguments: Mapping[str, Any] | str | bytes | None = None, *,
                    limiter: CallLimiter | None = None, call_id: str | None = None) -> ToolOutput:
        """Like :meth:`call`, without blocking the event loop (sync tools run in a worker thread).

        Cancelling the awaiting task cancels the call: a shell command it runs has its process group killed
        (SIGTERM, then SIGKILL) within about 20 ms plus the grace period, so the worker thread returns.

        Args:
            name: The tool to call.
            arguments: A dict or a JSON string.
            limiter: Run sync tools on this limiter's threads (at most ``max_running`` at once, the rest wait).
                None uses the loop's default executor. Async tools run on the event loop either way.
            call_id: Handed to the hooks (one is generated when None). A hook's ``abefore``/``aafter`` is awaited
                when it has one; its plain ``before``/``after`` runs on the event loop.
        """
        hooks = self._hooks_of(name)
        if hooks:
            return await self._ahooked(name, arguments, call_id, hooks, limiter)
        try:
            tool, args = self._prepare(name, arguments)
            return well_formed_output(to_output(await self._arun_tool(tool, args, limiter)))
        except (Exception, SystemExit) as error:  # noqa: BLE001 - call() never raises: every failure is output
            self._log(name, error)
            return well_formed_output(self._failure(name, error))
