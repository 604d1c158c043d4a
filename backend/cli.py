"""The `parley` command: thin argument parsing that hands over to the engines or the platform launcher.

Engine commands (`tracer`, `sensei`, `check`, `bench`) arrive with their issues; each parses its flags here
and calls one function in engine/.
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import version


def _serve(args: argparse.Namespace) -> int:
    from parley import localrun

    return localrun.main(["--port", str(args.port)] + (["--embedded"] if args.embedded else []))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parley", description="Black-box testing of chatbots.")
    parser.add_argument("--version", action="version", version=f"parley {version('parley')}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser("serve", help="run the whole platform on this machine (what `make run` does)")
    serve.add_argument("--port", type=int, default=8080, help="HTTP port for the web application")
    serve.add_argument("--embedded", action="store_true", help="use SQLite and a filesystem queue")
    serve.set_defaults(handler=_serve)
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
