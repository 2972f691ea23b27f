"""Toolset options, typed and checked when a toolset is built: one declaration per option, one error per mistake.

A toolset's ``build`` keeps its plain keyword signature (its defaults and docstring are the documentation) and is
wrapped by :func:`takes_options`, which checks every option given against its declared :class:`Option` before the
toolset sees it: an unknown name gets the valid ones and a did-you-mean; a wrong type or value gets one line naming
the option, what it got and what it accepts. Values are converted to what the toolset works with (a size string
to bytes, one string to a one-item list, a directory to its path).
"""

from __future__ import annotations

import functools
import inspect
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from agenttools._lazy import lazy_module
from agenttools.errors import ConfigError
from agenttools.sandbox import DEFAULT_MAX_PROCESSES, MODES
from agenttools.workspace import parse_size

__all__ = ["PATH_OPTIONS", "SANDBOX_OPTIONS", "Kind", "Option", "check_options", "takes_options"]

Kind = Literal["bool", "count", "seconds", "size", "dir", "dirs", "globs", "mapping", "choice", "any"]
"""What an option takes:

- ``bool``: ``True`` or ``False`` only (a string such as ``"False"`` is refused, not read as true).
- ``count``: a positive integer.
- ``seconds``: a positive, finite number.
- ``size``: a positive number of bytes, or a string with a unit (``100B``, ``10KB``, ``1MiB``, ``2g``;
  case-insensitive, binary units).
- ``dir``: an existing directory (a ``str`` or ``os.PathLike``).
- ``dirs``: existing directories (a list; one string counts as one directory).
- ``globs``: non-empty glob strings (a list; one string counts as one glob).
- ``mapping``: a mapping (dict).
- ``choice``: one of the option's ``choices`` (strings).
- ``any``: checked by the toolset itself.
"""

if TYPE_CHECKING:
    import difflib
else:
    difflib = lazy_module("difflib")  # only a misspelled option needs it

F = TypeVar("F", bound=Callable[..., Any])

_ACCEPTS: dict[str, str] = {
    "bool": "True or False", "count": "a positive integer", "seconds": "a positive number of seconds",
    "size": "a positive size in bytes or a string such as '100B', '10KB' or '1MiB'",
    "dir": "an existing directory", "dirs": "a list of existing directories", "globs": "a list of glob strings",
    "mapping": "a mapping (dict)", "choice": "one of", "any": "anything",
}


class Option(NamedTuple):
    """One toolset option: its name, what it takes, and whether ``None`` (or nothing) is allowed."""

    name: str
    """The keyword argument's name."""
    kind: Kind
    """What it takes (see :data:`Kind`)."""
    nullable: bool = False
    """``None`` is a valid value (its meaning is in the toolset's docs, e.g. "no timeout")."""
    required: bool = False
    """The toolset cannot be built without it."""
    help: str = ""
    """One line for the docs and the command line."""
    choices: tuple[str, ...] = ()
    """The values a ``choice`` option takes."""

    def accepts(self) -> str:
        """What the option accepts, in words."""
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices) + (" or None" if self.nullable else "")
        return _ACCEPTS[self.kind] + (" or None" if self.nullable else "")


PATH_OPTIONS: tuple[Option, ...] = (
    Option(name="root", kind="dir", required=True, help="the project directory every path must stay inside"),
    Option(name="allow_dirs", kind="dirs", nullable=True,
           help="directories every path must stay inside (default: [root])"),
    Option(name="deny", kind="globs", help="gitignore-style globs never read, written, listed or searched"),
    Option(name="max_file_size", kind="size", help="the largest file any tool reads, edits or writes"),
)
"""The options every path toolset takes (the editor names ``deny`` ``deny_dirs``, as its contract does)."""

SANDBOX_OPTIONS: tuple[Option, ...] = (
    Option(name="sandbox", kind="choice", choices=MODES,
           help="where commands run: 'auto' (bubblewrap where it runs, else unsandboxed with a warning), 'bwrap' "
                "(bubblewrap or a ConfigError), 'none' (unsandboxed)"),
    Option(name="network", kind="bool", nullable=True,
           help="give sandboxed commands the host's network (default: none)"),
    Option(name="memory_limit", kind="size", nullable=True,
           help="memory the sandboxed commands may use together (default: half the RAM)"),
    Option(name="max_processes", kind="count", nullable=True,
           help=f"processes the sandbox may hold at once (default: {DEFAULT_MAX_PROCESSES})"),
)
"""The options of every toolset with a command tool (see :class:`agenttools.sandbox.Sandbox`)."""


def _shown(value: Any) -> str:
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def _bad(toolset: str, option: Option, value: Any, why: str = "") -> ConfigError:
    because = f": {why}" if why else ""
    return ConfigError(f"option {option.name!r} of toolset {toolset!r} must be {option.accepts()}, got "
                       f"{_shown(value)}{because}")


