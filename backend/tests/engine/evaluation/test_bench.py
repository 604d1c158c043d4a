"""The bench end to end on two bots with two mutants each, with the scripted LLM double."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from engine.bots.definition import definition_data, parse_definition
from engine.bots.mutation import Mutant
from engine.bots.registry import BOTS, definition_text
from engine.evaluation import BenchConfig, run_bench

from .conftest import bench_factory

TODAY = date(2026, 3, 2)


def equivalent_mutant(bot: str) -> Mutant:
    """A mutant that only rewrites a form's description, which the bot never says: behaves as the original."""
    data = definition_data(definition_text(bot), source=BOTS[bot])
    data["modules"]["price_house"]["description"] = "Reworded: what a house pizza and its drinks cost."
    definition = parse_definition(data, source="equivalent")
    return Mutant("equivalent-1", "equivalent", bot, "price_house: description reworded", data, definition)


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
        provider="openai",
        model="gpt-4o-mini",
        temperature=0.0,
    )
    result = run_bench(config, bench_factory(roles), extra_mutants={"pizza": [equivalent_mutant("pizza")]})
    return result.data, out, roles


def test_numbers_are_consistent(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, _, _ = bench
    for bot, b in data["bots"].items():
        mutation = b["mutation"]
        assert mutation["selected"] == 2, bot
        assert 0 <= mutation["killed"] <= mutation["selected"]
        assert mutation["killed"] + mutation["live"] + mutation["inconclusive"] + mutation["stillborn"] == 2
        for coverage in (b["tracer"]["coverage"], b["sensei"]["coverage"]["aggregate"]):
            for key in ("module", "input", "value", "question"):
                assert 0 <= coverage[key] <= 100
        assert b["sensei"]["coverage"]["aggregate"]["module"] > 0
        assert 0 <= b["tracer"]["precision"] <= 100
        assert 0 <= b["tracer"]["recall"] <= 100
        assert b["sensei"]["false_alarms"]["conversations"] > 0
        # Every conversation run is counted: `repeats` runs on the original, one per mutant.
        assert b["sensei"]["repeats"] == 2
        assert b["usage"]["calls"] > 0
        assert b["usage"]["phases"]["tracer"]["calls"] > 0
    overall = data["overall"]
    assert overall["mutation"]["killed"] <= overall["mutation"]["selected"] == 4
    assert overall["usage"]["calls"] == sum(b["usage"]["calls"] for b in data["bots"].values())
    assert data["config"]["model"] == "gpt-4o-mini"
    assert data["config"]["temperature"] == 0.0


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
        assert b["tracer"]["coverage"]["module"] > 0


def test_no_false_alarm_on_the_originals(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, _, _ = bench
    for bot, b in data["bots"].items():
        assert b["sensei"]["false_alarms"]["false_alarms"] == 0, (bot, b["sensei"]["false_alarms"])
    assert data["overall"]["false_alarms"]["rate"] == 0.0


def test_kills_and_reasons(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, _, _ = bench
    pizza = {m["id"]: m for m in data["bots"]["pizza"]["mutation"]["mutants"]}
    bike = {m["id"]: m for m in data["bots"]["bike"]["mutation"]["mutants"]}
    # A price formula with '-' for '+': the ground-truth price rule fails.
    assert pizza["wrong-price-formula-1"]["status"] == "killed"
    assert "wrong_output" in pizza["wrong-price-formula-1"]["reasons"]
    assert "outputs_price_house" in pizza["wrong-price-formula-1"]["rules"]
    # The deliberately equivalent mutant survives and is listed as live.
    assert pizza["equivalent-1"]["status"] == "live"
    assert pizza["equivalent-1"]["reasons"] == {}
    assert [m["id"] for m in data["bots"]["pizza"]["mutation"]["live_mutants"]] == ["equivalent-1"]
    assert {"bot": "pizza", "id": "equivalent-1", "description": "price_house: description reworded"} in data[
        "overall"
    ]["mutation"]["live_mutants"]
    # A missing price-table entry crashes the bot (HTTP 500); swapped FAQ answers fail the FAQ rule.
    assert bike["crash-on-value-1"]["status"] == "killed"
    assert "crash" in bike["crash-on-value-1"]["reasons"]
    assert bike["swap-qa-answers-1"]["status"] == "killed"
    assert "faq_answers" in bike["swap-qa-answers-1"]["rules"]
    overall = data["overall"]["mutation"]
    assert overall["killed"] == 3
    assert overall["live"] == 1
    assert overall["mutation_score"] == 75.0
    assert overall["kills_per_reason"]["crash"] == 1
    assert overall["kills_per_operator"]["equivalent"]["live"] == 1


def test_files_and_roles(bench: tuple[dict[str, Any], Path, list[str]]) -> None:
    data, out, roles = bench
    stored = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    assert stored["overall"]["mutation"]["mutation_score"] == data["overall"]["mutation"]["mutation_score"]
    markdown = (out / "bench.md").read_text(encoding="utf-8")
    assert "Mutation score (%) | 75.00" in markdown
    assert "gpt-4o-mini" in markdown
    assert "`equivalent-1`" in markdown
    for bot in ("pizza", "bike"):
        assert list((out / bot / "rules").glob("*.yaml"))
        assert list((out / bot / "profiles").glob("*.yaml"))
        assert (out / bot / "conversations" / "original-1.jsonl").exists()
    assert roles[:4] == [
        "tracer:pizza",
        "sensei:pizza:original:1",
        "sensei:pizza:original:2",
        "sensei:pizza:wrong-price-formula-1",
    ]


def test_a_cancel_during_tracer_stops_the_bench() -> None:
    from engine.evaluation import BenchCancelled
    from engine.sensei import CancelToken

    class CancelOnSecondAsk(CancelToken):
        """Not cancelled when the bench starts; cancelled once TRACER asks between its steps."""

        def __init__(self) -> None:
            super().__init__()
            self.asked = 0

        @property
        def cancelled(self) -> bool:
            self.asked += 1
            return self.asked > 1

    token = CancelOnSecondAsk()
    config = BenchConfig(bots=("pizza",), sessions=2, turns=4, repeats=1, mutants_per_operator=0, today=TODAY)
    with pytest.raises(BenchCancelled):
        run_bench(config, bench_factory([]), cancel=token)
    assert token.asked >= 2
