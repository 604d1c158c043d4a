"""`parley connectors`: list the chatbot technologies, show one's parameters, try a connector file.

Exit codes: 0 success; 1 the chatbot failed (unreachable, error status, bad reply); 2 bad input (usage, a
connector file that does not validate, a destination the egress policy refuses). The egress policy comes from
PARLEY_EGRESS_ALLOW here, at the edge: the engine itself never reads the environment.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

CONFIGURATION_CODES = {"connector_config_error", "egress_denied"}


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    connectors = commands.add_parser("connectors", help="chatbot technologies and connector files")
    actions = connectors.add_subparsers(dest="connectors_action", metavar="ACTION", required=True)

    listing = actions.add_parser("list", help="list the chatbot technologies")
    _add_json(listing)
    listing.set_defaults(handler=_list)

    params = actions.add_parser("params", help="show a technology's parameters")
    params.add_argument("technology")
    _add_json(params)
    params.set_defaults(handler=_params)

    trying = actions.add_parser("try", help="send one message through a connector file and show the reply")
    trying.add_argument("file", help="connector YAML file (technology: <name> plus its parameters)")
    trying.add_argument("message", help="what the user says")
    _add_json(trying)
    trying.set_defaults(handler=_try)


def _add_json(parser: argparse.ArgumentParser) -> None:
    # Same convention as the other commands: bare --json prints to stdout, --json FILE writes the file.
    parser.add_argument(
        "--json", nargs="?", const="-", metavar="FILE", help="the result as JSON (stdout or FILE)"
    )


def _write_json(target: str, data: Any) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if target == "-":
        sys.stdout.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(f"parley: {text}\n")


def _list(args: argparse.Namespace) -> int:
    from engine.connectors import technologies

    items = [{"name": t.name, "description": t.description} for t in technologies()]
    if args.json:
        _write_json(args.json, items)
        return 0
    width = max(len(item["name"]) for item in items)
    for item in items:
        _out(f"{item['name']:<{width}}  {item['description']}")
    _out("\nParameters of one: parley connectors params <technology>")
    return 0


def _params(args: argparse.Namespace) -> int:
    from engine.connectors import ConnectorConfigError, get_technology

    try:
        technology = get_technology(args.technology)
    except ConnectorConfigError as exc:
        _err(exc.user_message)
        return 2
    parameters = technology.parameters()
    if args.json:
        document: dict[str, Any] = {
            "technology": technology.name,
            "description": technology.description,
            "parameters": [p.model_dump() for p in parameters],
            "json_schema": technology.json_schema(),
            "example": {"technology": technology.name, **technology.example},
        }
        _write_json(args.json, document)
        return 0
    _out(f"{technology.name}: {technology.description}\n")
    for p in parameters:
        flags = ", ".join(
            [p.type, "required" if p.required else "optional"]
            + (["secret"] if p.secret else [])
            + ([f"default {json.dumps(p.default)}"] if p.default not in (None, {}, []) else [])
        )
        _out(f"  {p.name} ({flags})\n      {p.description}")
    from engine.connectors import ConnectorConfig, dump_connector_yaml

    example = ConnectorConfig(technology=technology.name, params=technology.example)
    _out("\nExample connector file:\n")
    _out(dump_connector_yaml(example, include_secrets=True).rstrip())
    return 0


def _try(args: argparse.Namespace) -> int:
    from commands.common import egress_guard_from_env
    from engine.connectors import ConnectorConfigError, load_connector_file, test_connection
    from engine.errors import ParleyError

    try:
        guard = egress_guard_from_env()
    except ParleyError as exc:
        _err(exc.user_message)
        return 2
    try:
        config = load_connector_file(args.file)
    except ConnectorConfigError as exc:
        _err(exc.user_message)
        return 2
    result = test_connection(config, guard, message=args.message)
    if args.json:
        _write_json(args.json, result.model_dump(mode="json"))
    elif result.ok and result.reply is not None:
        if result.greeting is not None:
            for text in result.greeting.messages:
                _out(f"bot (greeting): {text}")
        _out(f"user: {args.message}")
        for text in result.reply.messages or ["(no message)"]:
            _out(f"bot: {text}")
        for button in result.reply.buttons:
            target = button.url or button.value or ""
            _out(f"  [{button.label}]" + (f" -> {target}" if target and target != button.label else ""))
        _out(f"({result.latency_s:.2f} s)")
    else:
        _err(result.error_message or "The connection test failed.")
        if result.raw_excerpt:
            sys.stderr.write(f"Response body: {result.raw_excerpt}\n")
    if result.ok:
        return 0
    return 2 if result.error_code in CONFIGURATION_CODES else 1
