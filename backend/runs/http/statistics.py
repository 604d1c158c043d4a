"""A run's aggregates for the dashboards (`GET /api/runs/{id}/stats/`, and the `statistics` of a JSON export), as one
pydantic model the schema serves typed (README D31).

Everything is counted from the run's stored rows. A SENSEI run: conversations by verdict with their reasons and
faults (records decided by older rules are decided again, `engine.sensei.verdicts`), errors by code, each profile's
counts and cost, the chatbot's response times. A check run: each rule's counts and pass rate. A security run: the
breach rates per attack, delivery mode and state (`engine.security.report.summarise`). Other kinds: cost and usage.
"""

from __future__ import annotations

import statistics as stats
from collections import Counter, defaultdict
from typing import Any

from pydantic import BaseModel, Field

from engine.conversation import error_name
from engine.llm import UsageTotals
from engine.security.result import BreachRates
from engine.sensei.verdicts import tally, verdict_of
from runs.http import security_exports
from runs.models import Conversation, RuleResult, Run


class ErrorTally(BaseModel):
    code: int
    name: str  # the code's slug (`engine.conversation.ErrorCode`), http_NNN, or unknown
    count: int


class ProfileStatistics(BaseModel):
    profile: str
    conversations: int = 0
    with_errors: int = 0
    cost_usd: float = 0.0
    passed: int = 0
    failed: int = 0
    inconclusive: int = 0


class HistogramBin(BaseModel):
    from_: float = Field(alias="from")
    to: float
    count: int


class ResponseTimes(BaseModel):
    """The chatbot's reply latencies in seconds: a summary and ten equal-width bins."""

    count: int = 0
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    median: float | None = None
    p90: float | None = None
    histogram: list[HistogramBin] = Field(default_factory=list)


class RuleStatistics(BaseModel):
    name: str
    status: str
    checks: int
    passed: int
    failed: int
    not_applicable: int
    errors: int
    pass_rate: float | None  # passed / (passed + failed + errors); None when the rule decided nothing


class RunStatistics(BreachRates):
    """What the charts draw. The SENSEI fields are null (or empty) for other kinds; the breach-rate fields
    (`BreachRates`) are filled for a security run only."""

    kind: str
    cost_usd: float | None = None
    usage: UsageTotals = Field(default_factory=UsageTotals)
    conversations: int | None = None
    with_errors: int | None = None
    passed: int | None = None
    failed: int | None = None
    inconclusive: int | None = None
    failed_reasons: dict[str, int] = Field(default_factory=dict)
    inconclusive_reasons: dict[str, int] = Field(default_factory=dict)
    faults: dict[str, int] = Field(default_factory=dict)
    verdict_rules: int | None = None
    simulator_slips: int = 0
    errors_by_code: list[ErrorTally] = Field(default_factory=list)
    profiles: list[ProfileStatistics] = Field(default_factory=list)
    response_times: ResponseTimes = Field(default_factory=ResponseTimes)
    rules: list[RuleStatistics] = Field(default_factory=list)
    tracer_run: int | None = None  # a security run from TRACER's states: the TRACER run whose states they are


def statistics(run: Run) -> RunStatistics:
    body: dict[str, Any] = {"kind": run.kind, "usage": run.usage or {}, "cost_usd": run.cost_usd}
    if run.kind == Run.Kind.SENSEI:
        body.update(_sensei(run))
    elif run.kind == Run.Kind.SECURITY:
        body.update(security_exports.statistics(run))
    elif run.kind == Run.Kind.CHECK:
        body["rules"] = [_rule(result) for result in RuleResult.objects.filter(run=run)]
    return RunStatistics.model_validate(body)


def _sensei(run: Run) -> dict[str, Any]:
    rows = list(Conversation.objects.filter(run=run).values("profile", "record", "has_errors", "cost_usd"))
    errors: Counter[int] = Counter(e["code"] for row in rows for e in row["record"].get("errors", []))
    per_profile: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"conversations": 0, "with_errors": 0, "cost_usd": 0.0}
    )
    verdicts = [verdict_of(row["record"]) for row in rows]
    for row, (verdict, _) in zip(rows, verdicts, strict=True):
        entry = per_profile[row["profile"]]
        entry["conversations"] += 1
        entry["with_errors"] += int(row["has_errors"])
        entry["cost_usd"] = round(entry["cost_usd"] + (row["cost_usd"] or 0.0), 6)
        entry[verdict] = entry.get(verdict, 0) + 1
    slips = [(row["record"].get("outcome") or {}).get("simulator_slips") or [] for row in rows]
    return {
        "conversations": len(rows),
        "with_errors": sum(int(row["has_errors"]) for row in rows),
        **tally(verdicts),
        "simulator_slips": sum(len(s) for s in slips if isinstance(s, list)),
        "errors_by_code": [{"code": c, "name": error_name(c), "count": n} for c, n in sorted(errors.items())],
        "profiles": [{"profile": name, **entry} for name, entry in sorted(per_profile.items())],
        "response_times": _distribution(_response_times([row["record"] for row in rows])),
    }


def _rule(result: RuleResult) -> dict[str, Any]:
    decided = result.passed + result.failed + result.errors
    return {
        "name": result.name,
        "status": result.status,
        "checks": result.checks,
        "passed": result.passed,
        "failed": result.failed,
        "not_applicable": result.not_applicable,
        "errors": result.errors,
        "pass_rate": round(result.passed / decided, 4) if decided else None,
    }


def _response_times(records: list[dict[str, Any]]) -> list[float]:
    return [
        float(turn["latency_s"])
        for record in records
        for turn in record.get("turns", [])
        if turn.get("role") == "bot" and turn.get("latency_s") is not None
    ]


def _distribution(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "min": ordered[0],
        "max": ordered[-1],
        "mean": round(stats.fmean(ordered), 4),
        "median": round(stats.median(ordered), 4),
        "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
        "histogram": _histogram(ordered),
    }


def _histogram(ordered: list[float], buckets: int = 10) -> list[dict[str, float]]:
    """Ten equal-width buckets."""
    low, high = ordered[0], ordered[-1]
    width = (high - low) / buckets or 1.0
    counts = [0] * buckets
    for value in ordered:
        counts[min(buckets - 1, int((value - low) / width))] += 1
    return [
        {"from": round(low + i * width, 4), "to": round(low + (i + 1) * width, 4), "count": c}
        for i, c in enumerate(counts)
    ]
