"""The git family: ``git diff`` run so that no byte of the workspace can make git run a program.

The repository (its ``.git/config``, ``.gitattributes``, hooks, submodules) is untrusted. Rather than listing every
configuration key that runs a program and overriding each one — a list that git grows, and that cannot name filter
or diff drivers it has not seen — git is run against a **shadow git directory**: a fresh temporary directory holding
a ``config`` this module writes (only the repository format and a few harmless presentation keys copied from the
real config, validated) plus the real index (``GIT_INDEX_FILE``) and object store (``GIT_OBJECT_DIRECTORY``). The
repository's own config, ``info/attributes``, hooks, ``commondir`` and worktree config are never read by the git
that computes the diff; system and global config are off (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``,
an empty ``HOME``), and the environment is rebuilt from scratch so no inherited ``GIT_*`` variable (``GIT_DIR``,
``GIT_EXTERNAL_DIFF``, ``GIT_CONFIG_PARAMETERS``...) reaches git. Drivers that ``.gitattributes`` names (``filter=``,
``diff=``) are defined nowhere, so git treats them as absent. docs/security.md and docs/toolsets/coder.md have the
full reasoning.
"""

from __future__ import annotations

import mmap
import os
import re
import shutil
import stat
import struct
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from agenttools import shell
from agenttools._walk import walk
from agenttools.errors import GitError

__all__ = ["GIT_OVERRIDES", "diff", "find_git", "safe_env"]

MAX_OUTPUT = 1024 * 1024
GIT_OVERRIDES = (
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.attributesFile=/dev/null", "core.pager=cat",
    "core.sshCommand=false", "core.askPass=false", "credential.helper=", "diff.external=",
    "diff.ignoreSubmodules=all", "protocol.allow=never", "submodule.recurse=false", "core.untrackedCache=false",
    "index.threads=1",
)
"""``-c`` overrides given on top of the shadow config (belt and braces: the shadow config sets none of them)."""
_DIFF_FLAGS = ("diff", "--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all")
_COPIED_KEYS = frozenset({
    "core.filemode", "core.symlinks", "core.ignorecase", "core.precomposeunicode", "core.autocrlf", "core.eol",
    "core.safecrlf", "core.quotepath", "diff.algorithm", "diff.context", "diff.interhunkcontext",
    "diff.indentheuristic", "diff.noprefix", "diff.mnemonicprefix", "diff.suppressblankempty",
})
_SAFE_VALUE = re.compile(r"[A-Za-z0-9_.+-]{1,32}")
_KEPT_ENV = ("LANG", "LANGUAGE", "TZ")
_MAX_SMALL_FILE = 64 * 1024
_MAX_ALTERNATE_DEPTH = 5

def _inside(root: str, path: str) -> bool:
    try:
        return os.path.commonpath([root, path]) == root
    except ValueError:
        return False


def _real_inside(root: str, path: str, what: str) -> str:
    """The real path of ``path``; it must lie inside ``root`` and be no FIFO, socket or device."""
    real = os.path.realpath(path)
    if not _inside(root, real):
        raise GitError(f"git_diff: {what} leads outside the project: {path}")
    try:
        mode = os.stat(real).st_mode
    except OSError:
        return real
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise GitError(f"git_diff: {what} is not a regular file or directory: {path}")
    return real


def _read_small(path: str) -> str:
    """A small regular file's text, read without blocking (a FIFO put there cannot hang the call)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise GitError(f"git_diff: cannot read {path}: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise GitError(f"git_diff: not a regular file: {path}")
        return os.read(fd, _MAX_SMALL_FILE).decode("utf-8", errors="replace")
    finally:
        os.close(fd)


def _locate(root: str) -> tuple[str, str]:
    """``(git dir, common dir)`` of the repository whose work tree is ``root``; both must be inside ``root``."""
    dotgit = os.path.join(root, ".git")
    if not os.path.lexists(dotgit):
        raise GitError("not a git repository: the project directory has no .git")
    real = _real_inside(root, dotgit, ".git")
    if os.path.isdir(real):
        git_dir = real
    else:
        text = _read_small(real).strip()
        if not text.startswith("gitdir:"):
            raise GitError("not a git repository: .git is neither a directory nor a gitdir file")
        target = os.path.join(os.path.dirname(real), text.removeprefix("gitdir:").strip())
        git_dir = _real_inside(root, target, "the gitdir named in .git")
    common = git_dir
    commondir = os.path.join(git_dir, "commondir")
    if os.path.lexists(commondir):
        named = _read_small(_real_inside(root, commondir, "commondir")).strip()
        common = _real_inside(root, os.path.join(git_dir, named), "the commondir of the git directory")
    if not os.path.isdir(git_dir) or not os.path.isdir(common):
        raise GitError("not a git repository: its git directory is missing")
    return git_dir, common


def _check_objects(root: str, objects: str, depth: int = 0) -> None:
    """Refuse an object store that borrows from outside ``root``: alternates, or symlinks below it."""
    for _, entry, is_dir in walk(objects):
        if entry.is_symlink():
            _real_inside(root, entry.path, "a symlink in the object store")
        elif not is_dir and not entry.is_file(follow_symlinks=False):
            raise GitError(f"git_diff: not a regular file in the object store: {entry.path}")
    alternates = os.path.join(objects, "info", "alternates")
    if not os.path.lexists(alternates):
        return
    if depth >= _MAX_ALTERNATE_DEPTH:
        raise GitError("git_diff: too many nested alternate object stores")
    text = _read_small(_real_inside(root, alternates, "objects/info/alternates"))
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            raise GitError(f"git_diff: quoted alternate object stores are not supported: {line}")
        other = _real_inside(root, os.path.join(objects, line), "an alternate object store")
        _check_objects(root, other, depth + 1)


def _varint(data: bytes | mmap.mmap, pos: int) -> tuple[int, int]:
    """The offset varint of git's ``varint.c`` at ``pos``: ``(value, position after it)``."""
    byte = data[pos]
    pos += 1
    value = byte & 127
    while byte & 128:
        byte = data[pos]
        pos += 1
        value = ((value + 1) << 7) + (byte & 127)
    return value, pos


