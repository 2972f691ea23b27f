"""The message family: channels are callables, objects with ``send()``, or webhooks; failures are typed errors.

The webhook tests POST to a real HTTP server on 127.0.0.1 run in a thread.
"""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from agenttools.errors import AgentToolsError
from agenttools.message import Channel, ChannelNotFoundError, SendError, SentMessage, WebhookChannel, send_message


class _Inbox:
    """A channel object: remembers what it was sent."""

    def __init__(self) -> None:
        self.got: list[tuple[str, str]] = []

    def send(self, chat_id: str, content: str) -> None:
        self.got.append((chat_id, content))


# --- callables and channel objects ---------------------------------------------------------------------------------

def test_a_callable_channel_receives_the_message():
    calls: list[tuple[str, str]] = []
    sent = send_message({"fn": lambda chat, text: calls.append((chat, text))}, "fn", "c1", "hi")
    assert sent == SentMessage(channel_id="fn", chat_id="c1", content="hi")
    assert calls == [("c1", "hi")]


def test_an_object_with_send_is_a_channel():
    inbox = _Inbox()
    assert isinstance(inbox, Channel) and isinstance(WebhookChannel(url="http://x"), Channel)
    assert not isinstance(print, Channel)
    assert send_message({"inbox": inbox, "other": _Inbox()}, "inbox", "c2", "héllo ☃").content == "héllo ☃"
    assert inbox.got == [("c2", "héllo ☃")]


def test_send_is_preferred_over_calling_the_object():
    class Both(_Inbox):
        def __call__(self, chat_id: str, content: str) -> None:
            raise AssertionError("called instead of send()")

    both = Both()
    send_message({"both": both}, "both", "c", "x")
    assert both.got == [("c", "x")]


@pytest.mark.parametrize("channels", [{}, {"ops": None}, {"OPS": _Inbox()}])
def test_an_unknown_channel_is_a_typed_error(channels):
    with pytest.raises(ChannelNotFoundError) as missing:
        send_message(channels, "ops", "c", "x")
    assert (str(missing.value), missing.value.channel_id) == ("channel not found: ops", "ops")
    assert isinstance(missing.value, LookupError) and isinstance(missing.value, AgentToolsError)
    assert missing.value.code == "channel_not_found"


def test_a_failing_channel_is_a_send_error_that_keeps_the_cause():
    cause = RuntimeError("the line is down")

    def broken(chat: str, text: str) -> None:
        raise cause

    with pytest.raises(SendError) as failed:
        send_message({"ops": broken}, "ops", "c", "x")
    assert str(failed.value) == "failed to send message: the line is down"
    assert (failed.value.channel_id, failed.value.code, failed.value.__cause__) == ("ops", "send_failed", cause)


def test_a_failure_without_a_message_is_named_by_its_type():
    class Silent:
        def send(self, chat_id: str, content: str) -> None:
            raise ConnectionResetError

    with pytest.raises(SendError, match=r"^failed to send message: ConnectionResetError$"):
        send_message({"s": Silent()}, "s", "c", "x")


# --- webhooks ------------------------------------------------------------------------------------------------------

class _Hook:
    """What the loopback webhook server received, and the status it answers with."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.received: list[dict[str, object]] = []
        self.status = 200


@pytest.fixture(scope="module")
def _hook_server() -> Iterator[_Hook]:
    hook = _Hook("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path == "/slow":
                time.sleep(1.5)  # longer than the client waits
                return
            if self.path.startswith("/moved/"):
                self.send_response(int(self.path.rsplit("/", 1)[1]))
                self.send_header("Location", "/hook")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            hook.received.append({"path": self.path, "raw": raw, "type": self.headers["Content-Type"],
                                  "auth": self.headers.get("Authorization")})
            self.send_response(hook.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            hook.received.append({"path": self.path, "method": "GET"})
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    hook.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield hook
    server.shutdown()
    server.server_close()


@pytest.fixture
def hook(_hook_server: _Hook) -> _Hook:
    """The webhook server, its record cleared and its status back to 200."""
    _hook_server.received.clear()
    _hook_server.status = 200
    return _hook_server


def test_a_webhook_posts_utf8_json_with_its_headers(hook):
    channel = WebhookChannel(url=f"{hook.url}/hook", headers={"Authorization": "Bearer t"})
    sent = send_message({"hook": channel}, "hook", "42", "déployé ✓")
    assert sent == SentMessage(channel_id="hook", chat_id="42", content="déployé ✓")
    got, = hook.received
    assert (got["path"], got["type"], got["auth"]) == ("/hook", "application/json", "Bearer t")
    assert json.loads(got["raw"]) == {"chat_id": "42", "content": "déployé ✓"}
    assert "déployé ✓".encode() in got["raw"]  # UTF-8 as is, not \\u escapes


@pytest.mark.parametrize("status", [200, 201, 204])
def test_any_2xx_answer_is_delivery(hook, status):
    hook.status = status
    send_message({"hook": WebhookChannel(url=hook.url)}, "hook", "1", "x")
    assert len(hook.received) == 1


@pytest.mark.parametrize(("status", "reason"), [(400, "Bad Request"), (403, "Forbidden"), (503, "Service Unavailable")])
def test_an_error_status_is_a_send_error(hook, status, reason):
    hook.status = status
    with pytest.raises(SendError) as failed:
        send_message({"hook": WebhookChannel(url=hook.url)}, "hook", "1", "x")
    assert str(failed.value) == f"failed to send message: webhook answered {status} {reason}"
    assert isinstance(failed.value.__cause__, OSError)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.1/", "127.0.0.1:8080/hook"])
def test_a_webhook_url_must_be_http(url):
    with pytest.raises(SendError, match="webhook URL must be http or https"):
        send_message({"hook": WebhookChannel(url=url)}, "hook", "1", "x")


def test_an_unreachable_webhook_is_a_send_error():
    with socket.socket() as sock:  # bound, never listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/hook"
        with pytest.raises(SendError, match=r"failed to send message: .*refused"):
            send_message({"hook": WebhookChannel(url=url, timeout=5)}, "hook", "1", "x")


def test_a_slow_webhook_is_abandoned_after_its_timeout(hook):
    started = time.monotonic()
    with pytest.raises(SendError, match="timed out"):
        send_message({"hook": WebhookChannel(url=f"{hook.url}/slow", timeout=0.3)}, "hook", "1", "x")
    assert time.monotonic() - started < 1.2


@pytest.mark.parametrize(("status", "reason"), [(301, "Moved Permanently"), (302, "Found"), (303, "See Other"),
                                                (307, "Temporary Redirect"), (308, "Permanent Redirect")])
def test_a_redirect_is_not_delivery(hook, status, reason):
    """Followed, a redirect turns the POST into a bodiless GET: the message is lost, so it is reported as a failure."""
    with pytest.raises(SendError) as failed:
        send_message({"hook": WebhookChannel(url=f"{hook.url}/moved/{status}")}, "hook", "1", "x")
    assert str(failed.value) == f"failed to send message: webhook answered {status} {reason}"
    assert hook.received == []
