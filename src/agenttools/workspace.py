"""The Workspace: the one place where agenttools turns a path argument into a real path it may touch.

Every family resolves paths through a :class:`Workspace`. Resolution follows symlinks first and then checks
containment on the real path with :func:`os.path.commonpath`, never a string prefix, so ``/root-evil`` is not
inside ``/root`` and a symlink pointing out of the root is caught wherever it sits in the path. A path that does
not exist yet (a file about to be created) is checked through its nearest existing parent, the same way.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._pathmatch import PathMatcher
from agenttools._text import file_kind
from agenttools.errors import (
    ConfigError,
    DeniedPathError,
    FileTooLargeError,
    IsDirectoryError,
    NotDirectoryError,
    NotFoundError,
    OutsideWorkspaceError,
    PathError,
    ProtectedPathError,
    SpecialFileError,
)

__all__ = ["DEFAULT_MAX_FILE_SIZE", "Workspace", "parse_size"]

DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
"""10 MiB: the default ``max_file_size``."""

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?i?b?)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}

Expect = Literal["any", "exists", "file", "dir"]


def parse_size(value: int | str) -> int:
    """Turn ``10485760``, ``"100B"``, ``"10MB"``, ``"10 MiB"``, ``"512k"`` or ``"1.5G"`` into bytes (1 KB = 1024).

    Raises:
        ConfigError: Not a size, or negative.
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(f"size must be an int or a string like '10MB', got {type(value).__name__}")
    if isinstance(value, int):
        if value < 0:
            raise ConfigError(f"size must not be negative, got {value}")
        return value
    match = _SIZE.match(value)
    if not match:
        raise ConfigError(f"invalid size {value!r}; use bytes or a unit such as '10MB', '512KiB', '1G'")
    unit = (match.group(2) or "").lower()[:1]
    return int(float(match.group(1)) * _UNITS[unit if unit in _UNITS else ""])  # "100B": plain bytes


def _is_git_dir(path: str, adding: str | None = None) -> bool:
    """Whether a directory may look like a git directory to git itself (``is_git_directory`` in git's setup.c).

    That is a ``HEAD`` — a file, or a symlink (git accepts a symlink to ``refs/...`` whether or not its target
    exists) — with ``objects`` and ``refs``, or with a ``commondir`` file (a linked worktree's git directory,
    whose objects and refs live elsewhere). Erring wide: ``objects``/``refs`` of any kind count, as git only
    checks that it can ``access`` them. With ``adding``, that entry counts as present: whether creating it would
    make ``path`` a git directory.
    """
    def has(name: str) -> bool:
        return name == adding or os.path.lexists(os.path.join(path, name))

    return has("HEAD") and (has("commondir") or (has("objects") and has("refs")))


_GIT_DIR_ENTRIES = frozenset({"HEAD", "objects", "refs", "commondir"})
"""The entries that make a directory a git directory (see :func:`_is_git_dir`)."""


def _real_dir(path: str | os.PathLike[str], what: str) -> str:
    real = os.path.realpath(os.fspath(path))
    if not os.path.isdir(real):
        raise ConfigError(f"{what} {os.fspath(path)!r} is not an existing directory")
    return real


