"""Model qualification's result, typed (D31): what `qualify()` writes to qualify.json and the platform stores as a
`qualify` run's result and serves (`runs/qualify.py`, through drf-spectacular). No untyped fields: every figure
of `qualify.figures` and `qualify_explorer.qualify_explorer` is named here."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

Verdict = Literal["qualified", "usable with care", "not qualified", "too few to tell"]
VERDICTS: tuple[str, ...] = get_args(Verdict)
Role = Literal["simulated_user", "judge", "pair", "explorer"]
"""`pair`: the recommended user and judge together; `explorer`: TRACER's model (`ExplorerFigures` only)."""
ROLES: tuple[str, ...] = get_args(Role)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RoleFigures(_Strict):
    """One model in one role (simulated user or judge/extractor against the partner; `pair`: the recommended two
    together)."""

    model: str
    role: Role
    note: str | None
    kill_rate: float | None
    kill_ci95: list[float] | None
    kill_rate_automatic: float | None
    killed: int
    scored_mutants: int
    control_kill_rate: float | None
    control_ci95: list[float] | None
    kill_note: str | None
    false_alarm_rate: float | None
    false_alarm_ci95: list[float] | None
    decided_originals: int
    inconclusive_share: float | None
    inconclusive_reasons: dict[str, int]
    conversations: int
    slips_per_100_turns: float | None
    llm_calls: int
    llm_failures: int
    format_repairs: int
    failure_rate: float
    refusals_learned: list[str]
    latency_s_mean: float | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    cost_per_kill: float | None
    seconds_per_kill: float | None
    tokens_per_kill: int | None
    false_alarm_conversations: list[str]
    """References (`runs/LABEL/BOT/conversations/FILE.jsonl#LINE`) of the conversations flagged on an original."""
    missed_mutants: list[str]
    missed_mutant_conversations: list[str]
    """References of the conversations run on the mutants no signature killed."""
    verdict: Verdict
    reason: str


class ExplorerBot(_Strict):
    precision: float | None
    recall: float | None
    coverage: float | None
    functionalities: int


class ExplorerFigures(_Strict):
    """One model as TRACER's explorer, against the bots' definitions (`qualify_explorer`)."""

    model: str
    role: Role
    note: str | None
    precision: float | None
    recall: float | None
    coverage: float | None
    functionalities: int
    duplicates: int
    invented: int
    steps: int
    missed_steps: list[str]
    per_bot: dict[str, ExplorerBot]
    sessions: int
    llm_calls: int
    llm_failures: int
    format_repairs: int
    refusals_learned: list[str]
    latency_s_mean: float | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    verdict: Verdict
    reason: str


class RecommendationFigures(_Strict):
    simulated_user: RoleFigures
    judge: RoleFigures
    together: RoleFigures


class Recommendation(_Strict):
    simulated_user: str
    judge: str
    explorer: str | None
    figures: RecommendationFigures
    verdict_together: Verdict
    reason: str


class QualifyPlan(_Strict):
    bots: list[str]
    sessions: int
    turns: int
    mutants_per_operator: int
    repeats: int
    controls: int
    max_profiles: int
    conversations_per_profile: int
    max_user_turns: int | None
    separate_judge: bool
    concurrency: int
    seed: int
    matcher: str
    profiles: str


class QualifyThresholds(_Strict):
    qualified_kills: float
    qualified_false_alarms: float
    qualified_failures: float
    usable_kills: float
    usable_false_alarms: float
    min_decided: int
    explorer_precision: float
    explorer_recall: float
    usable_explorer_precision: float
    usable_explorer_recall: float
    min_explorer_sessions: int


class QualifyResult(_Strict):
    """qualify.json; on the platform, a `qualify` run's result."""

    kind: Literal["qualify"] = "qualify"
    parley_version: str
    seed: int
    size: str
    plan: QualifyPlan
    partner: str
    thresholds: QualifyThresholds
    complete: bool
    models: list[RoleFigures]
    explorers: list[ExplorerFigures]
    recommendation: Recommendation | None
    conversations: dict[str, int] = {}
    """On the platform: a conversation reference → the id of the conversation stored with the run (the
    qualification page links them). Empty from the command line, where the references are files."""
