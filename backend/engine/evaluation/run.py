"""The bench pipeline: `run_bench(config, llm_factory, *, reporter, cancel) -> BenchResult`.

Per bot of `config.bots`:

1. TRACER on the original bot (in process, coverage recorded): exploration coverage, and precision and recall
   of the functionalities found against the ground truth;
2. the ground-truth rules (`oracles.oracle_rules`), written to `rules/<bot>/`;
3. SENSEI with TRACER's valid profiles on the original, `config.repeats` times (seeds seed, seed+1, ...):
   coverage of the profiles' conversations, and the false alarms (findings on an unmutated bot);
4. SENSEI with the same profiles (seed `config.seed`) on every selected mutant, then the rules: each mutant
   killed, live, inconclusive or stillborn, with its kill reasons.

`llm_factory(role)` builds a fresh `LLMClient` for each phase (roles `tracer:<bot>`,
`sensei:<bot>:original:<n>`, `sensei:<bot>:<mutant id>`); the bench closes it and adds up its ledger. That
is the seam for the platform: a Celery task builds clients from a stored key and passes its own reporter
and cancel token (the platform's bench run kind is not built yet). Nothing here reads the environment.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import coverage_percentages, load_bot, manifest
from engine.bots.definition import BotDefinition
from engine.bots.mutation import Mutant
from engine.bots.registry import mutants_of
from engine.check import Limits, check
from engine.conversation import ConversationRecord
from engine.errors import ParleyError
from engine.evaluation.config import BenchConfig
from engine.evaluation.oracles import Oracle, oracle_rules
from engine.evaluation.scoring import (
    ConversationVerdict,
    MutantOutcome,
    false_alarms,
    mutant_outcome,
    mutation_summary,
    precision_recall,
    verdicts,
)
from engine.evaluation.target import CoverageLogs, CoveredBot
from engine.llm import LLMClient, UsageLedger
from engine.sensei import CancelToken, Profile, load_profile, run_profiles
from engine.tracer import TracerConfig, TracerDeps, run_tracer
from engine.tracer.reporter import NullReporter, TracerCancelled

logger = logging.getLogger("engine.evaluation")

LLMFactory = Callable[[str], LLMClient]
USAGE_KEYS = ("calls", "prompt_tokens", "completion_tokens", "cost_usd", "unpriced_calls")


class BenchCancelled(ParleyError):
    code = "bench_cancelled"


class BenchReporter:
    """Progress callbacks; override what you need (the CLI prints them, a worker would send events)."""

    def stage(self, bot: str, stage: str) -> None:
        """`bot` entered `stage` (tracer, original n/R, mutants)."""

    def mutant(self, bot: str, outcome: MutantOutcome, done: int, total: int) -> None:
        """A mutant's outcome is known."""

    def warning(self, text: str) -> None:
        """Something the report will also say."""


@dataclass
class BenchResult:
    data: dict[str, Any]
    """Everything bench.json holds."""
    output_dir: Path | None = None
    outcomes: dict[str, list[MutantOutcome]] = field(default_factory=dict)

    @property
    def overall(self) -> dict[str, Any]:
        overall: dict[str, Any] = self.data["overall"]
        return overall


class _TracerCancel:
    def __init__(self, token: CancelToken) -> None:
        self.token = token

    def is_set(self) -> bool:
        return self.token.cancelled


class _Usage:
    """Ledger totals per phase, added up."""

    def __init__(self) -> None:
        self.phases: dict[str, dict[str, float]] = {}

    def add(self, phase: str, ledger: UsageLedger, seconds: float) -> None:
        total = ledger.total()
        row = self.phases.setdefault(phase, {key: 0 for key in (*USAGE_KEYS, "wall_s")})
        row["calls"] += total.calls
        row["prompt_tokens"] += total.prompt_tokens
        row["completion_tokens"] += total.completion_tokens
        row["cost_usd"] += total.cost_usd
        row["unpriced_calls"] += total.unpriced_calls
        row["wall_s"] += seconds

    def to_json(self) -> dict[str, Any]:
        phases = {
            name: {k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()}
            for name, row in self.phases.items()
        }
        total = {key: 0.0 for key in (*USAGE_KEYS, "wall_s")}
        for row in self.phases.values():
            for key, value in row.items():
                total[key] += value
        return {
            **{k: (round(v, 6) if k in ("cost_usd", "wall_s") else int(v)) for k, v in total.items()},
            "phases": phases,
        }


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


