"""The assistant ``message`` tool: send a text to a chat on one of the toolset's channels."""

from __future__ import annotations

from typing import Any

from agenttools.errors import ChannelNotFoundError, SendError
from agenttools.message import send_message
from agenttools.toolsets.assistant.state import State, coerce_str
from agenttools.toolsets.assistant.texts import dumps, fail

__all__ = ["message"]


def _string_arg(args: dict[str, Any], *names: str) -> str:
    """Upstream's ``getStringArg``: the first of ``names`` whose value, as a trimmed Go string, is not empty."""
    for name in names:
        if name in args:
            value = coerce_str(args[name]).strip()
            if value:
                return value
    return ""


def message(state: State, args: dict[str, Any]) -> str:
    """``message``: send a text to a chat on one of the toolset's channels."""
    channel_id = _string_arg(args, "chanId", "chan_id", "channelId", "channel_id")
    if not channel_id:
        raise fail("chanId is required")
    chat_id = _string_arg(args, "chatId", "chat_id")
    if not chat_id:
        raise fail("chatId is required")
    content = _string_arg(args, "content")
    if not content:
        raise fail("send_message: missing required parameter 'content'")
    try:
        send_message(state.channels, channel_id, chat_id, content)
    except (ChannelNotFoundError, SendError) as exc:
        raise fail(str(exc)) from None
    return dumps({"success": True, "chanId": channel_id, "chatId": chat_id, "content": content})
