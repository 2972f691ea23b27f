"""Modules imported on first use: a heavy dependency costs nothing until a call needs it.

``regex`` takes about 10 ms to import, and most processes that build a toolset never search or check a schema
``pattern`` with it; ``urllib.request`` (with ``http.client``, ``ssl`` and ``email``) takes 20 ms, and only a
message sent to a webhook needs it. :func:`lazy_module` gives a stand-in that imports the module the first time
one of its attributes is read, through the ordinary import system, and then hands every attribute over.

Not the standard library's ``importlib.util.LazyLoader``: on Python 3.11 its module stops being lazy *before*
its code has run, so a second thread reading an attribute meanwhile gets ``AttributeError`` (seven of eight threads
searching at once failed that way). The import system's own per-module lock makes this stand-in safe: every
thread gets the module once it is fully imported.
"""

from __future__ import annotations

import importlib
import importlib.util
import types
from typing import Any

__all__ = ["lazy_module"]


class _Deferred:
    """Stands for module ``name`` until an attribute is first read, then imports it and defers to it."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: types.ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = importlib.import_module(self._name)  # thread-safe: the import system locks the module
            self._module = module
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<module {self._name!r}, imported on first use: {state}>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it when one of its attributes is first read.

    Raises:
        ModuleNotFoundError: No module of that name can be found (checked now, not at first use).
    """
    if importlib.util.find_spec(name) is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    return _Deferred(name)
