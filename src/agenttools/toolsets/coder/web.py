"""The coder web tools: ``web_fetch`` (pages cached under .agent/cache/webfetch) and ``html_to_markdown``."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import urllib.parse
from typing import Any

from agenttools import files, web
from agenttools.errors import AgentToolsError
from agenttools.toolsets._go import errno_text
from agenttools.toolsets.coder.state import State, resolve, write_own_file
from agenttools.toolsets.coder.texts import fail, go_json

__all__ = ["cache_name", "html_to_markdown", "web_fetch"]

_CONTENT_TYPES = {"text/plain": ".txt", "text/html": ".html", "text/xml": ".xml", "application/json": ".json",
                  "application/xml": ".xml", "application/xhtml+xml": ".html"}


def cache_name(url: str) -> str:
    """Upstream's cache file name (without extension) for ``url``."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.netloc.rsplit("@", 1)[-1]).lower()
    path = parts.path.lower().strip("/").replace("/", "_")
    digest = hashlib.sha256(url.encode()).hexdigest()[:8]
    return re.sub(r"[^a-z0-9_.]", "_", f"{host}_{path}_{digest}")


def web_fetch(state: State, args: dict[str, Any]) -> str:
    """``web_fetch``: download a text page into the cache and answer where it went."""
    url: str = args["url"]
    if not url.startswith(("http://", "https://")):
        raise fail("URL must start with http:// or https://")
    headers = {"User-Agent": "Mozilla/5.0 WebFetch Tool",
               "Accept": "text/*, application/json, application/xml, application/xhtml+xml"}
    try:
        result = web.fetch(url, headers=headers, timeout=30.0, max_bytes=state.workspace.max_file_size,
                           allow_private=state.allow_private_network)
    except AgentToolsError as exc:
        raise fail(str(exc)) from None
    if not 200 <= result.status < 300:
        raise fail(f"HTTP request failed with status code: {result.status}")
    raw_type = result.content_type
    base = raw_type.split(";", 1)[0].strip().lower()
    ext = _CONTENT_TYPES.get(base) or (".txt" if base.startswith("text/") else None)
    if ext is None:
        raise fail(f"unsupported content type: {raw_type}")
    rel = f".agent/cache/webfetch/{cache_name(url)}{ext}"
    write_own_file(state, state.root / rel, result.body, mode=0o644)
    return json.dumps({"path": rel, "statusCode": result.status, "contentType": raw_type}, ensure_ascii=False)


def _go_ext(path: str) -> str:
    """Go's ``filepath.Ext``: from the last dot of the last element (``.bashrc`` is all extension), or ``""``."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if dot >= 0 else ""


# html-to-markdown v2's base plugin removes these elements whole (plugin/base/base.go); scripts and styles are
# already dropped by web.html_to_markdown
_REMOVED = ("head", "link", "meta", "iframe", "noscript", "input", "textarea")


def _convert(html: str) -> str:
    try:
        from bs4 import BeautifulSoup
    except ImportError:  # pragma: no cover - exercised without the extra
        raise fail("html_to_markdown needs the 'web' extra: pip install 'agenttools[web]'") from None
    soup = BeautifulSoup(web.strip_scripts(html), "html.parser")
    for element in soup.find_all(_REMOVED):
        element.decompose()
    try:
        markdown = web.html_to_markdown(str(soup))
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise fail(str(exc)) from None
    return markdown.strip()  # the converter's bytes.TrimSpace: no newline at the end


def html_to_markdown(state: State, args: dict[str, Any]) -> str:
    """``html_to_markdown``: convert an HTML file to Markdown next to it."""
    path = args["path"]
    if not path:
        raise fail("path cannot be empty")
    real = resolve(state, path)
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        raise fail(f"input file does not exist: {path}") from None
    except OSError as exc:  # os.Stat's other errors fall through to os.ReadFile upstream
        raise fail(f"failed to read HTML file: open {path}: {errno_text(exc)}") from None
    if stat.S_ISDIR(mode):
        raise fail(f"failed to read HTML file: read {path}: is a directory")
    ext = _go_ext(path)
    out_path = (path[:-len(ext)] if ext else path) + ".md"
    out_real = resolve(state, out_path)
    ws = state.workspace
    if ws.protected_by(out_real) is not None or ws.protected_by(os.path.join(state.root, out_path)) is not None:
        raise fail(f"path not allowed: {out_path} (inside git metadata)")
    try:  # opened without blocking, fstat-checked and bounded by max_file_size
        html = files.read_bytes(ws, real).decode("utf-8", errors="replace")
    except AgentToolsError as exc:  # a FIFO or a file over max_file_size: our own refusals, in our own words
        raise fail(f"cannot read {path}: {exc}") from None
    except OSError as exc:
        raise fail(f"failed to read HTML file: read {path}: {errno_text(exc)}") from None
    markdown = _convert(html)
    try:
        data = markdown.encode("utf-8")  # no size cap: upstream writes whatever the conversion makes
        files.write_bytes(ws, out_real, data, create_parents=False, new_file_mode=0o644, max_size=len(data))
    except OSError as exc:
        raise fail(f"failed to write markdown file: open {out_path}: {errno_text(exc)}") from None
    return go_json({"inputPath": path, "outputPath": out_path, "success": True})
