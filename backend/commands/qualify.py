"""`parley qualify`: which model can test my chatbot — kills, false alarms and cost per kill, per model and role.

    parley qualify --models openai:gpt-4.1-mini,local:smollm2-135m,double:imperfect --size tiny --out q/

`local:NAME` is the server of `make real-llm`: $PARLEY_LOCAL_LLM_URL, default http://127.0.0.1:8095/v1. The
estimate is printed first; `--max-cost` refuses a run estimated above it (unpriced models are estimated in calls,
tokens and time, never refused). Writes DIR/qualify.json and DIR/qualify.md (engine/evaluation/qualify.py).
Exit 0 when a recommendation was found, 1 when none met the thresholds, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from commands.common import (
    EXIT_FAILURES,
    EXIT_OK,
    EXIT_USAGE,
    add_json_argument,
    cli_context,
    egress_guard_from_env,
    report_errors,
    resolve_api_key,
    write_json,
)

DEFAULT_LOCAL_URL = "http://127.0.0.1:8095/v1"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "qualify",
        help="which model can test my chatbot: kills, false alarms and cost per kill, per model and role",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--models", required=True, help="comma-separated PROVIDER:MODEL entries (see above)")
    parser.add_argument("--base-url", help="base URL for openai-compatible entries without @URL")
    parser.add_argument("--api-key", help="API key (default: $PARLEY_API_KEY, then the provider's variable)")
    parser.add_argument("--bots", help="reference bots (default: the size's)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the plan, the mutant draw and SENSEI")
    parser.add_argument("--size", choices=("tiny", "small", "default"), default="default")
    parser.add_argument("--max-cost", type=float, metavar="USD", help="refuse a run estimated above this")
    parser.add_argument("--partner", help="the fixed partner (default: the strongest model of --models)")
    parser.add_argument("--concurrency", type=int, default=1, help="SENSEI conversations at once (default 1)")
    parser.add_argument("--estimate", action="store_true", help="print the estimate and stop")
    group = parser.add_argument_group("verdict thresholds, in percent (README D32)")
    group.add_argument("--qualified-kills", type=float, default=70.0)
    group.add_argument("--qualified-false-alarms", type=float, default=2.0)
    group.add_argument("--qualified-failures", type=float, default=1.0)
    group.add_argument("--usable-kills", type=float, default=40.0)
    group.add_argument("--usable-false-alarms", type=float, default=10.0)
    group.add_argument("--min-decided", type=int, default=20, help="fewer decided → too few to tell")
    group.add_argument("--explorer-precision", type=float, default=80.0, help="explorer (TRACER) qualified")
    group.add_argument("--explorer-recall", type=float, default=60.0)
    group.add_argument("--usable-explorer-precision", type=float, default=60.0)
    group.add_argument("--usable-explorer-recall", type=float, default=40.0)
    group.add_argument("--min-explorer-sessions", type=int, default=10, help="fewer → too few to tell")
    parser.add_argument("--out", "-o", required=True, metavar="DIR")
    add_json_argument(parser)
    parser.set_defaults(handler=report_errors(_run))


def _usage(message: str) -> int:
    sys.stderr.write(f"parley: {message}\n")
    return EXIT_USAGE


class _Clients:
    """Real candidates' clients: one provider state per candidate (what one refused is learned once)."""

    def __init__(self, api_key: str | None) -> None:
        from engine.llm import ProviderState

        self.api_key = api_key
        self.guard = egress_guard_from_env()
        self.states: dict[str, ProviderState] = {}
        self.warnings: dict[str, list[str]] = {}

    def _state(self, entry: str) -> Any:
        from engine.llm import ProviderState

        if entry not in self.states:
            notes = self.warnings.setdefault(entry, [])
            self.states[entry] = ProviderState(on_warning=notes.append)
        return self.states[entry]

    def make(self, candidate: Any) -> Any:
        from engine.llm import LLMClient, ProviderConfig, UsageLedger

        key = resolve_api_key(candidate.provider, self.api_key) or ("none" if candidate.base_url else "")
        config = ProviderConfig(
            candidate.provider, api_key=key, model=candidate.model, base_url=candidate.base_url
        )
        guard = self.guard
        if candidate.entry.startswith("local:") and candidate.base_url:
            # `local:` names the loopback server of `make real-llm` on purpose: that one host is allowed.
            from urllib.parse import urlsplit

            from engine.egress import EgressGuard, EgressPolicy

            allowed = [os.environ.get("PARLEY_EGRESS_ALLOW", ""), urlsplit(candidate.base_url).hostname or ""]
            guard = EgressGuard(EgressPolicy.parse(",".join(a for a in allowed if a)))
        return LLMClient(config, guard=guard, ledger=UsageLedger(), state=self._state(candidate.entry))

    def learned(self, candidate: Any) -> list[str]:
        return list(dict.fromkeys(self.warnings.get(candidate.entry, [])))


