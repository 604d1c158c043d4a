"""The bench pipeline's entry point: `run_bench(BenchJob(config, llm_factory), context) -> BenchResult`.

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
`sensei:<bot>:original:<n>`, `sensei:<bot>:<mutant id>:<n>`); the bench closes it, adds up its ledger and meters
it into the context's usage sink. The CLI and the platform's bench run pass their own factory and run context:
each bot's stages (`stage`, labelled with the bot), each mutant's outcome (`progress`), warnings; a cancel raises
`Cancelled` between phases. Nothing here reads the environment.

This module owns the run over every bot and the figures over all of them; `bench_bot` one bot's phases,
`bench_runs` the SENSEI runs, their judging and the mutants' outcomes; `bench_report` the shape of the document
(`BenchReport`, which bench.json and the platform's `bench` artefact both dump).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import date
from importlib import metadata
from pathlib import Path
from typing import Any

from engine.context import RunContext
from engine.evaluation.bench_bot import bench_bot
from engine.evaluation.bench_report import BenchReport
from engine.evaluation.config import BenchConfig, BenchJob
from engine.evaluation.report import comparison, render_markdown, write_report
from engine.evaluation.scoring import MutantOutcome, scores
from engine.evaluation.totals import beside_controls, overall_figures


@dataclass
class BenchResult:
    report: BenchReport
    """Everything bench.json holds."""
    output_dir: Path | None = None
    outcomes: dict[str, list[MutantOutcome]] = field(default_factory=dict)

    @property
    def data(self) -> dict[str, Any]:
        """The report as bench.json holds it (and the platform's `bench` artefact)."""
        return self.report.model_dump(mode="json")


def run_bench(job: BenchJob, context: RunContext | None = None) -> BenchResult:
    """Run the bench; writes bench.json, bench.md, rules/, profiles/ and conversations/ when
    `job.config.output_dir` is set."""
    context = context if context is not None else RunContext()
    config = job.config
    started = time.monotonic()
    today = config.today or date.today()
    bots: dict[str, Any] = {}
    outcomes: dict[str, list[MutantOutcome]] = {}
    for bot in config.bots:
        bots[bot], outcomes[bot] = bench_bot(bot, job, context, today)
    overall = overall_figures(bots, outcomes)
    wall = round(time.monotonic() - started, 3)
    overall["wall_s"] = wall
    data: dict[str, Any] = {
        "provenance": provenance(config),
        "config": config.model_copy(update={"today": today}),
        "scores": scores(outcomes),
        "bots": bots,
        "overall": overall,
        "wall_s": wall,
    }
    _controls_beside_scores(data)
    data["thesis"] = comparison(data)
    result = BenchResult(BenchReport.model_validate(data), config.output_dir, outcomes)
    if config.output_dir is not None:
        document = result.data
        write_report(config.output_dir, document, render_markdown(document))
    return result


def parley_version() -> str:
    try:
        return metadata.version("parley")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "unknown"


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
