"""The ``agenttools`` command: list a toolset's definitions, call a tool, serve a toolset over MCP.

Exit codes: 0 success, 1 the tool reported an error (its text is printed on stdout all the same), 2 usage
errors (bad flags, unknown toolset or format, options the toolset rejects).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from agenttools import __version__
from agenttools.errors import AgentToolsError, ConfigError
from agenttools.mcp_server import serve
from agenttools.registry import Registry
from agenttools.sdk import FORMATS
from agenttools.toolsets import toolset

__all__ = ["main"]

EXIT_OK, EXIT_TOOL_ERROR, EXIT_USAGE = 0, 1, 2


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--toolset", required=True, metavar="NAME",
                        help="built-in toolset (gemini, editor, content, assistant, coder) or 'module:attribute'")
    parser.add_argument("--root", metavar="DIR", help="the directory the toolset works in (its 'root' option)")
    parser.add_argument("--allow-dir", action="append", metavar="DIR", dest="allow_dirs",
                        help="an allowed directory (repeatable; the toolset's 'allow_dirs' option)")
    parser.add_argument("--deny-dir", action="append", metavar="GLOB", dest="deny_dirs",
                        help="a denied path glob such as '**/.env' (repeatable; 'deny_dirs')")
    parser.add_argument("--max-file-size", metavar="SIZE", help="largest file to read or write, e.g. 10MB")
    parser.add_argument("--config", metavar="PATH", help="a toolset config file (the content toolset's TOML/JSON)")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE", default=[],
                        help="any other toolset option; VALUE is parsed as JSON when it can be (repeatable)")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agenttools", description="Tools for LLM agents: definitions, calls and an MCP server."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = sub.add_parser("tools", help="print the toolset's tool definitions as JSON",
                           description="Print the toolset's tool definitions, as JSON, in an SDK's format.")
    _common(tools)
    tools.add_argument("--format", default="json-schema", choices=FORMATS, help="definition format")
    strict = tools.add_mutually_exclusive_group()
    strict.add_argument("--strict", dest="strict", action="store_true", default=None,
                        help="emit strict schemas where the format has them")
    strict.add_argument("--no-strict", dest="strict", action="store_false", help="never emit strict schemas")

    call = sub.add_parser("call", help="call one tool and print what the model would see",
                          description="Call one tool with JSON arguments and print its text. "
                                      "Exit 0 on success, 1 when the tool reports an error, 2 on usage errors.")
    _common(call)
    call.add_argument("tool", help="tool name")
    call.add_argument("arguments", nargs="?", default="{}",
                      help="JSON object of arguments (default {}); '-' reads them from standard input")

    serve = sub.add_parser("serve", help="serve the toolset as an MCP server",
                           description="Serve the toolset as an MCP server.")
    _common(serve)
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="MCP transport")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    serve.add_argument("--max-calls", type=int, default=8, metavar="N",
                       help="calls one client session runs at once; the rest wait their turn (default 8)")
    return parser


def _options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in args.option:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option takes KEY=VALUE, got {item!r}")
        try:
            options[key.strip()] = json.loads(raw)
        except ValueError:
            options[key.strip()] = raw
    for key in ("root", "allow_dirs", "deny_dirs", "max_file_size", "config"):
        value = getattr(args, key)
        if value is not None:
            options[key] = value
    return options


def _registry(args: argparse.Namespace) -> Registry:
    return toolset(args.toolset, **_options(args))


def _usage(message: str) -> int:
    print(f"agenttools: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors and 0 for --help/--version
        return int(exc.code or 0)
    try:
        registry = _registry(args)
    except AgentToolsError as exc:
        return _usage(str(exc))
    if args.command == "tools":
        with warnings.catch_warnings(record=True) as caught, registry:
            warnings.simplefilter("always")
            definitions = registry.definitions(args.format, strict=args.strict)
        for warning in caught:
            print(f"agenttools: warning: {warning.message}", file=sys.stderr)
        print(json.dumps(definitions, indent=2, ensure_ascii=False))
        return EXIT_OK
    if args.command == "call":
        if args.tool not in registry:
            return _usage(f"toolset {args.toolset!r} has no tool {args.tool!r}; tools: {', '.join(registry.names())}")
        raw = sys.stdin.read() if args.arguments == "-" else args.arguments
        with registry:
            out = registry.call(args.tool, raw)
        print(out.text)
        return EXIT_TOOL_ERROR if out.is_error else EXIT_OK
    registry.close()
    options = _options(args)
    if args.max_calls < 1:
        return _usage(f"--max-calls must be at least 1, got {args.max_calls}")
    try:
        serve(lambda: toolset(args.toolset, **options), transport=args.transport, host=args.host, port=args.port,
              max_calls=args.max_calls)
    except ImportError as exc:  # the mcp extra is not installed
        return _usage(str(exc))
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
