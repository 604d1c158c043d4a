"""`parley bench`: the evaluation bench on the reference bots — coverage, precision and recall of TRACER,
mutation score with kills per operator and reason, false alarms, LLM calls, tokens, cost and wall time.

    parley bench --bots pizza,bike,photography,veterinary --provider openai --model gpt-4o-mini \\
                 [--base-url URL] [-s 10 -n 8] [--mutants-per-operator 2] [--repeats 5] --out bench/

Writes OUT/bench.json and OUT/bench.md, and per bot the generated rules, TRACER's artefacts and profiles and
every conversation (JSON lines). Exit codes: 0 the bench ran (its figures are results, not failures); 1 it
stopped on an error, or a bot got no usable profile; 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from commands.common import (
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_USAGE,
    add_json_argument,
    add_llm_arguments,
    egress_guard_from_env,
    int_at_least,
    provider_config_from_args,
    report_errors,
    write_json,
)

DEFAULT_BOTS = "pizza,bike,photography,veterinary"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "bench",
        help="measure coverage, fault finding and cost on the reference bots",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--bots", default=DEFAULT_BOTS, help=f"comma-separated bot ids (default {DEFAULT_BOTS})"
    )
    add_llm_arguments(parser)
    parser.add_argument("--temperature", type=float, help="sampling temperature (default: the provider's)")
    parser.add_argument(
        "--sessions", "-s", type=int_at_least(1), default=10, help="TRACER sessions (default 10)"
    )
    parser.add_argument(
        "--turns", "-n", type=int_at_least(1), default=8, help="TRACER turns per session (default 8)"
    )
    parser.add_argument(
        "--mutants-per-operator",
        type=int_at_least(0),
        default=2,
        help="mutants drawn per operator and bot (default 2)",
    )
    parser.add_argument("--operators", help="comma-separated mutation operators (default: all)")
    parser.add_argument(
        "--mutant",
        action="append",
        default=[],
        metavar="BOT:ID",
        help="run this mutant instead of a random draw for its bot (repeatable)",
    )
    parser.add_argument(
        "--repeats", type=int_at_least(1), default=5, help="SENSEI runs on each original (default 5)"
    )
    parser.add_argument("--concurrency", type=int_at_least(1), default=4, help="SENSEI conversations at once")
    parser.add_argument("--seed", type=int, default=0, help="seeds the mutant draw, TRACER and SENSEI")
    parser.add_argument("--out", "-o", required=True, metavar="DIR", help="output directory")
    add_json_argument(parser)
    parser.set_defaults(handler=report_errors(_run))


def _run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from pydantic import ValidationError

    from engine.bots import bot_ids
    from engine.bots.mutation import OPERATORS
    from engine.evaluation import BenchConfig, BenchReporter, MutantOutcome, run_bench
    from engine.llm import LLMClient, ProviderState, UsageLedger

    bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
    unknown = [b for b in bots if b not in bot_ids()]
    operators = tuple(o.strip() for o in args.operators.split(",")) if args.operators else None
    bad_operators = [o for o in operators or () if o not in OPERATORS]
    mutants: dict[str, list[str]] = {}
    for item in args.mutant:
        bot, _, mutant = item.partition(":")
        if not mutant:
            sys.stderr.write(f"parley: --mutant {item!r}: write BOT:MUTANT_ID\n")
            return EXIT_USAGE
        mutants.setdefault(bot, []).append(mutant)
    if unknown or bad_operators:
        what = (
            f"unknown bots {', '.join(unknown)}"
            if unknown
            else f"unknown operators {', '.join(bad_operators)}"
        )
        sys.stderr.write(f"parley: {what}; bots: {', '.join(bot_ids())}; operators: {', '.join(OPERATORS)}\n")
        return EXIT_USAGE
    guard = egress_guard_from_env()
    provider = provider_config_from_args(args)
    if args.temperature is not None:
        provider = replace(provider, temperature=args.temperature)
    try:
        config = BenchConfig(
            bots=bots,
            sessions=args.sessions,
            turns=args.turns,
            mutants_per_operator=args.mutants_per_operator,
            operators=operators,
            mutants={bot: tuple(ids) for bot, ids in mutants.items()} or None,
            repeats=args.repeats,
            concurrency=args.concurrency,
            seed=args.seed,
            output_dir=Path(args.out),
            provider=provider.provider,
            model=provider.model_name,
            temperature=args.temperature,
        )
    except ValidationError as exc:
        sys.stderr.write(f"parley: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}\n")
        return EXIT_USAGE

    class Console(BenchReporter):
        def stage(self, bot: str, stage: str) -> None:
            sys.stderr.write(f"== {bot}: {stage}\n")

        def mutant(self, bot: str, outcome: MutantOutcome, done: int, total: int) -> None:
            reasons = ", ".join(outcome.reasons) or "-"
            sys.stderr.write(f"   [{done}/{total}] {outcome.id}: {outcome.status} ({reasons})\n")

        def warning(self, text: str) -> None:
            sys.stderr.write(f"   warning: {text}\n")

    console = Console()
    # One state for every phase: what the server refused in the TRACER phase is not paid again in SENSEI.
    state = ProviderState(on_warning=console.warning)

    def factory(role: str) -> LLMClient:
        return LLMClient(provider, guard=guard, ledger=UsageLedger(), state=state)

    try:
        result = run_bench(config, factory, reporter=console)
    except ValueError as exc:  # an unknown --mutant id
        sys.stderr.write(f"parley: {exc}\n")
        return EXIT_USAGE
    overall = result.overall
    summary: dict[str, Any] = {
        "output_dir": args.out,
        "mutation_score": overall["mutation"]["mutation_score"],
        "killed": overall["mutation"]["killed"],
        "live": overall["mutation"]["live"],
        "stillborn": overall["mutation"]["stillborn"],
        "precision": overall["precision"],
        "recall": overall["recall"],
        "false_alarm_rate": overall["false_alarms"]["rate"],
        "usage": overall["usage"],
    }
    if args.json:
        write_json(args.json, summary)
    if args.json != "-":
        sys.stdout.write(
            f"mutation score {summary['mutation_score']} % ({summary['killed']} killed, {summary['live']} live, "
            f"{summary['stillborn']} stillborn); TRACER precision {summary['precision']} %, recall "
            f"{summary['recall']} %; false alarms {summary['false_alarm_rate']} %; "
            f"{overall['usage']['calls']} LLM calls, {overall['usage']['cost_usd']:.4f} USD, "
            f"{overall['wall_s']:.1f} s\nreport: {Path(args.out) / 'bench.md'}\n"
        )
    no_profiles = [bot for bot, b in result.data["bots"].items() if not b["profiles"]]
    return EXIT_FAILURES if no_profiles else EXIT_OK
