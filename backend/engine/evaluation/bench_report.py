"""bench.json as a pydantic model: `BenchReport`, everything a bench measured — its provenance and settings, the
scores under each counting, every bot's block (TRACER's model against the ground truth, the rules, SENSEI on the
original, every mutant with its kills, the controls, the LLM usage per phase), the figures over all bots and the
thesis's published figures beside ours.

`run_bench` builds the document through this model and dumps it: `parley bench` writes that dump as bench.json
and the platform stores it as the run's `bench` artefact, served typed through the OpenAPI schema. Every field has
a default, so a document written before a field was added still loads.

Rates and scores are percentages (0..100), None when nothing was scored; `ci95` is a Wilson 95 % interval in
percent, `[low, high]`, None when nothing was decided; a fraction is `[found, total]`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from engine.evaluation.config import BenchConfig
from engine.evaluation.thesis import ThesisComparison
from engine.llm import UsageTotals

MutantStatus = Literal["killed", "live", "inconclusive", "stillborn"]


class PhaseUsage(UsageTotals):
    wall_s: float = 0.0


class BenchUsage(PhaseUsage):
    """The LLM usage of a bot or of the whole bench, and per phase (tracer, judge, sensei_original, ...)."""

    phases: dict[str, PhaseUsage] = Field(default_factory=dict)


# -- coverage -----------------------------------------------------------------------------------------------------


class GroundTruthCounts(BaseModel):
    """`[covered, total]` per dimension of the ground truth."""

    modules: list[int] = Field(default_factory=list)
    inputs: list[int] = Field(default_factory=list)
    values: list[int] = Field(default_factory=list)
    questions: list[int] = Field(default_factory=list)


class GroundTruthCoverage(BaseModel):
    """Coverage of the ground truth in percent per dimension (`engine.bots.coverage_percentages`); a median or a
    mean over runs has no conversation count and no counts."""

    module: float | None = None
    input: float | None = None
    value: float | None = None
    question: float | None = None
    conversations: int | None = None
    counts: GroundTruthCounts | None = None


class GroundTruthSizes(BaseModel):
    """The ground truth's dimensions (TRACER's Table 6.1)."""

    modules: int = 0
    inputs: int = 0
    values: int = 0
    questions: int = 0


# -- kill rates ---------------------------------------------------------------------------------------------------


class ControlRate(BaseModel):
    """How many of the scored runs were killed (controls) or flagged (false alarms)."""

    killed: int = 0
    scored: int = 0
    rate: float | None = None
    ci95: list[float] | None = None


class KillRate(BaseModel):
    """The mutants under one counting: how many were killed of those scored (killed + live)."""

    selected: int = 0
    killed: int = 0
    live: int = 0
    inconclusive: int = 0
    stillborn: int = 0
    scored: int = 0
    score: float | None = None
    ci95: list[float] | None = None
    per_repeat: list[float | None] = Field(default_factory=list)
    """The score of each repeat alone (differential countings only)."""


class BesideControls(KillRate):
    """A kill rate with the control kill rate of the same counting beside it, and a note when the two 95 %
    intervals overlap (the score cannot be told apart from noise)."""

    controls: ControlRate | None = None
    overlaps_controls: bool | None = None
    note: str | None = None


class CountingScores(BesideControls):
    """One counting over the bench: overall, per bot (the run over every bot only) and per operator."""

    per_bot: dict[str, BesideControls] = Field(default_factory=dict)
    per_operator: dict[str, KillRate] = Field(default_factory=dict)


class ThesisRuleScores(BaseModel):
    """The thesis's way of counting (any finding on the mutant kills), shown for comparison only."""

    automatic: CountingScores = Field(default_factory=CountingScores)
    with_oracles: CountingScores = Field(default_factory=CountingScores)


class BenchScores(BaseModel):
    """Differential scores: `automatic` (what Parley tells a user without ground truth) and `with_oracles` (the
    headline, with the ground-truth rules), and the thesis rule beside them."""

    automatic: CountingScores = Field(default_factory=CountingScores)
    with_oracles: CountingScores = Field(default_factory=CountingScores)
    thesis_rule: ThesisRuleScores = Field(default_factory=ThesisRuleScores)


# -- mutants ------------------------------------------------------------------------------------------------------


class MutantKill(BaseModel):
    """A finding signature a mutant showed, with how many repeats showed it on the mutant and on the original."""

    signature: list[str | int | None] = Field(default_factory=list)
    """Kill reason, profile, conversation index, rule or output name."""
    reason: str = ""
    kind: str = ""
    mutant_count: int = 0
    original_count: int = 0
    original_runs: int = 0
    mutant_runs: int = 0
    kills: bool = False
    """The original never showed it (and ran that conversation conclusively): this signature kills."""
    evidence: str = ""


