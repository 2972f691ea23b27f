from __future__ import annotations

from typing import Literal

import pytest

import agenttools


def search_files(query: str, paths: list[str], max_results: int = 10,
                 mode: Literal["glob", "regex"] = "glob", since: str | None = None) -> list[str]:
    """Search files for a text query.

    Args:
        query: Text to search for.
        paths: Directories to search.
        max_results: Maximum number of hits to return.
        mode: Matching mode.
        since: Only files modified after this ISO date.
    """
    return [f"{query}|{paths}|{max_results}|{mode}|{since}"]


def ping() -> str:
    """Check that the tools respond."""
    return "pong"


@pytest.fixture
def reg() -> agenttools.Registry:
    registry = agenttools.Registry()
    registry.tool(search_files)
    return registry
