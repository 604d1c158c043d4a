"""What a bench run leaves as its result (D31): its headline figures, one pydantic model built from the bench's
document (`bench_summary`), stored by the platform as it is and served typed. The whole document — per bot,
per mutant, per phase — is the run's `bench` artefact (bench.json), as `parley bench` writes it.

Every field has a default, so a result stored before one was added still loads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from engine.evaluation.bench_report import BenchUsage
from engine.evaluation.run import BenchResult


class BenchSummary(BaseModel):
    """A bench in figures. Scores and rates are percentages (0..100); None when nothing was scored."""

    kind: Literal["bench"] = "bench"
    ok: bool = True
    bot: str = ""
    # Differential, with the ground-truth oracles (the headline); the automatic score and the thesis's way of
    # counting beside it.
    mutation_score: float | None = None
    mutation_score_automatic: float | None = None
    mutation_score_thesis_rule: float | None = None
    mutants: int = 0
    killed: int = 0
    killed_automatic: int = 0
    live: int = 0
    stillborn: int = 0
    inconclusive: int = 0
    controls: int = 0  # control runs: the unmodified bot run again as a mutant
    controls_killed: int = 0
    precision: float | None = None  # of TRACER's functionalities against the ground truth
    recall: float | None = None
    matcher: str = ""  # "llm" or "lexical" (an approximation)
    false_alarm_rate: float | None = None
    false_alarm_rate_automatic: float | None = None
    usage: BenchUsage = Field(default_factory=BenchUsage)


def bench_summary(result: BenchResult, bot: str) -> BenchSummary:
    """The headline figures of a finished bench on `bot`."""
    overall, scores = result.report.overall, result.report.scores
    mutation = overall.mutation
    return BenchSummary(
        bot=bot,
        mutation_score=mutation.mutation_score,
        mutation_score_automatic=scores.automatic.score,
        mutation_score_thesis_rule=scores.thesis_rule.with_oracles.score,
        mutants=mutation.selected,
        killed=mutation.killed,
        killed_automatic=scores.automatic.killed,
        live=mutation.live,
        stillborn=mutation.stillborn,
        inconclusive=mutation.inconclusive,
        controls=overall.controls.runs,
        controls_killed=overall.controls.with_oracles.killed,
        precision=overall.precision,
        recall=overall.recall,
        matcher=overall.matcher,
        false_alarm_rate=overall.false_alarms.rate,
        false_alarm_rate_automatic=overall.false_alarms.automatic.rate,
        usage=overall.usage,
    )
