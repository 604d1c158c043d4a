"""What a conversation spends: profile budgets and usage per conversation (cancellation is the run context's,
`engine.context.CancelToken`).

- `SpendTracker`: the USD a group of conversations (a profile) spent, against its `max_cost`;
- `UsageTap`: gives every conversation its own usage (calls, tokens, cost, calls by tag) while all of them share
  one LLM client, by attributing each ledger line to the conversation running on the calling thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from engine.conversation import Usage
from engine.llm import UsageLedger, UsageRecord


class SpendTracker:
    """USD spent by a group of conversations (a profile), against an optional limit; thread-safe."""

    def __init__(self, limit_usd: float | None) -> None:
        self.limit_usd = limit_usd
        self._spent = 0.0
        self._lock = threading.Lock()

    def add(self, amount: float) -> None:
        with self._lock:
            self._spent += amount

    @property
    def spent_usd(self) -> float:
        with self._lock:
            return self._spent

    @property
    def exhausted(self) -> bool:
        return self.limit_usd is not None and self.spent_usd >= self.limit_usd


@dataclass
class Accumulator:
    parent: SpendTracker | None
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0
    by_tag: dict[str, int] = field(default_factory=dict)

    def add(self, record: UsageRecord) -> None:
        self.calls += 1
        self.by_tag[record.tag] = self.by_tag.get(record.tag, 0) + 1
        self.prompt_tokens += record.prompt_tokens or 0
        self.completion_tokens += record.completion_tokens or 0
        if record.cost_usd is None:
            self.unpriced += 1 if record.ok and not record.cached else 0
        else:
            self.cost_usd += record.cost_usd
            if self.parent is not None:
                self.parent.add(record.cost_usd)

    def usage(self) -> Usage:
        cost = None if self.unpriced and not self.cost_usd else round(self.cost_usd, 8)
        return Usage(
            calls=self.calls,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=cost,
        )


class UsageTap:
    """Attributes gateway usage to the conversation running on the calling thread.

    The gateway records each call in its ledger from the thread that made the call, so a thread-local
    "current conversation" is enough to give every conversation its own usage while sharing one client.
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self._ledgers: list[UsageLedger] = []

    def attach(self, ledger: UsageLedger) -> None:
        if not any(existing is ledger for existing in self._ledgers):
            self._ledgers.append(ledger)
            ledger.subscribe(self._listen)

    def _listen(self, record: UsageRecord) -> None:
        current: Accumulator | None = getattr(self._local, "current", None)
        if current is not None:
            current.add(record)

    @contextmanager
    def collect(self, parent: SpendTracker | None = None) -> Iterator[Accumulator]:
        accumulator = Accumulator(parent)
        previous = getattr(self._local, "current", None)
        self._local.current = accumulator
        try:
            yield accumulator
        finally:
            self._local.current = previous
