"""The usage ledger: one record per gateway call, with tokens, latency and cost, and summaries of them.

Unlike a single running total, every record keeps its own model and price, so a run that mixes models is
priced call by call; failed calls are recorded too (with no tokens) so a dashboard can show how many calls
an outage cost; phases come from the caller tag ("tracer.extract" belongs to phase "tracer"), not from
snapshots taken at the right moment. Listeners see each record as it is added, which is how a worker
persists usage while a run is still going.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel

UsageListener = Callable[["UsageRecord"], None]


def phase_of(tag: str) -> str:
    """The part of a caller tag before the first dot: "sensei.user_turn" → "sensei"."""
    return tag.split(".", 1)[0]


@dataclass(frozen=True)
class UsageRecord:
    """One logical call (retries included). Token counts are the provider's own; None when it sent none."""

    provider: str
    model: str
    tag: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    cost_usd: float | None
    ok: bool = True
    error_code: str | None = None
    attempts: int = 1
    cached: bool = False
    repair: bool = False
    at: float = field(default_factory=time.time)

    @property
    def phase(self) -> str:
        return phase_of(self.tag)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "phase": self.phase}


@dataclass
class UsageSummary:
    """Totals over a set of records. `cost_usd` sums the priced calls; `unpriced_calls` says how many were not."""

    calls: int = 0
    failed_calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    latency_s: float = 0.0

    def add(self, record: UsageRecord) -> None:
        self.calls += 1
        self.failed_calls += 0 if record.ok else 1
        self.cached_calls += 1 if record.cached else 0
        self.prompt_tokens += record.prompt_tokens or 0
        self.completion_tokens += record.completion_tokens or 0
        self.latency_s += record.latency_s
        if record.cost_usd is None:
            # A failed or cached call cost nothing; only a completed call with an unknown price is a gap.
            self.unpriced_calls += 1 if record.ok and not record.cached else 0
        else:
            self.cost_usd += record.cost_usd

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "cost_usd": round(self.cost_usd, 8), "latency_s": round(self.latency_s, 3)}


class UsageTotals(BaseModel):
    """The headline figures of a run's LLM usage, as a run's result carries them (the ledger's export, TRACER's
    usage artefact and a bench's usage all start with them; the detail stays in the run's usage)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    failed_calls: int = 0
    unpriced_calls: int = 0


class UsageLedger:
    """Thread-safe list of `UsageRecord`s with summaries by tag and by phase."""

    def __init__(self, listeners: list[UsageListener] | None = None) -> None:
        self._lock = threading.Lock()
        self._records: list[UsageRecord] = []
        self._listeners: list[UsageListener] = list(listeners or [])

    def subscribe(self, listener: UsageListener) -> None:
        """Call `listener(record)` for every record added from now on (outside the ledger's lock).

        A listener that raises makes the gateway call raise too: losing usage silently would be worse.
        """
        with self._lock:
            self._listeners.append(listener)

    def add(self, record: UsageRecord) -> None:
        with self._lock:
            self._records.append(record)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(record)

    @property
    def records(self) -> list[UsageRecord]:
        with self._lock:
            return list(self._records)

    def total(self) -> UsageSummary:
        summary = UsageSummary()
        for record in self.records:
            summary.add(record)
        return summary

    def spent_usd(self) -> float:
        return self.total().cost_usd

    def by_tag(self) -> dict[str, UsageSummary]:
        return self._group(lambda record: record.tag)

    def by_phase(self) -> dict[str, UsageSummary]:
        return self._group(lambda record: record.phase)

    def _group(self, key: Callable[[UsageRecord], str]) -> dict[str, UsageSummary]:
        groups: dict[str, UsageSummary] = {}
        for record in self.records:
            groups.setdefault(key(record), UsageSummary()).add(record)
        return dict(sorted(groups.items()))

    def to_json(self) -> dict[str, Any]:
        """The export stored with a run: headline totals first, then the per-tag and per-phase detail."""
        total = self.total()
        by_tag = self.by_tag()
        return {
            "calls": total.calls,
            "calls_by_tag": {tag: summary.calls for tag, summary in by_tag.items()},
            "prompt_tokens": total.prompt_tokens,
            "completion_tokens": total.completion_tokens,
            "cost_usd": round(total.cost_usd, 8),
            "failed_calls": total.failed_calls,
            "cached_calls": total.cached_calls,
            "unpriced_calls": total.unpriced_calls,
            "models": sorted({record.model for record in self.records}),
            # Per caller tag, the models actually called: each role of a run may use its own (README D6).
            "models_by_tag": {tag: sorted({r.model for r in self.records if r.tag == tag}) for tag in by_tag},
            "by_tag": {tag: summary.to_json() for tag, summary in by_tag.items()},
            "by_phase": {phase: summary.to_json() for phase, summary in self.by_phase().items()},
        }
