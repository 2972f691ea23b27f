"""Keep a huge output out of the context window: its head and tail, and where the whole of it is."""

from __future__ import annotations

import datetime
import functools
import math
import os
import re
import warnings
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from agenttools.blocks import TextBlock
from agenttools.errors import ConfigError
from agenttools.output import ToolOutput
from agenttools.tool import ToolCall

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["BYTES_PER_TOKEN", "OutputBudget", "count_tokens"]

BYTES_PER_TOKEN = 4
"""The estimate without tiktoken: a token per four bytes of UTF-8, OpenAI's rule of thumb for English and code."""

ENCODING = "o200k_base"
"""The tiktoken encoding counted with (GPT-4o, GPT-4.1, o-series, GPT-5)."""


@functools.cache
def _encoder() -> Callable[[str], int] | None:
    """The tiktoken count for :data:`ENCODING`, or None (and one warning) when it cannot be loaded."""
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        encoding = tiktoken.get_encoding(ENCODING)
    except Exception as exc:  # noqa: BLE001 - no network for its download, a broken cache: estimate instead
        warnings.warn(f"agenttools: tiktoken cannot load {ENCODING} ({' '.join(str(exc).split())[:200]}); output "
                      f"budgets estimate {BYTES_PER_TOKEN} bytes a token", RuntimeWarning, stacklevel=2)
        return None
    return lambda text: len(encoding.encode(text, disallowed_special=()))


def count_tokens(text: str) -> int:
    """Tokens in ``text``: tiktoken's ``o200k_base`` when installed (extra ``tokens``), else the estimate."""
    count = _encoder()
    if count is not None:
        return count(text)
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)


def _positive(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"OutputBudget: {name} must be a positive integer, got {value!r}")
    return value


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class OutputBudget:
    """Cut an output over the budget to its head and tail, with one line saying what was left out and where it is.

    Args:
        max_chars: The most characters of text the model sees.
        max_tokens: The most tokens (counted as :func:`count_tokens` does). With both, both hold.
        spill_dir: A directory to save each cut output whole, as ``<time>-<tool>-<call id>.txt`` (created, ``0600``,
            never over an existing file). Put it inside the workspace and the toolset's own read tools can open it.
            It is resolved and opened once, here: a symlink the model or the repository plants there later cannot
            send a spill elsewhere (one already there now is followed: create the directory yourself first).

    The head and the tail get half the budget each, cut at line ends (inside a line only when a single line is
    longer than that), and never inside a character; the line between them, not counted in the budget, reads
    ``[... 12,345 characters (321 lines) left out; the whole output is in <path> ...]``. Only the text is cut:
    images and other blocks pass untouched, and so does an output within the budget. A spill that fails is said in
    that line instead.

    Raises:
        ConfigError: Neither budget is given, one is not a positive integer, or ``spill_dir`` cannot be created.
    """

    def __init__(self, max_chars: int | None = None, max_tokens: int | None = None,
                 spill_dir: str | os.PathLike[str] | None = None) -> None:
        self.max_chars = _positive("max_chars", max_chars)
        self.max_tokens = _positive("max_tokens", max_tokens)
        if self.max_chars is None and self.max_tokens is None:
            raise ConfigError("OutputBudget: give max_chars, max_tokens or both")
        self.spill_dir: str | None = None
        """The directory spills go to, resolved when the hook was built."""
        self._dir_fd: int | None = None
        if spill_dir is not None:
            path = os.path.abspath(os.fspath(spill_dir))
            try:
                os.makedirs(path, mode=0o700, exist_ok=True)
                real = os.path.realpath(path)
                self._dir_fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError as exc:
                raise ConfigError(f"OutputBudget: cannot use spill_dir {path}: {exc.strerror or exc}") from None
            self.spill_dir = real
            self._finalizer = weakref.finalize(self, os.close, self._dir_fd)

    def __repr__(self) -> str:
        return f"OutputBudget(max_chars={self.max_chars}, max_tokens={self.max_tokens}, spill_dir={self.spill_dir!r})"

    def _tokens(self, text: str) -> int | None:
        """The tokens of ``text`` when a token budget needs counting them; None when it does not."""
        if self.max_tokens is None:
            return None
        if len(text) <= self.max_tokens and (text.isascii() or len(
                text.encode("utf-8", "surrogatepass")) <= self.max_tokens):  # a token is at least one byte of UTF-8
            return None
        return count_tokens(text)

    def _within(self, text: str, tokens: int | None = None) -> bool:
        """Whether ``text`` (of ``tokens`` tokens, counted already, or counted here when needed) fits the budget."""
        if self.max_chars is not None and len(text) > self.max_chars:
            return False
        if tokens is None:
            tokens = self._tokens(text)
        return tokens is None or self.max_tokens is None or tokens <= self.max_tokens

    def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        """The output, cut to the budget when it is over."""
        text = output.text
        tokens = self._tokens(text)  # counted once: a 5 MB output takes tiktoken a while
        if self._within(text, tokens):
            return output
        note = self._spill(call, text)
        budget = len(text) if self.max_chars is None else self.max_chars
        if self.max_tokens is not None:  # characters for the token budget, at this text's own ratio
            total = tokens if tokens is not None else count_tokens(text)
            budget = min(budget, max(1, int(self.max_tokens * len(text) / max(1, total))))
        head, tail = _ends(text, budget)
        while budget > 0 and not self._within(head + tail):  # the ratio is an average: dense ends need less
            budget = int(budget * 0.85)
            head, tail = _ends(text, budget)
        cut = _joined(text, head, tail, note)
        texts = [block.text for block in output.content if isinstance(block, TextBlock)]
        if texts == [text]:
            blocks = tuple(TextBlock(text=cut) if isinstance(block, TextBlock) else block for block in output.content)
        else:  # the text is in several blocks (or differs from them): each keeps its share of the budget
            shares = iter(_cut(block_text, share, note) for block_text, share in zip(
                texts, _shares([len(t) for t in texts], budget), strict=True))
            blocks = tuple(TextBlock(text=next(shares)) if isinstance(block, TextBlock) else block
                           for block in output.content)
        return attrs.evolve(output, text=cut, content=blocks, data=_cut_shell(output.data, budget, note))

    async def aafter(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        """As :meth:`after`."""
        return self.after(call, output)

    def _spill(self, call: ToolCall, text: str) -> str:
        if self.spill_dir is None:
            return ""
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        name = f"{stamp}-{_UNSAFE.sub('_', call.name)[:64]}-{_UNSAFE.sub('_', call.call_id)[:64]}.txt"
        path = os.path.join(self.spill_dir, name)
        try:  # through the directory opened when the hook was built: a symlink planted since cannot redirect it
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600,
                         dir_fd=self._dir_fd)
            try:
                data = memoryview(text.encode("utf-8", "surrogateescape"))
                while data:
                    data = data[os.write(fd, data):]
            finally:
                os.close(fd)
        except (OSError, UnicodeEncodeError) as exc:
            return f"; it could not be saved ({' '.join(str(exc).split())})"
        return f"; the whole output is in {path}"


