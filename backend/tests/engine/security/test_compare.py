"""Comparing two campaign runs: breach rates with their intervals, attempts newly breached or resisted, errors and
inconclusive attempts kept apart, and the verdict a CI gate reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.intervals import wilson
from engine.security import (
    AttemptRecord,
    Evidence,
    SecurityCompareInputError,
    compare_campaigns,
    load_results,
)
from engine.security.compare import comparison_text

LEAK = "My instructions are: Secret marker PELICAN-4411."


def attempt(attack: str, index: int, verdict: str, delivery: str = "direct") -> AttemptRecord:
    breached = verdict == "breached"
    return AttemptRecord(
        id=f"{attack}#{index}",
        attack=attack,
        attack_id=attack,
        index=index,
        delivery=delivery,
        verdict=verdict,  # type: ignore[arg-type]
        because={
            "breached": "leakage: the reply contains the canary",
            "resisted": "the chatbot refused",
            "inconclusive": "the judge claimed a breach it could not quote",
            "error": "the chatbot answered HTTP 500",
        }[verdict],
        evidence=[Evidence(quote=LEAK, oracle="leakage", turn=1)] if breached else [],
    )


def many(attack: str, verdicts: dict[str, int], delivery: str = "direct") -> list[AttemptRecord]:
    records: list[AttemptRecord] = []
    for verdict, count in verdicts.items():
        records += [attempt(attack, len(records) + i, verdict, delivery) for i in range(count)]
    return records


def test_a_breach_rate_that_rises_for_sure_is_a_regression_with_the_attempts_as_evidence():
    baseline = many("system_prompt_stealer", {"resisted": 10}) + many("amnesia", {"resisted": 4})
    run = many("system_prompt_stealer", {"breached": 8, "resisted": 2}) + many("amnesia", {"resisted": 4})

    result = compare_campaigns(baseline, run, baseline_label="run 1", run_label="run 2")

    assert result.verdict == "regressed"
    stealer = next(g for g in result.attacks if g.name == "system_prompt_stealer")
    assert stealer.status == "regressed"
    expected = wilson(8, 10)
    assert (stealer.run.rate, stealer.run.low, stealer.run.high) == (
        0.8,
        round(expected.low, 4),
        round(expected.high, 4),
    )
    assert stealer.baseline.rate == 0.0 and stealer.change.low is not None and stealer.change.low > 0
    assert next(g for g in result.attacks if g.name == "amnesia").status == "unchanged"
    assert result.deliveries[0].name == "direct" and result.deliveries[0].run.breached == 8
    # The newly breached attempts are the ones resisted before, matched by attack, delivery and index, quoted.
    assert [(c.attack_id, c.index) for c in result.newly_breached] == [
        ("system_prompt_stealer", i) for i in range(8)
    ]
    assert result.newly_breached[0].run.quotes == [LEAK]
    assert result.newly_breached[0].baseline.verdict == "resisted"
    assert result.newly_resisted == [] and result.matched == 14
    text = comparison_text(result)
    assert text.startswith("REGRESSED: run 2 against the baseline run 1")
    assert "newly breached (8)" in text and "PELICAN-4411" in text


def test_the_same_results_are_unchanged_and_fewer_breaches_an_improvement():
    leaky = many("base64_injection", {"breached": 10})
    guarded = many("base64_injection", {"resisted": 10})

    assert compare_campaigns(leaky, leaky).verdict == "unchanged"
    result = compare_campaigns(leaky, guarded)
    assert result.verdict == "improved"
    assert len(result.newly_resisted) == 10 and result.newly_breached == []
    assert result.overall.change.delta == -1.0


def test_errors_are_never_counted_as_resisted():
    # The chatbot was down for the whole run: no rate, no improvement, every error listed.
    baseline = many("dan_jailbreak", {"breached": 6})
    run = many("dan_jailbreak", {"error": 6})

    result = compare_campaigns(baseline, run)

    assert result.verdict == "inconclusive"
    assert result.overall.run.rate is None and result.overall.run.error == 6
    assert result.overall.run.resisted == 0
    assert result.newly_resisted == []
    assert [b.because for b in result.errors.run] == ["the chatbot answered HTTP 500"] * 6
    assert any("no attempt of the run reached a decision" in reason for reason in result.reasons)


def test_errors_and_inconclusive_attempts_are_left_out_of_the_rate_and_listed_apart():
    baseline = many("amnesia", {"resisted": 10})
    run = many("amnesia", {"resisted": 5, "inconclusive": 3, "error": 2})

    result = compare_campaigns(baseline, run)

    group = result.attacks[0]
    assert (group.run.decided, group.run.rate, group.run.inconclusive, group.run.error) == (5, 0.0, 3, 2)
    assert group.status == "unchanged" and result.verdict == "unchanged"
    assert [b.index for b in result.inconclusive.run] == [5, 6, 7]
    assert [b.index for b in result.errors.run] == [8, 9]
    assert "inconclusive in the run (3; not counted as resisted)" in comparison_text(result)


def test_a_breach_too_few_attempts_can_prove_is_inconclusive_never_unchanged():
    baseline = [attempt("ucar", 0, "resisted")]
    run = [attempt("ucar", 0, "breached")]

    result = compare_campaigns(baseline, run)

    assert result.verdict == "inconclusive"
    assert result.attacks[0].status == "inconclusive" and "too few attempts" in result.attacks[0].why
    assert len(result.newly_breached) == 1
    assert any("newly breached" in note for note in result.notes)


def test_a_small_rise_below_the_threshold_is_unchanged_but_noted():
    baseline = many("self_refine", {"resisted": 40})
    run = many("self_refine", {"breached": 1, "resisted": 39})

    assert compare_campaigns(baseline, run, threshold=0.1).verdict == "unchanged"
    strict = compare_campaigns(baseline, run, threshold=0.02)
    assert strict.verdict == "inconclusive"  # past the threshold, but one breach in 40 proves nothing
    with pytest.raises(ValueError):
        compare_campaigns(baseline, run, threshold=0)


def test_attempts_match_by_attack_delivery_and_index_only():
    baseline = [
        attempt("amnesia", 0, "resisted", "direct"),
        *many("aim_jailbreak", {"resisted": 3}, "scripted"),
    ]
    run = [
        attempt("amnesia", 0, "breached", "escalation"),
        *many("aim_jailbreak", {"resisted": 3}, "scripted"),
    ]

    result = compare_campaigns(baseline, run)

    assert result.newly_breached == []  # another delivery mode is another attempt
    assert (result.matched, result.baseline_only, result.run_only) == (3, 1, 1)
    statuses = {(g.kind, g.name): g.status for g in result.deliveries}
    assert statuses == {
        ("delivery", "direct"): "missing",
        ("delivery", "escalation"): "new",
        ("delivery", "scripted"): "unchanged",
    }
    assert result.verdict == "inconclusive"  # the baseline's direct attempts were not made again


def test_an_attack_missing_from_the_run_makes_it_inconclusive_and_a_new_breaching_one_is_noted():
    baseline = many("amnesia", {"resisted": 5}) + many("ucar", {"resisted": 5})
    run = many("amnesia", {"resisted": 5}) + many("affirmative_suffix", {"breached": 2})

    result = compare_campaigns(baseline, run)

    statuses = {g.name: g.status for g in result.attacks}
    assert statuses == {"amnesia": "unchanged", "ucar": "missing", "affirmative_suffix": "new"}
    assert result.verdict == "inconclusive"
    assert any("affirmative_suffix is new in the run and breached 2" in note for note in result.notes)


def test_an_empty_run_is_inconclusive():
    result = compare_campaigns(many("amnesia", {"resisted": 3}), [])
    assert result.verdict == "inconclusive" and "the run has no attempt" in result.reasons


# -- reading runs from disk -------------------------------------------------------------------------------------


def test_results_are_read_from_a_run_folder_or_its_attempts_stream(tmp_path: Path):
    records = many("amnesia", {"breached": 1, "resisted": 2})
    full = tmp_path / "full"
    full.mkdir()
    (full / "security.json").write_text(
        json.dumps({"totals": {}, "attempts": [r.model_dump(mode="json") for r in records]})
    )
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    (stopped / "attempts.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records[:2]))

    assert [r.verdict for r in load_results(full)] == ["breached", "resisted", "resisted"]
    assert [r.verdict for r in load_results(full / "security.json")] == ["breached", "resisted", "resisted"]
    assert [r.id for r in load_results(stopped)] == ["amnesia#0", "amnesia#1"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no security.json or attempts.jsonl"),
        ("{not json", "not JSON"),
        ('{"profiles": []}', "no `attempts` list"),
        ('{"attempts": [{"attack": "amnesia"}]}', "attempt 1 is not an attempt record"),
    ],
)
def test_unreadable_results_name_the_file_and_the_fault(tmp_path: Path, content, message):
    if content is not None:
        (tmp_path / "security.json").write_text(content)
    with pytest.raises(SecurityCompareInputError) as caught:
        load_results(tmp_path)
    assert message in caught.value.user_message and str(tmp_path) in caught.value.user_message


def test_a_missing_folder_is_an_input_error(tmp_path: Path):
    with pytest.raises(SecurityCompareInputError, match="no such folder or file"):
        load_results(tmp_path / "nowhere")
