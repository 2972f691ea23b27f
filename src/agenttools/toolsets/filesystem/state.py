"""What the filesystem handlers share, and upstream's path check (``validatePath``) made safe.

Upstream resolves a path argument in steps, each with its own error text: ``~`` expansion, a refusal of Windows
drive paths, relative paths tried against each allowed directory, a containment check, ``realpath`` and a second
containment check on the result, and for a path that does not exist yet a walk down from the allowed directory
that matches each component (Unicode-equivalent names included). :func:`valid_path` takes the same steps with the
same texts, with one difference: upstream checks containment on a copy it has trimmed (whitespace, NBSP, one
quote at each end) and then goes on with the untrimmed path, so ``/abs/proj"`` passed the check and reached the
sibling ``/abs/proj"``; we check the path we go on with too. The result then passes through the Workspace (deny
globs, git metadata, FIFOs), which is what the families check again when they touch it.
"""

from __future__ import annotations

import errno
import os
import re
import unicodedata

from agenttools.toolsets._node import node_error
from agenttools.toolsets.filesystem.texts import JS_SPACE, fail
from agenttools.workspace import Workspace

__all__ = ["State", "allowed_directories", "js_relative", "js_resolve", "normalize_path", "valid_path", "within"]

_QUOTES = re.compile(r"^[\"']|[\"']$")
_WINDOWS_DRIVE = re.compile(r"^(?:[A-Za-z]:)(?:[\\/]|$)")


class State:
    """What the handlers share: the workspace and upstream's list of allowed directories."""

    __slots__ = ("__weakref__", "allowed", "workspace")

    def __init__(self, *, workspace: Workspace, allowed: tuple[str, ...]) -> None:
        self.workspace = workspace
        self.allowed = allowed
        """Upstream's ``allowedDirectories``: each directory as given (made absolute) and, when it differs, its
        real path; ``list_allowed_directories`` lists them and the access-denied texts name them."""

    @property
    def max_file_size(self) -> int:
        """The largest file read whole or edited, in bytes."""
        return self.workspace.max_file_size


def js_normalize(path: str) -> str:
    """Node's ``path.posix.normalize`` for an absolute path, or a relative one made absolute by the caller."""
    absolute = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append(part)
            continue
        parts.append(part)
    joined = "/".join(parts)
    return "/" + joined if absolute else (joined or ".")


def js_resolve(*segments: str) -> str:
    """Node's ``path.resolve``: the segments joined from the last absolute one (else the cwd), normalised."""
    resolved = ""
    for segment in reversed(segments):
        if not segment:
            continue
        resolved = f"{segment}/{resolved}" if resolved else segment
        if segment.startswith("/"):
            break
    if not resolved.startswith("/"):
        resolved = f"{os.getcwd()}/{resolved}"
    return js_normalize(resolved)


def js_relative(start: str, target: str) -> str:
    """Node's ``path.relative`` for two absolute paths."""
    a = [p for p in js_resolve(start).split("/") if p]
    b = [p for p in js_resolve(target).split("/") if p]
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return "/".join([".."] * (len(a) - common) + b[common:])


def normalize_path(path: str) -> str:
    """Upstream's ``normalizePath`` on POSIX: trimmed, one quote off each end, slashes collapsed, no trailing ``/``."""
    text = _QUOTES.sub("", path.strip(JS_SPACE))
    if text.startswith("/"):
        text = re.sub("/+", "/", text)
        return text[:-1] if len(text) > 1 and text.endswith("/") else text
    return js_normalize(text)


def within(path: str, directories: tuple[str, ...] | list[str]) -> bool:
    """Upstream's ``isPathWithinAllowedDirectories``: the same directory or below it, compared as strings."""
    if not path or "\x00" in path:
        return False
    candidate = js_resolve(path)
    for directory in directories:
        if not directory or "\x00" in directory:
            continue
        base = js_resolve(directory)
        if candidate == base or (base == "/" and candidate.startswith("/")) or candidate.startswith(base + "/"):
            return True
    return False


