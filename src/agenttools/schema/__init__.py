"""JSON Schema for tool arguments, and nothing SDK-specific: compile, validate, rewrite.

``function_schema`` compiles a typed function's signature (with its docstring's ``Args:``); ``validate`` checks
arguments the way Ajv does and reports :class:`ValidationIssue`\\ s; ``canonicalize`` and ``inline_refs`` give
the canonical form every SDK converter in :mod:`agenttools.sdk` starts from (:mod:`agenttools.schema.transform`
has the rest of the rewriting pieces).
"""

from agenttools.schema._compile import FunctionSchema, function_schema
from agenttools.schema._docstring import Docstring, parse_docstring
from agenttools.schema._validate import ValidationIssue, compile_check, is_nullable, json_type, validate
from agenttools.schema.transform import canonicalize, inline_refs

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
]
