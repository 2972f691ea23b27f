"""A toolset of structured results, served by `agenttools serve --toolset typed_results_fixture:build` in a test."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import pathlib
from typing import Any, NamedTuple, TypedDict

import agenttools


class Color(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Report:
    count: int
    names: list[str]


class Stats(TypedDict):
    total: int
    mean: float


class Span(NamedTuple):
    start: int
    end: int


def build(root: str | None = None) -> agenttools.Registry:
    """Tools whose results are structured."""
    reg = agenttools.Registry()

    @reg.tool
    def report(n: int) -> Report:
        """A report.

        Args:
            n: How many names.
        """
        return Report(count=n, names=[f"n{i}" for i in range(n)])

    @reg.tool
    def numbers(n: int) -> list[int]:
        """Numbers.

        Args:
            n: How many.
        """
        return list(range(n))

    @reg.tool
    def stats(values: list[float]) -> Stats:
        """Stats.

        Args:
            values: Numbers.
        """
        return Stats(total=len(values), mean=sum(values) / len(values) if values else 0.0)

    @reg.tool
    def span() -> Span:
        """A span."""
        return Span(1, 2)

    @reg.tool
    def odd() -> dict[str, Any]:
        """Values JSON has no type for."""
        return {"when": datetime.datetime(2026, 11, 27, 9, 30, tzinfo=datetime.UTC), "path": pathlib.Path("/a/b"),
                "raw": b"\x00\xff", "color": Color.RED, "tags": {"b", "a"}}

    @reg.tool
    def maybe(n: int) -> Report | None:
        """A report, or nothing.

        Args:
            n: How many names; 0 for no report.
        """
        return Report(count=n, names=[]) if n else None

    @reg.tool
    def plain() -> str:
        """Text."""
        return "just text"

    return reg
