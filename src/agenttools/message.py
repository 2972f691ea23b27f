"""The message family: send a text to a chat on a channel (Telegram bot, Slack webhook, your own callable).

A channel is anything with ``send(chat_id, content)``, or a plain callable ``(chat_id, content) -> None``.
:class:`WebhookChannel` is built in: it POSTs ``{"chat_id": ..., "content": ...}`` as JSON to a URL. Channels are
given to whoever sends (a toolset's ``channels={...}``); there is no global registry.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import attrs

from agenttools._display import MarkdownRepr
from agenttools._lazy import lazy_module
from agenttools.errors import ChannelNotFoundError, SendError

if TYPE_CHECKING:
    import urllib.error as urllib_error
    import urllib.request as urllib_request
else:  # 20 ms of imports (http.client, ssl, email) that only a webhook needs
    urllib_error = lazy_module("urllib.error")
    urllib_request = lazy_module("urllib.request")

__all__ = ["Channel", "ChannelNotFoundError", "SendError", "SentMessage", "WebhookChannel", "send_message"]


@runtime_checkable
class Channel(Protocol):
    """Something messages can be sent through."""

    def send(self, chat_id: str, content: str) -> None:
        """Deliver ``content`` to ``chat_id``; raise on failure."""


@attrs.frozen(kw_only=True)
class SentMessage(MarkdownRepr):
    """A message that was delivered."""

    channel_id: str
    """The channel it went through."""
    chat_id: str
    """The chat it went to."""
    content: str
    """What was sent."""


@attrs.frozen(kw_only=True)
class WebhookChannel:
    """POSTs ``{"chat_id": ..., "content": ...}`` (UTF-8 JSON) to ``url``; any non-2xx answer is a failure.

    A redirect is a failure too (following it would drop the message), and the environment's proxy settings apply.
    """

    url: str
    """Where to POST (http or https)."""
    headers: Mapping[str, str] = attrs.field(factory=dict)
    """Extra request headers (an ``Authorization`` token, ...)."""
    timeout: float = 10.0
    """Seconds before the request is abandoned."""

    def send(self, chat_id: str, content: str) -> None:
        """POST the message.

        Raises:
            OSError: The request failed or the server answered with an error status.
        """
        if not self.url.startswith(("http://", "https://")):
            raise OSError(f"webhook URL must be http or https: {self.url}")
        body = json.dumps({"chat_id": chat_id, "content": content}, ensure_ascii=False).encode("utf-8")
        request = urllib_request.Request(self.url, data=body, method="POST",  # the scheme is checked above
                                         headers={"Content-Type": "application/json", **self.headers})
        try:
            with _opener().open(request, timeout=self.timeout) as response:
                response.read()
        except urllib_error.HTTPError as exc:
            exc.close()
            raise OSError(f"webhook answered {exc.code} {exc.reason}") from None


@functools.cache
def _opener() -> urllib_request.OpenerDirector:
    """The webhook client: the environment's proxy settings (``https_proxy``, ``no_proxy``) apply, redirects do not.

    Followed, a redirect would turn the POST into a bodiless GET; it is answered as the error status it is.
    """

    class NoRedirects(urllib_request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    return urllib_request.build_opener(NoRedirects())


ChannelLike = Channel | Callable[[str, str], object]


def send_message(channels: Mapping[str, ChannelLike], channel_id: str, chat_id: str, content: str) -> SentMessage:
    """Send ``content`` to ``chat_id`` through ``channels[channel_id]``.

    Raises:
        ChannelNotFoundError: No channel has that id.
        SendError: The channel raised (its message is kept).
    """
    channel = channels.get(channel_id)
    if channel is None:
        raise ChannelNotFoundError(channel_id)
    try:
        if isinstance(channel, Channel):
            channel.send(chat_id, content)
        else:
            channel(chat_id, content)
    except Exception as exc:
        raise SendError(channel_id, str(exc) or type(exc).__name__) from exc
    return SentMessage(channel_id=channel_id, chat_id=chat_id, content=content)
