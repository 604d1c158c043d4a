"""`compare`: what a user reads off a comparison — verdicts, the profiles and rules named, the conversations that
now fail, flaky and inconclusive ones kept apart, cost and timing changes."""

from __future__ import annotations

from engine.regression import CompareSettings, Comparison, compare, run_data

from .records import record


def runs(before: list[dict], after: list[dict], **settings: float) -> Comparison:
    return compare(run_data("base", before), run_data("new", after), CompareSettings(**settings))


def clean(profile: str, n: int, **options) -> list[dict]:
    return [record(profile, i, **options) for i in range(n)]


def test_the_same_results_are_unchanged():
    before = clean("order", 6) + clean("faq", 4)
    comparison = runs(before, clean("order", 6) + clean("faq", 4))
    assert comparison.verdict == "unchanged"
    assert comparison.matched == 10 and not comparison.newly_failing and not comparison.regressions
    assert {g.name: g.status for g in comparison.profiles} == {"faq": "unchanged", "order": "unchanged"}


def test_a_profile_that_now_crashes_regresses_and_is_named_with_its_evidence():
    before = clean("order", 6) + clean("faq", 4)
    after = clean("order", 6, errors=[500]) + clean("faq", 4)
    comparison = runs(before, after)
    assert comparison.verdict == "regressed"
    assert [(r.kind, r.name) for r in comparison.regressions] == [
        ("overall", "all conversations"),
        ("profile", "order"),
    ]
    order = next(r for r in comparison.regressions if r.name == "order")
    assert order.baseline.rate == 1.0 and order.run.rate == 0.0
    assert order.change.high is not None and order.change.high < 0
    assert len(order.newly_failing) == 6 and order.new_error_codes == [500]
    first = order.newly_failing[0]
    assert first.baseline_verdict == "passed" and first.run_verdict == "failed"
    assert first.run[0].reason.startswith("chatbot_crash: error 500") and first.run[0].fault_turn == 1
    assert [e.code for e in comparison.new_error_codes] == [500]
    assert any(reason.startswith("profile order: regressed") for reason in comparison.reasons)
    assert next(g for g in comparison.profiles if g.name == "faq").status == "unchanged"


def test_a_drop_too_small_to_confirm_is_inconclusive():
    comparison = runs(clean("order", 2), [record("order", 0), record("order", 1, errors=[500])])
    assert comparison.verdict == "inconclusive"
    assert "too few conversations to tell" in comparison.profiles[0].why
    assert len(comparison.newly_failing) == 1


def test_a_drop_below_the_threshold_is_listed_but_does_not_decide():
    after = clean("order", 20)
    after[3] = record("order", 3, errors=[504])
    comparison = runs(clean("order", 20), after)
    assert comparison.verdict == "unchanged"
    assert len(comparison.newly_failing) == 1
    assert any("below the threshold" in note for note in comparison.notes)


def test_the_threshold_is_configurable():
    after = [record("order", i, errors=[500] if i < 6 else None) for i in range(20)]  # 100 % → 70 %
    assert runs(clean("order", 20), after).verdict == "regressed"
    assert runs(clean("order", 20), after, threshold=0.5).verdict == "unchanged"


def test_a_fixed_profile_improves_with_the_conversations_that_now_pass():
    comparison = runs(clean("order", 6, errors=[1003]), clean("order", 6))
    assert comparison.verdict == "improved"
    assert len(comparison.newly_passing) == 6 and not comparison.newly_failing
    assert [e.code for e in comparison.gone_error_codes] == [1003]


def test_flaky_conversations_are_listed_and_are_no_regression_by_themselves():
    before = [
        record("order", i * 2 + r, repeat=r, planned=i, inputs={"n": i}) for i in range(4) for r in range(2)
    ]
    after = [
        record("order", i * 2 + r, repeat=r, planned=i, inputs={"n": i}, errors=[500] if r == 1 else None)
        for i in range(4)
        for r in range(2)
    ]
    comparison = runs(before, after)
    assert comparison.matched == 4 and len(comparison.flaky) == 4
    assert {m.run_verdict for m in comparison.flaky} == {"flaky"}
    assert not comparison.newly_failing and not comparison.regressions
    assert comparison.verdict == "inconclusive"
    assert "only flaky conversations make the drop" in comparison.profiles[0].why


def test_a_stable_failure_beside_flaky_ones_still_regresses():
    before = [
        record("order", i * 2 + r, repeat=r, planned=i, inputs={"n": i}) for i in range(8) for r in range(2)
    ]
    after = [
        record("order", i * 2 + r, repeat=r, planned=i, inputs={"n": i}, errors=[500] if i < 6 or r else None)
        for i in range(8)
        for r in range(2)
    ]
    comparison = runs(before, after)
    assert comparison.verdict == "regressed"
    assert len(comparison.newly_failing) == 6 and len(comparison.flaky) == 2