def _expand_home(path: str) -> str:
    if path == "~" or path.startswith("~/"):
        return js_normalize(os.path.expanduser("~") + "/" + path[1:])
    return path


def allowed_directories(directories: list[str]) -> tuple[str, ...]:
    """Upstream's list for its command-line directories: each made absolute, then its real path when it differs."""
    found: list[str] = []
    for directory in directories:
        absolute = js_resolve(_expand_home(directory))
        original = normalize_path(absolute)
        try:
            real = normalize_path(os.path.realpath(absolute, strict=True))
        except OSError:
            found.append(original)
            continue
        found.extend([original, real] if real != original else [real])
    return tuple(d for d in found if os.path.isdir(d))


def _realpath(path: str) -> str:
    """``fs.realpath``: the real path of an existing path, or the OSError (``ENOENT``, ``ENOTDIR``, ``ELOOP``)."""
    return os.path.realpath(path, strict=True)


def _resolve_missing(state: State, absolute: str, denied: str) -> str:
    """Upstream's ``resolveUnicodeEquivalentPath``: walk down from the allowed directory to what exists."""
    allowed = state.allowed
    normalized = normalize_path(absolute)
    directory = next((d for d in sorted(allowed, key=len, reverse=True) if within(normalized, [d])), None)
    if directory is None:
        return absolute
    current = _realpath(directory)
    parts = [p for p in js_relative(directory, absolute).split("/") if p]
    for index, part in enumerate(parts):
        try:
            entries = os.listdir(current)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                raise
            raise fail(node_error(exc, "scandir", current)) from None
        matches = [part] if part in entries else [
            e for e in entries if unicodedata.normalize("NFC", e) == unicodedata.normalize("NFC", part)]
        if len(matches) > 1:
            raise fail(f"Ambiguous Unicode path component: {part}")
        if not matches:
            return os.path.join(current, *parts[index:])
        current = _realpath(os.path.join(current, matches[0]))
        if not within(normalize_path(current), allowed) or not within(current, allowed):  # (untrimmed too)
            raise fail(f"Access denied - symlink target outside allowed directories: {current} not in {denied}")
    return current


def valid_path(state: State, requested: str) -> str:
    """Upstream's ``validatePath``: the path a tool may use, or upstream's error text.

    The result has also passed the Workspace (a denied path, git metadata for a write and the like raise the
    workspace's errors, which :func:`~.texts.render_error` words).

    Raises:
        ToolFailure: Upstream's texts (``Access denied - ...``, ``Parent directory does not exist: ...``, Node's
            ``realpath`` errors).
    """
    allowed = state.allowed
    denied = ", ".join(allowed)
    expanded = _expand_home(requested)
    if _WINDOWS_DRIVE.match(expanded):
        raise fail(f"Access denied - Windows-style path received on a POSIX host: {requested}", "outside_root")
    if expanded.startswith("/"):
        absolute = js_resolve(expanded)
    else:
        absolute = next((c for c in (js_resolve(d, expanded) for d in allowed) if within(normalize_path(c), allowed)),
                        None) or js_resolve(allowed[0], expanded)
    # upstream checks only the trimmed copy (normalize_path); we also check the path we go on with
    if not within(normalize_path(absolute), allowed) or not within(absolute, allowed):
        raise fail(f"Access denied - path outside allowed directories: {absolute} not in {denied}", "outside_root")
    try:
        real = _realpath(absolute)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise fail(node_error(exc, "realpath", absolute)) from None
        try:
            real = _resolve_missing(state, absolute, denied)
        except OSError as missing:
            if missing.errno == errno.ENOENT:
                raise fail(f"Parent directory does not exist: {os.path.dirname(absolute)}") from None
            raise fail(node_error(missing, "realpath", absolute)) from None
    else:
        # upstream checks only the trimmed copy: a link to the sibling "/abs/a " passed; we check the real path too
        if not within(normalize_path(real), allowed) or not within(real, allowed):
            raise fail(f"Access denied - symlink target outside allowed directories: {real} not in {denied}",
                       "outside_root")
    state.workspace.resolve(real)  # deny globs; containment once more on the real path
    return real