def _directory(toolset: str, option: Option, value: Any, whole: Any) -> str:
    if not isinstance(value, str | os.PathLike) or not os.fspath(value):
        raise _bad(toolset, option, whole)
    path = os.fspath(value)
    if not isinstance(path, str):
        raise _bad(toolset, option, whole)
    if not os.path.isdir(path):
        why = "it does not exist" if not os.path.lexists(path) else "it is not a directory"
        raise _bad(toolset, option, whole, f"{path} {why}")
    return path


def _items(toolset: str, option: Option, value: Any) -> list[Any]:
    if isinstance(value, str | os.PathLike):
        return [value]
    if isinstance(value, Mapping) or not isinstance(value, Sequence | set | frozenset | tuple):
        raise _bad(toolset, option, value)
    return list(value)


def _convert(toolset: str, option: Option, value: Any) -> Any:
    """The value as the toolset uses it, or ConfigError."""
    kind = option.kind
    if kind == "bool":
        if not isinstance(value, bool):
            raise _bad(toolset, option, value)
        return value
    if kind == "count":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _bad(toolset, option, value)
        return value
    if kind == "seconds":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            raise _bad(toolset, option, value)
        return value
    if kind == "size":
        try:
            size = parse_size(value)
        except ConfigError as exc:
            raise _bad(toolset, option, value, str(exc)) from None
        if size < 1:
            raise _bad(toolset, option, value)
        return size
    if kind == "dir":
        return _directory(toolset, option, value, value)
    if kind == "dirs":
        return [_directory(toolset, option, item, value) for item in _items(toolset, option, value)]
    if kind == "globs":
        globs = _items(toolset, option, value)
        for item in globs:
            if not isinstance(item, str) or not item.strip():
                raise _bad(toolset, option, value, f"{item!r} is not a glob")
        return globs
    if kind == "mapping":
        if not isinstance(value, Mapping):
            raise _bad(toolset, option, value)
        return value
    if kind == "choice":
        if not isinstance(value, str) or value not in option.choices:
            raise _bad(toolset, option, value)
        return value
    return value


_DEFAULT = object()
"""Stands for "use the default": what ``None`` means for an option that is not nullable."""


def _missing(toolset: str, option: Option) -> ConfigError:
    return ConfigError(f"toolset {toolset!r} needs the option {option.name!r}: {option.help or option.accepts()}")


def check_options(toolset: str, declared: Sequence[Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """Check and convert the options ``given`` to a toolset; the ones not given are left out.

    ``None`` is kept for a nullable option and means "the default" for any other; for a required one it is
    missing.

    Raises:
        ConfigError: An unknown option (naming the valid ones, with a did-you-mean), a missing required one, or a
            value of the wrong type or range (naming the option, what it got and what it accepts).
    """
    by_name = {option.name: option for option in declared}
    for name in given:
        if name not in by_name:
            close = difflib.get_close_matches(str(name), list(by_name), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"toolset {toolset!r} has no option {name!r}{hint} (its options: "
                              f"{', '.join(by_name) or 'none'})")
    converted: dict[str, Any] = {}
    for option in declared:
        value = given.get(option.name)
        if value is None:
            if option.required:
                raise _missing(toolset, option)
            if option.name in given:
                converted[option.name] = None if option.nullable else _DEFAULT
            continue
        converted[option.name] = _convert(toolset, option, value)
    return converted


def takes_options(toolset: str, declared: Sequence[Option]) -> Callable[[F], F]:
    """Wrap a toolset's ``build`` so every option is checked (see :func:`check_options`) before it runs.

    ``build`` keeps its signature and docstring. Every declared option must be one of its keyword parameters (a
    definition mistake otherwise, raised at import).
    """
    declared = tuple(declared)

    def wrap(build: F) -> F:
        parameters = inspect.signature(build).parameters
        missing = [option.name for option in declared if option.name not in parameters]
        if missing:
            raise TypeError(f"{build.__qualname__} declares options it does not take: {missing}")
        defaults = {name: p.default for name, p in parameters.items() if p.default is not inspect.Parameter.empty}

        @functools.wraps(build)
        def checked(*args: Any, **options: Any) -> Any:
            if args:
                positional = [name for name, p in parameters.items()
                              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                if len(args) > len(positional):
                    raise ConfigError(f"toolset {toolset!r} takes its options by name, got {len(args)} positional "
                                      "arguments")
                options.update(zip(positional, args, strict=False))
            values = check_options(toolset, declared, options)
            for name, value in values.items():
                if value is _DEFAULT:
                    values[name] = defaults.get(name)
            return build(**{**options, **values})

        checked.options = declared  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return wrap
