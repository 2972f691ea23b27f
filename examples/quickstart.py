"""A runnable quick start: define a tool, describe it to OpenAI, call it as a model would.

Run it with ``python examples/quickstart.py``; the test suite runs it too.
"""

from __future__ import annotations

import json
from pathlib import Path

import agenttools

workspace = agenttools.Workspace(Path(__file__).resolve().parent.parent)
reg = agenttools.Registry()


@reg.tool(read_only=True, open_world=False)
def count_lines(path: str) -> int:
    """Count the lines of a text file in the project.

    Args:
        path: File path, relative to the project root.
    """
    with open(workspace.resolve(path, expect="file"), "rb") as handle:
        return sum(1 for _ in handle)


if __name__ == "__main__":
    print(json.dumps(reg.definitions("openai", strict=True), indent=2))
    print(reg.call("count_lines", '{"path": "README.md"}').text)
    print(reg.call("count_lines", '{"path": "../../etc/passwd"}').text)
