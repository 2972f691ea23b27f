"""The web family: fetch with an address policy, redirects followed and bounded, bodies and time bounded.

A real HTTP server runs on 127.0.0.1 in a thread; nothing leaves the loopback interface (the address policy
refuses the other addresses before any connection is made).
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenttools.errors import AgentToolsError, ToolTimeoutError
from agenttools.web import (
    BlockedAddressError,
    FetchError,
    FetchResult,
    fetch,
    html_to_markdown,
    strip_scripts,
)

PAGE = b"<h1>Title</h1><p>text</p>"


class _Handler(http.server.BaseHTTPRequestHandler):
    """Routes: /page, /json, /plain, /echo, /headers, /status/N, /redirect/CODE?to=..., /hops/N, /loop, /bytes/N,
    /trickle, /silent."""

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        parts = path.strip("/").split("/")
        if path == "/page":
            self._send(200, PAGE, ("Content-Type", "text/html; charset=utf-8"), ("X-Twice", "a"), ("X-Twice", "b"))
        elif path == "/json":
            self._send(200, b'{"ok": true}', ("Content-Type", "application/json"))
        elif path == "/plain":
            self._send(200, b"no type")
        elif path == "/echo":
            self._send(200, json.dumps({"path": self.path, "agent": self.headers.get("X-Agent")}).encode())
        elif path == "/headers":
            self._send(200, json.dumps(dict(self.headers)).encode())
        elif parts[0] == "status":
            self._send(int(parts[1]), b"status body")
        elif parts[0] == "redirect":
            location = query.removeprefix("to=")
            self._send(int(parts[1]), b"", *((("Location", location),) if location else ()))
        elif parts[0] == "hops":
            left = int(parts[1])
            if left == 0:
                self._send(200, b"arrived")
            else:
                self._send(302, b"", ("Location", f"/hops/{left - 1}"))
        elif path == "/loop":
            self._send(302, b"", ("Location", "/loop"))
        elif parts[0] == "bytes":
            self._send(200, b"x" * int(parts[1]))
        elif path == "/trickle":  # one byte every 0.1 s: no single read is slow, the whole exchange is
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            try:
                for _ in range(100):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:
                pass  # the client gave up, as it should
        elif path == "/silent":  # never answers
            time.sleep(2)
        else:
            self._send(404, b"not found")

    def _send(self, code: int, body: bytes, *headers: tuple[str, str]) -> None:
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The base URL of a loopback HTTP server (one for the module: the handler keeps no state)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _get(url: str, **options: object) -> FetchResult:
    """Fetch from the loopback server (the private-address guard lifted)."""
    return fetch(url, allow_private=True, **options)  # type: ignore[arg-type]


def _failure(url: str, **options: object) -> Exception:
    """The exception fetching ``url`` raises, returned so a test can hold it (as a caller logging it would) and
    check what it left open (``test_a_failed_fetch_closes_its_socket``)."""
    try:
        _get(url, **options)
    except Exception as exc:  # noqa: BLE001 - the caller asserts the type
        return exc
    raise AssertionError(f"fetching {url} did not fail")


def _client_sockets(port: int) -> int:
    """Sockets of this process connected to loopback ``port`` (the client side of the requests to the server)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[len("socket:["):-1])
    rows = [line.split() for line in Path("/proc/self/net/tcp").read_text().splitlines()[1:]]
    return sum(1 for row in rows if int(row[2].split(":")[1], 16) == port and row[9] in inodes)


# --- the address policy ----------------------------------------------------------------------------------------

def test_loopback_is_refused_unless_allowed(server):
    with pytest.raises(BlockedAddressError) as info:
        fetch(f"{server}/page")
    assert (info.value.host, info.value.address) == ("127.0.0.1", "127.0.0.1")
    assert isinstance(info.value, FetchError) and isinstance(info.value, AgentToolsError)
    assert info.value.code == "blocked_address"
    assert _get(f"{server}/page").status == 200


