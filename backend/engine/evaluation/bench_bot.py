"""One bot's bench: TRACER on the original and its model against the ground truth, the rules (Parley's own from
TRACER's model and the ground truth's), SENSEI on the original `repeats` times, on every selected mutant, and the
controls; the bot's block of bench.json. The SENSEI runs themselves are `engine.evaluation.bench_runs`'.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import coverage_percentages, load_bot, manifest
from engine.bots.definition import BotDefinition
from engine.bots.mutation import Mutant
from engine.context import Cancelled, Reporter, RunContext
from engine.evaluation.bench_runs import (
    BotRules,
    SenseiPhase,
    judge_records,
    run_mutant,
    select_mutants,
    sensei_run,
    write_records,
    write_rules,
)
from engine.evaluation.config import BENCH_CANCELLED, BenchJob
from engine.evaluation.findings import ConversationFindings
from engine.evaluation.matching import precision_recall
from engine.evaluation.model_rules import ModelRule, model_rules, out_of_range
from engine.evaluation.oracles import Oracle, oracle_rules
from engine.evaluation.scoring import MutantOutcome, false_alarms, mutation_summary, scores
from engine.evaluation.target import CoverageLogs, CoveredBot
from engine.evaluation.totals import Usage, controls_json, median_coverage
from engine.sensei import Profile, load_profile, profile_keys
from engine.tracer import TracerConfig, TracerDeps, TracerJob, run_tracer

CONTROL_NOTE = "the unmodified bot, run again as if it were a mutant (any kill is noise)"


def bench_bot(
    bot: str, job: BenchJob, context: RunContext, today: date
) -> tuple[dict[str, Any], list[MutantOutcome]]:
    """The five phases on `bot` (see `engine.evaluation.run`): its block of bench.json and its mutants' outcomes."""
    config, llm_factory, reporter = job.config, job.llm_factory, context.reporter
    extra = list(job.extra_mutants.get(bot, ()))
    definition = load_bot(bot)
    truth = manifest(bot)
    out = config.output_dir / bot if config.output_dir else None
    usage = Usage()
    phase = SenseiPhase(config, llm_factory, today, usage, context)
    oracles = oracle_rules(definition)

    # 1. TRACER on the original, and its model against the ground truth.
    context.check_cancel(BENCH_CANCELLED)
    reporter.stage("tracer", label=f"{bot}: tracer")
    tracer_logs = CoverageLogs()
    tracer_started = time.monotonic()
    with llm_factory(f"tracer:{bot}") as llm:
        context.meter(llm.ledger)
        tracer_config = TracerConfig(
            sessions=config.sessions,
            turns=config.turns,
            seed=config.seed,
            output_dir=out / "tracer" if out is not None else None,
        )
        connector = CoveredBot(definition, tracer_logs, today=today, label="tracer")
        tracer_job = TracerJob(
            tracer_config, TracerDeps(llm=llm, connector=connector), f"bench-{bot}", InMemorySaver()
        )
        try:
            tracer = run_tracer(tracer_job, context.quiet())
        except Cancelled:
            raise Cancelled(BENCH_CANCELLED) from None
        usage.add("tracer", llm.ledger, time.monotonic() - tracer_started)
    tracer_coverage = coverage_percentages(truth, tracer_logs.logs)
    modelling = _modelling(bot, tracer.model, definition, phase)
    fixed = (config.profiles or {}).get(bot)
    profile_records: list[Mapping[str, Any]] = (
        [{"name": f"fixed-{n}", "yaml": text, "filename": None} for n, text in enumerate(fixed, 1)]
        if fixed
        else list(tracer.valid_profiles)
    )
    profiles, profile_info = _profiles(profile_records, reporter, bot)
    if out is not None:
        (out / "profiles").mkdir(parents=True, exist_ok=True)
        for record in profile_records:
            (out / "profiles" / (record["filename"] or f"{record['name']}.yaml")).write_text(
                record["yaml"], encoding="utf-8"
            )

    # 2. The rules: Parley's own from TRACER's model (automatic), and the ground truth's.
    automatic = model_rules(tracer.model)
    fallbacks = [f for p in profiles for f in p.chatbot.fallback] + [tracer.model.fallback or ""]
    every: list[ModelRule | Oracle] = [*automatic, *oracles]
    rules = BotRules(
        every,
        {r.name: r.kind for r in every},
        # Fixed profiles were not written from TRACER's model: what it never saw is no negative test here.
        {} if fixed else out_of_range(profiles, tracer.model),
        [f for f in dict.fromkeys(fallbacks) if f],
    )
    for item in profile_info:
        item["out_of_range"] = {k: sorted(v) for k, v in rules.out_of_range.get(item["key"], {}).items()}
    if out is not None:
        write_rules(out / "rules" / "automatic", automatic)
        write_rules(out / "rules" / "oracles", oracles)

    # 3. SENSEI on the original, `repeats` times.
    original: list[list[ConversationFindings]] = []
    coverage_runs: list[dict[str, Any]] = []
    all_logs = []
    conversations_per_run = 0
    for repeat in range(1, config.repeats + 1 if profiles else 1):
        context.check_cancel(BENCH_CANCELLED)
        stage = f"original {repeat}/{config.repeats}"
        reporter.stage(stage, label=f"{bot}: {stage}")
        logs = CoverageLogs()
        records = sensei_run(
            phase, profiles, definition, logs, f"sensei:{bot}:original:{repeat}", config.seed + repeat - 1,
            "sensei_original",
        )  # fmt: skip
        conversations_per_run = len(records)
        original.append(judge_records(records, rules))
        coverage_runs.append(coverage_percentages(truth, logs.logs))
        all_logs += logs.logs
        write_records(out, f"original-{repeat}", records)
    sensei_coverage = {
        "aggregate": coverage_percentages(truth, all_logs),
        "median": median_coverage(coverage_runs),
        "runs": coverage_runs,
    }

    # 4. SENSEI on each selected mutant, with the same seeds.
    selected = select_mutants(bot, config) + extra
    outcomes: list[MutantOutcome] = []
    stage = f"mutants ({len(selected)})"
    reporter.stage(stage, label=f"{bot}: {stage}")
    for done, mutant in enumerate(selected, start=1):
        context.check_cancel(BENCH_CANCELLED)
        outcome = run_mutant(phase, mutant, profiles, rules, original, out)
        outcomes.append(outcome)
        reporter.progress(
            done,
            len(selected),
            mutant=outcome.id,
            operator=outcome.operator,
            status=outcome.status,
            killed_automatic=outcome.statuses.get("automatic") == "killed",
            reasons=list(outcome.reasons),
        )

    # 5. Controls: the original again, as a mutant. Whatever "kills" one is noise.
    controls: list[MutantOutcome] = []
    for number in range(1, config.controls + 1 if profiles else 1):
        context.check_cancel(BENCH_CANCELLED)
        stage = f"control {number}/{config.controls}"
        reporter.stage(stage, label=f"{bot}: {stage}")
        control = Mutant(f"control-{number}", "control", bot, CONTROL_NOTE, {}, definition)
        controls.append(run_mutant(phase, control, profiles, rules, original, out, "sensei_controls"))

    data = {
        "bot": bot,
        "name": definition.name,
        "sizes": truth.sizes(),
        "tracer": {
            "coverage": tracer_coverage,
            "functionalities": len(tracer.model.functionalities),
            "profiles": len(tracer.profiles),
            "valid_profiles": len(tracer.valid_profiles),
            "warnings": tracer.warnings,
            "languages": tracer.model.languages,
            "fallback": tracer.model.fallback,
            **modelling,
        },
        "profiles": profile_info,
        "rules": [
            {
                "name": r.name,
                "kind": r.kind,
                "source": "automatic" if r.kind == "model" else "oracle",
                "description": r.description,
            }
            for r in rules.rules
        ],
        "sensei": {
            "repeats": config.repeats if profiles else 0,
            "conversations_per_run": conversations_per_run,
            "coverage": sensei_coverage,
            "false_alarms": false_alarms(original),
        },
        "mutation": {**mutation_summary(outcomes), "mutants": [o.to_json() for o in outcomes]},
        "scores": scores({bot: outcomes}, per_bot=False),
        "controls": controls_json(controls),
        "usage": usage.to_json(),
    }
    return data, outcomes


