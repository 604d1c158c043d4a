"""`parley llm`: look at LLM providers from the command line (`parley llm models` lists a provider's models)."""

from __future__ import annotations

import argparse
import sys

from commands.common import (
    EXIT_OK,
    add_json_argument,
    add_llm_arguments,
    egress_guard_from_env,
    report_errors,
    resolve_api_key,
    write_json,
)
from engine.llm import list_models


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    llm = commands.add_parser("llm", help="inspect LLM providers")
    actions = llm.add_subparsers(dest="llm_command", metavar="ACTION", required=True)
    models = actions.add_parser(
        "models", help="list the models a provider offers (a curated list if it cannot be asked)"
    )
    add_llm_arguments(models, model=False)
    add_json_argument(models)
    models.set_defaults(handler=report_errors(_models))


def _models(args: argparse.Namespace) -> int:
    key = resolve_api_key(args.provider, args.api_key)
    result = list_models(args.provider, key, args.base_url, egress_guard_from_env())
    if args.json:
        write_json(args.json, result.to_json())
    else:
        sys.stdout.write("".join(f"{model}\n" for model in result.models))
    if result.source == "fallback":
        sys.stderr.write(f"parley: showing Parley's built-in list, not the provider's: {result.reason}\n")
    return EXIT_OK
