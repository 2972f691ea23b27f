"""The web family: fetch a URL safely, and turn HTML into Markdown.

:func:`fetch` speaks HTTP(S) with the standard library. Before every connection — the first request and each
redirect hop — the host name is resolved and every address checked: loopback, private, link-local (cloud metadata
at 169.254.169.254 included), multicast, reserved and unspecified addresses are refused unless
``allow_private=True``. The connection then goes to the address that was checked (no second DNS lookup, so DNS
rebinding cannot swap it). Bodies are read up to ``max_bytes``. The whole call has one deadline: DNS lookup,
connect, TLS, status line, headers and body together, every redirect hop included (a watchdog shuts the socket down
when it passes, so a server trickling one byte a second cannot hold a call past ``timeout``).
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

import attrs

from agenttools._display import MarkdownRepr
from agenttools.errors import AgentToolsError, ToolTimeoutError

__all__ = ["BlockedAddressError", "FetchError", "FetchResult", "fetch", "html_to_markdown", "strip_scripts"]

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
_REDIRECTS = {301, 302, 303, 307, 308}


class FetchError(AgentToolsError):
    """The URL could not be fetched (bad URL, connection failure, too large, too many redirects)."""

    code = "fetch_failed"


class BlockedAddressError(FetchError):
    """The URL (or a redirect) leads to a loopback, private, link-local or otherwise non-public address.

    Attributes:
        host: The host name.
        address: The address it resolved to.
    """

    code = "blocked_address"

    def __init__(self, host: str, address: str) -> None:
        self.host = host
        self.address = address
        super().__init__(f"refusing to connect to {host} ({address}): a loopback, private, link-local or "
                         "reserved address")


@attrs.frozen(kw_only=True)
class FetchResult(MarkdownRepr):
    """A response."""

    url: str
    """The URL asked for."""
    final_url: str
    """The URL that answered, after redirects."""
    status: int
    """HTTP status code."""
    headers: dict[str, str]
    """Response headers (lower-case names; repeated headers joined with ``, ``)."""
    body: bytes = attrs.field(repr=False)
    """The body (at most ``max_bytes``)."""

    @property
    def content_type(self) -> str:
        """The raw ``Content-Type`` header (``""`` when absent)."""
        return self.headers.get("content-type", "")


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
                                 or ip.is_reserved or ip.is_unspecified)


_LOOKUPS = threading.BoundedSemaphore(16)


def _getaddrinfo(host: str, port: int, seconds: float) -> list[tuple[Any, ...]]:
    """``socket.getaddrinfo`` bounded by ``seconds``: raises ``TimeoutError`` when it has not answered by then.

    The C resolver cannot be interrupted, so the lookup runs in a daemon thread that is left to finish on its own;
    at most 16 run at once (a caller waits for a free one within the same deadline), so a resolver that never
    answers cannot pile up threads.
    """
    if seconds <= 0 or not _LOOKUPS.acquire(timeout=seconds):
        raise TimeoutError
    box: dict[str, object] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except Exception as exc:  # noqa: BLE001 - handed to the caller as it is
            box["error"] = exc
        finally:
            _LOOKUPS.release()
            done.set()

    threading.Thread(target=work, name="agenttools-dns", daemon=True).start()
    if not done.wait(seconds):
        raise TimeoutError
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["infos"]  # type: ignore[return-value]


def _resolve(host: str, port: int, allow_private: bool, seconds: float) -> str:
    try:
        infos = _getaddrinfo(host, port, seconds)
    except socket.gaierror as exc:
        raise FetchError(f"cannot resolve {host}: {exc.strerror}") from None
    addresses = [str(info[4][0]) for info in infos]
    if not allow_private:
        for address in addresses:
            if not _public(address):
                raise BlockedAddressError(host, address)
    return addresses[0]


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address
        self.raw: socket.socket | None = None

    def connect(self) -> None:
        self.raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self.raw


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address
        self.raw: socket.socket | None = None

    def connect(self) -> None:
        self.raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(self.raw, server_hostname=self.host)  # type: ignore[attr-defined]


class _Watchdog:
    """Shuts a connection's socket down when the whole call's deadline passes.

    A socket timeout bounds each read, not the call: a server sending one byte a second never trips it. At the
    deadline the socket is shut down, so whatever read is blocked (TLS handshake, status line, headers, body)
    returns at once, and :attr:`fired` tells the caller that this, not the server, ended the exchange.
    """

    def __init__(self, connection: _PinnedHTTP | _PinnedHTTPS, seconds: float) -> None:
        self.fired = threading.Event()
        self._connection = connection
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired.set()
        raw = self._connection.raw
        if raw is not None:
            with contextlib.suppress(OSError):
                raw.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


_CREDENTIALS = frozenset({"authorization", "proxy-authorization", "cookie"})


def _origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL, the port made explicit."""
    parts = urllib.parse.urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def fetch(
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allow_private: bool = False,
) -> FetchResult:
    """GET ``url``, following up to 10 redirects, each hop checked against the address policy.

    Credentials among ``headers`` (``Authorization``, ``Proxy-Authorization``, ``Cookie``) go only to the origin
    of ``url``: a redirect to another scheme, host or port drops them, as browsers and ``requests`` do.

    Raises:
        FetchError: Not http(s), unresolvable host, connection failure, body over ``max_bytes``, redirect loop.
        BlockedAddressError: A hop resolves to a non-public address and ``allow_private`` is False.
        ToolTimeoutError: The exchange took longer than ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    current = url
    origin = _origin(url)
    for _ in range(MAX_REDIRECTS + 1):
        parts = urllib.parse.urlsplit(current)
        sent = dict(headers or {})
        if _origin(current) != origin:
            sent = {k: v for k, v in sent.items() if k.lower() not in _CREDENTIALS}
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FetchError(f"unsupported URL: {current}")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            address = _resolve(parts.hostname, port, allow_private, deadline - time.monotonic())
        except TimeoutError:
            raise ToolTimeoutError(f"fetching {url} timed out after {timeout:g} seconds", seconds=timeout) from None
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ToolTimeoutError(f"fetching {url} timed out after {timeout:g} seconds", seconds=timeout)
        kind = _PinnedHTTPS if parts.scheme == "https" else _PinnedHTTP
        connection = kind(parts.hostname, port, address, remaining)
        target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        watchdog = _Watchdog(connection, remaining)
        response: http.client.HTTPResponse | None = None
        try:
            with watchdog:
                connection.request("GET", target, headers=sent)
                response = connection.getresponse()
                if response.status in _REDIRECTS and response.getheader("location"):
                    current = urllib.parse.urljoin(current, response.getheader("location") or "")
                    continue
                body = response.read(max_bytes + 1)
                if watchdog.fired.is_set():
                    raise TimeoutError
            if len(body) > max_bytes:
                raise FetchError(f"response body exceeds {max_bytes} bytes")
            names: dict[str, str] = {}
            for name, value in response.getheaders():
                key = name.lower()
                names[key] = f"{names[key]}, {value}" if key in names else value
            return FetchResult(url=url, final_url=current, status=response.status, headers=names, body=body)
        except TimeoutError:
            raise ToolTimeoutError(f"fetching {url} timed out after {timeout:g} seconds", seconds=timeout) from None
        except (OSError, http.client.HTTPException) as exc:
            if watchdog.fired.is_set():
                raise ToolTimeoutError(f"fetching {url} timed out after {timeout:g} seconds",
                                       seconds=timeout) from None
            raise FetchError(f"request to {current} failed: {exc}") from None
        finally:
            if response is not None:
                response.close()  # it holds the socket too: closing only the connection left it open
            connection.close()
    raise FetchError(f"too many redirects (more than {MAX_REDIRECTS})")


def html_to_markdown(html: str) -> str:
    """Convert HTML to Markdown with markdownify (ATX headings, ``-`` bullets; scripts and styles dropped whole).

    Raises:
        ImportError: The ``web`` extra (markdownify) is not installed.
    """
    try:
        from markdownify import markdownify
    except ImportError:  # pragma: no cover - exercised without the extra
        raise ImportError("html_to_markdown needs the 'web' extra: pip install 'agenttools[web]'") from None
    text: str = markdownify(strip_scripts(html), heading_style="ATX", bullets="-")
    return text.strip() + "\n"


_SCRIPT_OPEN = re.compile(r"<(script|style)\b", re.IGNORECASE)


def strip_scripts(html: str) -> str:
    """Drop ``<script>`` and ``<style>`` elements, as ``(?is)<(script|style)\\b.*?</\\1\\s*>`` would, in linear time.

    The lazy regex scans to the end of the text from every unclosed opening tag (quadratic on a page of
    ``<script`` without an end). Here each opening tag searches once for its end tag; once an element type has no
    end tag left, its later opening tags are skipped without a search.
    """
    pieces: list[str] = []
    done = 0
    position = 0
    unclosed: set[str] = set()
    while (opening := _SCRIPT_OPEN.search(html, position)) is not None:
        name = opening.group(1).lower()
        closing = None if name in unclosed else _CLOSE[name].search(html, opening.end())
        if closing is None:
            unclosed.add(name)
            position = opening.start() + 1
            continue
        pieces.append(html[done:opening.start()])
        done = position = closing.end()
    pieces.append(html[done:])
    return "".join(pieces)


_CLOSE = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in ("script", "style")}
