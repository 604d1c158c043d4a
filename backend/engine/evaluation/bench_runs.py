"""The bench's SENSEI phases on one bot: which mutants run, SENSEI on the original or on a mutant with the bench's
seeds, each run's conversations judged by the bot's rules, and a mutant's outcome against the original's runs.

`sensei_run` is one SENSEI run of the bench (fresh LLM clients from the job's factory, usage added to the bot's
`Usage`, trimmed plans for qualification sizes); a cancel between phases raises `Cancelled`. `BotRules` are the
rules every conversation of one bot is checked against (`engine.evaluation.bench_bot` builds them).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from engine.bots.definition import BotDefinition
from engine.bots.mutation import Mutant
from engine.bots.registry import mutants_of
from engine.check import Limits, Rule, check
from engine.context import Cancelled, RunContext
from engine.conversation import ConversationRecord
from engine.errors import ParleyError
from engine.evaluation.config import BENCH_CANCELLED, BenchConfig, LLMFactory
from engine.evaluation.findings import ConversationFindings, conversation_findings, rule_failures
from engine.evaluation.model_rules import ModelRule, out_of_range_uses
from engine.evaluation.oracles import Oracle
from engine.evaluation.scoring import MutantOutcome, mutant_outcome, not_run
from engine.evaluation.target import CoverageLogs, CoveredBot
from engine.evaluation.totals import Usage
from engine.sensei import Profile, SenseiJob, run_profiles


@dataclass(frozen=True)
class BotRules:
    """The rules every conversation of one bot is checked against, and what a conversation may be given."""

    rules: list[ModelRule | Oracle]
    kinds: dict[str, str]
    out_of_range: dict[str, dict[str, frozenset[str]]]
    fallbacks: list[str]


@dataclass(frozen=True)
class SenseiPhase:
    """What every SENSEI run of one bot shares: the job's settings and factory, the day, where usage goes."""

    config: BenchConfig
    llm_factory: LLMFactory
    today: date
    usage: Usage
    context: RunContext


def select_mutants(bot: str, config: BenchConfig) -> list[Mutant]:
    """The mutants of `bot` to run: the explicit list, or `mutants_per_operator` drawn per operator from the
    loadable ones (seeded), followed by every stillborn mutant of the drawn operators (reported apart)."""
    every = list(mutants_of(bot))
    if config.mutants is not None and bot in config.mutants:
        wanted = config.mutants[bot]
        by_id = {m.id: m for m in every}
        unknown = [m for m in wanted if m not in by_id]
        if unknown:
            raise ValueError(f"{bot} has no mutants {', '.join(unknown)}")
        return [by_id[m] for m in wanted]
    rng = random.Random(f"{config.seed}:{bot}")  # noqa: S311 - a reproducible draw, not security
    operators = config.operators or tuple(dict.fromkeys(m.operator for m in every))
    chosen: list[Mutant] = []
    for operator in operators:
        loadable = [m for m in every if m.operator == operator and not m.stillborn]
        count = min(config.mutants_per_operator, len(loadable))
        chosen += sorted(rng.sample(loadable, count), key=lambda m: every.index(m)) if count else []
    chosen += [m for m in every if m.stillborn and m.operator in operators]
    return chosen


