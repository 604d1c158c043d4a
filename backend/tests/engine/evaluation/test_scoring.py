"""Differential kills, the scores and the false alarms, on conversation records written by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from engine.conversation import ConversationError, ConversationRecord, Turn
from engine.evaluation.findings import ConversationFindings, OutOfRangeUse, conversation_findings
from engine.evaluation.scoring import false_alarms, mutant_outcome, not_run, scores
from engine.intervals import wilson

KINDS = {"outputs_price": "output", "faq_answers": "faq", "model_options_size": "model"}


def record(
    profile: str = "order", index: int = 0, *, errors: Sequence[int] = (), **fields: Any
) -> ConversationRecord:
    return ConversationRecord(
        id=f"{profile}-{index}",
        profile=profile,
        index=index,
        turns=[Turn(role="user", text="hi"), Turn(role="bot", text="hello")],
        errors=[ConversationError(code=code, message=f"error {code}", turn=1) for code in errors],
        **fields,
    )


def found(
    rec: ConversationRecord, failures: Sequence[tuple[str, str]] = (), uses: Sequence[OutOfRangeUse] = ()
) -> ConversationFindings:
    return conversation_findings(rec, failures, KINDS, uses)


def clean_run() -> list[ConversationFindings]:
    return [found(record("order", 0)), found(record("order", 1)), found(record("ask", 0))]


def test_a_mutant_whose_change_is_never_observable_is_not_killed() -> None:
    original = [clean_run() for _ in range(3)]
    mutant = [clean_run() for _ in range(3)]
    outcome = mutant_outcome("m", "op", "nothing observable", original, mutant)
    assert outcome.status == "live"
    assert outcome.killed is False
    assert outcome.kills == []
    assert set(outcome.statuses.values()) == {"live"}


def test_a_finding_that_also_occurs_on_the_original_never_kills() -> None:
    # The original shows a missing output on order #1 in one repeat of three; the mutant in all three.
    flaky = [found(record("order", 0)), found(record("order", 1, errors=[1001], outputs={"total": None}))]
    original = [clean_run(), flaky, clean_run()]
    mutant = [flaky, flaky, flaky]
    outcome = mutant_outcome("m", "op", "d", original, mutant)
    assert outcome.status == "live"
    [kill] = outcome.kills
    assert kill.to_json() == {
        "signature": ["missing_output", "order", 1, "total"],
        "reason": "missing_output",
        "kind": "automatic",
        "mutant_count": 3,
        "original_count": 1,
        "original_runs": 3,
        "mutant_runs": 3,
        "kills": False,
        "evidence": "error 1001",
    }
    # Counted the thesis's way, the same finding kills: any finding on the mutant does.
    assert outcome.statuses["thesis_automatic"] == "killed"
    assert outcome.statuses["thesis_with_oracles"] == "killed"


def test_a_mutant_that_answers_500_on_turn_2_is_killed_by_a_crash_the_original_never_showed() -> None:
    original = [clean_run() for _ in range(3)]
    crashed = record("order", 1, errors=[500])
    crashed.errors[0].turn = 2
    mutant = [[found(record("order", 0)), found(crashed), found(record("ask", 0))] for _ in range(3)]
    outcome = mutant_outcome("crash-on-value-1", "crash-on-value", "d", original, mutant)
    assert outcome.status == "killed"
    assert outcome.statuses["automatic"] == "killed"
    [kill] = outcome.kills
    assert kill.reason == "crash"
    assert kill.signature == ("crash", "order", 1, "")
    assert (kill.mutant_count, kill.original_count) == (3, 0)
    data = outcome.to_json()
    assert data["killed"] is True
    assert data["kills"][0]["original_count"] == 0
    assert data["reasons"] == {"crash": 1}
    assert data["kill_repeats"] == {"automatic": 3, "with_oracles": 3}


def test_killed_only_when_some_kill_has_original_count_0() -> None:
    both = [found(record("order", 0, errors=[1003])), found(record("order", 1))]
    original = [both, both]
    new = [found(record("order", 0, errors=[1003])), found(record("order", 1, errors=[1000]))]
    outcome = mutant_outcome("m", "op", "d", original, [new, new, both])
    assert [(k.reason, k.signature[2], k.mutant_count, k.original_count) for k in outcome.kills] == [
        ("loop", 1, 2, 0),  # differential kills first
        ("loop", 0, 3, 2),
    ]
    assert outcome.status == "killed"
    assert outcome.repeat_kills["with_oracles"] == [True, True, False]


def test_a_signature_in_a_minority_of_the_repeats_is_noise_and_kills_nothing() -> None:
    # One repeat of three loops where the original never did: what a model at temperature > 0 does by chance.
    both = [found(record("order", 0)), found(record("order", 1))]
    new = [found(record("order", 0)), found(record("order", 1, errors=[1000]))]
    outcome = mutant_outcome("m", "op", "d", [both, both, both], [new, both, both])
    [kill] = outcome.kills
    assert (kill.mutant_count, kill.mutant_runs, kill.differential) == (1, 3, False)
    assert outcome.status == "live"
    # Two of three is a majority: killed.
    assert mutant_outcome("m", "op", "d", [both, both, both], [new, new, both]).status == "killed"
    # Two of four is not.
    assert mutant_outcome("m", "op", "d", [both, both], [new, new, both, both]).status == "live"


def test_one_conclusive_original_run_is_no_baseline() -> None:
    clean = [found(record("order", 0))]
    broken = [found(record("order", 0, errors=[500]))]
    # The original's conversation was conclusive once (inconclusive in the other repeat): no kill.
    unsure = [found(record("order", 0, errors=[3000]))]
    assert mutant_outcome("m", "op", "d", [clean, unsure], [broken, broken]).status == "live"
    assert mutant_outcome("m", "op", "d", [clean], [broken]).status == "live"
    assert mutant_outcome("m", "op", "d", [clean, clean], [broken, broken]).status == "killed"


def test_no_kill_without_a_conclusive_original_to_compare_with() -> None:
    # The original's order #0 was inconclusive in every repeat (the user LLM failed): no baseline.
    original = [[found(record("order", 0, errors=[3000])), found(record("order", 1))] for _ in range(2)]
    mutant = [[found(record("order", 0, errors=[500])), found(record("order", 1))] for _ in range(2)]
    outcome = mutant_outcome("m", "op", "d", original, mutant)
    [kill] = outcome.kills
    assert (kill.original_count, kill.original_runs, kill.differential) == (0, 0, False)
    assert outcome.status == "live"


def test_an_oracle_kill_counts_with_oracles_only() -> None:
    original = [clean_run(), clean_run()]
    mutant = [
        [found(record("order", 0), [("outputs_price", "the total is 12, expected 21")]), *clean_run()[1:]]
    ]
    outcome = mutant_outcome("m", "wrong-price-formula", "d", original, mutant)
    assert outcome.statuses["with_oracles"] == "killed"
    assert outcome.statuses["automatic"] == "live"
    assert outcome.to_json()["killed_automatic"] is False
    assert outcome.kills[0].kind == "oracle"
    assert outcome.kills[0].reason == "wrong_output"
    assert outcome.rules == {"outputs_price": 1}
    # A rule Parley wrote from TRACER's model is automatic.
    model_kill = [[found(record("order", 0), [("model_options_size", "an option is missing")])]]
    assert mutant_outcome("m", "op", "d", original, model_kill).statuses["automatic"] == "killed"


def test_set_up_errors_make_a_conversation_inconclusive_and_a_mutant_with_no_other_inconclusive() -> None:
    conversation = found(record("order", 0, errors=[3000]))
    assert conversation.inconclusive and conversation.findings == []
    outcome = mutant_outcome("m", "op", "d", [clean_run()], [[conversation]])
    assert outcome.status == "inconclusive"
    assert outcome.inconclusive_conversations == 1


@pytest.mark.parametrize(
    ("verdict", "errors", "inconclusive", "reasons"),
    [
        ("inconclusive", [1001], True, []),  # kept apart: no finding counts
        ("passed", [1002], False, []),  # SENSEI says passed: its errors are no finding
        ("failed", [1002, 3000], False, ["unmet_goal"]),
    ],
)
def test_a_sensei_verdict_is_read_when_records_carry_one(
    verdict: str, errors: list[int], inconclusive: bool, reasons: list[str]
) -> None:
    as_dict = record("order", 0, errors=errors).model_dump()
    as_dict["verdict"] = verdict
    as_dict["verdict_reason"] = "the chatbot answered nothing usable"

    class WithVerdict(ConversationRecord):
        verdict: str | None = None
        verdict_reason: str | None = None

    result = found(WithVerdict(**as_dict))
    assert result.inconclusive is inconclusive
    assert [f.reason for f in result.findings] == reasons


def test_an_out_of_range_input_expects_a_refusal_not_an_output() -> None:
    given = record("order", 2, errors=[1001, 1002], outputs={"total": None})
    refused = OutOfRangeUse("size", "gigantic", said=True, refused=True)
    result = found(given, uses=[refused])
    assert result.findings == []  # the missing output and the unmet goal were expected
    assert "out-of-range input" in result.notes[0]
    accepted = OutOfRangeUse("size", "gigantic", said=True, refused=False, output=True, evidence="Great!")
    assert [(f.reason, f.detail) for f in found(record("order", 2), uses=[accepted]).findings] == [
        ("no_refusal", "size")
    ]
    # No refusal recognised, but no output either: nothing can be said.
    unclear = OutOfRangeUse("size", "gigantic", said=True, refused=False, output=False)
    assert found(given, uses=[unclear]).findings == []
    never_said = OutOfRangeUse("size", "gigantic", said=False, refused=False)
    assert found(given, uses=[never_said]).findings == []


def test_scores_per_bot_and_operator_and_the_thesis_rule_beside() -> None:
    original = [clean_run(), clean_run()]
    crash = [[found(record("order", 0, errors=[500])), *clean_run()[1:]]]
    shared = [[found(record("order", 0)), found(record("order", 1)), found(record("ask", 0, errors=[1002]))]]
    original_with_goal = 2 * [[*clean_run()[:2], found(record("ask", 0, errors=[1002]))]]
    outcomes = {
        "pizza": [
            mutant_outcome("a", "crash-on-value", "d", original, crash),
            mutant_outcome("b", "delete-qa-pair", "d", original_with_goal, shared),
            not_run("c", "change-optionality", "d", "stillborn"),
        ],
        "bike": [mutant_outcome("d", "crash-on-value", "d", original, original[:1])],
    }
    data = scores(outcomes)
    automatic = data["automatic"]
    assert (automatic["killed"], automatic["scored"], automatic["score"]) == (1, 3, 33.33)
    assert automatic["stillborn"] == 1
    assert automatic["ci95"] == wilson(1, 3).percent_bounds()
    assert automatic["per_repeat"] == [33.33]
    assert automatic["per_bot"]["pizza"]["score"] == 50.0
    assert automatic["per_bot"]["bike"]["score"] == 0.0
    assert automatic["per_operator"]["crash-on-value"]["killed"] == 1
    assert automatic["per_operator"]["crash-on-value"]["scored"] == 2
    assert data["thesis_rule"]["automatic"]["killed"] == 2  # the shared unmet goal kills the thesis's way
    assert data["with_oracles"]["score"] == 33.33


def test_false_alarms_list_the_signatures_behind_them() -> None:
    runs = [
        [found(record("order", 0, errors=[1001], outputs={"total": None})), found(record("ask", 0))],
        [found(record("order", 0)), found(record("ask", 0), [("faq_answers", "wrong answer")])],
        [found(record("order", 0)), found(record("ask", 0, errors=[3000]))],
    ]
    data = false_alarms(runs)
    assert data["conversations"] == 5 and data["inconclusive"] == 1
    assert data["out_of_range_excused"] == 0
    assert data["automatic"]["flagged"] == 1
    assert data["with_oracles"]["flagged"] == 2
    assert data["with_oracles"]["rate"] == 40.0
    assert data["rate"] == 40.0
    assert [(s["signature"], s["kind"], s["count"]) for s in data["signatures"]] == [
        (["missing_output", "order", 0, "total"], "automatic", 1),
        (["failed_rule", "ask", 0, "faq_answers"], "oracle", 1),
    ]
