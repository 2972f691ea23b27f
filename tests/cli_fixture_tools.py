"""A toolset module for the CLI tests (`--toolset cli_fixture_tools:build`)."""

from __future__ import annotations

import os

import agenttools


def build(root: str | None = None) -> agenttools.Registry:
    """Build a tiny toolset rooted at ``root``."""
    workspace = agenttools.Workspace(root or os.getcwd())
    reg = agenttools.Registry()

    @reg.tool(read_only=True)
    def read_text(path: str) -> str:
        """Read a text file inside the root.

        Args:
            path: File path, relative to the root.
        """
        with open(workspace.resolve(path, expect="file"), encoding="utf-8") as handle:
            return handle.read()

    @reg.tool
    def add(a: int, b: int = 2) -> int:
        """Add two numbers.

        Args:
            a: First addend.
            b: Second addend.
        """
        return a + b

    return reg


READY = agenttools.Registry()
TOOLSET_DOC = "not a toolset"