class ThesisKills(BaseModel):
    automatic: bool = False
    with_oracles: bool = False


class MutantResult(BaseModel):
    """One mutant (or control run) and its outcome (`scoring.MutantOutcome`)."""

    id: str = ""
    operator: str = ""
    description: str = ""
    status: MutantStatus = "inconclusive"
    """Differential, with the ground-truth oracles."""
    killed: bool = False
    killed_automatic: bool = False
    thesis_rule: ThesisKills = Field(default_factory=ThesisKills)
    statuses: dict[str, MutantStatus] = Field(default_factory=dict)
    repeats: int = 0
    kill_repeats: dict[str, int] = Field(default_factory=dict)
    conversations: int = 0
    inconclusive_conversations: int = 0
    killing_conversations: int = 0
    reasons: dict[str, int] = Field(default_factory=dict)
    """Kill reason → conversations showing it."""
    rules: dict[str, int] = Field(default_factory=dict)
    """Failed rule → conversations."""
    kills: list[MutantKill] = Field(default_factory=list)
    stillborn_reason: str | None = None
    error: str | None = None


class OperatorKills(BaseModel):
    selected: int = 0
    killed: int = 0
    live: int = 0
    stillborn: int = 0
    inconclusive: int = 0


class LiveMutant(BaseModel):
    bot: str | None = None
    id: str = ""
    description: str = ""


class StillbornMutant(BaseModel):
    bot: str | None = None
    id: str = ""
    reason: str | None = None


class InconclusiveMutant(BaseModel):
    bot: str | None = None
    id: str = ""
    error: str | None = None


class MutationFigures(BaseModel):
    """The differential score with oracles, kills per operator and per reason, the mutants by status."""

    selected: int = 0
    killed: int = 0
    live: int = 0
    stillborn: int = 0
    inconclusive: int = 0
    mutation_score: float | None = None
    ci95: list[float] | None = None
    kills_per_operator: dict[str, OperatorKills] = Field(default_factory=dict)
    kills_per_reason: dict[str, int] = Field(default_factory=dict)
    """Kill reason → killed mutants showing it."""
    live_mutants: list[LiveMutant] = Field(default_factory=list)
    stillborn_mutants: list[StillbornMutant] = Field(default_factory=list)
    inconclusive_mutants: list[InconclusiveMutant] = Field(default_factory=list)
    mutants: list[MutantResult] = Field(default_factory=list)
    """Every mutant of a bot (a bot's block only)."""


class ControlRuns(BaseModel):
    """The control runs: the unmodified bot run again as a mutant; whatever "kills" one is noise."""

    runs: int = 0
    automatic: ControlRate = Field(default_factory=ControlRate)
    with_oracles: ControlRate = Field(default_factory=ControlRate)
    outcomes: list[MutantResult] = Field(default_factory=list)


# -- false alarms -------------------------------------------------------------------------------------------------


class FlaggedRate(BaseModel):
    flagged: int = 0
    rate: float | None = None
    ci95: list[float] | None = None


class FalseAlarmSignature(BaseModel):
    signature: list[str | int | None] = Field(default_factory=list)
    reason: str = ""
    kind: str = ""
    count: int = 0
    evidence: str = ""


class FalseAlarms(BaseModel):
    """Findings on the unmutated bot, per counting: the conversations flagged, and the signatures behind them."""

    runs: int = 0
    conversations: int = 0
    inconclusive: int = 0
    out_of_range_excused: int = 0
    automatic: FlaggedRate = Field(default_factory=FlaggedRate)
    with_oracles: FlaggedRate = Field(default_factory=FlaggedRate)
    false_alarms: int = 0
    rate: float | None = None
    """Percent of the conversations with a finding, with the oracles."""
    reasons: dict[str, int] = Field(default_factory=dict)
    rules: dict[str, int] = Field(default_factory=dict)
    signatures: list[FalseAlarmSignature] = Field(default_factory=list)


# -- one bot ------------------------------------------------------------------------------------------------------


class FunctionalityMatch(BaseModel):
    """A functionality TRACER found and the ground-truth item it was matched to (`matching`)."""

    functionality: str = ""
    description: str = ""
    match: str | None = None
    kind: str | None = None
    item: str | None = None
    verdict: str = ""
    inputs: list[str] = Field(default_factory=list)
    score: float | None = None
    evidence: str = ""