@pytest.mark.parametrize(("url", "address"), [
    ("http://localhost/", "127.0.0.1"),
    ("http://127.1/", "127.0.0.1"),            # short and numeric spellings of loopback
    ("http://2130706433/", "127.0.0.1"),
    ("http://0x7f.1/", "127.0.0.1"),
    ("http://[::1]/", "::1"),
    ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
    ("http://10.1.2.3/", "10.1.2.3"),
    ("http://172.16.0.1/", "172.16.0.1"),
    ("https://192.168.1.1/", "192.168.1.1"),
    ("http://100.64.0.1/", "100.64.0.1"),      # carrier-grade NAT
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),  # cloud metadata
    ("http://[fe80::1]/", "fe80::1"),
    ("http://[fd00::1]/", "fd00::1"),
    ("http://0.0.0.0/", "0.0.0.0"),            # noqa: S104 - the address under test, not a bind
    ("http://224.0.0.1/", "224.0.0.1"),
    ("http://240.0.0.1/", "240.0.0.1"),
])
def test_non_public_addresses_are_refused_before_connecting(url, address):
    with pytest.raises(BlockedAddressError) as info:
        fetch(url, timeout=5)
    assert info.value.address == address
    assert "refusing to connect" in str(info.value)


# --- responses --------------------------------------------------------------------------------------------------

def test_status_body_and_headers(server):
    result = _get(f"{server}/page")
    assert (result.url, result.final_url, result.status, result.body) == (f"{server}/page", f"{server}/page", 200,
                                                                          PAGE)
    assert result.content_type == "text/html; charset=utf-8"
    assert result.headers["x-twice"] == "a, b"  # names lower-cased, repeats joined
    assert result.headers["content-length"] == str(len(PAGE))


@pytest.mark.parametrize(("path", "content_type"), [("/json", "application/json"), ("/plain", "")])
def test_content_types(server, path, content_type):
    assert _get(f"{server}{path}").content_type == content_type


@pytest.mark.parametrize("code", [404, 500, 503])
def test_error_statuses_are_results_not_errors(server, code):
    result = _get(f"{server}/status/{code}")
    assert (result.status, result.body) == (code, b"status body")


def test_headers_and_query_reach_the_server(server):
    echoed = json.loads(_get(f"{server}/echo?q=1&r=two", headers={"X-Agent": "tests"}).body)
    assert echoed == {"path": "/echo?q=1&r=two", "agent": "tests"}


# --- redirects --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_redirects_are_followed(server, code):
    result = _get(f"{server}/redirect/{code}?to=/page")
    assert (result.url, result.final_url, result.status, result.body) == (
        f"{server}/redirect/{code}?to=/page", f"{server}/page", 200, PAGE)


def test_a_redirect_without_location_or_a_304_is_the_answer(server):
    assert _get(f"{server}/redirect/302").status == 302
    assert _get(f"{server}/status/304").status == 304


def test_ten_redirects_are_followed_an_eleventh_is_refused(server):
    assert _get(f"{server}/hops/10").body == b"arrived"
    for path in ("/hops/11", "/loop"):
        error = _failure(f"{server}{path}")
        assert type(error) is FetchError and str(error) == "too many redirects (more than 10)"


def test_a_redirect_is_checked_like_the_first_url(server):
    error = _failure(f"{server}/redirect/302?to=file:///etc/passwd")
    assert type(error) is FetchError and str(error) == "unsupported URL: file:///etc/passwd"


# --- bounds and failures ----------------------------------------------------------------------------------------

def test_bodies_are_bounded(server):
    assert _get(f"{server}/bytes/1000", max_bytes=1000).body == b"x" * 1000
    error = _failure(f"{server}/bytes/1000", max_bytes=999)
    assert type(error) is FetchError and str(error) == "response body exceeds 999 bytes"


@pytest.mark.parametrize("path", ["/trickle", "/silent"])
def test_one_deadline_bounds_the_whole_exchange(server, path):
    started = time.monotonic()
    error = _failure(f"{server}{path}", timeout=0.5)
    assert time.monotonic() - started < 2.5
    assert isinstance(error, ToolTimeoutError) and isinstance(error, TimeoutError)
    assert error.seconds == 0.5 and "timed out after 0.5 seconds" in str(error)


