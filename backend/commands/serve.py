"""`parley serve`: run the whole platform on this machine (what `make run` does after installing)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = commands.add_parser("serve", help="run the whole platform on this machine (what `make run` does)")
    serve.add_argument("--port", type=int, default=8080, help="HTTP port for the web application")
    serve.add_argument("--embedded", action="store_true", help="use SQLite and a filesystem queue")
    serve.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace) -> int:
    from parley import localrun

    return localrun.main(["--port", str(args.port)] + (["--embedded"] if args.embedded else []))