class TracerFigures(BaseModel):
    """TRACER on the original: its coverage, and its model against the ground truth."""

    coverage: GroundTruthCoverage | None = None
    functionalities: int = 0
    profiles: int = 0
    valid_profiles: int = 0
    warnings: list[str] = Field(default_factory=list)
    languages: list[str] = Field(default_factory=list)
    fallback: str | None = None
    matcher: str = ""
    """"llm": a judge model matched the functionalities; "lexical": word overlap, an approximation."""
    matcher_note: str | None = None
    true_positives: int = 0
    false_positives: int = 0
    duplicates: int = 0
    not_real: int = 0
    precision: float | None = None
    recall: float | None = None
    recall_modules: list[int] = Field(default_factory=list)
    recall_inputs: list[int] = Field(default_factory=list)
    missed_modules: list[str] = Field(default_factory=list)
    missed_inputs: list[str] = Field(default_factory=list)
    matches: list[FunctionalityMatch] = Field(default_factory=list)


class BenchProfile(BaseModel):
    name: str = ""
    temperature: float | None = None
    model: str | None = None
    goals: int = 0
    key: str = ""
    out_of_range: dict[str, list[str]] = Field(default_factory=dict)


class BenchRule(BaseModel):
    name: str = ""
    kind: str = ""
    source: Literal["automatic", "oracle"] = "oracle"
    """"automatic": written from TRACER's model; "oracle": from the ground truth."""
    description: str = ""


class SenseiCoverage(BaseModel):
    aggregate: GroundTruthCoverage | None = None
    median: GroundTruthCoverage | None = None
    runs: list[GroundTruthCoverage] = Field(default_factory=list)


class SenseiFigures(BaseModel):
    """SENSEI with TRACER's valid profiles on the original, `repeats` times."""

    repeats: int = 0
    conversations_per_run: int = 0
    coverage: SenseiCoverage = Field(default_factory=SenseiCoverage)
    false_alarms: FalseAlarms = Field(default_factory=FalseAlarms)


class BotReport(BaseModel):
    """One bot's block of bench.json (`bench_bot`)."""

    bot: str = ""
    name: str = ""
    sizes: GroundTruthSizes = Field(default_factory=GroundTruthSizes)
    tracer: TracerFigures = Field(default_factory=TracerFigures)
    profiles: list[BenchProfile] = Field(default_factory=list)
    rules: list[BenchRule] = Field(default_factory=list)
    sensei: SenseiFigures = Field(default_factory=SenseiFigures)
    mutation: MutationFigures = Field(default_factory=MutationFigures)
    scores: BenchScores = Field(default_factory=BenchScores)
    controls: ControlRuns = Field(default_factory=ControlRuns)
    usage: BenchUsage = Field(default_factory=BenchUsage)


# -- the whole bench ----------------------------------------------------------------------------------------------


class BenchProvenance(BaseModel):
    """What every figure depends on: printed at the top of bench.json and under every table of bench.md."""

    provider: str | None = None
    model: str | None = None
    temperature: float | None = None
    seed: int = 0
    repeats: int = 0
    parley_version: str = ""
    llm_note: str | None = None
    matcher: str = ""
    counting: str = ""


class OverallFigures(BaseModel):
    """The figures over every bot."""

    bots: list[str] = Field(default_factory=list)
    tracer_coverage_mean: GroundTruthCoverage | None = None
    sensei_coverage_mean: GroundTruthCoverage | None = None
    functionalities: int = 0
    precision: float | None = None
    recall: float | None = None
    matcher: str = ""
    """"mixed" when the bots were matched differently."""
    false_alarms: FalseAlarms = Field(default_factory=FalseAlarms)
    controls: ControlRuns = Field(default_factory=ControlRuns)
    mutation: MutationFigures = Field(default_factory=MutationFigures)
    usage: BenchUsage = Field(default_factory=BenchUsage)
    wall_s: float = 0.0


class BenchReport(BaseModel):
    """Everything bench.json holds."""

    provenance: BenchProvenance = Field(default_factory=BenchProvenance)
    config: BenchConfig = Field(default_factory=BenchConfig)
    """The settings, `today` the reference date the bots ran with."""
    scores: BenchScores = Field(default_factory=BenchScores)
    bots: dict[str, BotReport] = Field(default_factory=dict)
    """By bot id, in the order of `config.bots` (a database may store the keys in another order)."""
    overall: OverallFigures = Field(default_factory=OverallFigures)
    wall_s: float = 0.0
    thesis: ThesisComparison | None = None