def _run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from engine.bots import bot_ids
    from engine.evaluation.qualify import QualifyJob, choose_partner, per_kill, qualify
    from engine.evaluation.qualify_plan import SIZES, Thresholds, estimate, parse_candidates
    from engine.llm import PriceTable

    local_url = os.environ.get("PARLEY_LOCAL_LLM_URL") or DEFAULT_LOCAL_URL
    try:
        candidates = parse_candidates(args.models, base_url=args.base_url, local_url=local_url)
    except ValueError as exc:
        return _usage(str(exc))
    size = SIZES[args.size]
    if args.bots:
        bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
        unknown = [b for b in bots if b not in bot_ids()]
        if unknown:
            return _usage(f"unknown bots {', '.join(unknown)}; bots: {', '.join(bot_ids())}")
        size = replace(size, bots=bots)
    table = PriceTable.default()
    prices = {c.entry: None if c.is_double else table.for_model(c.model) for c in candidates}
    try:
        partner = choose_partner(candidates, prices, args.partner)
    except ValueError as exc:
        return _usage(str(exc))
    planned = estimate(candidates, size, prices, args.seed)
    sys.stderr.write(f"Estimate (size {args.size}, partner {partner.entry}):\n")
    for row in planned.rows:
        if row["cost_usd"] is not None:
            what = f"about ${row['cost_usd']:.2f}"
        elif row["seconds"] is not None:
            what = f"unpriced: about {row['seconds'] / 60:.0f} min of LLM time at 2 s a call"
        else:
            what = "offline double: no cost"
        sys.stderr.write(
            f"  {row['model']}: ~{row['calls']:,} calls, {row['prompt_tokens']:,} + "
            f"{row['completion_tokens']:,} tokens; {what}\n"
        )
    sys.stderr.write(f"  total priced: about ${planned.cost_usd:.2f}\n")
    if args.max_cost is not None and planned.cost_usd > args.max_cost:
        return _usage(
            f"the estimate (${planned.cost_usd:.2f}) is above --max-cost ${args.max_cost:.2f}: raise it, or use "
            "--size tiny or fewer --models"
        )
    if args.estimate:
        return EXIT_OK
    thresholds = Thresholds(
        args.qualified_kills,
        args.qualified_false_alarms,
        args.qualified_failures,
        args.usable_kills,
        args.usable_false_alarms,
        args.min_decided,
        args.explorer_precision,
        args.explorer_recall,
        args.usable_explorer_precision,
        args.usable_explorer_recall,
        args.min_explorer_sessions,
    )
    job = QualifyJob(
        candidates,
        size=args.size,
        plan=size,
        seed=args.seed,
        out=Path(args.out),
        partner=partner,
        thresholds=thresholds,
        clients=_Clients(args.api_key),
        concurrency=args.concurrency,
    )
    result = qualify(job, cli_context())
    if args.json:
        write_json(args.json, result)
    if args.json != "-":
        for row in result["models"]:
            sys.stdout.write(
                f"{row['model']:<28} {row['role']:<15} kills {row['kill_rate']} % · false alarms "
                f"{row['false_alarm_rate']} % · {per_kill(row)} · {row['verdict']}\n"
            )
        for row in result["explorers"]:
            sys.stdout.write(
                f"{row['model']:<28} {'explorer':<15} precision {row['precision']} % · recall {row['recall']} % · "
                f"coverage {row['coverage']} % · {row['verdict']}\n"
            )
        rec = result["recommendation"]
        sys.stdout.write(
            f"recommendation: user {rec['simulated_user']}, judge {rec['judge']}, explorer "
            f"{rec['explorer'] or 'none'} ({rec['verdict_together']})\n"
            if rec
            else "recommendation: none met the thresholds\n"
        )
        sys.stdout.write(f"report: {Path(args.out) / 'qualify.md'}\n")
    return EXIT_OK if result["recommendation"] else EXIT_FAILURES
