"""The web family: fetch with an address policy, redirects checked hop by hop, bounded bodies and time."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from agenttools.errors import ToolTimeoutError
from agenttools.web import BlockedAddressError, FetchError, fetch, html_to_markdown, strip_scripts


@pytest.fixture
def server():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/page":
                body = b"<h1>Title</h1><p>text</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("X-Twice", "a")
                self.send_header("X-Twice", "b")
                self.end_headers()
                self.wfile.write(body)
            elif self.path == "/moved":
                self.send_response(302)
                self.send_header("Location", "/page")
                self.end_headers()
            elif self.path == "/loop":
                self.send_response(302)
                self.send_header("Location", "/loop")
                self.end_headers()
            elif self.path == "/big":
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"x" * 10_000)
            elif self.path == "/slow":
                self.send_response(200)
                self.end_headers()
                try:
                    for _ in range(50):
                        self.wfile.write(b"x")
                        self.wfile.flush()
                        time.sleep(0.1)
                except OSError:
                    pass  # the client gave up, as it should
            else:
                self.send_response(404)
                self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_loopback_is_refused_unless_allowed(server):
    with pytest.raises(BlockedAddressError) as info:
        fetch(f"{server}/page")
    assert isinstance(info.value, FetchError) and info.value.address == "127.0.0.1"
    result = fetch(f"{server}/page", allow_private=True)
    assert (result.status, result.body, result.content_type) == (200, b"<h1>Title</h1><p>text</p>",
                                                                 "text/html; charset=utf-8")
    assert result.headers["x-twice"] == "a, b"


def test_redirects_are_followed_and_bounded(server):
    result = fetch(f"{server}/moved", allow_private=True)
    assert (result.url, result.final_url, result.status) == (f"{server}/moved", f"{server}/page", 200)
    with pytest.raises(FetchError, match="too many redirects"):
        fetch(f"{server}/loop", allow_private=True)
    assert fetch(f"{server}/missing", allow_private=True).status == 404


def test_bodies_and_time_are_bounded(server):
    with pytest.raises(FetchError, match="exceeds 1000 bytes"):
        fetch(f"{server}/big", allow_private=True, max_bytes=1000)
    started = time.monotonic()
    with pytest.raises(ToolTimeoutError):
        fetch(f"{server}/slow", allow_private=True, timeout=1.0)
    assert time.monotonic() - started < 4  # one deadline for the whole exchange, not per read


@pytest.mark.parametrize("url", ["ftp://example.com/x", "file:///etc/passwd", "http:///nohost"])
def test_only_http_urls(url):
    with pytest.raises(FetchError, match="unsupported URL"):
        fetch(url)


def test_strip_scripts_is_linear_and_exact():
    assert strip_scripts("a<script>x</script>b<STYLE>y</style >c") == "abc"
    assert strip_scripts("keep <script> unclosed") == "keep <script> unclosed"
    hostile = "<script" * 200_000
    started = time.monotonic()
    assert strip_scripts(hostile) == hostile
    assert time.monotonic() - started < 5


def test_html_to_markdown():
    pytest.importorskip("markdownify")
    assert html_to_markdown("<h1>Title</h1><ul><li>one</li></ul><script>x()</script>") == "# Title\n\n- one\n"
