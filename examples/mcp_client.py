"""An MCP client session against ``agenttools serve`` over stdio (no model needed to try it).

``python examples/mcp_client.py [PROJECT]`` (default: the current directory)
"""

from __future__ import annotations

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def run(root: str) -> list[str]:
    """List the editor toolset's tools, then view the project directory."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "agenttools", "serve", "--toolset", "editor", "--root", root])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = [tool.name for tool in (await session.list_tools()).tools]
        tree = await session.call_tool("view", {"path": "."})
        return [*names, tree.content[0].text]


if __name__ == "__main__":
    import os

    for line in asyncio.run(run(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "."))):
        print(line)
