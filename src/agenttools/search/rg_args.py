"""Caller-given ripgrep arguments: parsed as ripgrep 14.1 parses them, and only listed flags let through.

ripgrep parses its command line with lexopt: ``--name=value`` or ``--name value`` for long flags (the value is the
next argument even when it starts with ``-``); short flags cluster (``-inC3``), and a short flag that takes a value
takes the rest of its cluster (``-C3``, ``-f/path``, with one leading ``=`` dropped: ``-C=3``) or else the next
argument; ``--`` ends the flags and ``-`` is a positional (stdin). Every flag is looked up in :data:`FLAGS`, built
from ripgrep 14.1's ``crates/core/flags/defs.rs`` (long names, short names, negations, aliases, which take a value);
only those in :data:`ALLOWED` pass. Paths (positionals, ``--file``, ``--ignore-file``) go to the caller's check
(a toolset resolves them through its Workspace).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs

__all__ = [
    "ALLOWED", "FLAGS", "MAX_SIZE_LIMIT", "MAX_THREADS", "REFUSED_NEGATIONS", "Flag", "RgArgumentError", "check_args",
]

MAX_THREADS = 64
"""The most threads ``-j``/``--threads`` may ask for."""
MAX_SIZE_LIMIT = 1 << 30
"""The largest ``--dfa-size-limit``/``--regex-size-limit`` (1 GiB)."""


@attrs.frozen
class Flag:
    """One ripgrep flag."""

    name: str
    """The long name, without ``--``."""
    short: str | None
    """The short name, if any."""
    takes_value: bool
    """Whether it takes a value (negations never do)."""
    negated: str | None = None
    """The negation's long name (``no-hidden`` for ``hidden``), if any."""
    aliases: tuple[str, ...] = ()
    """Other long names."""


_SWITCHES = """
auto-hybrid-regex/no-auto-hybrid-regex binary/no-binary block-buffered/no-block-buffered b:byte-offset/no-byte-offset
s:case-sensitive column/no-column c:count count-matches crlf/no-crlf debug files l:files-with-matches
files-without-match F:fixed-strings/no-fixed-strings L:follow/no-follow glob-case-insensitive/no-glob-case-insensitive
heading/no-heading h:help .:hidden/no-hidden i:ignore-case ignore-file-case-insensitive/no-ignore-file-case-insensitive
include-zero/no-include-zero v:invert-match/no-invert-match json/no-json line-buffered/no-line-buffered
n:line-number N:no-line-number x:line-regexp max-columns-preview/no-max-columns-preview mmap/no-mmap
U:multiline/no-multiline multiline-dotall/no-multiline-dotall no-config no-ignore/ignore no-ignore-dot/ignore-dot
no-ignore-exclude/ignore-exclude no-ignore-files/ignore-files no-ignore-global/ignore-global
no-ignore-messages/ignore-messages no-ignore-parent/ignore-parent no-ignore-vcs/ignore-vcs no-messages/messages
no-pcre2-unicode/pcre2-unicode no-require-git/require-git no-unicode/unicode 0:null null-data
one-file-system/no-one-file-system o:only-matching passthru P:pcre2/no-pcre2 pcre2-version p:pretty q:quiet
z:search-zip/no-search-zip S:smart-case sort-files/no-sort-files stats/no-stats stop-on-nonmatch a:text/no-text trace
trim/no-trim type-list u:unrestricted V:version vimgrep H:with-filename I:no-filename w:word-regexp
"""
_VALUES = """
A:after-context B:before-context color colors C:context context-separator/no-context-separator dfa-size-limit
E:encoding/no-encoding engine field-context-separator field-match-separator f:file generate g:glob hostname-bin
hyperlink-format iglob ignore-file M:max-columns m:max-count d:max-depth max-filesize path-separator pre/no-pre
pre-glob regex-size-limit e:regexp r:replace sort sortr j:threads t:type type-add type-clear T:type-not
"""
_ALIASES = {"passthru": ("passthrough",), "max-depth": ("maxdepth",)}


def _table() -> dict[str, Flag]:
    flags: dict[str, Flag] = {}
    for text, takes_value in ((_SWITCHES, False), (_VALUES, True)):
        for item in text.split():
            short, _, names = item.rpartition(":")
            name, _, negated = names.partition("/")
            flags[name] = Flag(name, short or None, takes_value, negated or None, _ALIASES.get(name, ()))
    return flags


FLAGS: dict[str, Flag] = _table()
"""Every ripgrep 14.1 flag by long name."""

ALLOWED = frozenset(FLAGS) - {
    "pre", "pre-glob", "hostname-bin", "search-zip", "follow", "hyperlink-format", "debug", "trace", "generate",
    "no-config",
}
"""Flags a model may pass. Refused: those that run programs (``--pre``, ``--pre-glob``, ``--hostname-bin``,
``-z``/``--search-zip``, which starts decompressors), leave the project (``-L``/``--follow``), or print what lies
outside it (``--debug``/``--trace`` name ignore files and paths outside the root; ``--hyperlink-format`` the host
and absolute paths); ``--generate`` is of no use to a model. ``--no-config`` is always given by the toolset.
Negations (``--no-follow``, ``--no-pre``...) only switch things off and are allowed, except those in
:data:`REFUSED_NEGATIONS`."""

