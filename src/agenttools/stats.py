"""The stats family: count lines of code per language (blank, comment, code), cloc-style, in pure Python.

Languages are recognised by file extension (and a few file names); each line is blank, comment (line comments,
and every line a block comment touches when it holds nothing else) or code (a line with any code, trailing
comments included). A block comment is followed wherever on a line it opens and closes; Python's triple-quoted
strings count as block comments. Markers inside string literals are taken as markers. Version-control directories
are skipped; ``exclude_dirs`` adds more names.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

import attrs

from agenttools._calls import current_scope, raise_if_cancelled
from agenttools._display import MarkdownRepr
from agenttools._text import open_regular, read_fd
from agenttools._walk import walk

__all__ = ["LanguageCount", "LineCount", "count_lines", "language_of"]

_C = (("//",), (("/*", "*/"),))
_HASH = (("#",), ())
_LANGUAGES: dict[str, tuple[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]]] = {}


def _register(name: str, extensions: str, syntax: tuple[tuple[str, ...], tuple[tuple[str, str], ...]]) -> None:
    for ext in extensions.split():
        _LANGUAGES[ext] = (name, syntax)


_register("Python", ".py .pyi .pyw", (("#",), (('"""', '"""'), ("'''", "'''"))))
_register("C", ".c", _C)
_register("C/C++ Header", ".h .hh .hpp .hxx", _C)
_register("C++", ".cc .cpp .cxx .c++", _C)
_register("C#", ".cs", _C)
_register("Go", ".go", _C)
_register("Rust", ".rs", _C)
_register("Java", ".java", _C)
_register("Kotlin", ".kt .kts", _C)
_register("Swift", ".swift", _C)
_register("Scala", ".scala", _C)
_register("JavaScript", ".js .mjs .cjs .jsx", _C)
_register("TypeScript", ".ts .tsx .mts .cts", _C)
_register("CSS", ".css", ((), (("/*", "*/"),)))
_register("SCSS", ".scss", _C)
_register("PHP", ".php", (("//", "#"), (("/*", "*/"),)))
_register("HTML", ".html .htm .xhtml", ((), (("<!--", "-->"),)))
_register("XML", ".xml .xsd .xsl", ((), (("<!--", "-->"),)))
_register("Markdown", ".md .markdown", ((), (("<!--", "-->"),)))
_register("reStructuredText", ".rst", ((), ()))
_register("JSON", ".json", ((), ()))
_register("YAML", ".yaml .yml", _HASH)
_register("TOML", ".toml", _HASH)
_register("INI", ".ini .cfg", ((";", "#"), ()))
_register("Bourne Shell", ".sh", _HASH)
_register("Bourne Again Shell", ".bash", _HASH)
_register("Ruby", ".rb", (("#",), (("=begin", "=end"),)))
_register("Perl", ".pl .pm", _HASH)
_register("Lua", ".lua", (("--",), (("--[[", "]]"),)))
_register("SQL", ".sql", (("--",), (("/*", "*/"),)))
_register("make", ".mk .mak", _HASH)
_register("Dockerfile", ".dockerfile", _HASH)
_NAMES = {"Makefile": "make", "makefile": "make", "GNUmakefile": "make", "Dockerfile": "Dockerfile"}
_SYNTAX_BY_NAME = dict(_LANGUAGES.values())
VCS_DIRS = frozenset({".git", ".svn", ".hg", ".bzr", "CVS"})


@attrs.frozen(kw_only=True)
class LanguageCount:
    """Totals for one language."""

    language: str
    """The language's name (cloc's names)."""
    files: int
    """Files counted."""
    blank: int
    """Blank lines."""
    comment: int
    """Comment-only lines."""
    code: int
    """Lines with code."""


@attrs.frozen(kw_only=True)
class LineCount(MarkdownRepr):
    """What :func:`count_lines` found."""

    languages: tuple[LanguageCount, ...]
    """One entry per language, most code first (ties by name)."""
    text_files: int
    """Files seen."""
    ignored: int
    """Files seen but not counted (unknown language, unreadable, binary, over ``max_file_size``)."""
    too_large: int = 0
    """Of the ignored files, those skipped unread for being larger than ``max_file_size``."""

    @property
    def total(self) -> LanguageCount:
        """The SUM row."""
        return LanguageCount(language="SUM", files=sum(x.files for x in self.languages),
                             blank=sum(x.blank for x in self.languages),
                             comment=sum(x.comment for x in self.languages),
                             code=sum(x.code for x in self.languages))


def language_of(path: str) -> str | None:
    """The language a file name implies, or None."""
    name = os.path.basename(path)
    if name in _NAMES:
        return _NAMES[name]
    entry = _LANGUAGES.get(os.path.splitext(name)[1].lower())
    return entry[0] if entry else None


def _classify(text: str, syntax: tuple[tuple[str, ...], tuple[tuple[str, str], ...]]) -> tuple[int, int, int]:
    line_markers, blocks = syntax
    markers = [(m, None) for m in line_markers] + [(o, c) for o, c in blocks]
    markers.sort(key=lambda pair: -len(pair[0]))  # at one place the longer wins: Lua's ``--[[`` over ``--``
    blank = comment = code = 0
    closing: str | None = None
    lines = text.split("\n")
    if not lines[-1]:
        lines.pop()  # the empty piece after the final newline (or of an empty file) is not a line
    for raw in lines:
        line = raw.strip()
        if not line:
            if closing is None:
                blank += 1
            else:
                comment += 1  # a blank line inside a block comment is part of it
            continue
        has_code = False
        pos = 0
        while pos < len(line):
            if closing is not None:
                end = line.find(closing, pos)
                if end == -1:
                    break
                pos = end + len(closing)
                closing = None
                continue
            first = -1
            found: tuple[str, str | None] | None = None
            for marker in markers:
                at = line.find(marker[0], pos)
                if at != -1 and (first == -1 or at < first):
                    first, found = at, marker
            if found is None:
                has_code = has_code or bool(line[pos:].strip())
                break
            has_code = has_code or bool(line[pos:first].strip())
            if found[1] is None:  # a line comment runs to the end of the line
                break
            closing = found[1]
            pos = first + len(found[0])
        if has_code:
            code += 1
        else:
            comment += 1
    return blank, comment, code


def _walk(top: str, skip: frozenset[str] | set[str], exclude: Callable[[str], bool] | None) -> Iterator[str]:
    """The regular files below ``top``; symlinks, FIFOs, sockets and devices passed by, ``skip`` dirs not entered."""
    def enter(rel: str, entry: os.DirEntry[str]) -> bool:
        return entry.name not in skip and not (exclude is not None and exclude(entry.path))

    for _, entry, is_dir in walk(top, sort=True, enter=enter):
        if not is_dir and entry.is_file(follow_symlinks=False) and not (exclude is not None and exclude(entry.path)):
            yield entry.path


_TOO_LARGE = object()


def _read_bounded(path: str, limit: int | None) -> bytes | object | None:
    """The bytes of a regular file; None if it is not one or is unreadable; ``_TOO_LARGE`` (unread) over ``limit``."""
    opened = open_regular(path)
    if opened is None:
        return None
    fd, size = opened
    try:
        if limit is not None and size > limit:
            return _TOO_LARGE
        return read_fd(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def count_lines(paths: Iterable[str], *, exclude_dirs: Iterable[str] = (), max_file_size: int | None = None,
                exclude: Callable[[str], bool] | None = None) -> LineCount:
    """Count lines per language in the given files and directories (walked recursively, symlinks not followed).

    Args:
        paths: Files and directories.
        exclude_dirs: Directory names not to enter (version-control directories are never entered).
        max_file_size: Files larger than this many bytes are skipped unread and counted as ignored, as cloc's
            ``--max-file-size`` does (cloc: 100 MB by default); None reads every file.
        exclude: Paths (files or directories) for which this returns true are neither read nor counted (a
            workspace's deny rules).
    """
    skip = VCS_DIRS | set(exclude_dirs)
    files: list[str] = []
    for path in paths:
        if exclude is not None and exclude(path):
            continue
        if os.path.isdir(path):
            files.extend(_walk(path, skip, exclude))
        elif os.path.isfile(path):
            files.append(path)
    totals: dict[str, list[int]] = {}
    ignored = too_large = 0
    files = list(dict.fromkeys(files))  # a file given twice (or inside a directory also given) counts once
    scope = current_scope()
    for path in files:
        raise_if_cancelled(scope)  # a cancelled call stops before its next file (the walk, before its next directory)
        language = language_of(path)
        data = _read_bounded(path, max_file_size) if language is not None else None
        if data is _TOO_LARGE:
            too_large += 1
        if language is None or not isinstance(data, bytes) or b"\x00" in data[:8192]:
            ignored += 1
            continue
        blank, comment, code = _classify(data.decode("utf-8", errors="replace"), _SYNTAX_BY_NAME[language])
        row = totals.setdefault(language, [0, 0, 0, 0])
        row[0] += 1
        row[1] += blank
        row[2] += comment
        row[3] += code
    languages = sorted((LanguageCount(language=name, files=f, blank=b, comment=c, code=k)
                        for name, (f, b, c, k) in totals.items()), key=lambda x: (-x.code, x.language))
    return LineCount(languages=tuple(languages), text_files=len(files), ignored=ignored, too_large=too_large)
