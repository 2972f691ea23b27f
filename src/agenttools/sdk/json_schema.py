"""Plain JSON Schema definitions, ``{"name", "description", "parameters"}``, for any other SDK or a prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttools.schema import canonicalize
from agenttools.tool import Tool

__all__ = ["definitions"]


def definitions(tools: Sequence[Tool], strict: bool | None = None) -> list[dict[str, Any]]:
    """One ``{"name", "description", "parameters"}`` dict per tool, parameters in canonical form."""
    return [{"name": t.name, "description": t.description, "parameters": canonicalize(t.parameters)} for t in tools]
