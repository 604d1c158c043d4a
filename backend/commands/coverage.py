"""`parley sensei coverage`: which functionalities of a TRACER graph a SENSEI run reached, and where it failed.

    parley sensei coverage --tracer DIR --run DIR [--json [FILE]] [--fail-on-unreached]

`--tracer` is a folder written by `parley tracer --out` (its `graph.json`, else `model.json`) or one of those
files; `--run` a folder written by `parley sensei run --out` (a `check.json` beside the records brings the rules'
failures). "Reached" is decided by words from the chatbot's replies, an approximation the report names
(`engine.regression.coverage`). Exit 0; 1 with `--fail-on-unreached` when a decidable functionality was never
reached; 2 for bad usage or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from commands.common import EXIT_FAILURES, EXIT_OK, EXIT_USAGE, STDOUT, add_json_argument, write_json

GRAPH_FILES = ("graph.json", "model.json")
MAX_GRAPH_BYTES = 20 * 1024 * 1024


def add_coverage_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = actions.add_parser(
        "coverage",
        help="lay a run's conversations over a TRACER graph: reached and failed functionalities",
        description=(__doc__ or "").split("\n\n")[0],
    )
    parser.add_argument("--tracer", required=True, metavar="DIR", help="a `parley tracer --out` folder")
    parser.add_argument("--run", required=True, metavar="DIR", help="a `parley sensei run --out` folder")
    add_json_argument(parser)
    parser.add_argument(
        "--fail-on-unreached", action="store_true", help="exit 1 when a functionality was never reached"
    )
    parser.set_defaults(handler=run_coverage)


def load_graph(path: str | Path) -> dict[str, Any]:
    """A TRACER graph from a folder (graph.json, else model.json) or a file; `RegressionInputError` otherwise."""
    from engine.regression import RegressionInputError

    target = Path(path)
    if target.is_dir():
        found = next((target / name for name in GRAPH_FILES if (target / name).is_file()), None)
        if found is None:
            raise RegressionInputError(
                f"{target}: no graph.json or model.json (a `parley tracer --out` folder)"
            )
        target = found
    try:
        if target.stat().st_size > MAX_GRAPH_BYTES:
            raise RegressionInputError(f"{target}: larger than {MAX_GRAPH_BYTES // (1024 * 1024)} MiB")
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RegressionInputError(f"{target}: cannot be read as JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("nodes", data.get("functionalities")), list):
        raise RegressionInputError(f"{target}: not a TRACER graph (graph.json or model.json)")
    return data


def run_coverage(args: argparse.Namespace) -> int:
    from engine.errors import ParleyError
    from engine.regression import load_folder
    from engine.regression.coverage import coverage, to_text

    try:
        graph = load_graph(args.tracer)
        result = coverage(graph, load_folder(args.run, label=args.run))
    except ParleyError as exc:
        sys.stderr.write(f"parley: {exc.user_message}\n")
        return EXIT_USAGE
    if args.json:
        write_json(args.json, result.to_json())
    if args.json != STDOUT:
        sys.stdout.write(to_text(result))
    if args.fail_on_unreached and result.decided and result.unreached:
        return EXIT_FAILURES
    return EXIT_OK
