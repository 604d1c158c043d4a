"""Running one `parley` command in process, as the CLI does, for the tests of that command."""

from __future__ import annotations

import argparse
from types import ModuleType


def run_command(command: ModuleType, *argv: str) -> int:
    """The exit code of `parley ARGV` with only `command` (a module of `commands/`) registered."""
    parser = argparse.ArgumentParser(prog="parley")
    command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return int(args.handler(args))