REFUSED_NEGATIONS = frozenset({"ignore-messages"})
"""Negations a model may not pass: ``--ignore-messages`` undoes the ``--no-ignore-messages`` the toolset always
gives, and ripgrep's ignore-file messages quote the offending lines of ignore files it reads — a ``.ignore``
symlinked to a file outside the project, or the ``.gitignore`` of a directory above the root."""

_LONG: dict[str, tuple[Flag, bool]] = {}
_SHORT: dict[str, Flag] = {}
for _flag in FLAGS.values():
    _LONG[_flag.name] = (_flag, False)
    for _alias in _flag.aliases:
        _LONG[_alias] = (_flag, False)
    if _flag.negated:
        _LONG[_flag.negated] = (_flag, True)
    if _flag.short:
        _SHORT[_flag.short] = _flag
_SIZE = re.compile(r"([0-9]+)([KMG]?)")
_PATH_FLAGS = {"file", "ignore-file"}


class RgArgumentError(ValueError):
    """An argument the coder ``rg`` tool refuses; the message is what the model sees after ``Error: ``."""


def _refuse(shown: str, why: str) -> RgArgumentError:
    return RgArgumentError(f"rg option not allowed: {shown} ({why})")


def _check_value(flag: Flag, value: str, shown: str, check_path: Callable[[str, str], None]) -> None:
    if flag.name in _PATH_FLAGS:
        if value != "-":
            check_path(value, "file")
    elif flag.name == "threads":
        if not value.isdigit() or int(value) > MAX_THREADS:
            raise _refuse(shown, f"at most {MAX_THREADS} threads")
    elif flag.name in ("dfa-size-limit", "regex-size-limit"):
        match = _SIZE.fullmatch(value)
        size = int(match.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[match.group(2)] if match else -1
        if not 0 <= size <= MAX_SIZE_LIMIT:
            raise _refuse(shown, "at most 1G")


def _use(flag: Flag, negated: bool, shown: str) -> None:
    if negated and flag.negated in REFUSED_NEGATIONS:
        raise _refuse(shown, "it would print lines of ignore files, which may lie outside the project")
    if not negated and flag.name not in ALLOWED:
        raise _refuse(shown, "it runs programs, reaches outside the project or is not available here")


def check_args(argv: list[str], check_path: Callable[[str, str], None]) -> tuple[list[str], list[str]]:
    """Check a model's ripgrep arguments the way ripgrep will read them; return ``(flags, positional paths)``.

    ``flags`` are the arguments that are flags and their values, in order (no ``--``), so a caller can add flags
    of its own *after* them — ripgrep lets a later ``--glob`` win over an earlier one — and put the paths after
    a ``--`` of its own.

    Args:
        argv: The arguments (already split).
        check_path: Called as ``check_path(path, kind)`` for every path (``kind`` is ``"file"`` for pattern and
            ignore files, ``"any"`` for positionals); it raises to refuse.

    Raises:
        RgArgumentError: An unknown or refused flag, a flag without its value, a value where none is taken, or a
            value over its bound.
    """
    positionals: list[str] = []
    flags: list[str] = []
    index = 0
    while index < len(argv):
        start = index
        arg = argv[index]
        index += 1
        if arg == "--":
            positionals.extend(argv[index:])
            break
        if arg.startswith("--"):
            name, has_value, attached = arg[2:].partition("=")
            found = _LONG.get(name)
            if found is None:
                raise RgArgumentError(f"rg option not allowed: --{name} (unknown flag)")
            flag, negated = found
            _use(flag, negated, arg)
            if negated or not flag.takes_value:
                if has_value:
                    raise RgArgumentError(f"rg option --{name} takes no value: {arg}")
                flags.append(arg)
                continue
            if not has_value:
                if index >= len(argv):
                    raise RgArgumentError(f"rg option --{name} needs a value")
                attached = argv[index]
                index += 1
            _check_value(flag, attached, arg if has_value else f"--{name} {attached}", check_path)
            flags.extend(argv[start:index])
            continue
        if arg.startswith("-") and arg != "-":
            cluster = arg[1:]
            position = 0
            while position < len(cluster):
                char = cluster[position]
                position += 1
                short = _SHORT.get(char)
                if short is None:
                    raise RgArgumentError(f"rg option not allowed: -{char} in {arg} (unknown flag)")
                _use(short, False, f"-{char}" if arg == f"-{char}" else f"-{char} in {arg}")
                if not short.takes_value:
                    if cluster[position:position + 1] == "=":
                        raise RgArgumentError(f"rg option -{char} takes no value: {arg}")
                    continue
                value = cluster[position:]
                if value.startswith("="):
                    value = value[1:]
                if not value and position >= len(cluster):
                    if index >= len(argv):
                        raise RgArgumentError(f"rg option -{char} needs a value")
                    value = argv[index]
                    index += 1
                _check_value(short, value, arg if position < len(cluster) else f"-{char} {value}", check_path)
                break
            flags.extend(argv[start:index])
            continue
        positionals.append(arg)
    for path in positionals:
        if path != "-":
            check_path(path, "any")
    return flags, positionals
