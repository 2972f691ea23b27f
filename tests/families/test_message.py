"""The message family: channels are callables, objects with send(), or webhooks; failures are typed."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from agenttools.errors import ChannelNotFoundError, SendError
from agenttools.message import SentMessage, WebhookChannel, send_message


class _Inbox:
    def __init__(self) -> None:
        self.got: list[tuple[str, str]] = []

    def send(self, chat_id: str, content: str) -> None:
        self.got.append((chat_id, content))


def test_callables_and_channel_objects():
    calls = []
    inbox = _Inbox()
    channels = {"fn": lambda chat, text: calls.append((chat, text)), "obj": inbox}
    assert send_message(channels, "fn", "c1", "hi") == SentMessage(channel_id="fn", chat_id="c1", content="hi")
    send_message(channels, "obj", "c2", "héllo")
    assert calls == [("c1", "hi")]
    assert inbox.got == [("c2", "héllo")]


def test_unknown_channels_and_failing_channels_are_typed_errors():
    with pytest.raises(ChannelNotFoundError) as missing:
        send_message({}, "ops", "c", "x")
    assert (str(missing.value), missing.value.channel_id) == ("channel not found: ops", "ops")

    def broken(chat: str, text: str) -> None:
        raise RuntimeError("the line is down")

    with pytest.raises(SendError) as failed:
        send_message({"ops": broken}, "ops", "c", "x")
    assert str(failed.value) == "failed to send message: the line is down"
    assert failed.value.channel_id == "ops"


@pytest.fixture
def webhook():
    received: list[dict] = []
    status = {"code": 200}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append({"body": json.loads(body), "type": self.headers["Content-Type"],
                             "auth": self.headers.get("Authorization")})
            self.send_response(status["code"])
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", received, status
    server.shutdown()
    server.server_close()


def test_a_webhook_posts_json(webhook):
    url, received, _ = webhook
    channel = WebhookChannel(url=url, headers={"Authorization": "Bearer t"})
    send_message({"hook": channel}, "hook", "42", "déployé")
    assert received == [{"body": {"chat_id": "42", "content": "déployé"}, "type": "application/json",
                         "auth": "Bearer t"}]


def test_a_webhook_error_status_or_bad_url_is_a_send_error(webhook):
    url, _, status = webhook
    status["code"] = 503
    with pytest.raises(SendError, match="webhook answered 503"):
        send_message({"hook": WebhookChannel(url=url)}, "hook", "1", "x")
    with pytest.raises(SendError, match="must be http or https"):
        send_message({"hook": WebhookChannel(url="file:///etc/passwd")}, "hook", "1", "x")