def _strlen(data: bytes | mmap.mmap, pos: int) -> int:
    end = data.find(b"\0", pos)
    if end < 0:
        raise ValueError("unterminated name")
    return end - pos


def _index_names(data: bytes | mmap.mmap, hash_size: int) -> Iterator[tuple[bytes, int]]:
    """Every entry's ``(name, mode)`` in a git index, read as git's ``read-cache.c`` reads it in one thread."""
    if len(data) < 12 or data[:4] != b"DIRC":
        raise GitError("git_diff: the index is not a git index")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4):
        raise GitError(f"git_diff: unsupported index version {version}")
    offset, previous = 12, b""
    for number in range(count):
        (mode,) = struct.unpack(">I", data[offset + 24:offset + 28])
        pos = offset + 40 + hash_size
        (flags,) = struct.unpack(">H", data[pos:pos + 2])
        pos += 4 if flags & 0x4000 else 2
        length = flags & 0xFFF
        if version == 4:
            strip, pos = _varint(data, pos)
            if number and strip > len(previous):
                raise GitError("git_diff: malformed name in the index")
            copied = len(previous) - strip if number else 0
            if length == 0xFFF:
                length = _strlen(data, pos) + copied
            if length < copied:
                raise GitError("git_diff: malformed name in the index")
            name = previous[:copied] + bytes(data[pos:pos + length - copied])
            offset = pos + length - copied + 1
        else:
            if length == 0xFFF:
                length = _strlen(data, pos)
            name = bytes(data[pos:pos + length])
            offset += (40 + hash_size + (4 if flags & 0x4000 else 2) + length + 8) & ~7
        if len(name) != length or offset > len(data):
            raise GitError("git_diff: the index is truncated")
        yield name, mode
        previous = name


