"""Modules imported on first use: a heavy dependency costs nothing until a call needs it.

``regex`` takes about 10 ms to import, and most processes that build a toolset never search or check a schema
``pattern`` with it; ``urllib.request`` (with ``http.client``, ``ssl`` and ``email``) takes 20 ms, and only a
message sent to a webhook needs it. :func:`lazy_module` is the standard library's ``importlib.util.LazyLoader``
recipe: the module object is in ``sys.modules`` at once, and its code runs when an attribute is first read.
"""

from __future__ import annotations

import importlib.util
import sys
import types

__all__ = ["lazy_module"]


def lazy_module(name: str) -> types.ModuleType:
    """``name``, imported when one of its attributes is first used (at once if it is already imported).

    Raises:
        ModuleNotFoundError: No module of that name can be found.
    """
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:  # as the import system does: ``import a.b`` elsewhere then finds ``a.b`` as an attribute
        setattr(sys.modules[parent], child, module)
    return module