def run_bench(
    config: BenchConfig,
    llm_factory: LLMFactory,
    *,
    reporter: BenchReporter | None = None,
    cancel: CancelToken | None = None,
    extra_mutants: Mapping[str, Sequence[Mutant]] | None = None,
) -> BenchResult:
    """Run the bench; writes bench.json, bench.md, rules/, profiles/ and conversations/ when
    `config.output_dir` is set. `extra_mutants` adds caller-made mutants per bot (e.g. an equivalent one)."""
    from engine.evaluation.report import render_markdown, write_report

    reporter = reporter or BenchReporter()
    cancel = cancel or CancelToken()
    started = time.monotonic()
    today = config.today or date.today()
    bots: dict[str, Any] = {}
    outcomes: dict[str, list[MutantOutcome]] = {}
    for bot in config.bots:
        extra = list((extra_mutants or {}).get(bot, ()))
        bots[bot], outcomes[bot] = _bench_bot(bot, config, llm_factory, reporter, cancel, today, extra)
    overall = _overall(bots, outcomes)
    wall = round(time.monotonic() - started, 3)
    overall["wall_s"] = wall
    data: dict[str, Any] = {
        "config": _config_json(config, today),
        "bots": bots,
        "overall": overall,
        "wall_s": wall,
    }
    result = BenchResult(data, config.output_dir, outcomes)
    if config.output_dir is not None:
        write_report(config.output_dir, data, render_markdown(data))
    return result


def _config_json(config: BenchConfig, today: date) -> dict[str, Any]:
    data = config.model_dump(mode="json")
    data["today"] = today.isoformat()
    data["output_dir"] = str(config.output_dir) if config.output_dir else None
    return data


def _check_cancel(cancel: CancelToken) -> None:
    if cancel.cancelled:
        raise BenchCancelled("The bench run was cancelled.")


def _bench_bot(
    bot: str,
    config: BenchConfig,
    llm_factory: LLMFactory,
    reporter: BenchReporter,
    cancel: CancelToken,
    today: date,
    extra: list[Mutant],
) -> tuple[dict[str, Any], list[MutantOutcome]]:
    definition = load_bot(bot)
    truth = manifest(bot)
    out = config.output_dir / bot if config.output_dir else None
    usage = _Usage()
    oracles = oracle_rules(definition)
    kinds: dict[str, str] = {o.name: o.kind for o in oracles}
    if out is not None:
        _write_rules(out / "rules", oracles)

    # 1. TRACER on the original.
    _check_cancel(cancel)
    reporter.stage(bot, "tracer")
    tracer_logs = CoverageLogs()
    tracer_started = time.monotonic()
    with llm_factory(f"tracer:{bot}") as llm:
        try:
            tracer = run_tracer(
                TracerConfig(
                    sessions=config.sessions,
                    turns=config.turns,
                    seed=config.seed,
                    output_dir=out / "tracer" if out is not None else None,
                ),
                TracerDeps(
                    llm=llm, connector=CoveredBot(definition, tracer_logs, today=today, label="tracer")
                ),
                run_id=f"bench-{bot}",
                checkpointer=InMemorySaver(),
                reporter=NullReporter(),
                cancel=_TracerCancel(cancel),
            )
        except TracerCancelled:
            raise BenchCancelled("The bench run was cancelled.") from None
        usage.add("tracer", llm.ledger, time.monotonic() - tracer_started)
    tracer_coverage = coverage_percentages(truth, tracer_logs.logs)
    modelling = precision_recall(tracer.model, definition)
    profiles, profile_info = _profiles(tracer.valid_profiles, reporter, bot)
    if out is not None:
        (out / "profiles").mkdir(parents=True, exist_ok=True)
        for record in tracer.valid_profiles:
            (out / "profiles" / (record["filename"] or f"{record['name']}.yaml")).write_text(
                record["yaml"], encoding="utf-8"
            )

    # 2. SENSEI on the original, `repeats` times.
    original: list[ConversationVerdict] = []
    coverage_runs: list[dict[str, Any]] = []
    all_logs = []
    conversations_per_run = 0
    for repeat in range(1, config.repeats + 1 if profiles else 1):
        _check_cancel(cancel)
        reporter.stage(bot, f"original {repeat}/{config.repeats}")
        logs = CoverageLogs()
        records = _sensei(
            profiles, definition, logs, llm_factory, f"sensei:{bot}:original:{repeat}", config,
            config.seed + repeat - 1, today, cancel, usage, "sensei_original",
        )  # fmt: skip
        conversations_per_run = len(records)
        original += _judge(records, oracles, kinds)
        coverage_runs.append(coverage_percentages(truth, logs.logs))
        all_logs += logs.logs
        _write_records(out, f"original-{repeat}", records)
    sensei_coverage = {
        "aggregate": coverage_percentages(truth, all_logs),
        "median": _median_coverage(coverage_runs),
        "runs": coverage_runs,
    }

    # 3. SENSEI on each selected mutant.
    selected = select_mutants(bot, config) + extra
    outcomes: list[MutantOutcome] = []
    reporter.stage(bot, f"mutants ({len(selected)})")
    for done, mutant in enumerate(selected, start=1):
        _check_cancel(cancel)
        outcome = _mutant(mutant, profiles, oracles, kinds, llm_factory, config, today, cancel, usage, out)
        outcomes.append(outcome)
        reporter.mutant(bot, outcome, done, len(selected))

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
            **modelling,
        },
        "profiles": profile_info,
        "rules": [{"name": o.name, "kind": o.kind, "description": o.description} for o in oracles],
        "sensei": {
            "repeats": config.repeats if profiles else 0,
            "conversations_per_run": conversations_per_run,
            "coverage": sensei_coverage,
            "false_alarms": false_alarms(original),
        },
        "mutation": {**mutation_summary(outcomes), "mutants": [o.to_json() for o in outcomes]},
        "usage": usage.to_json(),
    }
    return data, outcomes


