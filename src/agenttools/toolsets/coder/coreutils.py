"""``head`` and ``tail`` in Python, printing what GNU coreutils prints for the flags they support.

Supported: ``-n N``/``-nN``/``--lines=N``, ``-c N``/``--bytes=N``, the ``-N`` shorthand, ``head -n -N`` (all but
the last N), ``tail -n +N``/``-c +N`` (from line/byte N), ``-q``/``-v``, ``--``, several files with
``==> name <==`` headers; options are read as getopt reads them (clusters, unambiguous long prefixes, options
after files) and counts as coreutils reads them (``1K``, ``2kB``, ``1b``). A real option this version does not
implement (``-f`` above all: it would never return) is refused with a clear error; anything else is worded as GNU
words it. What the command would print on stderr (each line ended, as upstream returned stderr whole) fails the
call as a :class:`~agenttools.errors.ToolFailure`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import BinaryIO

from agenttools._text import open_file
from agenttools.errors import SpecialFileError
from agenttools.toolsets.coder.texts import fail

__all__ = ["head", "tail"]

_BLOCK = 65536
_NUMBER = re.compile(r"^([+-]?)(\d+)(b|[kKmMGTPEZYRQ](?:B|iB)?)?$")
_POWERS = "kmgtpezyrq"

# getopt's tables: "value" takes an argument, "flag" does not, "refused" is a real option this Python version
# does not implement (above all -f/--follow, which would never return)
_SHORT = {
    "head": {"c": "value", "n": "value", "q": "flag", "v": "flag", "z": "refused"},
    "tail": {"c": "value", "n": "value", "q": "flag", "v": "flag", "z": "refused", "f": "refused",
             "F": "refused", "s": "refused"},
}
_LONG = {
    "head": {"bytes": "value", "lines": "value", "quiet": "flag", "silent": "flag", "verbose": "flag",
             "zero-terminated": "refused", "help": "refused", "version": "refused"},
    "tail": {"bytes": "value", "lines": "value", "quiet": "flag", "silent": "flag", "verbose": "flag",
             "follow": "refused", "max-unchanged-stats": "refused", "pid": "refused", "retry": "refused",
             "sleep-interval": "refused", "zero-terminated": "refused", "help": "refused", "version": "refused"},
}


def _split(data: bytes) -> list[bytes]:
    """Lines ending in ``\\n`` (kept), plus a final unterminated one; never split on ``\\r``."""
    return re.findall(rb"[^\n]*\n|[^\n]+$", data)


def _gnu(text: str) -> str:
    """A message as GNU prints it on stderr (upstream passed stderr through whole: it ends in a newline)."""
    return text + "\n"


def _usage(prog: str, message: str) -> Exception:
    return fail(_gnu(f"{prog}: {message}\nTry '{prog} --help' for more information."))


def _refused(prog: str, option: str) -> Exception:
    return fail(f"{prog}: unsupported option '{option}' (supported: -n N, -c N, -N, -q, -v"
                + (", -n +N, -c +N)" if prog == "tail" else ", -n -N, -c -N)"))


def _count(prog: str, unit: str, value: str) -> tuple[str, int]:
    """A count as coreutils reads it: an optional sign, digits and a size suffix (``1K`` is 1024, ``2kB`` 2000)."""
    match = _NUMBER.match(value.strip())
    if match is None:  # "-n -x" is elision of "x" lines: the message names what follows the "-"
        shown = value[1:] if value.startswith("-") else value
        raise fail(_gnu(f"{prog}: invalid number of {'lines' if unit == 'n' else 'bytes'}: '{shown}'"))
    sign, digits, suffix = match.groups()
    count = int(digits)
    if suffix == "b":
        count *= 512
    elif suffix:
        count *= (1000 if suffix.endswith("B") and not suffix.endswith("iB") else 1024) ** (
            _POWERS.index(suffix[0].lower()) + 1)
    return sign, count


def _long(prog: str, arg: str, args: list[str]) -> tuple[str, str | None]:
    """A ``--name[=value]`` option, matched as getopt_long does (an unambiguous prefix is enough)."""
    name, eq, value = arg[2:].partition("=")
    table = _LONG[prog]
    matches = [name] if name in table else [option for option in table if option.startswith(name)]
    if not matches:
        raise _usage(prog, f"unrecognized option '{arg}'")
    if len(matches) > 1:
        raise _usage(prog, f"option '--{name}' is ambiguous; possibilities: "
                     + " ".join(f"'--{option}'" for option in matches))
    option = matches[0]
    kind = table[option]
    if kind == "refused":
        raise _refused(prog, f"--{option}")
    if kind == "flag":
        if eq:
            raise _usage(prog, f"option '--{option}' doesn't allow an argument")
        return option, None
    if not eq:
        if not args:
            raise _usage(prog, f"option '--{option}' requires an argument")
        value = args.pop(0)
    return option, value


def _parse(prog: str, argv: list[str]) -> tuple[str, str, int, list[str], bool | None]:
    """(unit 'n'|'c', sign '', '+' or '-', count, files, headers forced on/off or None), as getopt reads argv."""
    unit, sign, count = "n", "", 10
    headers: bool | None = None
    files: list[str] = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--":
            files.extend(args)
            break
        if not arg.startswith("-") or arg == "-":
            files.append(arg)
            continue
        if re.match(r"^-\d+$", arg):  # the old -N form
            unit, (sign, count) = "n", _count(prog, "n", arg[1:])
            continue
        if arg.startswith("--"):
            option, value = _long(prog, arg, args)
            if value is None:
                headers = option == "verbose"
            else:
                unit = "n" if option == "lines" else "c"
                sign, count = _count(prog, unit, value)
            continue
        cluster = arg[1:]
        while cluster:
            letter, cluster = cluster[0], cluster[1:]
            kind = _SHORT[prog].get(letter)
            if kind is None:
                raise _usage(prog, f"invalid option -- '{letter}'")
            if kind == "refused":
                raise _refused(prog, f"-{letter}")
            if kind == "flag":
                headers = letter == "v"
                continue
            if not cluster and not args:
                raise _usage(prog, f"option requires an argument -- '{letter}'")
            value, cluster = (cluster or args.pop(0)), ""
            unit = letter
            sign, count = _count(prog, unit, value)
    return unit, sign, count, files, headers


_LIMIT = 4 * 1024 * 1024  # bytes read per file at most: a line with no end, or a huge count, stays bounded


def _head_one(handle: BinaryIO, unit: str, sign: str, count: int) -> bytes:
    read = handle.read
    if unit == "c":
        if sign == "-":
            size = os.fstat(handle.fileno()).st_size
            return read(min(max(0, size - count), _LIMIT))
        return read(min(count, _LIMIT))
    if sign == "-":
        lines = _split(read(_LIMIT + 1))
        if len(lines) and sum(map(len, lines)) > _LIMIT:
            return b"".join(lines)[:_LIMIT]  # cut short: the end of the file is unknown here
        return b"".join(lines[: max(0, len(lines) - count)])
    readline = handle.readline
    out = []
    total = 0
    for _ in range(count):
        line = readline(_LIMIT - total)
        if not line:
            break
        out.append(line)
        total += len(line)
        if total >= _LIMIT:
            break
    return b"".join(out)


def _tail_one(handle: BinaryIO, unit: str, sign: str, count: int) -> bytes:
    size = os.fstat(handle.fileno()).st_size
    if sign == "+":
        if unit == "c":
            handle.seek(max(0, count - 1))
            return handle.read(_LIMIT)
        for _ in range(max(0, count - 1)):
            if not handle.readline(_LIMIT):
                return b""
        return handle.read(_LIMIT)
    if unit == "c":
        handle.seek(max(0, size - min(count, _LIMIT)))
        return handle.read(_LIMIT)
    if count == 0:
        return b""
    data = b""
    position = size
    while position > 0 and len(data) < _LIMIT:
        step = min(_BLOCK, position)
        position -= step
        handle.seek(position)
        data = handle.read(step) + data
        newlines = data.count(b"\n") - (1 if data.endswith(b"\n") else 0)
        if newlines >= count:
            break
    lines = _split(data[-_LIMIT:])
    return b"".join(lines[-count:])


def _run(prog: str, argv: list[str], resolve: Callable[[str], str | None],
         one: Callable[[BinaryIO, str, str, int], bytes]) -> str:
    unit, sign, count, files, headers = _parse(prog, argv)
    if not files:
        return ""  # stdin is /dev/null
    show = headers if headers is not None else len(files) > 1
    chunks: list[bytes] = []
    errors: list[str] = []
    for index, name in enumerate(files):
        try:
            real = resolve(name)
            if real is None:
                errors.append(f"{prog}: path not allowed: {name}")
                continue
            if not os.path.exists(real):
                raise FileNotFoundError(2, "No such file or directory")
            if os.path.isdir(real):
                raise IsADirectoryError(21, "Is a directory")
            if not os.path.isfile(real):
                raise OSError(f"'{name}' is not a regular file")
            try:  # opened without blocking and checked with fstat: a FIFO swapped in after the checks is not read
                fd, _ = open_file(real)
            except SpecialFileError:
                raise OSError(f"'{name}' is not a regular file") from None
            with os.fdopen(fd, "rb") as handle:
                body = one(handle, unit, sign, count)
        except PermissionError:
            errors.append(f"{prog}: cannot open '{name}' for reading: Permission denied")
            continue
        except IsADirectoryError:
            errors.append(f"{prog}: error reading '{name}': Is a directory")
            continue
        except FileNotFoundError:
            errors.append(f"{prog}: cannot open '{name}' for reading: No such file or directory")
            continue
        except OSError as exc:
            errors.append(f"{prog}: {exc}")
            continue
        if show:
            chunks.append(("\n" if index and chunks else "").encode() + f"==> {name} <==\n".encode())
        chunks.append(body)
    if errors:  # what head/tail print on stderr, each line ended: upstream returned stderr whole
        raise fail("".join(_gnu(error) for error in errors))
    return b"".join(chunks).decode("utf-8", errors="replace")


def head(argv: list[str], resolve: Callable[[str], str | None]) -> str:
    """Run ``head`` on files that ``resolve`` maps to real paths (None: not allowed)."""
    return _run("head", argv, resolve, _head_one)


def tail(argv: list[str], resolve: Callable[[str], str | None]) -> str:
    """Run ``tail`` on files that ``resolve`` maps to real paths (None: not allowed)."""
    return _run("tail", argv, resolve, _tail_one)
