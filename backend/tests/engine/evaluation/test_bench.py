"""The bench end to end on two bots with two mutants each, with the scripted LLM double (deterministic: the same
seeds give the same conversations on the original and on a mutant that behaves like it)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from engine.bots.definition import definition_data, parse_definition
from engine.bots.mutation import Mutant
from engine.bots.registry import BOTS, definition_text
from engine.evaluation import BenchConfig, BenchJob, run_bench
from engine.evaluation.bench_report import BenchReport

from .conftest import bench_factory

TODAY = date(2026, 3, 2)


def equivalent_mutant(bot: str) -> Mutant:
    """A mutant that only rewrites a form's description, which the bot never says: behaves as the original."""
    data = definition_data(definition_text(bot), source=BOTS[bot])
    data["modules"]["price_house"]["description"] = "Reworded: what a house pizza and its drinks cost."
    definition = parse_definition(data, source="equivalent")
    return Mutant("equivalent-1", "equivalent", bot, "price_house: description reworded", data, definition)


def crash_on_turn_2() -> Mutant:
    """A booking that needs only the service and has no price for a tune-up: the bot answers HTTP 500 to the
    second user message of the scripted cycle ("book an appointment", "tune-up")."""
    data = definition_data(definition_text("bike"), source=BOTS["bike"])
    form = data["modules"]["book_service"]
    form["slots"] = form["slots"][:1]
    form["tables"]["base_price"].pop("tune-up")
    form["response"] = "Done! Your {service} starts at {price}$."
    definition = parse_definition(data, source="crash-on-turn-2")
    return Mutant(
        "crash-on-turn-2", "crash-on-value", "bike", "a tune-up has no price: HTTP 500", data, definition
    )


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, list[str]]:
    out = tmp_path_factory.mktemp("bench")
    roles: list[str] = []
    config = BenchConfig(
        bots=("pizza", "bike"),
        sessions=2,
        turns=4,
        repeats=2,
        concurrency=1,
        mutants={"pizza": ("wrong-price-formula-1",), "bike": ("crash-on-value-1", "swap-qa-answers-1")},
        today=TODAY,
        output_dir=out,
        matcher="lexical",
        provider="openai",
        model="gpt-4o-mini",
        temperature=0.0,
    )
    extra = {"pizza": [equivalent_mutant("pizza")], "bike": [crash_on_turn_2()]}
    result = run_bench(BenchJob(config, bench_factory(roles), extra_mutants=extra))
    return result.data, out, roles