def _modelling(bot: str, model: Any, definition: BotDefinition, phase: SenseiPhase) -> dict[str, Any]:
    if phase.config.matcher != "llm" or not model.functionalities:
        return precision_recall(model, definition, matcher="lexical")
    started = time.monotonic()
    with phase.llm_factory(f"judge:{bot}") as judge:
        phase.context.meter(judge.ledger)
        warn = phase.context.reporter.warning
        result = precision_recall(model, definition, matcher="llm", llm=judge, warn=warn)
        phase.usage.add("judge", judge.ledger, time.monotonic() - started)
    return result


def _profiles(
    records: Sequence[Mapping[str, Any]], reporter: Reporter, bot: str
) -> tuple[list[Profile], list[dict[str, Any]]]:
    profiles: list[Profile] = []
    info: list[dict[str, Any]] = []
    for record in records:
        profile, problems = load_profile(record["yaml"])
        if profile is None:
            reporter.warning(f"{bot}: profile {record['name']} does not load: {problems[:1]}")
            continue
        profiles.append(profile)
        info.append(
            {
                "name": profile.name,
                "temperature": profile.llm.temperature,
                "model": profile.llm.model,
                "goals": len(profile.user.goals),
            }
        )
    for item, key in zip(info, profile_keys([p.name for p in profiles]), strict=True):
        item["key"] = key
    if not profiles:
        reporter.warning(f"{bot}: TRACER produced no usable profile; SENSEI and the mutants are skipped")
    return profiles, info
