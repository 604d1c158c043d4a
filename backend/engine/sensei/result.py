"""A SENSEI run's result as the platform stores and serves it (README D31): verdict counts with their reasons and
faults, the simulator's slips, each profile's pass^k and pass@1, the replay's savings and the run's warnings.

Every field has a default, so a result stored before a field existed still loads; `passed`, `failed` and
`inconclusive` stay null for a run stored before verdicts existed (its pass rate is then read from errors).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from engine.sensei.profile import Scalar


class ServedRate(BaseModel):
    """`passed` of `decided`, with the Wilson interval (`engine.intervals.Rate.to_json`)."""

    passed: int = 0
    failed: int = 0
    decided: int = 0
    rate: float | None = None
    low: float = 0.0
    high: float = 1.0


class PlannedReliabilityResult(BaseModel):
    """The repeats of one planned conversation (`engine.regression.reliability.PlannedReliability`)."""

    planned_index: int = 0
    inputs: dict[str, Scalar | list[Scalar] | None] = Field(default_factory=dict)
    repeats: int = 0
    decided: int = 0
    passed: int = 0
    pass_k: bool | None = None
    pass_at_1: ServedRate = Field(default_factory=ServedRate)
    verdict: Literal["passed", "failed", "flaky", "inconclusive"] = "inconclusive"


class ProfileReliabilityResult(BaseModel):
    """pass^k and pass@1 of one profile (`engine.regression.reliability.ProfileReliability`)."""

    profile: str = ""
    k: int = 1
    planned: int = 0
    counted: int = 0
    pass_k: ServedRate = Field(default_factory=ServedRate)
    pass_at_1: ServedRate = Field(default_factory=ServedRate)
    repeats: int = 0
    decided_repeats: int = 0
    flaky: int = 0
    min_pass_rate: float | None = None
    conversations: list[PlannedReliabilityResult] = Field(default_factory=list)


class ReplaySavings(BaseModel):
    """LLM calls a run answered from a recording and those it sent (`engine.regression.replay.ReplayStats`)."""

    source: int | None = None  # the run replayed, for a re-run
    calls_saved: int = 0
    calls_made: int = 0
    saved_by_tag: dict[str, int] = Field(default_factory=dict)
    made_by_tag: dict[str, int] = Field(default_factory=dict)


class SenseiResult(BaseModel):
    """A finished (or cancelled) SENSEI run in figures, counted from every conversation it stored."""

    kind: Literal["sensei"] = "sensei"
    ok: bool = False  # no conversation failed (inconclusive ones are no chatbot failure)
    conversations: int = 0
    with_errors: int = 0
    passed: int | None = None
    failed: int | None = None
    inconclusive: int | None = None
    failed_reasons: dict[str, int] = Field(default_factory=dict)
    inconclusive_reasons: dict[str, int] = Field(default_factory=dict)
    faults: dict[str, int] = Field(default_factory=dict)  # who is at fault → conversations not passed
    verdict_rules: int | None = None  # the version of the rules that counted them (null: before verdicts)
    simulator_slips: int = 0
    reliability: list[ProfileReliabilityResult] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    models: dict[str, list[str]] = Field(default_factory=dict)  # per role (caller tag), the models called
    replay: ReplaySavings | None = None
