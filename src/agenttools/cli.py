"""The ``agenttools`` command: list a toolset's definitions, call a tool, serve a toolset over MCP.

Each toolset option is a flag of its own (``--shell-timeout 30``, ``--deny '**/.env'``), shown only for the
toolsets that take it: the command reads ``--toolset`` first and builds its flags from the toolset's declared
options. ``--option KEY=VALUE`` passes any option (for your own toolsets too).

Exit codes: 0 success, 1 the tool reported an error (its text is printed on stdout all the same) or the server
could not run, 2 usage errors (bad flags, unknown toolset, tool or format, options the toolset rejects). The
command never prints a traceback: every failure is one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import json
import os
import socket
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from agenttools import __version__
from agenttools.errors import AgentToolsError, ConfigError
from agenttools.hooks.audit import AuditLog
from agenttools.mcp_server import _allowed_host_names, serve, served
from agenttools.registry import Registry
from agenttools.sdk import FORMATS
from agenttools.toolsets import declared_options, toolset
from agenttools.toolsets._options import Option

__all__ = ["main"]

EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE = 0, 1, 2
_LIST_KINDS = ("dirs", "globs")
_ALIASES = {"allow_dirs": ["--allow-dir"], "deny": ["--deny-dir"], "deny_dirs": ["--deny-dir"]}
"""Older spellings still accepted."""


class _Usage(Exception):  # noqa: N818 - control flow: a usage error to report in one line
    """A usage error found after argparse (reported with exit code 2)."""


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"port must be between 1 and 65535, got {port}")
    return port


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < 86400:
        raise argparse.ArgumentTypeError(f"must be more than 0 and less than a day, got {text}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _add_options(parser: argparse.ArgumentParser, options: Sequence[Option], name: str | None) -> None:
    parser.add_argument("--toolset", required=True, metavar="NAME",
                        help="built-in toolset (gemini, editor, content, assistant, coder, filesystem) or "
                             "'module:attribute'")
    group = parser.add_argument_group(f"options of the {name} toolset" if options else "toolset options")
    declared = {option.name for option in options}
    if "root" not in declared:  # a toolset of your own may take one; definitions never need it
        group.add_argument("--root", metavar="DIR", help="the directory the toolset works in (its 'root' option)")
    for option in options:
        flags = [_flag(option.name), *_ALIASES.get(option.name, [])]
        text = option.help + (f" ({option.accepts()})" if option.kind not in ("any",) else " (JSON)")
        if option.kind == "bool":
            group.add_argument(*flags, dest=option.name, action=argparse.BooleanOptionalAction, default=None,
                               help=option.help)
        elif option.kind in _LIST_KINDS:
            group.add_argument(*flags, dest=option.name, action="append", metavar=option.kind[:-1].upper(),
                               help=text + "; repeatable")
        elif option.kind == "choice":
            group.add_argument(*flags, dest=option.name, choices=option.choices, help=option.help)
        else:
            group.add_argument(*flags, dest=option.name, metavar=option.kind.upper(), help=text)
    group.add_argument("--option", action="append", metavar="KEY=VALUE", default=[],
                       help="any other toolset option; VALUE is parsed as JSON when it can be (repeatable)")


def _build_parser(options: Sequence[Option] = (), name: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agenttools", description="Tools for LLM agents: definitions, calls and an MCP server."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = sub.add_parser("tools", help="print the toolset's tool definitions as JSON",
                           description="Print the toolset's tool definitions, as JSON, in an SDK's format. A "
                                       "root is not needed: definitions do not depend on it.")
    _add_options(tools, options, name)
    tools.add_argument("--format", default="json-schema", choices=FORMATS, help="definition format")
    strict = tools.add_mutually_exclusive_group()
    strict.add_argument("--strict", dest="strict", action="store_true", default=None,
                        help="emit strict schemas where the format has them")
    strict.add_argument("--no-strict", dest="strict", action="store_false", help="never emit strict schemas")

    call = sub.add_parser("call", help="call one tool and print what the model would see",
                          description="Call one tool with JSON arguments and print its text. "
                                      "Exit 0 on success, 1 when the tool reports an error, 2 on usage errors.")
    _add_options(call, options, name)
    call.add_argument("tool", help="tool name")
    call.add_argument("arguments", nargs="?", default="{}",
                      help="JSON object of arguments (default {}); '-' reads them from standard input")
    call.add_argument("--audit-log", metavar="PATH", help="append the call's JSON line to this file (see hooks)")

    serve_parser = sub.add_parser("serve", help="serve the toolset as an MCP server",
                                  description="Serve the toolset as an MCP server.")
    _add_options(serve_parser, options, name)
    serve_parser.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="MCP transport")
    serve_parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    serve_parser.add_argument("--port", type=_port, default=8000, help="HTTP port (default 8000)")
    serve_parser.add_argument("--max-calls", type=_positive, default=8, metavar="N",
                              help="calls one client session runs at once; the rest wait their turn (default 8)")
    serve_parser.add_argument("--audit-log", metavar="PATH",
                              help="append one JSON line per call, from every session, to this file")
    serve_parser.add_argument("--read-only", action="store_true",
                              help="serve only the tools whose read_only hint is true")
    serve_parser.add_argument("--max-sessions", type=_positive, default=1000, metavar="N",
                              help="HTTP sessions open at once; past it a new session is refused (default 1000)")
    serve_parser.add_argument("--max-unanswered", type=_positive, default=256, metavar="N",
                              help="requests of one HTTP session whose answers are unread before the session is "
                                   "dropped (default 256)")
    serve_parser.add_argument("--request-timeout", type=_seconds, default=10.0, metavar="SECONDS",
                              help="seconds an HTTP client has to send a request's headers, then its body "
                                   "(default 10)")
    serve_parser.add_argument("--roots", action="store_true",
                              help="take the allowed directories from the client's MCP roots (the first is the "
                                   "root), and follow their changes; --root and --allow-dir serve clients without "
                                   "roots")
    serve_parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                              help="a further name clients reach the HTTP server by, accepted in the Host and "
                                   "Origin headers besides 127.0.0.1, localhost, [::1] and --host (repeatable)")
    return parser


def _value(raw: str) -> Any:
    """A flag's text as JSON when it is JSON (numbers, true/false, lists), else as the text itself."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _options(args: argparse.Namespace, declared: Sequence[Option]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in args.option:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option takes KEY=VALUE, got {item!r}")
        options[key.strip()] = _value(raw)
    if getattr(args, "root", None) is not None and not any(o.name == "root" for o in declared):
        options["root"] = args.root
    for option in declared:
        value = getattr(args, option.name, None)
        if value is None:
            continue
        if option.kind in ("bool", "choice", *_LIST_KINDS) or option.name in ("root", "config", "docroot"):
            options[option.name] = value
        else:
            options[option.name] = _value(value)
    return options