def _check_index(index: str, hash_size: int) -> None:
    """Refuse an index naming a path git would read outside the work tree (``../x``, ``/etc/x``, ``a/../../x``).

    git checks index paths when it writes them, never when it reads them: ``git diff`` would ``lstat`` and read
    whatever file a crafted index entry names, and print it. A NUL inside a name (git would cut the name there) is
    refused too. The index is read the way git reads it with ``index.threads=1`` (also given to git).
    """
    try:
        fd = os.open(index, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise GitError(f"git_diff: cannot read the index: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise GitError(f"git_diff: not a regular file: {index}")
        if info.st_size == 0:
            raise GitError("git_diff: the index is not a git index")
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
            try:
                for name, mode in _index_names(data, hash_size):
                    _check_index_name(name, mode)
            except (IndexError, ValueError, struct.error):
                raise GitError("git_diff: the index is truncated or malformed") from None
    finally:
        os.close(fd)


def _check_index_name(name: bytes, mode: int) -> None:
    text = name[:-1] if stat.S_ISDIR(mode) and name.endswith(b"/") else name  # a sparse directory entry
    if b"\0" in text or text.startswith(b"/") or any(part in (b"", b".", b"..") for part in text.split(b"/")):
        shown = text.decode("utf-8", errors="backslashreplace")
        raise GitError(f"git_diff: the index names a path outside the work tree: {shown!r}")


def find_git() -> str:
    """Git's absolute path, looked up on the absolute entries of PATH only (a relative entry would be the project)."""
    for directory in _absolute_path():
        candidate = os.path.join(directory, "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise GitError("git is not available: no git executable on PATH")


def _absolute_path() -> list[str]:
    return [d for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if d and os.path.isabs(d)]


def safe_env(shadow: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: built from scratch, never a copy of this process's.

    Only the locale, the time zone, the absolute ``PATH`` entries and agenttools' own markers are kept; ``HOME``
    and ``XDG_CONFIG_HOME`` point into ``shadow`` (empty), system and global config and system attributes are
    off, optional locks (index refreshes) are off and nothing may prompt, page or fetch.
    """
    env = {key: value for key, value in os.environ.items()
           if key in _KEPT_ENV or key.startswith(("LC_", "AGENTTOOLS_"))}
    home = os.path.join(shadow, "home")
    env.update({
        "PATH": os.pathsep.join(_absolute_path()), "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_SYSTEM": os.devnull, "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ATTR_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_NO_LAZY_FETCH": "1", "GIT_PROTOCOL_FROM_USER": "0", "GIT_ALLOW_PROTOCOL": "none",
        "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "GIT_ADVICE": "0",
    })
    env.update(extra or {})
    return env


def _run(argv: list[str], cwd: str, env: dict[str, str]) -> shell.ShellResult:
    result = shell.run_command(argv, cwd=cwd, timeout=60, max_output=MAX_OUTPUT, env=env)
    if result.error is not None:
        raise GitError(f"git is not available: {result.error}")
    return result


def _copied_config(git: str, config: str, shadow: str) -> dict[str, str]:
    """The few keys copied from the repository's config, read with ``git config --file --no-includes --list``.

    Listing a file runs nothing and follows no ``include``; only keys in ``_COPIED_KEYS`` with plain values, and
    ``extensions.objectformat`` (sha1 or sha256), are kept.
    """
    if not os.path.exists(config):
        return {}
    result = _run([git, "config", "--file", config, "--no-includes", "--null", "--list"], shadow,
                  safe_env(shadow, {"GIT_DIR": shadow}))
    if result.exit_code != 0:
        raise GitError(f"git_diff: cannot read the repository's config: {result.stderr.strip()}")
    kept: dict[str, str] = {}
    for item in result.stdout.split("\0"):
        key, _, value = item.partition("\n")
        key = key.lower()
        if key == "extensions.objectformat":
            if value.lower() not in ("sha1", "sha256"):
                raise GitError(f"git_diff: unsupported object format: {value}")
            kept[key] = value.lower()
        elif key in _COPIED_KEYS and _SAFE_VALUE.fullmatch(value):
            kept[key] = value
    return kept


def _write_shadow(shadow: str, copied: dict[str, str]) -> None:
    os.mkdir(os.path.join(shadow, "refs"))
    os.mkdir(os.path.join(shadow, "home"))
    Path(shadow, "HEAD").write_text("ref: refs/heads/agenttools-shadow\n")
    sections: dict[str, list[str]] = {"core": [], "diff": [], "extensions": []}
    object_format = copied.pop("extensions.objectformat", "sha1")
    sections["core"] += [f"repositoryformatversion = {1 if object_format != 'sha1' else 0}", "bare = false"]
    if object_format != "sha1":
        sections["extensions"].append(f"objectformat = {object_format}")
    for key, value in sorted(copied.items()):
        section, name = key.split(".", 1)
        sections[section].append(f"{name} = {value}")
    text = "".join(f"[{name}]\n" + "".join(f"\t{line}\n" for line in lines)
                   for name, lines in sections.items() if lines)
    Path(shadow, "config").write_text(text)


def diff(root: str | os.PathLike[str], *, exclude: Sequence[str] = ()) -> str:
    """``git diff`` (work tree against index) of the repository at ``root``, computed by a git that runs nothing.

    ``exclude`` holds glob pathspecs (``**/.env``) whose files are left out of the diff.

    Raises:
        GitError: No repository at ``root``, its git data leads outside ``root``, git is missing, or git failed
            (its stderr is the message).
    """
    top = os.path.realpath(os.fspath(root))
    git_dir, common = _locate(top)
    objects = _real_inside(top, os.path.join(common, "objects"), "the object store")
    if not os.path.isdir(objects):
        raise GitError("not a git repository: it has no object store")
    _check_objects(top, objects)
    index = os.path.join(git_dir, "index")
    config = os.path.join(common, "config")
    if os.path.lexists(config):
        config = _real_inside(top, config, ".git/config")
    git = find_git()
    shadow = tempfile.mkdtemp(prefix="agenttools-git-")
    try:
        copied = _copied_config(git, config, shadow)
        hash_size = 32 if copied.get("extensions.objectformat") == "sha256" else 20
        _write_shadow(shadow, copied)
        if os.path.lexists(index):
            index = _real_inside(top, index, "the index")
            _check_index(index, hash_size)
        else:
            index = os.path.join(shadow, "index")  # no index yet: an empty one, nothing to diff
        env = safe_env(shadow, {"GIT_DIR": shadow, "GIT_WORK_TREE": top, "GIT_INDEX_FILE": index,
                                "GIT_OBJECT_DIRECTORY": objects})
        argv = [git, "--no-pager"]
        for override in GIT_OVERRIDES:
            argv += ["-c", override]
        excluded = [f":(exclude,glob){pattern.lstrip('/')}" for pattern in exclude]
        result = _run([*argv, *_DIFF_FLAGS, *(["--", ".", *excluded] if excluded else [])], top, env)
    finally:
        shutil.rmtree(shadow, ignore_errors=True)
    if result.timed_out:
        raise GitError("git diff timed out after 60 seconds")
    if result.exit_code not in (0, 1) or (result.stderr and not result.stdout):
        raise GitError(result.stderr.strip() or f"git diff failed with exit status {result.exit_code}")
    return result.stdout