def test_the_record_verdict_decides_and_records_without_one_are_decided_by_sensei_s_rules():
    before = clean("order", 4)
    after = [
        # SENSEI's verdict wins over the error codes (README D26).
        record(
            "order",
            0,
            errors=[1001],
            verdict="inconclusive",
            reason="inputs_not_conveyed: goal 1 (size=small)",
        ),
        record("order", 1, verdict="failed", reason="chatbot_crash: HTTP 500"),
        # No verdict: decided now as SENSEI decides — an LLM failure is inconclusive, a crash a chatbot fault.
        record("order", 2, errors=[3000]),
        record("order", 3, errors=[500, 3001]),
    ]
    comparison = runs(before, after)
    verdicts = {m.planned_index: (m.run_verdict, m.run[0].source) for m in comparison.newly_failing}
    assert verdicts == {1: ("failed", "record"), 3: ("failed", "decided")}
    inconclusive = comparison.inconclusive.run
    assert [(i.index, i.reason.split(":")[0]) for i in inconclusive] == [
        (0, "inputs_not_conveyed"),
        (2, "user_llm_failed"),
    ]
    assert comparison.overall.run.decided == 2 and comparison.overall.run.inconclusive == 2
    assert comparison.inconclusive_reasons.run == {"inputs_not_conveyed": 1, "user_llm_failed": 1}


def test_a_verdict_of_older_rules_is_decided_again_by_today_s():
    # Stored under the first rules, which had no proof rule: decided again through the one adapter.
    older = record("order", 0, errors=[500], verdict="inconclusive", reason="user_llm_failed: x")
    older["verdict_rules"] = 1
    comparison = runs(clean("order", 1), [older])
    assert [(m.run_verdict, m.run[0].source) for m in comparison.newly_failing] == [("failed", "decided")]


def test_a_run_that_decided_nothing_is_inconclusive():
    comparison = runs(clean("order", 4), clean("order", 4, errors=[429]))
    assert comparison.verdict == "inconclusive"
    assert comparison.overall.status == "inconclusive"
    assert any("decided no conversation" in reason for reason in comparison.reasons)


def test_rules_are_compared_and_a_failed_rule_fails_its_conversation():
    def report(failing: list[str], passed: int) -> dict:
        return {
            "name": "price_positive",
            "passed": passed,
            "failed": len(failing),
            "results": [{"conversations": [c], "outcome": "fail", "reason": "price 0"} for c in failing],
        }

    before_records, after_records = clean("order", 8, run="a"), clean("order", 8, run="b")
    failing = [r["id"] for r in after_records[:6]]
    comparison = compare(
        run_data("base", before_records, rule_reports=[report([], 8)]),
        run_data("new", after_records, rule_reports=[report(failing, 2)]),
    )
    assert comparison.verdict == "regressed"
    rule = next(r for r in comparison.regressions if r.kind == "rule")
    assert rule.name == "price_positive" and rule.failing_conversations == sorted(failing)
    assert len(rule.newly_failing) == 6
    assert rule.newly_failing[0].run[0].rules_failed == ["price_positive"]
    assert rule.newly_failing[0].run[0].reason == "rule_failed: price_positive"


def test_a_profile_missing_from_the_run_is_inconclusive_and_a_new_one_changes_nothing():
    comparison = runs(clean("order", 4) + clean("faq", 4), clean("order", 4) + clean("menu", 4))
    statuses = {g.name: g.status for g in comparison.profiles}
    assert statuses == {"faq": "missing", "menu": "new", "order": "unchanged"}
    assert comparison.verdict == "inconclusive"
    assert comparison.baseline_only == 4 and comparison.run_only == 4


def test_cost_and_response_time_changes_are_reported():
    comparison = compare(
        run_data("base", clean("order", 4, latency=0.2, cost=0.001)),
        run_data("new", clean("order", 4, latency=0.5, cost=0.003)),
    )
    assert comparison.verdict == "unchanged"
    assert comparison.cost.delta_usd == 0.008
    assert comparison.cost.delta_per_conversation_usd == 0.002
    assert comparison.response_time.delta_mean_s == 0.3


def test_runs_with_other_seeds_compare_rates_only():
    after = [record("order", i, inputs={"size": f"other-{i}"}) for i in range(4)]
    comparison = runs(clean("order", 4), after)
    assert comparison.matched == 0 and comparison.verdict == "unchanged"
    assert any("no conversation of the run matches" in note for note in comparison.notes)


def test_a_comparison_survives_json():
    comparison = runs(clean("order", 6), clean("order", 6, errors=[500]))
    again = Comparison.model_validate(comparison.model_dump(mode="json"))
    assert again == comparison
