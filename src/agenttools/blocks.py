"""What a tool's answer is made of: content blocks, and the shape every SDK converter reads.

A tool answers with text, and optionally with images or other inline data; :class:`~agenttools.output.ToolOutput`
holds them as a tuple of these blocks. The SDK converters (:mod:`agenttools.sdk`) read any object with the
:class:`Answer` shape, so they never depend on how the answer was produced.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Protocol, Self

import attrs

__all__ = ["Answer", "ContentBlock", "DataBlock", "ImageBlock", "TextBlock", "placeholder", "text_of"]


@attrs.frozen(kw_only=True)
class TextBlock:
    """A piece of text for the model."""

    text: str
    """The text."""


@attrs.frozen(kw_only=True)
class _InlineBlock:
    """Bytes for the model, base64-encoded, with their MIME type."""

    data: str
    """The bytes, base64-encoded (standard alphabet, padded)."""
    mime_type: str
    """The MIME type, e.g. ``image/png`` or ``application/pdf``."""

    @classmethod
    def from_bytes(cls, raw: bytes, mime_type: str) -> Self:
        """Encode raw bytes."""
        return cls(data=base64.b64encode(raw).decode("ascii"), mime_type=mime_type)

    def to_bytes(self) -> bytes:
        """Decode the bytes."""
        return base64.b64decode(self.data)


@attrs.frozen(kw_only=True)
class ImageBlock(_InlineBlock):
    """An image for the model, base64-encoded."""


@attrs.frozen(kw_only=True)
class DataBlock(_InlineBlock):
    """Other inline data for the model (a PDF, audio, video), base64-encoded."""


ContentBlock = TextBlock | ImageBlock | DataBlock


def placeholder(block: ImageBlock | DataBlock) -> str:
    """The text that stands for inline data where only text fits: ``[image: image/png]``, ``[data: ...]``."""
    return f"[{'image' if isinstance(block, ImageBlock) else 'data'}: {block.mime_type}]"


def text_of(blocks: Iterable[ContentBlock]) -> str:
    """The text of content blocks: their texts joined by newlines, inline data as its :func:`placeholder`."""
    return "\n".join(b.text if isinstance(b, TextBlock) else placeholder(b) for b in blocks)


class Answer(Protocol):
    """The part of a tool's answer an SDK converter reads (:class:`~agenttools.output.ToolOutput` has it)."""

    @property
    def text(self) -> str:
        """What the model must see."""

    @property
    def is_error(self) -> bool:
        """Whether the call failed."""

    @property
    def content(self) -> tuple[ContentBlock, ...]:
        """The answer as content blocks."""
