"""The bench pipeline: `run_bench(config, llm_factory, *, reporter, cancel) -> BenchResult`.

Per bot of `config.bots`:

1. TRACER on the original bot (in process, coverage recorded): exploration coverage, and precision and recall
   of the functionalities found against the ground truth (`matching`: a judge model, or the lexical matcher,
   labelled an approximation);
2. the rules: Parley's own from TRACER's model (`model_rules`, kind `model`, automatic) and the ground-truth
   rules (`oracles`), written to `rules/<bot>/automatic/` and `rules/<bot>/oracles/`; and the out-of-range
   values of each profile, which expect a refusal or the fallback;
3. SENSEI with TRACER's valid profiles on the original, `config.repeats` times (seeds seed, seed+1, ...):
   coverage, and the false alarms (findings on an unmutated bot) with their signatures;
4. SENSEI with the same profiles and the same seeds on every selected mutant, `repeats` times; each mutant is
   killed only by a finding signature the original never showed (`scoring`), under the automatic and the
   with-oracles counting, and counted the thesis's way beside them;
5. `config.controls` control runs: the unmodified bot run again as a mutant, never scored. A model at a
   temperature above 0 does not repeat itself, so a control can be "killed" by chance; their kill rate is the
   bench's rate of spurious kills, printed beside the scores.

`llm_factory(role)` builds a fresh `LLMClient` for each phase (roles `tracer:<bot>`, `judge:<bot>`,
`sensei:<bot>:original:<n>`, `sensei:<bot>:<mutant id>:<n>`); the bench closes it and adds up its ledger. The
CLI and the platform's bench run pass their own factory, reporter and cancel token. Nothing here reads the
environment.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import date
from importlib import metadata
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from engine.bots import coverage_percentages, load_bot, manifest
from engine.bots.definition import BotDefinition
from engine.bots.mutation import Mutant
from engine.bots.registry import mutants_of
from engine.check import Limits, Rule, check
from engine.conversation import ConversationRecord
from engine.errors import ParleyError
from engine.evaluation.config import BenchConfig
from engine.evaluation.findings import ConversationFindings, conversation_findings, rule_failures
from engine.evaluation.matching import precision_recall
from engine.evaluation.model_rules import ModelRule, model_rules, out_of_range, out_of_range_uses
from engine.evaluation.oracles import Oracle, oracle_rules
from engine.evaluation.scoring import (
    MutantOutcome,
    false_alarms,
    mutant_outcome,
    mutation_summary,
    not_run,
    scores,
)
from engine.evaluation.target import CoverageLogs, CoveredBot
from engine.evaluation.totals import (
    Usage,
    beside_controls,
    controls_json,
    median_coverage,
    overall_figures,
)
from engine.llm import LLMClient
from engine.sensei import CancelToken, Profile, load_profile, run_profiles
from engine.tracer import TracerConfig, TracerDeps, run_tracer
from engine.tracer.reporter import NullReporter, TracerCancelled

logger = logging.getLogger("engine.evaluation")

LLMFactory = Callable[[str], LLMClient]
CONTROL_NOTE = "the unmodified bot, run again as if it were a mutant (any kill is noise)"


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


def parley_version() -> str:
    try:
        return metadata.version("parley")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "unknown"


@dataclass(frozen=True)
class _Rules:
    """The rules every conversation of one bot is checked against, and what a conversation may be given."""

    rules: list[ModelRule | Oracle]
    kinds: dict[str, str]
    out_of_range: dict[str, dict[str, frozenset[str]]]
    fallbacks: list[str]


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
    from engine.evaluation.report import comparison, render_markdown, write_report

    reporter = reporter or BenchReporter()
    cancel = cancel or CancelToken()
    started = time.monotonic()
    today = config.today or date.today()
    bots: dict[str, Any] = {}
    outcomes: dict[str, list[MutantOutcome]] = {}
    for bot in config.bots:
        extra = list((extra_mutants or {}).get(bot, ()))
        bots[bot], outcomes[bot] = _bench_bot(bot, config, llm_factory, reporter, cancel, today, extra)
    overall = overall_figures(bots, outcomes)
    wall = round(time.monotonic() - started, 3)
    overall["wall_s"] = wall
    data: dict[str, Any] = {
        "provenance": provenance(config),
        "config": _config_json(config, today),
        "scores": scores(outcomes),
        "bots": bots,
        "overall": overall,
        "wall_s": wall,
    }
    _controls_beside_scores(data)
    data["thesis"] = comparison(data)
    result = BenchResult(data, config.output_dir, outcomes)
    if config.output_dir is not None:
        write_report(config.output_dir, data, render_markdown(data))
    return result


def _controls_beside_scores(data: dict[str, Any]) -> None:
    """The control kill rate beside every differential kill rate: overall, per bot, and in each bot's block."""
    overall = data["overall"]["controls"]
    for counting in ("automatic", "with_oracles"):
        block = data["scores"][counting]
        beside_controls(block, overall.get(counting) if overall.get("runs") else None)
        for bot, per_bot in block.get("per_bot", {}).items():
            bot_controls = data["bots"][bot]["controls"]
            beside_controls(per_bot, bot_controls.get(counting) if bot_controls.get("runs") else None)
        for b in data["bots"].values():
            controls = b["controls"]
            beside_controls(b["scores"][counting], controls.get(counting) if controls.get("runs") else None)


