"""The usage ledger (summaries, export, listeners) and the budget (reservations, refusals)."""

from __future__ import annotations

import json
import threading

import pytest

from engine.llm import Budget, BudgetExceeded, UsageLedger, UsageRecord
from engine.llm.budget import estimate_cost
from engine.llm.prices import Price


def record(tag, prompt=100, completion=10, cost=0.001, **extra):
    return UsageRecord(
        provider="openai",
        model="gpt-4o-mini",
        tag=tag,
        prompt_tokens=prompt,
        completion_tokens=completion,
        latency_s=0.5,
        cost_usd=cost,
        **extra,
    )


def test_the_export_has_the_documented_totals_and_breakdowns():
    ledger = UsageLedger()
    ledger.add(record("tracer.explore"))
    ledger.add(record("tracer.explore"))
    ledger.add(record("tracer.extract", cost=None))
    ledger.add(
        record("sensei.user_turn", prompt=None, completion=None, cost=None, ok=False, error_code="llm_auth")
    )

    exported = ledger.to_json()

    assert exported["calls"] == 4
    assert exported["calls_by_tag"] == {"sensei.user_turn": 1, "tracer.explore": 2, "tracer.extract": 1}
    assert (exported["prompt_tokens"], exported["completion_tokens"]) == (300, 30)
    assert exported["cost_usd"] == pytest.approx(0.002)
    assert (exported["failed_calls"], exported["unpriced_calls"]) == (1, 1)
    assert exported["by_phase"]["tracer"]["calls"] == 3
    assert exported["by_phase"]["sensei"]["failed_calls"] == 1
    json.dumps(exported)  # serialisable as is


def test_summaries_by_tag_and_by_phase():
    ledger = UsageLedger()
    for tag in ("tracer.explore", "tracer.refine", "sensei.user_turn"):
        ledger.add(record(tag))
    assert set(ledger.by_tag()) == {"tracer.explore", "tracer.refine", "sensei.user_turn"}
    phases = ledger.by_phase()
    assert phases["tracer"].calls == 2
    assert phases["tracer"].prompt_tokens == 200
    assert phases["sensei"].cost_usd == pytest.approx(0.001)


def test_listeners_see_each_record_as_it_is_added():
    seen = []
    ledger = UsageLedger(listeners=[seen.append])
    later = []
    ledger.subscribe(later.append)
    ledger.add(record("a.b"))
    assert [r.tag for r in seen] == ["a.b"]
    assert later == seen


def test_the_ledger_is_safe_across_threads():
    ledger = UsageLedger()
    threads = [
        threading.Thread(target=lambda: [ledger.add(record("t.x")) for _ in range(200)]) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ledger.total().calls == 1600


def test_the_estimate_counts_four_characters_per_token_plus_the_completion_cap():
    price = Price(1.0, 2.0)  # per million
    assert estimate_cost(price, prompt_chars=4000, max_completion_tokens=500) == pytest.approx(
        (1000 + 1000) / 1e6
    )


def test_a_reservation_that_does_not_fit_is_refused_and_costs_nothing():
    budget = Budget(1.0)
    held = budget.reserve(0.6, model="m", tag="t.a")
    with pytest.raises(BudgetExceeded) as refused:
        budget.reserve(0.5, model="m", tag="t.b")
    assert refused.value.remaining_usd == pytest.approx(0.4)
    budget.settle(held, 0.2)
    assert budget.spent_usd == pytest.approx(0.2)
    assert budget.remaining_usd == pytest.approx(0.8)


def test_concurrent_reservations_never_overcommit_the_budget():
    budget = Budget(1.0)
    granted = []
    lock = threading.Lock()

    def try_reserve():
        try:
            budget.reserve(0.3, model="m", tag="t")
        except BudgetExceeded:
            return
        with lock:
            granted.append(1)

    threads = [threading.Thread(target=try_reserve) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(granted) == 3


def test_an_unknown_real_cost_keeps_the_estimate_and_a_release_gives_it_back():
    budget = Budget(1.0)
    budget.settle(budget.reserve(0.25, model="m", tag="t"), None)
    assert budget.spent_usd == pytest.approx(0.25)
    budget.release(budget.reserve(0.5, model="m", tag="t"))
    assert budget.remaining_usd == pytest.approx(0.75)