def _profiles(
    records: Sequence[Mapping[str, Any]], reporter: BenchReporter, bot: str
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
    if not profiles:
        reporter.warning(f"{bot}: TRACER produced no usable profile; SENSEI and the mutants are skipped")
    return profiles, info


def _sensei(
    profiles: list[Profile],
    definition: BotDefinition,
    logs: CoverageLogs,
    llm_factory: LLMFactory,
    role: str,
    config: BenchConfig,
    seed: int,
    today: date,
    cancel: CancelToken,
    usage: _Usage,
    phase: str,
) -> list[ConversationRecord]:
    records: list[ConversationRecord] = []
    if not profiles:
        return records
    label = role.replace(":", "-")
    started = time.monotonic()
    with llm_factory(role) as llm:
        run_profiles(
            profiles,
            lambda: CoveredBot(definition, logs, today=today, label=label),
            llm,
            concurrency=config.concurrency,
            seed=seed,
            sink=records.append,
            cancel=cancel,
            today=lambda: today,
            user_model=llm.model,  # the bench measures one model: it plays the user whatever the profiles say
        )
        usage.add(phase, llm.ledger, time.monotonic() - started)
    _check_cancel(cancel)
    return sorted(records, key=lambda r: (r.profile, r.index))


def _judge(
    records: list[ConversationRecord], oracles: list[Oracle], kinds: dict[str, str]
) -> list[ConversationVerdict]:
    if not records:
        return []
    # The rules are generated here from the ground truth, not written by users: no child process needed.
    report = check([o.rule for o in oracles], records, limits=Limits(isolate=False, max_listed=1_000_000))
    return verdicts(records, report, kinds)


def _mutant(
    mutant: Mutant,
    profiles: list[Profile],
    oracles: list[Oracle],
    kinds: dict[str, str],
    llm_factory: LLMFactory,
    config: BenchConfig,
    today: date,
    cancel: CancelToken,
    usage: _Usage,
    out: Path | None,
) -> MutantOutcome:
    if mutant.definition is None:
        outcome = MutantOutcome(mutant.id, mutant.operator, mutant.description, "stillborn")
        outcome.stillborn_reason = mutant.stillborn_reason
        return outcome
    try:
        records = _sensei(
            profiles, mutant.definition, CoverageLogs(), llm_factory, f"sensei:{mutant.bot}:{mutant.id}",
            config, config.seed, today, cancel, usage, "sensei_mutants",
        )  # fmt: skip
    except BenchCancelled:
        raise
    except ParleyError as exc:
        outcome = MutantOutcome(mutant.id, mutant.operator, mutant.description, "inconclusive")
        outcome.error = exc.user_message
        return outcome
    _write_records(out, mutant.id, records)
    outcome = mutant_outcome(mutant.id, mutant.operator, mutant.description, _judge(records, oracles, kinds))
    if not records:
        outcome.error = "no conversation ran"
    return outcome


def _median_coverage(runs: list[dict[str, Any]]) -> dict[str, float] | None:
    if not runs:
        return None
    out: dict[str, float] = {}
    for key in ("module", "input", "value", "question"):
        values = sorted(float(run[key]) for run in runs)
        middle = len(values) // 2
        out[key] = values[middle] if len(values) % 2 else round((values[middle - 1] + values[middle]) / 2, 2)
    return out


def _overall(bots: dict[str, Any], outcomes: dict[str, list[MutantOutcome]]) -> dict[str, Any]:
    every = [o for items in outcomes.values() for o in items]
    functionalities = sum(b["tracer"]["functionalities"] for b in bots.values())
    true_positives = sum(b["tracer"]["true_positives"] for b in bots.values())
    found = sum(b["tracer"]["recall_modules"][0] + b["tracer"]["recall_inputs"][0] for b in bots.values())
    total = sum(b["tracer"]["recall_modules"][1] + b["tracer"]["recall_inputs"][1] for b in bots.values())
    conversations = sum(b["sensei"]["false_alarms"]["conversations"] for b in bots.values())
    alarms = sum(b["sensei"]["false_alarms"]["false_alarms"] for b in bots.values())
    usage: dict[str, float] = {key: 0 for key in (*USAGE_KEYS, "wall_s")}
    for b in bots.values():
        for key in usage:
            usage[key] += b["usage"][key]
    mutation = mutation_summary(every)
    mutation["live_mutants"] = [
        {"bot": bot, **item} for bot, b in bots.items() for item in b["mutation"]["live_mutants"]
    ]
    mutation["stillborn_mutants"] = [
        {"bot": bot, **item} for bot, b in bots.items() for item in b["mutation"]["stillborn_mutants"]
    ]
    mutation["inconclusive_mutants"] = [
        {"bot": bot, **item} for bot, b in bots.items() for item in b["mutation"]["inconclusive_mutants"]
    ]

    def mean(path: tuple[str, ...]) -> dict[str, float] | None:
        rows = []
        for b in bots.values():
            node: Any = b
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict):
                rows.append(node)
        if not rows:
            return None
        return {
            key: round(sum(float(r[key]) for r in rows) / len(rows), 2)
            for key in ("module", "input", "value", "question")
        }

    return {
        "bots": list(bots),
        "tracer_coverage_mean": mean(("tracer", "coverage")),
        "sensei_coverage_mean": mean(("sensei", "coverage", "aggregate")),
        "functionalities": functionalities,
        "precision": round(100.0 * true_positives / functionalities, 2) if functionalities else None,
        "recall": round(100.0 * found / total, 2) if total else None,
        "false_alarms": {
            "conversations": conversations,
            "false_alarms": alarms,
            "rate": round(100.0 * alarms / conversations, 2) if conversations else None,
        },
        "mutation": mutation,
        "usage": {k: (round(v, 6) if k in ("cost_usd", "wall_s") else int(v)) for k, v in usage.items()},
    }


def _write_rules(directory: Path, oracles: list[Oracle]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for oracle in oracles:
        (directory / f"{oracle.name}.yaml").write_text(oracle.text, encoding="utf-8")


def _write_records(out: Path | None, name: str, records: list[ConversationRecord]) -> None:
    if out is None:
        return
    directory = out / "conversations"
    directory.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(record.model_dump(mode="json"), ensure_ascii=False) for record in records]
    (directory / f"{name}.jsonl").write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