def test_numbers_are_consistent(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, _, _ = bench
    for bot, b in data["bots"].items():
        mutation = b["mutation"]
        selected = {"pizza": 2, "bike": 3}[bot]
        assert mutation["selected"] == selected, bot
        assert 0 <= mutation["killed"] <= mutation["selected"]
        assert (
            mutation["killed"] + mutation["live"] + mutation["inconclusive"] + mutation["stillborn"]
            == selected
        )
        for coverage in (b["tracer"]["coverage"], b["sensei"]["coverage"]["aggregate"]):
            for key in ("module", "input", "value", "question"):
                assert 0 <= coverage[key] <= 100
        assert b["sensei"]["coverage"]["aggregate"]["module"] > 0
        assert 0 <= b["tracer"]["precision"] <= 100
        assert 0 <= b["tracer"]["recall"] <= 100
        assert b["sensei"]["false_alarms"]["conversations"] > 0
        # Every mutant ran `repeats` times with the original's seeds; every conversation is counted.
        assert b["sensei"]["repeats"] == 2
        for m in mutation["mutants"]:
            assert m["repeats"] == 2
            assert m["conversations"] == 2 * b["sensei"]["conversations_per_run"]
            assert m["killed"] == any(k["kills"] for k in m["kills"])
            assert all(k["original_count"] == 0 for k in m["kills"] if k["kills"])
        assert b["usage"]["calls"] > 0
        assert b["usage"]["phases"]["tracer"]["calls"] > 0
    overall = data["overall"]
    assert overall["mutation"]["killed"] <= overall["mutation"]["selected"] == 5
    assert overall["usage"]["calls"] == sum(b["usage"]["calls"] for b in data["bots"].values())
    assert data["config"]["model"] == "gpt-4o-mini"
    assert data["config"]["temperature"] == 0.0
    provenance = data["provenance"]
    assert (provenance["provider"], provenance["model"], provenance["temperature"]) == (
        "openai",
        "gpt-4o-mini",
        0.0,
    )
    assert (provenance["seed"], provenance["repeats"]) == (0, 2)
    assert provenance["parley_version"]
    assert next(iter(data)) == "provenance"


def test_tracer_modelling_matches_the_ground_truth(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, _, _ = bench
    for bot, b in data["bots"].items():
        # The script reports exactly the modules of the manifest, named as they are: all real, all found.
        assert b["tracer"]["precision"] == 100.0, (bot, b["tracer"]["matches"])
        assert b["tracer"]["recall"] == 100.0, (
            bot,
            b["tracer"]["missed_modules"],
            b["tracer"]["missed_inputs"],
        )
        assert b["tracer"]["matcher"] == "lexical"
        assert "approximation" in b["tracer"]["matcher_note"]
        assert all(m["evidence"] for m in b["tracer"]["matches"])
        assert b["tracer"]["coverage"]["module"] > 0


def test_no_false_alarm_on_the_originals(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, _, _ = bench
    for bot, b in data["bots"].items():
        alarms = b["sensei"]["false_alarms"]
        assert alarms["with_oracles"]["flagged"] == 0, (bot, alarms["signatures"])
        assert alarms["signatures"] == []
    assert data["overall"]["false_alarms"]["rate"] == 0.0
    assert data["overall"]["false_alarms"]["automatic"]["rate"] == 0.0


def test_differential_kills_and_their_reasons(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, _, _ = bench
    pizza = {m["id"]: m for m in data["bots"]["pizza"]["mutation"]["mutants"]}
    bike = {m["id"]: m for m in data["bots"]["bike"]["mutation"]["mutants"]}
    # A price formula with '-' for '+': the ground-truth price rule fails, which only the oracles know.
    price = pizza["wrong-price-formula-1"]
    assert price["status"] == "killed" and price["killed"] is True
    assert price["killed_automatic"] is False
    assert "wrong_output" in price["reasons"]
    assert "outputs_price_house" in price["rules"]
    kill = next(k for k in price["kills"] if k["signature"][3] == "outputs_price_house")
    assert (kill["original_count"], kill["mutant_count"], kill["kind"]) == (0, 2, "oracle")
    # The deliberately equivalent mutant is never killed: the same seeds give the same conversations.
    equivalent = pizza["equivalent-1"]
    assert equivalent["status"] == "live" and equivalent["killed"] is False
    assert equivalent["kills"] == [] and equivalent["reasons"] == {}
    assert set(equivalent["statuses"].values()) == {"live"}
    assert [m["id"] for m in data["bots"]["pizza"]["mutation"]["live_mutants"]] == ["equivalent-1"]
    # A missing price-table entry crashes the bot (HTTP 500): an automatic kill the original never showed.
    crash = bike["crash-on-value-1"]
    assert crash["killed"] is True and crash["killed_automatic"] is True
    crash_kill = next(k for k in crash["kills"] if k["reason"] == "crash")
    assert crash_kill["original_count"] == 0 and crash_kill["mutant_count"] == 2
    # HTTP 500 on the second user message: killed by a crash the original never showed.
    turn_2 = bike["crash-on-turn-2"]
    assert turn_2["killed"] is True and turn_2["killed_automatic"] is True
    crashes = [k for k in turn_2["kills"] if k["reason"] == "crash"]
    assert crashes and all(k["original_count"] == 0 and k["mutant_count"] == 2 for k in crashes)
    assert "HTTP 500" in crashes[0]["evidence"]
    # Swapped FAQ answers fail the FAQ rule.
    assert bike["swap-qa-answers-1"]["status"] == "killed"
    assert "faq_answers" in bike["swap-qa-answers-1"]["rules"]
    scores = data["scores"]
    assert (scores["with_oracles"]["killed"], scores["with_oracles"]["scored"]) == (4, 5)
    assert scores["with_oracles"]["score"] == 80.0
    assert scores["automatic"]["killed"] == 2
    assert scores["automatic"]["per_operator"]["crash-on-value"]["score"] == 100.0
    assert scores["with_oracles"]["per_bot"]["bike"]["score"] == 100.0
    assert scores["thesis_rule"]["with_oracles"]["score"] == 80.0  # no false alarm here: the same kills
    assert data["bots"]["pizza"]["scores"]["with_oracles"]["score"] == 50.0
    assert data["overall"]["mutation"]["mutation_score"] == 80.0
    assert data["overall"]["mutation"]["kills_per_reason"]["crash"] == 2
    # The unmodified bot run as a mutant: no kill by noise with a deterministic double.
    for b in data["bots"].values():
        assert b["controls"]["runs"] == 3  # three by default: 0 of 1 says nothing
        assert b["controls"]["with_oracles"]["killed"] == 0
    assert data["overall"]["controls"]["automatic"]["rate"] == 0.0


def test_the_crash_came_on_the_second_user_message(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, out, _ = bench
    kills = {
        (k["signature"][1], k["signature"][2])
        for m in data["bots"]["bike"]["mutation"]["mutants"]
        if m["id"] == "crash-on-turn-2"
        for k in m["kills"]
        if k["reason"] == "crash"
    }
    lines = (
        (out / "bike" / "conversations" / "crash-on-turn-2-1.jsonl").read_text(encoding="utf-8").splitlines()
    )
    records = [json.loads(line) for line in lines]
    crashed = {(r["profile"], r["index"]) for r in records if 500 in [e["code"] for e in r["errors"]]}
    assert crashed == kills
    for record in records:
        if (record["profile"], record["index"]) in crashed:
            assert [t["text"] for t in record["turns"] if t["role"] == "user"] == [
                "book an appointment",
                "tune-up",
            ]


def test_bench_json_is_the_report_model_as_the_platform_serves_it(
    bench: tuple[dict[str, Any], Path, list[str]],
) -> None:
    data, out, _ = bench
    written = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    # One shape: the CLI's file, the platform's `bench` artefact and the model's dump are the same document.
    assert written == data == BenchReport.model_validate(written).model_dump(mode="json")
    assert written["config"]["today"] == TODAY.isoformat()


def test_files_report_and_roles(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, out, roles = bench
    stored = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    assert stored["scores"]["with_oracles"]["score"] == data["scores"]["with_oracles"]["score"]
    markdown = (out / "bench.md").read_text(encoding="utf-8")
    assert "| **with oracles** (differential) | 4 / 5 | 80.00 |" in markdown
    assert "| **automatic** (differential) | 2 / 5 | 40.00 |" in markdown
    assert "`equivalent-1`" in markdown
    assert "crash · Some user" not in markdown
    # The controls' kill rate beside every kill rate: 0 of 6 here (0-39 %), whose interval the automatic
    # score's (40 %, 2 of 5: 11.8-76.9 %) overlaps, so the score is flagged as not told apart from noise.
    for counting in ("automatic", "with_oracles"):
        block = stored["scores"][counting]
        assert block["controls"]["scored"] == 6 and block["controls"]["killed"] == 0
        for per_bot in block["per_bot"].values():
            assert per_bot["controls"]["scored"] == 3
    assert stored["scores"]["automatic"]["overlaps_controls"] is True
    assert "cannot be told apart" in stored["scores"]["automatic"]["note"]
    assert "| 0 / 6 (0.00 %, CI 0.0" in markdown and "intervals overlap" in markdown
    # The thesis's tables beside ours, RQ3 marked as not comparable, the lexical matcher labelled.
    assert "### RQ1 — value coverage (%)" in markdown
    assert "| pizza (Pizza-order) | 48.81 | 90.48 |" in markdown
    assert "| **total** | 64 | 84.60 |" in markdown
    assert "not comparable: different chatbots" in markdown
    assert "| **total (thesis)** | 210 | 201 | 9 | 96.00 |" in markdown
    assert "(approximation: lexical matcher)" in markdown
    # Every table is followed by what it was measured with (after at most one line of explanation).
    lines = markdown.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("|") and not lines[i + 1].startswith("|")]
    assert len(ends) >= 10
    caption = "_Measured with openai · model gpt-4o-mini · temperature 0.0 · seed 0 · 2 repeats · Parley "
    for end in ends:
        after = [line for line in lines[end + 1 : end + 7] if line.strip()]
        assert any(line.startswith((caption, "_Thesis: ")) for line in after[:3]), lines[end - 2 : end + 7]
    for bot in ("pizza", "bike"):
        assert list((out / bot / "rules" / "oracles").glob("*.yaml"))
        assert list((out / bot / "rules" / "automatic").glob("model_*.yaml"))
        assert list((out / bot / "profiles").glob("*.yaml"))
        assert (out / bot / "conversations" / "original-1.jsonl").exists()
        assert (out / bot / "conversations" / "control-1-2.jsonl").exists()
    assert roles[:6] == [
        "tracer:pizza",
        "sensei:pizza:original:1",
        "sensei:pizza:original:2",
        "sensei:pizza:wrong-price-formula-1:1",
        "sensei:pizza:wrong-price-formula-1:2",
        "sensei:pizza:equivalent-1:1",
    ]


def test_a_cancel_during_tracer_stops_the_bench() -> None:
    from engine.context import Cancelled, RunContext
    from tests.engine.cancelling import CancelAfter

    token = CancelAfter(1)  # not when the bench starts; once TRACER asks between its steps
    config = BenchConfig(
        bots=("pizza",),
        sessions=2,
        turns=4,
        repeats=1,
        mutants_per_operator=0,
        today=TODAY,
        matcher="lexical",
    )
    with pytest.raises(Cancelled, match="The bench run was cancelled"):
        run_bench(BenchJob(config, bench_factory([])), RunContext(cancel=token))
    assert token.asked >= 2
