"""JSON Schema for tool arguments, and nothing SDK-specific: compile, validate, rewrite.

``function_schema`` compiles a typed function's signature (with its docstring, in Google, NumPy, Sphinx or Epydoc
style); ``validate`` checks arguments the way Ajv does and reports :class:`ValidationIssue`\\ s; ``canonicalize``
and ``inline_refs`` give the canonical form every SDK converter in :mod:`agenttools.sdk` starts from
(:mod:`agenttools.schema.transform` has the rest of the rewriting pieces).

``function_schema`` and ``parse_docstring`` (with ``inspect``-heavy code, docstring-parser and their result
classes) load on first use: a toolset built from explicit schemas never needs them.
"""

import importlib
from typing import TYPE_CHECKING, Any

from agenttools.schema._validate import (
    ValidationIssue,
    compile_check,
    is_nullable,
    json_type,
    validate,
    without_null_defaults,
)
from agenttools.schema.transform import canonicalize, inline_refs

if TYPE_CHECKING:
    from agenttools.schema._compile import FunctionSchema, function_schema
    from agenttools.schema._docstring import Docstring, parse_docstring

__all__ = [
    "Docstring",
    "FunctionSchema",
    "ValidationIssue",
    "canonicalize",
    "compile_check",
    "function_schema",
    "inline_refs",
    "is_nullable",
    "json_type",
    "parse_docstring",
    "validate",
    "without_null_defaults",
]

_ON_FIRST_USE = {"FunctionSchema": "agenttools.schema._compile", "function_schema": "agenttools.schema._compile",
                 "Docstring": "agenttools.schema._docstring", "parse_docstring": "agenttools.schema._docstring"}


def __getattr__(name: str) -> Any:
    """Import ``function_schema``, ``parse_docstring`` and their result classes on first use."""
    module_name = _ON_FIRST_USE.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agenttools.schema' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