def provenance(config: BenchConfig) -> dict[str, Any]:
    """What every figure depends on: printed at the top of bench.json and under every table of bench.md."""
    return {
        "provider": config.provider,
        "model": config.model,
        "temperature": config.temperature,
        "seed": config.seed,
        "repeats": config.repeats,
        "parley_version": parley_version(),
        "llm_note": config.llm_note,
        "matcher": config.matcher,
        "counting": (
            "differential: a mutant is killed only by a finding signature (reason, profile, conversation, "
            "rule or output) it showed in a majority of its repeats and the original never showed over the "
            "repeats (same seeds, at least two conclusive original runs of that conversation)"
        ),
    }


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
    usage = Usage()
    oracles = oracle_rules(definition)

    # 1. TRACER on the original, and its model against the ground truth.
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
    modelling = _modelling(bot, tracer.model, definition, config, llm_factory, reporter, usage)
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
    rules = _Rules(
        every,
        {r.name: r.kind for r in every},
        # Fixed profiles were not written from TRACER's model: what it never saw is no negative test here.
        {} if fixed else out_of_range(profiles, tracer.model),
        [f for f in dict.fromkeys(fallbacks) if f],
    )
    for item in profile_info:
        item["out_of_range"] = {k: sorted(v) for k, v in rules.out_of_range.get(item["key"], {}).items()}
    if out is not None:
        _write_rules(out / "rules" / "automatic", automatic)
        _write_rules(out / "rules" / "oracles", oracles)

    # 3. SENSEI on the original, `repeats` times.
    original: list[list[ConversationFindings]] = []
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
        original.append(_judge(records, rules))
        coverage_runs.append(coverage_percentages(truth, logs.logs))
        all_logs += logs.logs
        _write_records(out, f"original-{repeat}", records)
    sensei_coverage = {
        "aggregate": coverage_percentages(truth, all_logs),
        "median": median_coverage(coverage_runs),
        "runs": coverage_runs,
    }

    # 4. SENSEI on each selected mutant, with the same seeds.
    selected = select_mutants(bot, config) + extra
    outcomes: list[MutantOutcome] = []
    reporter.stage(bot, f"mutants ({len(selected)})")
    for done, mutant in enumerate(selected, start=1):
        _check_cancel(cancel)
        outcome = _mutant(mutant, profiles, rules, original, llm_factory, config, today, cancel, usage, out)
        outcomes.append(outcome)
        reporter.mutant(bot, outcome, done, len(selected))

    # 5. Controls: the original again, as a mutant. Whatever "kills" one is noise.
    controls: list[MutantOutcome] = []
    for number in range(1, config.controls + 1 if profiles else 1):
        _check_cancel(cancel)
        reporter.stage(bot, f"control {number}/{config.controls}")
        control = Mutant(f"control-{number}", "control", bot, CONTROL_NOTE, {}, definition)
        controls.append(
            _mutant(
                control,
                profiles,
                rules,
                original,
                llm_factory,
                config,
                today,
                cancel,
                usage,
                out,
                "sensei_controls",
            )
        )

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