@contextlib.contextmanager
def _registry(args: argparse.Namespace, declared: Sequence[Option]) -> Iterator[Registry]:
    options = _options(args, declared)
    takes_root = any(option.name == "root" for option in declared)  # required, or allow_dirs[0] (filesystem)
    if args.command == "tools" and takes_root and "root" not in options and not options.get("allow_dirs"):
        with (tempfile.TemporaryDirectory(prefix="agenttools-definitions-") as empty,
              toolset(args.toolset, **{**options, "root": empty}) as registry):
            yield registry
        return
    with toolset(args.toolset, **options) as registry:
        yield registry


def _check_port(host: str, port: int) -> None:
    """Refuse a port that cannot be bound now, in one line, before the server starts."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        why = "it is already in use" if exc.errno == errno.EADDRINUSE else (exc.strerror or str(exc))
        raise OSError(f"cannot listen on {host}:{port}: {why}") from None


def _loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost`` (only this machine can connect)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def _run(args: argparse.Namespace, declared: Sequence[Option]) -> int:
    if args.command == "tools":
        with warnings.catch_warnings(record=True) as caught, _registry(args, declared) as registry:
            warnings.simplefilter("always")
            definitions = registry.definitions(args.format, strict=args.strict)
        for warning in caught:
            print(f"agenttools: warning: {warning.message}", file=sys.stderr)
        print(json.dumps(definitions, indent=2, ensure_ascii=False))
        return EXIT_OK
    if args.command == "call":
        audit = AuditLog(args.audit_log) if args.audit_log else None
        try:
            with _registry(args, declared) as registry:
                if args.tool not in registry:
                    raise _Usage(f"toolset {args.toolset!r} has no tool {args.tool!r}; tools: "
                                 f"{', '.join(registry.names())}")
                raw = sys.stdin.read() if args.arguments == "-" else args.arguments
                out = (registry if audit is None else registry.with_hooks(audit)).call(args.tool, raw)
        finally:
            if audit is not None:
                audit.close()
        print(out.text)
        return EXIT_TOOL_ERROR if out.is_error else EXIT_OK
    options = _options(args, declared)
    rootless = args.roots and "root" not in options and not options.get("allow_dirs")
    if args.roots and not any(option.name == "allow_dirs" for option in declared):
        raise _Usage(f"--roots: toolset {args.toolset!r} takes no allowed directories to take from the roots")
    if rootless:  # options are checked before anything listens, on a directory standing in for the roots
        with tempfile.TemporaryDirectory(prefix="agenttools-roots-") as empty:
            toolset(args.toolset, **{**options, "root": empty, "allow_dirs": [empty]}).close()
    else:
        toolset(args.toolset, **options).close()
    audit = AuditLog(args.audit_log) if args.audit_log else None  # one log for every session, opened now

    def plain() -> Registry:
        if rootless:
            raise ConfigError("the client declared no roots naming a directory on this machine, and the server was "
                              "started without --root")
        return served(toolset(args.toolset, **options), read_only=args.read_only, audit=audit)

    def rooted(roots: Sequence[str]) -> Registry:
        chosen = {**options, "root": roots[0], "allow_dirs": list(roots)}
        return served(toolset(args.toolset, **chosen), read_only=args.read_only, audit=audit)

    if args.transport == "http":
        if not _loopback(args.host):
            names = ", ".join(_allowed_host_names(args.host, args.allow_host))
            print(f"agenttools: warning: listening on {args.host}, reachable from other machines, with no "
                  f"authentication: anyone who can reach port {args.port} can use the {args.toolset} tools (shell "
                  f"commands included). Requests must name the server as one of {names} in their Host header "
                  f"(--allow-host adds names).", file=sys.stderr, flush=True)
        _check_port(args.host, args.port)
        print(f"agenttools: serving the {args.toolset} toolset over MCP at http://{args.host}:{args.port}/mcp",
              file=sys.stderr, flush=True)
    try:
        serve(plain, transport=args.transport, host=args.host, port=args.port, max_calls=args.max_calls,
              allowed_hosts=args.allow_host, from_roots=rooted if args.roots else None,
              max_sessions=args.max_sessions, max_unanswered=args.max_unanswered,
              request_timeout=args.request_timeout)
    finally:
        if audit is not None:
            audit.close()
    return EXIT_OK


def _toolset_of(argv: Sequence[str]) -> str | None:
    """The ``--toolset`` value, read before the full parser (whose flags depend on it) exists."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--toolset")
    known, _ = pre.parse_known_args(argv)
    return known.toolset  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if os.getcwd() not in sys.path and "" not in sys.path:  # 'module:attribute' from here, as with python -m
        sys.path.insert(0, os.getcwd())
    name = _toolset_of(argv)
    try:
        declared = declared_options(name) if name else ()
    except AgentToolsError as exc:
        if any(flag in argv for flag in ("-h", "--help", "--version")):
            declared = ()
        else:
            return _usage(str(exc))
    parser = _build_parser(declared, name)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors and 0 for --help/--version
        return int(exc.code or 0)
    try:
        return _run(args, declared)
    except (AgentToolsError, _Usage) as exc:
        return _usage(str(exc))
    except ImportError as exc:  # the mcp extra, or a toolset's own import
        return _usage(str(exc))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the command prints one line, never a traceback
        print(f"agenttools: error: {' '.join(str(exc).split()) or type(exc).__name__}", file=sys.stderr)
        return EXIT_TOOL_ERROR


def _usage(message: str) -> int:
    print(f"agenttools: error: {' '.join(message.split())}", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
