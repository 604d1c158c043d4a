"""The `parley` command: thin argument parsing that hands over to the engines or the platform launcher.

Each sub-command lives in commands/<name>.py with `register(subparsers)`; handlers return the exit code:
0 success, 1 findings or failures, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import version

COMMANDS = (
    "serve",
    "llm",
    "connectors",
    "bots",
    "sensei",
    "check",
    "tracer",
    "bench",
    "qualify",
    "security",
    "transcripts",
)


def build_parser() -> argparse.ArgumentParser:
    # The connectors know no reference bots; the command line offers them as the `demo` technology.
    from engine.bots.connector import register_demo_technology

    register_demo_technology()
    parser = argparse.ArgumentParser(prog="parley", description="Black-box testing of chatbots.")
    parser.add_argument("--version", action="version", version=f"parley {version('parley')}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
