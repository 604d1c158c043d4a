"""Shrinking on the reference bots' mutants: how much shorter the failing conversations get, and at what cost.

    cd backend && .venv/bin/python benchmarks/shrink_mutants.py [--bots pizza,bike] [--per-operator N]
                                                               [--seed 1] [--replays 3 --needed 2]

For every reference bot with profiles in `sensei_false_findings.py` (the same profiles, run by SENSEI with the
imperfect LLM double, once per bot with `--seed`), each mutant in the sample gets the same run. A mutant is
*killed* when one of its conversations is `failed` with a verdict reason the original's run never shows (the
bench's differential kill, on verdicts only: a kill found only by a ground-truth rule is no failed conversation
and has nothing to shrink). The longest killing conversation is shrunk with `engine.regression.shrink` — no
LLM (a failure no code rule covers is counted as `needs_llm`, one the shrinker refuses as `refused`), k of n
replays, the default cap of 200 chatbot calls — and its pinned profile is played on the mutant (it must fail) and on the original (it must pass).

Every live mutant by default (about a minute on two shared cores for the four bots). `--operators a,b` keeps
those operators' mutants only; `--per-operator N` draws N mutants per operator and bot, spread over the
operator's list (a stratified sample, for a quick look).
Prints one JSON line: mutants sampled and killed, failures shrunk, the median user turns before (whole
conversation and up to the failure) and after, chatbot calls (median and total), and how many pins fail on the
mutant and pass on the original. Exit 1 when a reproduced pin fails to do either.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.sensei_false_findings import PROFILES, TODAY, _llm
from engine.bots.connector import BotConnector
from engine.bots.registry import mutants_of
from engine.conversation import ConversationRecord
from engine.llm.offline.sensei import SenseiDouble, SenseiImperfection
from engine.regression.shrink import ShrinkError, ShrinkJob, shrink_record
from engine.sensei import SenseiJob, load_profile, run_profiles
from engine.sensei.profile import Profile
from engine.sensei.verdicts import reason_code


def _profiles(bot: str) -> list[Profile]:
    out = []
    for text in PROFILES[bot]:
        profile, problems = load_profile(text, source=f"{bot} profile")
        if profile is None:
            raise SystemExit(f"{bot}: invalid profile: {[p.render() for p in problems]}")
        out.append(profile)
    return out


def _run(bot: str, mutant: str | None, profiles: list[Profile], seed: int) -> list[ConversationRecord]:
    records: list[ConversationRecord] = []
    with _llm(SenseiDouble(seed=seed, imperfection=SenseiImperfection())) as llm:
        run_profiles(
            SenseiJob(
                profiles,
                lambda: BotConnector(bot, mutant=mutant, today=TODAY),
                llm,
                concurrency=1,
                seed=seed,
                sink=records.append,
                today=lambda: TODAY,
            )
        )
    return records


def _pin_verdict(bot: str, mutant: str | None, pinned: str) -> str:
    profile, _ = load_profile(pinned, source="pinned")
    assert profile is not None
    records: list[ConversationRecord] = []
    with _llm(SenseiDouble(seed=0, imperfection=SenseiImperfection())) as llm:
        run_profiles(
            SenseiJob(
                [profile],
                lambda: BotConnector(bot, mutant=mutant, today=TODAY),
                llm,
                sink=records.append,
                seed=0,
                today=lambda: TODAY,
            )
        )
        assert llm.ledger.to_json().get("calls", 0) == 0, "a pinned profile called the LLM"
    return records[0].verdict or "inconclusive"


def _sample(mutants: list[Any], per_operator: int | None) -> list[Any]:
    if per_operator is None:
        return mutants
    by_operator: dict[str, list[Any]] = {}
    for mutant in mutants:
        by_operator.setdefault(mutant.operator, []).append(mutant)
    picked = []
    for items in by_operator.values():
        if len(items) <= per_operator:
            picked += items
            continue
        step = len(items) / per_operator  # spread over the list, not its first N
        picked += [items[int(i * step)] for i in range(per_operator)]
    return picked


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def measure(
    bots: list[str],
    seed: int,
    per_operator: int | None,
    replays: int,
    needed: int,
    operators: set[str] | None = None,
) -> dict[str, Any]:
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    sampled = killed = 0
    for bot in bots:
        profiles = _profiles(bot)
        types = {p.name: {o.name: o.type for o in p.chatbot.outputs} for p in profiles}
        original = {
            reason_code(r.verdict_reason) for r in _run(bot, None, profiles, seed) if r.verdict == "failed"
        }
        alive = [
            m for m in mutants_of(bot) if not m.stillborn and (operators is None or m.operator in operators)
        ]
        for mutant in _sample(alive, per_operator):
            sampled += 1
            records = _run(bot, mutant.id, profiles, seed)
            killing = [
                r for r in records if r.verdict == "failed" and reason_code(r.verdict_reason) not in original
            ]
            if not killing:
                continue
            killed += 1
            record = max(killing, key=lambda r: len(r.user_phrases))
            row: dict[str, Any] = {
                "bot": bot,
                "mutant": mutant.id,
                "reason": reason_code(record.verdict_reason),
            }
            try:
                result = shrink_record(
                    ShrinkJob(
                        record,
                        lambda bot=bot, mutant=mutant.id: BotConnector(bot, mutant=mutant, today=TODAY),
                        replays=replays,
                        needed=needed,
                        output_types=types.get(record.profile, {}),
                        today=TODAY,
                    )
                )
            except ShrinkError as exc:
                needs_llm = exc.user_message.startswith("No code rule")
                row.update(status="needs_llm" if needs_llm else "refused", why=exc.user_message)
                rows.append(row)
                continue
            row.update(
                status="shrunk" if result.reproduced else "not_reproduced",
                before=result.original_turns,
                before_failure=len(result.original_script),
                after=result.shrunk_turns,
                chatbot_calls=result.chatbot_calls,
                capped=result.capped,
            )
            if result.reproduced:
                row["pin_on_mutant"] = _pin_verdict(bot, mutant.id, result.pinned_profile)
                row["pin_on_original"] = _pin_verdict(bot, None, result.pinned_profile)
            rows.append(row)
    shrunk = [r for r in rows if r["status"] == "shrunk"]
    replayed = [r for r in rows if "chatbot_calls" in r]
    return {
        "benchmark": "shrink_mutants",
        "bots": bots,
        "seed": seed,
        "sample": ("all mutants" if per_operator is None else f"{per_operator} per operator and bot")
        + (f" of {', '.join(sorted(operators))}" if operators else ""),
        "replays": replays,
        "needed": needed,
        "mutants": sampled,
        "killed": killed,
        "shrunk": len(shrunk),
        "not_reproduced": sum(1 for r in rows if r["status"] == "not_reproduced"),
        "needs_llm": sum(1 for r in rows if r["status"] == "needs_llm"),
        "refused": sum(1 for r in rows if r["status"] == "refused"),
        "median_user_turns_before": _median([r["before"] for r in shrunk]),
        "median_user_turns_to_failure": _median([r["before_failure"] for r in shrunk]),
        "median_user_turns_after": _median([r["after"] for r in shrunk]),
        "median_chatbot_calls": _median([r["chatbot_calls"] for r in replayed]),
        "chatbot_calls": sum(r["chatbot_calls"] for r in replayed),
        "capped": sum(1 for r in replayed if r["capped"]),
        "pins_failing_on_mutant": sum(1 for r in shrunk if r["pin_on_mutant"] == "failed"),
        "pins_passing_on_original": sum(1 for r in shrunk if r["pin_on_original"] == "passed"),
        "llm_calls": 0,
        "seconds": round(time.monotonic() - started, 1),
        "mutants_detail": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bots", default="pizza,bike,veterinary,photography")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--per-operator", type=int, help="a stratified sample: N mutants per operator and bot (default: all)"
    )
    parser.add_argument("--operators", help="comma-separated mutation operators (default: all)")
    parser.add_argument("--replays", type=int, default=3)
    parser.add_argument("--needed", type=int, default=2)
    parser.add_argument("--detail", action="store_true", help="keep the per-mutant rows in the JSON line")
    args = parser.parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in PROFILES]
    if unknown:
        parser.error(f"no benchmark profiles for {', '.join(unknown)}")
    operators = {o.strip() for o in args.operators.split(",")} if args.operators else None
    result = measure(bots, args.seed, args.per_operator, args.replays, args.needed, operators)
    if not args.detail:
        result.pop("mutants_detail")
    sys.stdout.write(json.dumps(result) + "\n")
    ok = result["pins_failing_on_mutant"] == result["pins_passing_on_original"] == result["shrunk"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
