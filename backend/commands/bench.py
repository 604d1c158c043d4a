"""`parley bench`: the evaluation bench on the reference bots — coverage, precision and recall of TRACER, the
mutation scores (differential kills: automatic, with the ground-truth oracles, and the thesis's way beside
them), false alarms, spurious kills of the control runs, LLM calls, tokens, cost and wall time.

    parley bench --provider openai --model gpt-4.1-mini --out bench/ [--max-cost 5]
    parley bench --bots pizza,bike [-s 10 -n 8] [--mutants-per-operator 2] [--repeats 3] --out bench/
    parley bench --double imperfect --out bench-fake/      # offline, on the imperfect LLM doubles (fake figures)

A cost estimate is printed first; with `--max-cost` the bench refuses to start when the estimate is higher, and
every LLM call is then refused once the budget is spent. `--estimate` prints the estimate and stops.
Writes OUT/bench.json and OUT/bench.md, and per bot the rules (Parley's own and the ground truth's), TRACER's
artefacts and profiles and every conversation (JSON lines). Exit codes: 0 the bench ran (its figures are
results, not failures); 1 it stopped on an error, or a bot got no usable profile; 2 bad usage or configuration.
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
    cli_context,
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
        "--double",
        choices=("imperfect",),
        help="play every LLM role with Parley's imperfect LLM doubles (offline; the figures are labelled fake)",
    )
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
        "--repeats",
        type=int_at_least(1),
        default=3,
        help="SENSEI runs, same seeds, on each original and on each mutant (default 3)",
    )
    parser.add_argument(
        "--controls",
        type=int_at_least(0),
        default=3,
        help="control runs per bot: the unmodified bot run as a mutant, to measure spurious kills (default 3)",
    )
    parser.add_argument(
        "--matcher",
        choices=("llm", "lexical"),
        default="llm",
        help="who matches functionalities to the ground truth: the model as a judge (default), or word overlap",
    )
    parser.add_argument("--concurrency", type=int_at_least(1), default=4, help="SENSEI conversations at once")
    parser.add_argument("--seed", type=int, default=0, help="seeds the mutant draw, TRACER and SENSEI")
    parser.add_argument("--max-cost", type=float, metavar="USD", help="USD budget for the whole bench")
    parser.add_argument("--estimate", action="store_true", help="print the cost estimate and stop")
    parser.add_argument("--out", "-o", required=True, metavar="DIR", help="output directory")
    add_json_argument(parser)
    parser.set_defaults(handler=report_errors(_run))


def _usage(message: str) -> int:
    sys.stderr.write(f"parley: {message}\n")
    return EXIT_USAGE


def _run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from pydantic import ValidationError

    from engine.bots import bot_ids
    from engine.bots.mutation import OPERATORS
    from engine.evaluation import BenchConfig, BenchJob, run_bench, select_mutants
    from engine.evaluation.doubles import double_config, imperfect_factory
    from engine.evaluation.estimate import estimate_bench
    from engine.llm import Budget, LLMClient, PriceTable, ProviderState, UsageLedger

    bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
    unknown = [b for b in bots if b not in bot_ids()]
    operators = tuple(o.strip() for o in args.operators.split(",")) if args.operators else None
    bad_operators = [o for o in operators or () if o not in OPERATORS]
    mutants: dict[str, list[str]] = {}
    for item in args.mutant:
        bot, _, mutant = item.partition(":")
        if not mutant:
            return _usage(f"--mutant {item!r}: write BOT:MUTANT_ID")
        mutants.setdefault(bot, []).append(mutant)
    if unknown or bad_operators:
        what = (
            f"unknown bots {', '.join(unknown)}"
            if unknown
            else f"unknown operators {', '.join(bad_operators)}"
        )
        return _usage(f"{what}; bots: {', '.join(bot_ids())}; operators: {', '.join(OPERATORS)}")
    settings: dict[str, Any] = {
        "bots": bots,
        "sessions": args.sessions,
        "turns": args.turns,
        "mutants_per_operator": args.mutants_per_operator,
        "operators": operators,
        "mutants": {bot: tuple(ids) for bot, ids in mutants.items()} or None,
        "repeats": args.repeats,
        "controls": args.controls,
        "concurrency": args.concurrency,
        "seed": args.seed,
        "output_dir": Path(args.out),
    }
    provider = None
    try:
        if args.double:
            config = double_config(**settings)
        else:
            provider = provider_config_from_args(args)
            if args.temperature is not None:
                provider = replace(provider, temperature=args.temperature)
            config = BenchConfig(
                **settings,
                matcher=args.matcher,
                provider=provider.provider,
                model=provider.model_name,
                temperature=args.temperature,
            )
    except ValidationError as exc:
        return _usage(f"{exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}")
    try:
        drawn = {bot: sum(1 for m in select_mutants(bot, config) if not m.stillborn) for bot in bots}
    except ValueError as exc:  # an unknown --mutant id
        return _usage(str(exc))

    price = None if args.double else PriceTable.default().for_model(config.model)
    estimate = estimate_bench(config, price, drawn)
    sys.stderr.write(estimate.describe(config.model) + "\n")
    if args.estimate:
        if args.json:
            write_json(args.json, estimate.to_json())
        return EXIT_OK
    budget = None
    if args.max_cost is not None:
        if price is None and not args.double:
            return _usage(f"--max-cost needs a model with a known price; {config.model} has none")
        if estimate.cost_usd is not None and estimate.cost_usd > args.max_cost:
            return _usage(
                f"the estimate (${estimate.cost_usd:.2f}) is above --max-cost ${args.max_cost:.2f}: raise it, or "
                "run fewer --bots, --repeats or --mutants-per-operator"
            )
        budget = Budget(args.max_cost, allow_unpriced=bool(args.double))

    context = cli_context()
    if args.double:
        factory = imperfect_factory(args.seed)
    else:
        assert provider is not None
        guard = egress_guard_from_env()
        # One state for every phase: what the server refused in the TRACER phase is not paid again in SENSEI.
        state = ProviderState(on_warning=context.reporter.warning)
        config_for_clients = provider

        def factory(role: str) -> LLMClient:
            return LLMClient(
                config_for_clients, guard=guard, ledger=UsageLedger(), state=state, budget=budget
            )

    result = run_bench(BenchJob(config, factory), context)
    summary = _summary(args.out, result.data, estimate.to_json())
    if args.json:
        write_json(args.json, summary)
    if args.json != "-":
        sys.stdout.write(_text(summary, Path(args.out)))
    no_profiles = [bot for bot, b in result.data["bots"].items() if not b["profiles"]]
    return EXIT_FAILURES if no_profiles else EXIT_OK


def _summary(out: str, data: dict[str, Any], estimate: dict[str, Any]) -> dict[str, Any]:
    overall = data["overall"]
    scores = data["scores"]
    return {
        "output_dir": out,
        "provenance": data["provenance"],
        "mutation_score": scores["with_oracles"]["score"],
        "mutation_score_automatic": scores["automatic"]["score"],
        "mutation_score_thesis_rule": scores["thesis_rule"]["with_oracles"]["score"],
        "killed": scores["with_oracles"]["killed"],
        "killed_automatic": scores["automatic"]["killed"],
        "live": scores["with_oracles"]["live"],
        "stillborn": scores["with_oracles"]["stillborn"],
        "controls": overall["controls"],
        "precision": overall["precision"],
        "recall": overall["recall"],
        "matcher": overall["matcher"],
        "false_alarm_rate": overall["false_alarms"]["rate"],
        "false_alarm_rate_automatic": overall["false_alarms"]["automatic"]["rate"],
        "usage": overall["usage"],
        "estimate": estimate,
    }


def _text(summary: dict[str, Any], out: Path) -> str:
    usage = summary["usage"]
    approximation = " (approximation: lexical matcher)" if summary["matcher"] != "llm" else ""
    note = summary["provenance"].get("llm_note")
    return (
        f"mutation score {summary['mutation_score']} % with oracles, {summary['mutation_score_automatic']} % "
        f"automatic ({summary['killed']} killed, {summary['live']} live, {summary['stillborn']} stillborn; "
        f"the thesis's way {summary['mutation_score_thesis_rule']} %); controls killed by noise "
        f"{summary['controls']['with_oracles']['killed']} of {summary['controls']['runs']}; TRACER precision "
        f"{summary['precision']} %, recall {summary['recall']} %{approximation}; false alarms "
        f"{summary['false_alarm_rate']} %; {usage['calls']} LLM calls, {usage['cost_usd']:.4f} USD, "
        f"{usage['wall_s']:.1f} s" + (f" [{note}]" if note else "") + f"\nreport: {out / 'bench.md'}\n"
    )
