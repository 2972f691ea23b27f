"""JSON Schemas for tools: from Python signatures, validated like Ajv, rewritten for each SDK.

``function_schema`` compiles a typed function; ``validate`` checks arguments; ``canonicalize``,
``inline_refs``, ``openai_strict``, ``anthropic_strict`` and ``gemini_legacy`` rewrite a canonical schema for a
target. The registry uses all of them; they are public for toolsets and for users building their own emitters.
"""

from agenttools.schema._compile import FunctionSchema, function_schema
from agenttools.schema._docstring import Docstring, parse_docstring
from agenttools.schema._emit import FORMATS, Format
from agenttools.schema._targets import anthropic_strict, canonicalize, gemini_legacy, inline_refs, openai_strict
from agenttools.schema._validate import is_nullable, json_type, validate

__all__ = [
    "FORMATS",
    "Docstring",
    "Format",
    "FunctionSchema",
    "anthropic_strict",
    "canonicalize",
    "function_schema",
    "gemini_legacy",
    "inline_refs",
    "is_nullable",
    "json_type",
    "openai_strict",
    "parse_docstring",
    "validate",
]