class Workspace:
    """Where tools may read and write: allowed directories, deny patterns, a session cwd and size limits.

    Args:
        root: The main directory. Relative paths resolve against the session cwd, which starts here.
        allow_dirs: Directories paths must stay inside (default: ``[root]``). Symlinks in them are resolved once,
            here, so ``/tmp`` and ``/private/tmp`` are the same directory.
        deny: Doublestar globs such as ``**/.env`` or ``secrets/**``. A path is denied when the pattern matches it
            or any of its parent directories, checked on both the path as given (made absolute) and the real path.
            A pattern that does not start with ``/`` or ``**`` matches at any depth. Deny wins over allow.
        cwd: The initial session cwd (default: ``root``); must be inside the allowed directories. ``root`` itself
            is not checked against ``allow_dirs``: an editor may start in a directory it cannot touch.
        max_file_size: The largest file (bytes, or a string such as ``"10MB"``) that reading tools accept.

    Raises:
        ConfigError: A directory does not exist, a deny pattern is malformed, or a size is invalid.
    """

    __slots__ = ("_cwd", "_deny", "_named", "_root", "_roots", "max_file_size")

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        allow_dirs: Iterable[str | os.PathLike[str]] | None = None,
        deny: Iterable[str] = (),
        cwd: str | os.PathLike[str] | None = None,
        max_file_size: int | str = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        root_real = _real_dir(root, "root")
        allowed = None if allow_dirs is None else list(allow_dirs)
        dirs = [root_real] if allowed is None else [_real_dir(d, "allowed directory") for d in allowed]
        self._named = tuple(dict.fromkeys(os.path.abspath(os.fspath(d)) for d in [root, *(allowed or [])]))
        if not dirs:
            raise ConfigError("allow_dirs must name at least one directory")
        self._root = root_real
        self._roots: tuple[str, ...] = tuple(dict.fromkeys(dirs))
        patterns = []
        for pattern in deny:
            if not isinstance(pattern, str) or not pattern.strip():
                raise ConfigError(f"deny patterns must be non-empty strings, got {pattern!r}")
            anchored = pattern if pattern.startswith(("/", "**")) else "**/" + pattern
            try:  # matched on paths without their leading '/': a pattern's own '/' anchors it at the top
                matcher = compile_glob(anchored.rstrip("/").removeprefix("/"), below=True)
            except GlobSyntaxError as exc:
                raise ConfigError(f"invalid deny pattern {pattern!r}: {exc}") from None
            patterns.append((pattern, matcher))
        self._deny: tuple[tuple[str, PathMatcher], ...] = tuple(patterns)
        self.max_file_size: int = parse_size(max_file_size)
        """The largest file reading tools accept, in bytes."""
        self._cwd = root_real
        if cwd is not None:
            self.chdir(cwd)

    def __repr__(self) -> str:
        return f"Workspace(roots={self._roots!r}, cwd={self._cwd!r}, deny={[p for p, _ in self._deny]!r})"

    @property
    def root(self) -> Path:
        """The main directory (real path); the session cwd starts here."""
        return Path(self._root)

    @property
    def roots(self) -> tuple[Path, ...]:
        """Every allowed directory (real paths)."""
        return tuple(Path(r) for r in self._roots)

    @property
    def named_roots(self) -> tuple[str, ...]:
        """``root`` and the allowed directories as they were named (absolute, symlinks not resolved)."""
        return self._named

    @property
    def deny(self) -> tuple[str, ...]:
        """The deny patterns, as given."""
        return tuple(p for p, _ in self._deny)

    @property
    def cwd(self) -> Path:
        """The session working directory that relative paths resolve against."""
        return Path(self._cwd)

    def chdir(self, path: str | os.PathLike[str], *, contained: bool = True) -> Path:
        """Move the session cwd to ``path`` (relative paths resolve against the current cwd).

        With ``contained=False`` any existing directory is accepted (a shell that ``cd``-ed out of the workspace:
        file tools still refuse every path outside it).

        Raises:
            NotFoundError, NotDirectoryError, OutsideWorkspaceError, DeniedPathError, PathError: As for
                :meth:`resolve` with ``expect="dir"``.
        """
        if contained:
            self._cwd = str(self.resolve(path, expect="dir"))
        else:
            real = os.path.realpath(self.absolute(path))
            self._check_kind(real, "dir")
            self._cwd = real
        return self.cwd

    def absolute(self, path: str | os.PathLike[str]) -> str:
        """Make ``path`` absolute against the session cwd and normalise it lexically; no symlink is followed.

        Raises:
            PathError: The path is empty, not a string, or contains a NUL byte.
        """
        if not isinstance(path, str | os.PathLike):
            raise PathError(f"path must be a string, got {type(path).__name__}", path=repr(path))
        text = os.fspath(path)
        if not isinstance(text, str):
            raise PathError("path must be text, not bytes", path=repr(text))
        if not text:
            raise PathError("path must not be empty", path=text)
        if "\x00" in text:
            raise PathError("path contains a NUL byte", path=text)
        return os.path.normpath(os.path.join(self._cwd, text))

    def contains(self, real_path: str | os.PathLike[str]) -> bool:
        """Whether an already-resolved real path is inside one of the allowed directories (deny not applied)."""
        candidate = os.fspath(real_path)
        for root in self._roots:
            try:
                if os.path.commonpath([root, candidate]) == root:
                    return True
            except ValueError:  # different drives, or mixing absolute and relative
                continue
        return False

    def denied_by(self, path: str | os.PathLike[str]) -> str | None:
        """The deny pattern that matches ``path`` (absolute) or one of its parents, or None."""
        if not self._deny:
            return None
        text = os.fspath(path).replace(os.sep, "/")
        rooted = text.startswith("/")
        below_root = text[1:] if rooted else text
        for given, matcher in self._deny:
            # the path or any of its parents in one linear pass, then "/" itself (a list of every parent was
            # quadratic in memory and time for a model's path of 100,000 components)
            if matcher.match(below_root) or (rooted and matcher.match("")):
                return given
        return None

    def root_of(self, path: str | os.PathLike[str]) -> str | None:
        """The allowed directory an absolute path lies in (the innermost when several do), or None."""
        candidate = os.fspath(path)
        found = None
        for root in self._roots:
            try:
                if os.path.commonpath([root, candidate]) == root and (found is None or len(root) > len(found)):
                    found = root
            except ValueError:
                continue
        return found

    def protected_by(self, path: str | os.PathLike[str]) -> str | None:
        """The git metadata an absolute path is in, or None: where file tools may read but never write.

        That is an entry named ``.git`` (a directory, or the ``gitdir:`` file of a submodule or worktree; the name
        compared case-insensitively) at any depth below the allowed directory, or anything below one, or below a
        directory git would take for a git directory (a ``HEAD`` file, ``objects/`` and ``refs/``: a bare
        repository, or the target of a ``gitdir:`` pointer), or an entry whose creation would make its directory
        one (so a git directory cannot be assembled config first). Only components below the allowed directory
        count: the caller chose the root.
        """
        text = os.path.normpath(os.fspath(path))
        root = self.root_of(text)
        if root is None or text == root:
            return None
        parts = os.path.relpath(text, root).split(os.sep)
        current = root
        for part in parts:
            current = os.path.join(current, part)
            if part.casefold() == ".git":
                return current
        current = root
        for part in parts[:-1]:
            current = os.path.join(current, part)
            if _is_git_dir(current):
                return current
        current = root
        for index, part in enumerate(parts):
            # creating HEAD, objects, refs or commondir that completes a git directory's shape: its config may
            # have been written first, while it did not look like one
            if index and part in _GIT_DIR_ENTRIES and _is_git_dir(current, adding=part):
                return current
            current = os.path.join(current, part)
        return None

    def check_writable(self, *paths: str | os.PathLike[str]) -> None:
        """Raise :class:`ProtectedPathError` when any of the paths is inside git metadata (see :meth:`protected_by`).

        The error names the first path (give the real path first, then the path as given).

        Raises:
            ProtectedPathError: A path is inside git metadata.
        """
        for path in paths:
            directory = self.protected_by(path)
            if directory is not None:
                raise ProtectedPathError(path=os.fspath(paths[0]), directory=directory)

    def resolve(self, path: str | os.PathLike[str], *, expect: Expect = "any", write: bool = False) -> Path:
        """Resolve a path argument to the real path a tool may use, or raise why it may not.

        Relative paths resolve against the session cwd. Symlinks are followed (a path that does not exist yet is
        resolved through its nearest existing parent), then the real path must be inside an allowed directory
        and match no deny pattern. ``~`` is not expanded: it is an ordinary file name.

        Args:
            path: The path as the tool received it.
            expect: ``"any"`` (may not exist: a file to create), ``"exists"``, ``"file"`` (an existing regular
                file: directories, FIFOs, sockets and devices are refused) or ``"dir"``.
            write: The path is about to be written, created or deleted: refuse git metadata (both the path as
                given and its real path are checked; see :meth:`protected_by`).

        Raises:
            PathError: Empty, not a string, NUL byte, or a symlink loop.
            OutsideWorkspaceError: The real path is outside every allowed directory.
            DeniedPathError: The path or its real path matches a deny pattern.
            ProtectedPathError: ``write`` is set and the path or its real path is inside git metadata.
            NotFoundError: ``expect`` needs an existing path and there is none.
            IsDirectoryError / NotDirectoryError / SpecialFileError: The path is the wrong kind for ``expect``.
        """
        lexical = self.absolute(path)
        real = os.path.realpath(lexical)
        if os.path.lexists(real) and not os.path.exists(real):
            raise PathError(f"too many levels of symbolic links: {lexical}", path=os.fspath(path))
        if not self.contains(real):
            raise OutsideWorkspaceError(path=real, given=os.fspath(path), roots=self._roots)
        for candidate in (lexical, real):
            pattern = self.denied_by(candidate)
            if pattern is not None:
                raise DeniedPathError(path=real, pattern=pattern)
        if write:
            self.check_writable(real, lexical)
        if expect != "any":
            self._check_kind(real, expect)
        return Path(real)

    def resolve_entry(self, path: str | os.PathLike[str], *, write: bool = False) -> Path:
        """Resolve a path *without* following its last component: the entry itself (a symlink stays a symlink).

        The parent directory is resolved and checked as :meth:`resolve` does; the entry must not be an allowed
        directory itself nor match a deny pattern. Use it to delete or rename an entry; with ``write`` (to delete
        it) an entry inside git metadata is refused as well.

        Raises:
            PathError, OutsideWorkspaceError, DeniedPathError, ProtectedPathError: As for :meth:`resolve`; an
                allowed directory itself is an :class:`OutsideWorkspaceError` (it may not be removed).
        """
        lexical = self.absolute(path)
        name = os.path.basename(lexical)
        if name in ("", ".", ".."):
            real = str(self.resolve(lexical))
        else:
            real = os.path.join(self.resolve(os.path.dirname(lexical)), name)
        if real in self._roots:
            raise OutsideWorkspaceError(path=real, given=os.fspath(path), roots=self._roots)
        for candidate in (lexical, real):
            pattern = self.denied_by(candidate)
            if pattern is not None:
                raise DeniedPathError(path=real, pattern=pattern)
        if write:
            self.check_writable(real, lexical)
        return Path(real)

    def resolve_many(self, paths: Sequence[str | os.PathLike[str]], *, expect: Expect = "any") -> list[Path]:
        """Resolve several paths with the same rules (the first failure raises)."""
        return [self.resolve(p, expect=expect) for p in paths]

    def relative(self, path: str | os.PathLike[str]) -> str:
        """``path`` relative to the allowed directory that contains it, ``/``-separated (``.`` for the root)."""
        text = os.fspath(path)
        for root in self._roots:
            try:
                if os.path.commonpath([root, text]) == root:
                    return Path(os.path.relpath(text, root)).as_posix()
            except ValueError:
                continue
        return Path(text).as_posix()

    def check_size(self, path: str | os.PathLike[str], size: int | None = None, *, limit: int | None = None) -> int:
        """Return the size of ``path``, raising if it exceeds ``limit`` (default: ``max_file_size``).

        Raises:
            FileTooLargeError: The file is larger than the limit.
        """
        text = os.fspath(path)
        actual = os.stat(text).st_size if size is None else size
        bound = self.max_file_size if limit is None else limit
        if actual > bound:
            raise FileTooLargeError(path=text, size=actual, limit=bound)
        return actual

    @staticmethod
    def _check_kind(real: str, expect: Expect) -> None:
        try:
            mode = os.stat(real).st_mode
        except FileNotFoundError:
            raise NotFoundError(path=real) from None
        except NotADirectoryError:
            raise NotFoundError(f"{real} does not exist (a parent is not a directory)", path=real) from None
        if expect == "dir":
            if not stat.S_ISDIR(mode):
                raise NotDirectoryError(path=real)
        elif expect == "file":
            if stat.S_ISDIR(mode):
                raise IsDirectoryError(path=real)
            kind = file_kind(mode)
            if kind is not None:
                raise SpecialFileError(path=real, kind=kind)
