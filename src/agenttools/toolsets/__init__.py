"""Named toolsets: each reproduces one tool contract (see docs/toolsets/) on top of the families.

``toolset(name, **options)`` builds a fresh :class:`~agenttools.Registry` for a built-in toolset, or for a
``"package.module:attribute"`` reference to your own (a Registry, or a callable taking the options and
returning one).
"""

from __future__ import annotations

import importlib
from typing import Any

from agenttools.errors import ConfigError
from agenttools.registry import Registry
from agenttools.toolsets._options import Option

__all__ = ["BUILTIN", "declared_options", "toolset"]

BUILTIN: dict[str, str] = {
    "anthropic": "agenttools.toolsets.anthropic:build",
    "assistant": "agenttools.toolsets.assistant:build",
    "coder": "agenttools.toolsets.coder:build",
    "content": "agenttools.toolsets.content:build",
    "editor": "agenttools.toolsets.editor:build",
    "filesystem": "agenttools.toolsets.filesystem:build",
    "gemini": "agenttools.toolsets.gemini:build",
    "openai": "agenttools.toolsets.openai:build",
}
"""Built-in toolset names and the factory each resolves to."""


def _load(reference: str, label: str) -> Any:
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ConfigError(f"toolset reference {label!r} must look like 'package.module:attribute'")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if label in BUILTIN and exc.name == module_name:
            raise ConfigError(f"toolset {label!r} is not available yet in this version of agenttools") from None
        raise ConfigError(f"cannot import toolset {label!r}: {exc}") from None
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ConfigError(f"toolset {label!r}: module {module_name!r} has no attribute {attribute!r}") from None


def toolset(name: str, **options: Any) -> Registry:
    """Build the registry of a toolset.

    Args:
        name: A built-in toolset (``gemini``, ``editor``, ``content``, ``assistant``, ``coder``, ``filesystem``,
            ``openai``, ``anthropic``) or
            ``"package.module:attribute"`` naming a Registry or a factory ``(**options) -> Registry``.
        **options: The toolset's options, e.g. ``root="/abs/project"`` (each toolset's ``build`` documents its own;
            see docs/toolsets/).

    Raises:
        ConfigError: Unknown toolset, unusable reference, or options the toolset rejects.
    """
    if not isinstance(name, str) or not name:
        raise ConfigError(f"toolset name must be a non-empty string, got {name!r}")
    if name in BUILTIN:
        target = _load(BUILTIN[name], name)
    elif ":" in name:
        target = _load(name, name)
    else:
        known = ", ".join(sorted(BUILTIN))
        raise ConfigError(f"unknown toolset {name!r}; built-in toolsets: {known} (or use 'module:attribute')")
    if isinstance(target, Registry):
        if options:
            raise ConfigError(f"toolset {name!r} is a ready Registry and takes no options, got {sorted(options)}")
        return target
    if not callable(target):
        raise ConfigError(f"toolset {name!r} is neither a Registry nor a callable returning one")
    try:
        registry = target(**options)
    except TypeError as exc:
        raise ConfigError(f"toolset {name!r} rejected its options: {exc}") from None
    if not isinstance(registry, Registry):
        raise ConfigError(f"toolset {name!r} returned {type(registry).__name__}, not a Registry")
    return registry


def declared_options(name: str) -> tuple[Option, ...]:
    """The options a built-in toolset declares (empty for a ``module:attribute`` toolset, which checks its own).

    Raises:
        ConfigError: ``name`` is not a built-in toolset and not a reference.
    """
    if name in BUILTIN:
        return tuple(_load(BUILTIN[name].partition(":")[0] + ":OPTIONS", name))
    if ":" in name:
        return ()
    known = ", ".join(sorted(BUILTIN))
    raise ConfigError(f"unknown toolset {name!r}; built-in toolsets: {known} (or use 'module:attribute')")