def sensei_run(
    phase: SenseiPhase,
    profiles: list[Profile],
    definition: BotDefinition,
    logs: CoverageLogs,
    role: str,
    seed: int,
    usage_phase: str,
) -> list[ConversationRecord]:
    """SENSEI with `profiles` on `definition` (coverage into `logs`), with `seed`; its records by profile, index."""
    config, today, usage = phase.config, phase.today, phase.usage
    records: list[ConversationRecord] = []
    if not profiles:
        return records
    label = role.replace(":", "-")
    started = time.monotonic()

    def _trim(_profile: Profile, plan: Any) -> Any:
        # Qualification sizes: fewer and shorter conversations, the same for every model compared.
        kept = plan.conversations[: config.conversations_per_profile or None]
        turns = config.max_user_turns
        if turns:
            kept = [replace(c, max_user_turns=min(c.max_user_turns, turns)) for c in kept]
        return replace(plan, conversations=kept)

    replan = _trim if config.conversations_per_profile or config.max_user_turns else None
    with ExitStack() as stack:
        llm = stack.enter_context(phase.llm_factory(role))
        phase.context.meter(llm.ledger)
        judge = stack.enter_context(phase.llm_factory(f"extractor:{role}")) if config.separate_judge else None
        if judge is not None:
            phase.context.meter(judge.ledger)
        job = SenseiJob(
            profiles[: config.max_profiles] if config.max_profiles else profiles,
            lambda: CoveredBot(definition, logs, today=today, label=label),
            llm,
            sink=records.append,
            judge=judge,
            concurrency=config.concurrency,
            seed=seed,
            today=lambda: today,
            user_model=llm.model,  # the bench measures one model: it plays the user whatever the profiles say
            replan=replan,
        )
        run_profiles(job, phase.context.quiet())
        usage.add(usage_phase, llm.ledger, time.monotonic() - started)
        if judge is not None:
            usage.add(f"{usage_phase}_extractor", judge.ledger, 0.0)
    phase.context.check_cancel(BENCH_CANCELLED)
    return sorted(records, key=lambda r: (r.profile, r.index))


def judge_records(records: list[ConversationRecord], rules: BotRules) -> list[ConversationFindings]:
    """Each conversation's findings under the bot's rules."""
    if not records:
        return []
    # The rules are generated here, not written by users: no child process needed.
    checked: list[Rule] = [r.rule for r in rules.rules]
    report = check(checked, records, limits=Limits(isolate=False, max_listed=1_000_000))
    failures = rule_failures(report)
    return [
        conversation_findings(
            record,
            failures.get(record.id, []),
            rules.kinds,
            out_of_range_uses(record, rules.out_of_range.get(record.profile, {}), rules.fallbacks),
        )
        for record in records
    ]


def run_mutant(
    phase: SenseiPhase,
    mutant: Mutant,
    profiles: list[Profile],
    rules: BotRules,
    original: list[list[ConversationFindings]],
    out: Path | None,
    usage_phase: str = "sensei_mutants",
) -> MutantOutcome:
    """SENSEI on `mutant` with the original's seeds, as many times as the original ran; its outcome."""
    config = phase.config
    if mutant.definition is None:
        outcome = not_run(mutant.id, mutant.operator, mutant.description, "stillborn")
        outcome.stillborn_reason = mutant.stillborn_reason
        return outcome
    runs: list[list[ConversationFindings]] = []
    error: str | None = None
    for repeat in range(1, len(original) + 1):
        try:
            records = sensei_run(
                phase, profiles, mutant.definition, CoverageLogs(), f"sensei:{mutant.bot}:{mutant.id}:{repeat}",
                config.seed + repeat - 1, usage_phase,
            )  # fmt: skip
        except Cancelled:
            raise
        except ParleyError as exc:
            error = f"repeat {repeat}: {exc.user_message}"
            break
        write_records(out, f"{mutant.id}-{repeat}", records)
        runs.append(judge_records(records, rules))
    if not runs:
        outcome = not_run(mutant.id, mutant.operator, mutant.description, "inconclusive")
        outcome.error = error or "no conversation ran"
        return outcome
    outcome = mutant_outcome(mutant.id, mutant.operator, mutant.description, original, runs)
    outcome.error = error
    if not any(runs):
        outcome.error = error or "no conversation ran"
    return outcome


def write_rules(directory: Path, rules: Sequence[Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for rule in rules:
        (directory / f"{rule.name}.yaml").write_text(rule.text, encoding="utf-8")


def write_records(out: Path | None, name: str, records: list[ConversationRecord]) -> None:
    if out is None:
        return
    directory = out / "conversations"
    directory.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(record.model_dump(mode="json"), ensure_ascii=False) for record in records]
    (directory / f"{name}.jsonl").write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
