"""The assistant ``message`` tool: send a text to a chat on one of the toolset's channels."""

from __future__ import annotations

from typing import Any

from agenttools.errors import ChannelNotFoundError, SendError
from agenttools.message import send_message
from agenttools.toolsets.assistant.state import State
from agenttools.toolsets.assistant.texts import dumps, fail

__all__ = ["message"]


def _id_arg(args: dict[str, Any], *names: str) -> str:
    for name in names:
        value = args.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(int(value)) if float(value).is_integer() else str(value)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def message(state: State, args: dict[str, Any]) -> str:
    """``message``: send a text to a chat on one of the toolset's channels."""
    channel_id = _id_arg(args, "chanId", "chan_id", "channelId", "channel_id")
    if not channel_id:
        raise fail("chanId is required")
    chat_id = _id_arg(args, "chatId", "chat_id")
    if not chat_id:
        raise fail("chatId is required")
    content = args.get("content")
    if not isinstance(content, str) or not content:
        raise fail("content is required")
    try:
        send_message(state.channels, channel_id, chat_id, content)
    except (ChannelNotFoundError, SendError) as exc:
        raise fail(str(exc)) from None
    return dumps({"success": True, "chanId": channel_id, "chatId": chat_id, "content": content})
