"""SENSEI's false findings: the share of conversations on the *unmodified* reference bots that report a finding.

    cd backend && .venv/bin/python benchmarks/sensei_false_findings.py [--seed 1] [--repeats 10] [--bots pizza,bike]
                                                                       [--slips 1.0] [--show N]

Every finding on a bot without a fault is false. The simulated user, the goal judge and the extractor are the
imperfect LLM double (`engine.llm.offline.sensei`: paraphrases, prose around JSON, items in any
spelling, an answered goal left out now and then, closings without the end marker); `--slips` scales how
often it slips (0: a tidy model). Each bot gets the profiles below, written for what it does (orders, bookings, questions; the
Spanish café in Spanish), in both goal styles; each profile runs `--repeats` times with seeds seed, seed+1, ...
A conversation is flagged as the bench flags a kill on a mutant (`engine.evaluation.scoring`): an error that
is a finding (crash, timeout, fallback or repetition loop, goals not verified, outputs missing) or a failed
ground-truth rule (`engine.evaluation.oracles`). Set-up errors (rate limiting, LLM failures) are inconclusive,
not findings. Prints one JSON line; `--show N` prints up to N flagged transcripts to stderr first.
Target (issue 20): at most 1 % of conversations; exit 1 when it is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.on_bots import run_on_bot
from engine.bots import load_bot
from engine.check import Limits, check
from engine.conversation import ConversationRecord
from engine.egress import EgressGuard, EgressPolicy
from engine.evaluation.oracles import oracle_rules
from engine.evaluation.qualify_profiles import PROFILES as SHIPPED_PROFILES
from engine.evaluation.scoring import verdicts
from engine.llm import LLMClient, ProviderConfig, UsageLedger
from engine.llm.offline.sensei import SenseiDouble, SenseiImperfection
from engine.sensei import load_profile

TODAY = date(2027, 3, 10)  # a Wednesday: "tomorrow" is a weekday for the bots that open on weekdays
TARGET = 0.01

# The profiles model qualification ships (engine.evaluation.qualify_profiles), and a Spanish café beside them.
PROFILES: dict[str, list[str]] = {
    **{bot: list(texts) for bot, texts in SHIPPED_PROFILES.items()},
    "cafeteria-es": [
        """
test_name: cafe_pedido
user:
  language: Spanish
  role: Quieres pedir bebidas para llevar.
  goals:
    - "pedir {{cantidad}} {{bebida}} {{tamano}}, leche {{leche}}"
    - cantidad: {function: random(), type: int, data: [1, 2, 3]}
    - bebida: {function: forward(), type: string, data: [café, chocolate, infusión]}
    - tamano: {function: random(), type: string, data: [pequeño, grande]}
    - leche: {function: random(), type: string, data: [entera, desnatada, avena]}
chatbot:
  is_starter: true
  fallback: Perdona, no te he entendido.
  output:
    - total: {type: money, description: el importe total del pedido}
conversation:
  number: 6
  goal_style: {all_answered: {limit: 10}}
  interaction_style: [default]
""",
        """
test_name: cafe_preguntas
user:
  language: Spanish
  role: Quieres saber cómo es la cafetería antes de ir.
  goals:
    - preguntar por el horario
    - preguntar si tenéis wifi
chatbot:
  is_starter: true
  fallback: Perdona, no te he entendido.
  output: []
conversation:
  number: 4
  goal_style: {steps: 6}
  interaction_style: [default]
""",
    ],
}


def _llm(double: SenseiDouble) -> LLMClient:
    config = ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="imperfect-model")
    return LLMClient(
        config,
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        chat_model=double.chat_model(),
        ledger=UsageLedger(),
    )


def run_bot(bot: str, seed: int, imperfection: SenseiImperfection) -> list[tuple[ConversationRecord, Any]]:
    """The bot's profiles run once with `seed`; each record with its verdict."""
    profiles = []
    for text in PROFILES[bot]:
        profile, problems = load_profile(text, source=f"{bot} profile")
        if profile is None:
            raise SystemExit(f"{bot}: invalid benchmark profile: {[p.render() for p in problems]}")
        profiles.append(profile)
    with _llm(SenseiDouble(seed=seed, imperfection=imperfection)) as llm:
        records = run_on_bot(profiles, bot, llm, seed, TODAY)
    oracles = oracle_rules(load_bot(bot))
    report = check([o.rule for o in oracles], records, limits=Limits(isolate=False, max_listed=1_000_000))
    found = verdicts(records, report, {o.name: o.kind for o in oracles})
    return list(zip(records, found, strict=True))


def _transcript(record: ConversationRecord, verdict: Any) -> str:
    lines = [f"== {record.profile} #{record.index}: {verdict.reasons} {verdict.rules} {record.error_codes}"]
    lines += [f"   {e.code}: {e.message}" for e in record.errors]
    lines += [f"   {t.role:>4}: {t.text}" for t in record.turns]
    lines.append(
        f"   settings: stopped_because={record.settings.get('stopped_because')} inputs={record.inputs}"
    )
    return "\n".join(lines)


def measure(seed: int, repeats: int, bots: list[str], *, slips: float = 1.0, show: int = 0) -> dict[str, Any]:
    """`slips` scales every slip rate of the double (0: a tidy model, 3: three times as sloppy)."""
    usual = SenseiImperfection()
    imperfection = SenseiImperfection(
        **{name: min(1.0, getattr(usual, name) * slips) for name in SenseiImperfection.__dataclass_fields__}
    )
    started = time.monotonic()
    by_bot: dict[str, dict[str, Any]] = {}
    reasons: Counter[str] = Counter()
    stops: Counter[str] = Counter()
    total = flagged_total = inconclusive = 0
    shown = 0
    for bot in bots:
        conversations = flagged = 0
        for repeat in range(repeats):
            for record, verdict in run_bot(bot, seed + repeat, imperfection):
                conversations += 1
                stops[str(record.settings.get("stopped_because"))] += 1
                inconclusive += not verdict.conclusive
                if verdict.reasons:
                    flagged += 1
                    reasons.update(verdict.reasons)
                    if shown < show:
                        shown += 1
                        sys.stderr.write(_transcript(record, verdict) + "\n")
        by_bot[bot] = {
            "conversations": conversations,
            "false_findings": flagged,
            "rate": round(flagged / conversations, 4) if conversations else None,
        }
        total += conversations
        flagged_total += flagged
    rate = flagged_total / total if total else 0.0
    return {
        "benchmark": "sensei_false_findings",
        "double": "imperfect",
        "slips": slips,
        "seed": seed,
        "repeats": repeats,
        "conversations": total,
        "false_findings": flagged_total,
        "rate": round(rate, 4),
        "target": TARGET,
        "target_met": rate <= TARGET,
        "reasons": dict(sorted(reasons.items())),
        "inconclusive": inconclusive,
        "stopped_because": dict(sorted(stops.items())),
        "by_bot": by_bot,
        "seconds": round(time.monotonic() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repeats", type=int, default=10, help="runs of every profile (seeds seed, seed+1...)"
    )
    parser.add_argument("--bots", default=",".join(PROFILES), help="comma-separated bot ids")
    parser.add_argument(
        "--slips", type=float, default=1.0, help="scale the double's slip rates (0 = tidy, default 1)"
    )
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print N flagged transcripts")
    args = parser.parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in PROFILES]
    if unknown:
        parser.error(f"no benchmark profiles for {', '.join(unknown)}")
    result = measure(args.seed, args.repeats, bots, slips=args.slips, show=args.show)
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
