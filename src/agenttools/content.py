"""The content family: curated documentation served by category and collection (mcp-guide's model).

A :class:`Project` has a docroot, categories (a directory under the docroot and default glob patterns) and
collections (named groups of categories). Build one from keyword arguments, a dict, or a TOML/JSON file; make it
current with :func:`session` (a context variable, so concurrent async requests can serve different projects).
:func:`discover` finds a category's documents and :func:`read_document` reads one, bounded; how they are shown
to a model is the content toolset's business (``agenttools.toolsets.content``).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from agenttools._glob import GlobSyntaxError, compile_glob
from agenttools._lazy import lazy_module
from agenttools._walk import walk
from agenttools.errors import ConfigError
from agenttools.workspace import parse_size

if TYPE_CHECKING:
    import tomllib
else:
    tomllib = lazy_module("tomllib")  # only a TOML content config needs it

__all__ = ["DEFAULT_MAX_FILE_SIZE", "DEFAULT_MAX_TOTAL_SIZE", "MAX_PATTERN_CHARS", "Category", "Collection",
           "DocrootEscapeError", "Document", "DocumentTooLargeError", "PatternRuleError", "Project", "category_base",
           "current_project", "discover", "is_hidden", "read_document", "session"]

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,30}\Z")
MAX_DOCUMENTS_PER_GLOB = 100
DEFAULT_MAX_FILE_SIZE = 10 << 20
"""Largest document served (bytes); a larger one is a read error, found by ``fstat`` before any byte is read."""
DEFAULT_MAX_TOTAL_SIZE = 32 << 20
"""Largest total of the documents of one answer (bytes)."""
MAX_PATTERN_CHARS = 1024
"""Longest ``pattern`` argument: each one is compiled to regexes (four variants), so its length is bounded."""

def _name(kind: str, value: Any) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise ConfigError(f"{kind} name {value!r} must be 1-30 characters of letters, digits, '_' or '-'")
    return value


def _category_name(value: Any) -> str:
    return _name("category", value)


def _collection_name(value: Any) -> str:
    return _name("collection", value)


def _to_path(value: str | os.PathLike[str]) -> Path:
    return Path(value).resolve()


def _check_dir(instance: Category, attribute: attrs.Attribute[str], value: Any) -> None:
    """A category ``dir``: a relative path without ``..`` (mcp-guide's ``validate_directory_path`` rules)."""
    where = f"category {instance.name!r}: dir {value!r}"
    if not isinstance(value, str) or "\x00" in value:
        raise ConfigError(f"{where} must be a string without NUL")
    if os.path.isabs(value) or value.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", value):
        raise ConfigError(f"{where} must be inside the docroot: Absolute paths are not allowed")
    if ".." in value.replace("\\", "/").split("/"):
        raise ConfigError(f"{where} must be inside the docroot: Path traversal is not allowed")


def _size(value: Any) -> int:
    return parse_size(value)


def _to_tuple(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(str(v) for v in value)


@attrs.frozen(kw_only=True)
class Category:
    """A directory of documents under the docroot, with default patterns."""

    name: str = attrs.field(converter=_category_name)
    """Its name."""
    dir: str = attrs.field(validator=_check_dir)
    """Its directory, relative to the docroot (absolute paths and ``..`` are refused)."""
    patterns: tuple[str, ...] = attrs.field(converter=_to_tuple, default=("*.md",))
    """Glob patterns used when a request gives none."""
    description: str = ""
    """What it holds."""


@attrs.frozen(kw_only=True)
class Collection:
    """A named, ordered group of categories."""

    name: str = attrs.field(converter=_collection_name)
    """Its name (its id)."""
    categories: tuple[str, ...] = attrs.field(converter=_to_tuple)
    """The categories it groups, in order."""
    description: str = ""
    """What it is for."""


def _items(kind: type[Any], values: Sequence[Any] | None) -> tuple[Any, ...]:
    out = []
    for value in values or ():
        if isinstance(value, kind):
            out.append(value)
        elif isinstance(value, Mapping):
            try:
                out.append(kind(**value))
            except TypeError as exc:
                raise ConfigError(f"invalid {kind.__name__.lower()} {dict(value)!r}: {exc}") from None
        else:
            raise ConfigError(f"a {kind.__name__.lower()} must be a mapping, got {value!r}")
    names = [item.name for item in out]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"duplicate {kind.__name__.lower()} names: {', '.join(duplicates)}")
    return tuple(out)


@attrs.frozen(kw_only=True)
class Project:
    """A docroot with its categories and collections."""

    docroot: Path = attrs.field(converter=_to_path)
    """The directory category dirs are relative to."""
    categories: tuple[Category, ...] = ()
    """The categories, in order."""
    collections: tuple[Collection, ...] = ()
    """The collections, in order."""
    max_file_size: int = attrs.field(converter=_size, default=DEFAULT_MAX_FILE_SIZE)
    """Largest document served, in bytes (``"10MB"`` strings accepted)."""
    max_total_size: int = attrs.field(converter=_size, default=DEFAULT_MAX_TOTAL_SIZE)
    """Largest total of the documents of one answer, in bytes."""

    @classmethod
    def build(cls, *, docroot: str | os.PathLike[str] | None = None, categories: Sequence[Any] | None = None,
              collections: Sequence[Any] | None = None, config: str | os.PathLike[str] | None = None,
              max_file_size: int | str | None = None, max_total_size: int | str | None = None) -> Project:
        """A project from options, or from a TOML/JSON ``config`` file with the same keys.

        ``max_file_size`` and ``max_total_size`` given here override the config file's.

        Raises:
            ConfigError: Missing docroot, bad names, duplicate names, a category ``dir`` that is absolute or has
                ``..``, a bad size, unreadable or malformed config.
        """
        limits: dict[str, Any] = {k: v for k, v in (("max_file_size", max_file_size),
                                                     ("max_total_size", max_total_size)) if v is not None}
        if config is not None:
            if docroot is not None or categories is not None or collections is not None:
                raise ConfigError("give either config= or docroot=/categories=/collections=, not both")
            project = cls.from_file(config)
            return attrs.evolve(project, **limits) if limits else project
        if docroot is None:
            raise ConfigError("a content project needs docroot=")
        if not Path(docroot).is_dir():
            raise ConfigError(f"docroot {os.fspath(docroot)!r} is not an existing directory")
        return cls(docroot=Path(docroot), categories=_items(Category, categories),
                   collections=_items(Collection, collections), **limits)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Project:
        """Read a TOML (``.toml``) or JSON file; a relative docroot is relative to the file's directory."""
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
            if file.suffix.lower() == ".toml":
                data = tomllib.loads(text)
            else:
                data = json.loads(text)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read content config {os.fspath(path)!r}: {exc}") from None
        if not isinstance(data, Mapping) or "docroot" not in data:
            raise ConfigError(f"content config {os.fspath(path)!r} needs a docroot key")
        unknown = set(data) - {"docroot", "categories", "collections", "max_file_size", "max_total_size"}
        if unknown:
            raise ConfigError(f"unknown keys in content config: {', '.join(sorted(unknown))}")
        docroot = file.parent / str(data["docroot"])
        return cls.build(docroot=docroot, categories=data.get("categories"), collections=data.get("collections"),
                         max_file_size=data.get("max_file_size"), max_total_size=data.get("max_total_size"))

    def category(self, name: str) -> Category | None:
        """The category of that name, or None."""
        return next((c for c in self.categories if c.name == name), None)

    def collection(self, name: str) -> Collection | None:
        """The collection of that name, or None."""
        return next((c for c in self.collections if c.name == name), None)


_CURRENT: contextvars.ContextVar[Project | None] = contextvars.ContextVar("agenttools_content_project", default=None)


def current_project() -> Project | None:
    """The project of the current session (context variable), or None."""
    return _CURRENT.get()


@contextlib.contextmanager
def session(**options: Any) -> Iterator[Project]:
    """Make a project current inside the ``with`` block.

    Use ``session(docroot=..., categories=[...])``, ``session(config="guide.toml")`` or
    ``session(project=Project(...))``.
    """
    project = options.pop("project", None)
    if project is None:
        project = Project.build(**options)
    token = _CURRENT.set(project)
    try:
        yield project
    finally:
        _CURRENT.reset(token)


class PatternRuleError(ValueError):
    """A pattern breaks the content rules (``.mustache`` suffix, absolute, ``..``, bad syntax, too long)."""


class DocrootEscapeError(ValueError):
    """A category directory whose real path (symlinks resolved) is outside the docroot; upstream's text."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = base_dir
        super().__init__(f"Base directory must be within docroot: {base_dir}")


@attrs.frozen(kw_only=True)
class Document:
    """A document found in a category."""

    category: str
    """The category it was found in."""
    path: str
    """Its path relative to the category directory (``/``-separated; a template keeps ``.mustache``)."""
    basename: str
    """The file name without ``.mustache``."""
    real_path: Path
    """Its real path."""
    size: int
    """Size in bytes."""
    mtime: float
    """Modification time."""

    @property
    def is_template(self) -> bool:
        """Whether it is a ``.mustache`` template (returned raw)."""
        return self.path.endswith(".mustache")


def fnmatch_glob(pattern: str) -> str:
    r"""A pattern in fnmatch's syntax (mcp-guide's) written in :mod:`agenttools._glob`'s, to match the same names.

    fnmatch has no escape character and no braces: ``\``, ``{`` and ``}`` are literal, and so is a ``^`` opening
    a bracket expression (only ``[!...]`` negates); inside brackets a backslash is literal too. An unclosed ``[``
    is left as it is, so that :func:`~agenttools._glob.compile_glob` reports it.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j < n:
                body = pattern[i + 1:j].replace("\\", "\\\\")
                out.append("[" + ("\\" + body if body.startswith("^") else body) + "]")
                i = j + 1
                continue
        out.append("\\" + ch if ch in "\\{}" else ch)
        i += 1
    return "".join(out)


def _expand(pattern: str) -> list[str]:
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternRuleError(f"Pattern is too long: {len(pattern)} characters (at most {MAX_PATTERN_CHARS})")
    if pattern.endswith(".mustache"):
        raise PatternRuleError(f"Patterns should not include .mustache extension: {pattern}. Template files are "
                               "automatically discovered.")
    if pattern.startswith("/") or ".." in pattern.replace("\\", "/").split("/"):
        raise PatternRuleError(f"Pattern must stay inside the category directory: {pattern}")
    variants = [pattern]
    if "." not in pattern.rsplit("/", 1)[-1]:
        variants.append(pattern + ".*")  # an extensionless root name: intro -> intro and intro.*
    out = []
    for variant in variants:
        out += [variant, variant + ".mustache"]
    return out


def is_hidden(rel: str) -> bool:
    """Whether a ``/``-separated path relative to a category directory is excluded (hidden, ``__``, ``*_.json``)."""
    return any(part.startswith((".", "__")) for part in rel.split("/")) or rel.endswith("_.json")


def _walk(base: str) -> Iterator[tuple[str, str]]:
    """``(path relative to base, full path)`` of every entry that is not a directory, hidden parts pruned.

    Symlinked directories are not descended, entries come in name order, unreadable directories are passed by.
    """
    for rel, entry, is_dir in walk(base, sort=True, enter=lambda rel, e: not e.name.startswith((".", "__"))):
        if not is_dir and not entry.name.startswith((".", "__")):
            yield rel, entry.path


def category_base(project: Project, category: Category) -> Path:
    """The real path of a category's directory, checked to be inside the docroot.

    Raises:
        DocrootEscapeError: Its real path (a ``..`` or symlink on the way) is outside the docroot.
        FileNotFoundError: It does not exist, is not a directory, or its path has a symlink loop.
    """
    given = project.docroot / category.dir
    real = Path(os.path.realpath(given))
    if not real.is_relative_to(project.docroot):
        raise DocrootEscapeError(given)
    try:
        is_dir = stat.S_ISDIR(os.stat(real).st_mode)
    except (OSError, ValueError):
        is_dir = False
    if not is_dir:
        raise FileNotFoundError(f"Category directory not found: {real}")
    return real


def _real_file(path: str) -> tuple[Path, os.stat_result] | None:
    """The real path and stat of a regular file behind ``path``, or None (a loop, a dangling link, not a file)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except (OSError, ValueError):
        return None
    return (Path(real), st) if stat.S_ISREG(st.st_mode) else None


def discover(project: Project, category: Category, patterns: Sequence[str]) -> list[Document]:
    """The category's documents matching any of ``patterns``, sorted by path, each once.

    Patterns are in fnmatch's syntax (:func:`fnmatch_glob`), with ``**`` across directories. Hidden paths (a part
    starting with ``.`` or ``__``) and ``*_.json`` files are excluded, on the path found and on the real path of a
    symlink alike; symlinks are resolved, a document's ``path`` is its real path (a link to a file of the category is
    that file), and anything outside the category directory is dropped, as is a link that loops or dangles; a
    template is used only when no plain file has its name.

    Raises:
        PatternRuleError: A pattern breaks the rules.
        DocrootEscapeError: The category directory's real path is outside the docroot.
        FileNotFoundError: The category directory does not exist.
    """
    base = category_base(project, category)
    matchers = []
    for pattern in patterns:
        for variant in _expand(pattern):
            try:
                matchers.append(compile_glob(fnmatch_glob(variant)))
            except GlobSyntaxError as exc:
                raise PatternRuleError(f"Invalid pattern {pattern!r}: {exc}") from None
    chosen: dict[str, Document] = {}
    seen_real: set[Path] = set()
    for rel, full in _walk(str(base)):
        name = rel.rpartition("/")[2]
        if name.endswith("_.json") or not any(m.match(rel) for m in matchers):
            continue
        found = _real_file(full)
        if found is None:
            continue
        real, st = found
        if not real.is_relative_to(base) or real in seen_real:
            continue
        path = real.relative_to(base).as_posix()  # a symlink is served as the file it points to (upstream)
        if is_hidden(path):
            continue
        key = path.removesuffix(".mustache")
        if key in chosen and not chosen[key].is_template:
            continue
        seen_real.add(real)
        chosen[key] = Document(category=category.name, path=path, basename=real.name.removesuffix(".mustache"),
                               real_path=real, size=st.st_size, mtime=st.st_mtime)
    return [chosen[key] for key in sorted(chosen)][:MAX_DOCUMENTS_PER_GLOB]


class DocumentTooLargeError(OSError):
    """A document over the project's ``max_file_size`` (found by ``fstat``, or while reading a growing file)."""


def read_document(document: Document, limit: int) -> str:
    """A document's text, read only when ``fstat`` on the open file says it fits in ``limit`` bytes.

    The text is what Python's text mode reads, as upstream reads it: strict UTF-8, with universal newlines
    (``\r\n`` and a lone ``\r`` become ``\n``).

    The file is opened without blocking and without following a symlink swapped in since discovery, must still be a
    regular file, and is read at most ``limit + 1`` bytes far, so a file that grows while read cannot flood memory.

    Raises:
        DocumentTooLargeError: Over ``limit`` bytes.
        OSError: It cannot be opened or read, or is no longer a regular file.
        UnicodeDecodeError: It is not UTF-8.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(document.real_path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"not a regular file: {document.real_path}")
        if st.st_size > limit:
            raise DocumentTooLargeError(f"file is {st.st_size} bytes, over the {limit}-byte limit")
        chunks, total = [], 0
        while chunk := os.read(fd, min(limit + 1 - total, 1 << 20) or 1):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise DocumentTooLargeError(f"file grew past the {limit}-byte limit while read")
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
