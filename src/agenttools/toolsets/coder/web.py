"""The coder web tools: ``web_fetch`` (pages cached under .agent/cache/webfetch) and ``html_to_markdown``."""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.parse
from typing import Any

from agenttools import files, web
from agenttools._text import atomic_write
from agenttools.errors import AgentToolsError
from agenttools.toolsets.coder.state import State, resolve, write_own_file
from agenttools.toolsets.coder.texts import fail

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


def html_to_markdown(state: State, args: dict[str, Any]) -> str:
    """``html_to_markdown``: convert an HTML file to Markdown next to it."""
    path = args["path"]
    if not path:
        raise fail("path cannot be empty")
    real = resolve(state, path)
    if not os.path.isfile(real):
        raise fail(f"input file does not exist: {path}")
    stem, ext = os.path.splitext(path)
    out_path = (stem if ext else path) + ".md"
    out_real = resolve(state, out_path)
    ws = state.workspace
    if ws.protected_by(out_real) is not None or ws.protected_by(os.path.join(state.root, out_path)) is not None:
        raise fail(f"path not allowed: {out_path} (inside git metadata)")
    try:  # opened without blocking, fstat-checked and bounded by max_file_size
        html = files.read_bytes(ws, real).decode("utf-8", errors="replace")
    except AgentToolsError as exc:
        raise fail(f"cannot read {path}: {exc}") from None
    except OSError as exc:
        raise fail(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        markdown = web.html_to_markdown(html)
    except ImportError as exc:
        raise fail(str(exc)) from None
    try:
        atomic_write(out_real, markdown.encode("utf-8"), mode=0o644, root=ws.root_of(out_real))
    except OSError as exc:
        raise fail(f"cannot write {out_path}: {exc.strerror or exc}") from None
    return json.dumps({"inputPath": path, "outputPath": out_path, "success": True}, separators=(",", ":"))
