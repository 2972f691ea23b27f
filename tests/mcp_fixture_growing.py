"""A toolset whose tools add and remove tools (`--toolset mcp_fixture_growing:build`), for list_changed tests."""

from __future__ import annotations

import agenttools


def build(root: str | None = None) -> agenttools.Registry:
    """A registry that can grow and shrink while it is served."""
    reg = agenttools.Registry()

    @reg.tool
    def grow(name: str) -> str:
        """Add a tool.

        Args:
            name: The new tool's name.
        """
        def extra() -> str:
            return f"I am {name}"

        reg.add(agenttools.Registry.function_tool(extra, name=name, description=f"The tool {name}."))
        return f"added {name}"

    @reg.tool
    def shrink(name: str) -> str:
        """Remove a tool.

        Args:
            name: The tool to remove.
        """
        reg.remove(name)
        return f"removed {name}"

    return reg