def _shares(lengths: list[int], budget: int) -> list[int]:
    """``budget`` split fairly among texts of these lengths: none gets more than it has, the longest get the rest."""
    shares = [0] * len(lengths)
    left = budget
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    for done, index in enumerate(order):
        shares[index] = min(lengths[index], left // (len(order) - done))
        left -= shares[index]
    return shares


def _cut(text: str, budget: int, note: str) -> str:
    """``text`` cut to ``budget`` characters (head, the line saying what was left out, tail), or itself."""
    return text if len(text) <= budget else _joined(text, *_ends(text, budget), note)


def _cut_shell(data: Any, budget: int, note: str) -> Any:
    """A native shell answer's ``data`` with its streams cut to ``budget`` together; other data as it is.

    That data (``{"output": [{"stdout", "stderr", ...}]}``) is what a Responses ``shell_call_output`` item is built
    from, so its streams must keep to the budget the text keeps to.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("output"), list) or not all(
            isinstance(entry, Mapping) for entry in data["output"]):
        return data
    streams = [(index, key, entry[key]) for index, entry in enumerate(data["output"]) for key in ("stdout", "stderr")
               if isinstance(entry.get(key), str)]
    entries = [dict(entry) for entry in data["output"]]
    for (index, key, stream), share in zip(streams, _shares([len(s) for _, _, s in streams], budget), strict=True):
        entries[index][key] = _cut(stream, share, note)
    return {**data, "output": entries}


def _ends(text: str, budget: int) -> tuple[str, str]:
    """``text``'s head and tail, about ``budget`` characters together, cut at line ends where a line allows."""
    half = min(budget, len(text) - 1) // 2
    if half <= 0:
        return "", ""
    head = text[:half]
    end = head.rfind("\n")
    if end >= 0:
        head = head[:end + 1]
    tail = text[len(text) - half:]
    start = tail.find("\n")
    if 0 <= start < len(tail) - 1:
        tail = tail[start + 1:]
    return head, tail


def _joined(text: str, head: str, tail: str, note: str) -> str:
    """The head, the line saying what was left out (and where the whole is), the tail."""
    middle = text[len(head):len(text) - len(tail)]
    lines = middle.count("\n") + (0 if middle.endswith("\n") or not middle else 1)
    marker = f"[... {len(middle):,} characters ({lines:,} line{'' if lines == 1 else 's'}) left out{note} ...]"
    return f"{head}{'' if head.endswith(chr(10)) or not head else chr(10)}{marker}\n{tail}"