def _modelling(
    bot: str,
    model: Any,
    definition: BotDefinition,
    config: BenchConfig,
    llm_factory: LLMFactory,
    reporter: BenchReporter,
    usage: Usage,
) -> dict[str, Any]:
    if config.matcher != "llm" or not model.functionalities:
        return precision_recall(model, definition, matcher="lexical")
    started = time.monotonic()
    with llm_factory(f"judge:{bot}") as judge:
        result = precision_recall(model, definition, matcher="llm", llm=judge, warn=reporter.warning)
        usage.add("judge", judge.ledger, time.monotonic() - started)
    return result


def _profiles(
    records: Sequence[Mapping[str, Any]], reporter: BenchReporter, bot: str
) -> tuple[list[Profile], list[dict[str, Any]]]:
    from engine.sensei import profile_keys

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
    usage: Usage,
    phase: str,
) -> list[ConversationRecord]:
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
        llm = stack.enter_context(llm_factory(role))
        judge = stack.enter_context(llm_factory(f"extractor:{role}")) if config.separate_judge else None
        run_profiles(
            profiles[: config.max_profiles] if config.max_profiles else profiles,
            lambda: CoveredBot(definition, logs, today=today, label=label),
            llm,
            judge=judge,
            concurrency=config.concurrency,
            seed=seed,
            sink=records.append,
            cancel=cancel,
            today=lambda: today,
            user_model=llm.model,  # the bench measures one model: it plays the user whatever the profiles say
            replan=replan,
        )
        usage.add(phase, llm.ledger, time.monotonic() - started)
        if judge is not None:
            usage.add(f"{phase}_extractor", judge.ledger, 0.0)
    _check_cancel(cancel)
    return sorted(records, key=lambda r: (r.profile, r.index))


def _judge(records: list[ConversationRecord], rules: _Rules) -> list[ConversationFindings]:
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


def _mutant(
    mutant: Mutant,
    profiles: list[Profile],
    rules: _Rules,
    original: list[list[ConversationFindings]],
    llm_factory: LLMFactory,
    config: BenchConfig,
    today: date,
    cancel: CancelToken,
    usage: Usage,
    out: Path | None,
    phase: str = "sensei_mutants",
) -> MutantOutcome:
    if mutant.definition is None:
        outcome = not_run(mutant.id, mutant.operator, mutant.description, "stillborn")
        outcome.stillborn_reason = mutant.stillborn_reason
        return outcome
    runs: list[list[ConversationFindings]] = []
    error: str | None = None
    for repeat in range(1, len(original) + 1):
        try:
            records = _sensei(
                profiles, mutant.definition, CoverageLogs(), llm_factory, f"sensei:{mutant.bot}:{mutant.id}:{repeat}",
                config, config.seed + repeat - 1, today, cancel, usage, phase,
            )  # fmt: skip
        except BenchCancelled:
            raise
        except ParleyError as exc:
            error = f"repeat {repeat}: {exc.user_message}"
            break
        _write_records(out, f"{mutant.id}-{repeat}", records)
        runs.append(_judge(records, rules))
    if not runs:
        outcome = not_run(mutant.id, mutant.operator, mutant.description, "inconclusive")
        outcome.error = error or "no conversation ran"
        return outcome
    outcome = mutant_outcome(mutant.id, mutant.operator, mutant.description, original, runs)
    outcome.error = error
    if not any(runs):
        outcome.error = error or "no conversation ran"
    return outcome


def _write_rules(directory: Path, rules: Sequence[Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for rule in rules:
        (directory / f"{rule.name}.yaml").write_text(rule.text, encoding="utf-8")


def _write_records(out: Path | None, name: str, records: list[ConversationRecord]) -> None:
    if out is None:
        return
    directory = out / "conversations"
    directory.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(record.model_dump(mode="json"), ensure_ascii=False) for record in records]
    (directory / f"{name}.jsonl").write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
