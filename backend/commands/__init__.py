"""Sub-commands of the `parley` CLI, one module each with `register(subparsers)`.

Modules only parse arguments and call one engine function; cli.py lists them in COMMANDS.
"""