@pytest.mark.skipif(not Path("/proc/self/net/tcp").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize(("path", "options"), [
    ("/bytes/100", {"max_bytes": 50}), ("/loop", {}), ("/redirect/302?to=ftp://x/", {})])
def test_a_failed_fetch_closes_its_socket(server, path, options):
    port = int(server.rsplit(":", 1)[1])
    before = _client_sockets(port)
    error = _failure(f"{server}{path}", **options)  # held, as a caller logging or re-raising it would
    assert type(error) is FetchError
    assert _client_sockets(port) == before


def test_a_refused_connection_is_a_fetch_error():
    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        with pytest.raises(FetchError, match=f"request to http://127.0.0.1:{port}/ failed"):
            _get(f"http://127.0.0.1:{port}/", timeout=5)


@pytest.mark.parametrize("url", ["ftp://example.com/x", "file:///etc/passwd", "http:///nohost", "example.com"])
def test_only_http_urls(url):
    with pytest.raises(FetchError, match="unsupported URL"):
        fetch(url)


# --- HTML ------------------------------------------------------------------------------------------------------

def test_strip_scripts_removes_script_and_style_elements():
    assert strip_scripts("a<script>x</script>b<STYLE type=x>y</style >c") == "abc"
    assert strip_scripts("a<script src=x></SCRIPT>b<scripts>kept</scripts>") == "ab<scripts>kept</scripts>"
    assert strip_scripts("1<script>x</script>2<script>y</script>3") == "123"


def test_strip_scripts_keeps_unclosed_elements_and_stays_linear():
    assert strip_scripts("keep <script> unclosed") == "keep <script> unclosed"
    assert strip_scripts("<script>a<style>b</style>") == "<script>a"  # a closed style inside an unclosed script
    hostile = "<script" * 200_000
    started = time.monotonic()
    assert strip_scripts(hostile) == hostile
    assert time.monotonic() - started < 2


def test_html_to_markdown():
    pytest.importorskip("markdownify")
    html = "<h1>Title</h1><h2>Sub</h2><ul><li>one</li><li>two</li></ul><script>x()</script><style>p{}</style>"
    assert html_to_markdown(html) == "# Title\n\n## Sub\n\n- one\n- two\n"
    assert html_to_markdown("<p><a href='https://e.org'>link</a> and <b>bold</b></p>") == (
        "[link](https://e.org) and **bold**\n")


def test_credentials_go_only_to_the_origin(server):
    """A redirect to another origin (here: localhost instead of 127.0.0.1) drops Authorization and Cookie."""
    headers = {"Authorization": "Bearer secret", "Cookie": "s=1", "X-Trace": "kept"}
    same = json.loads(_get(f"{server}/redirect/302?to=/headers", headers=headers).body)
    assert same["Authorization"] == "Bearer secret" and same["Cookie"] == "s=1"
    other = server.replace("127.0.0.1", "localhost")
    moved = json.loads(_get(f"{server}/redirect/302?to={other}/headers", headers=headers).body)
    assert "Authorization" not in moved and "Cookie" not in moved
    assert moved["X-Trace"] == "kept"


def test_the_deadline_bounds_the_dns_lookup_too(monkeypatch):
    """A resolver that does not answer cannot hold a call past ``timeout``.

    The one stand-in in this file: no real DNS server can be made to hang from a test without the network, so the
    C resolver is replaced by one that sleeps, as a dead nameserver does.
    """
    real = socket.getaddrinfo

    def dead_nameserver(host, *args, **kwargs):
        if host == "slow.invalid":
            time.sleep(3)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", dead_nameserver)
    started = time.monotonic()
    error = _failure("http://slow.invalid/", timeout=0.5)
    assert time.monotonic() - started < 1.5
    assert isinstance(error, ToolTimeoutError) and error.seconds == 0.5
    assert str(error) == "fetching http://slow.invalid/ timed out after 0.5 seconds"


def test_a_lookup_error_is_still_a_fetch_error():
    error = _failure("http://no-such-host.invalid/", timeout=5)
    assert type(error) is FetchError and str(error).startswith("cannot resolve no-such-host.invalid: ")
