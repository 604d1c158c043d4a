"""Model qualification on the known-quality doubles: the ordering of the scale, verdicts that keep their
thresholds, the same figures on a rerun, the models list read as written, and kill rates beside the controls'."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.evaluation.qualify import QualifyJob, choose_partner, qualify, recommend
from engine.evaluation.qualify_plan import Size, Thresholds, parse_candidates, verdict
from engine.evaluation.totals import beside_controls

LOCAL = "http://127.0.0.1:8095/v1"
# Smaller than --size tiny (one profile, one conversation, 2 repeats), so the tests stay fast.
PLAN = Size(("pizza",), 1, 2, 3, 1, 1, 2, 3)
TIME_FIELDS = {"latency_s_mean", "seconds_per_kill"}


def _run(models: str, out: Path, *, seed: int = 0, **kwargs: Any) -> dict[str, Any]:
    candidates = parse_candidates(models, local_url=LOCAL)
    partner = choose_partner(candidates, {}, kwargs.pop("partner", None))
    job = QualifyJob(
        candidates,
        size="test",
        plan=PLAN,
        seed=seed,
        out=out,
        partner=partner,
        thresholds=Thresholds(),
        **kwargs,
    )
    return qualify(job)


@pytest.fixture(scope="module")
def doubles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _run("double:perfect,double:imperfect,double:loose-json", tmp_path_factory.mktemp("q"))


def _row(result: dict[str, Any], model: str, role: str) -> dict[str, Any]:
    [row] = [r for r in result["models"] if r["model"] == model and r["role"] == role]
    return row


def test_the_doubles_keep_their_order_on_kills_and_the_reverse_on_false_alarms(
    doubles: dict[str, Any],
) -> None:
    assert doubles["partner"] == "double:perfect"  # the ceiling is the strongest of a doubles-only list
    for role in ("simulated_user", "judge"):
        perfect, imperfect, loose = (
            _row(doubles, f"double:{m}", role) for m in ("perfect", "imperfect", "loose-json")
        )
        for row in (perfect, imperfect, loose):
            assert row["scored_mutants"] > 0 and row["kill_rate"] is not None
            assert row["false_alarm_rate"] is not None
        assert perfect["kill_rate"] >= imperfect["kill_rate"] >= loose["kill_rate"]
        assert perfect["false_alarm_rate"] <= imperfect["false_alarm_rate"] <= loose["false_alarm_rate"]
        assert perfect["note"] and "ceiling" in perfect["note"]
    # Where the doubles differ at this size: loose JSON makes the extractor ask again.
    perfect_judge, loose_judge = (
        _row(doubles, "double:perfect", "judge"),
        _row(doubles, "double:loose-json", "judge"),
    )
    assert loose_judge["llm_calls"] > perfect_judge["llm_calls"]


def test_no_double_is_qualified_unless_it_meets_the_thresholds(doubles: dict[str, Any]) -> None:
    t = Thresholds()
    for row in doubles["models"]:
        for key in ("model", "role", "kill_rate", "false_alarm_rate", "inconclusive_share", "cost_per_kill"):
            assert key in row
        assert row["cost_per_kill"] is None  # doubles have no price: time and tokens per kill instead
        if row["killed"]:
            assert row["seconds_per_kill"] is not None and row["tokens_per_kill"] > 0
        # The plan is smaller than 20 of anything: honestly too few to tell, whatever the rates.
        assert row["verdict"] == "too few to tell"
        # With the minimum lowered, the verdict follows the thresholds and nothing else.
        loose = Thresholds(min_decided=1)
        decided, _ = verdict(row, loose)
        meets = (
            row["kill_rate"] >= t.qualified_kills
            and row["false_alarm_rate"] <= t.qualified_false_alarms
            and row["failure_rate"] <= t.qualified_failures
        )
        assert (decided == "qualified") == meets
    # The ceiling is never recommended, and without a qualified or usable model there is no recommendation.
    assert doubles["recommendation"] is None


def test_the_verdict_follows_d32_and_flags_change_it() -> None:
    row = {
        "kill_rate": 75.0,
        "false_alarm_rate": 1.0,
        "failure_rate": 0.5,
        "scored_mutants": 30,
        "decided_originals": 40,
    }
    assert verdict(row, Thresholds())[0] == "qualified"
    assert verdict({**row, "kill_rate": 50.0}, Thresholds())[0] == "usable with care"
    assert verdict({**row, "false_alarm_rate": 12.0}, Thresholds())[0] == "not qualified"
    assert verdict({**row, "scored_mutants": 19}, Thresholds())[0] == "too few to tell"
    assert verdict(row, Thresholds(qualified_kills=80.0))[0] == "usable with care"
    rows = [
        {**row, "model": "double:perfect", "role": "judge", "verdict": "qualified", "cost_usd": 0.0},
        {**row, "model": "b", "role": "judge", "verdict": "qualified", "cost_usd": 0.4, "latency_s_mean": 1},
        {**row, "model": "a", "role": "judge", "verdict": "qualified", "cost_usd": 0.2, "latency_s_mean": 1},
        {**row, "model": "c", "role": "judge", "verdict": "usable with care", "cost_usd": 0.01},
    ]
    assert recommend(rows, "judge")["model"] == "a"  # the cheapest qualified; never the ceiling


def test_a_rerun_with_the_same_seed_gives_the_same_figures(tmp_path: Path) -> None:
    first = _run("double:imperfect", tmp_path / "a", seed=3)
    second = _run("double:imperfect", tmp_path / "b", seed=3)

    def figures(result: dict[str, Any]) -> list[dict[str, Any]]:
        rows = [*result["models"], *result["explorers"]]
        return [{k: v for k, v in r.items() if k not in TIME_FIELDS} for r in rows]

    assert figures(first) == figures(second)
    assert first["seed"] == 3 and first["size"] == "test" and first["parley_version"]
    written = json.loads((tmp_path / "a" / "qualify.json").read_text())
    assert written["models"][0]["model"] == "double:imperfect"
    assert "| double:imperfect | simulated user |" in (tmp_path / "a" / "qualify.md").read_text()


def test_the_models_list_is_read_as_written() -> None:
    got = parse_candidates(
        "openai:gpt-4.1-mini,openai-compatible:qwen@http://10.0.0.5:8000/v1,local:smollm2-135m,double:perfect",
        local_url=LOCAL,
    )
    assert [(c.provider, c.model, c.base_url) for c in got] == [
        ("openai", "gpt-4.1-mini", None),
        ("openai-compatible", "qwen", "http://10.0.0.5:8000/v1"),
        ("openai-compatible", "smollm2-135m", LOCAL),
        ("double", "perfect", None),
    ]
    for bad in ("gpt-4", "double:great", "openai-compatible:qwen", "acme:x", "double:perfect,double:perfect"):
        with pytest.raises(ValueError):
            parse_candidates(bad, local_url=LOCAL)


def test_a_kill_rate_says_when_it_cannot_be_told_from_the_controls() -> None:
    controls = {"killed": 1, "scored": 3, "rate": 33.33, "ci95": [6.15, 79.23]}
    block = beside_controls({"score": 40.0, "ci95": [20.0, 60.0]}, controls)
    assert block["overlaps_controls"] is True and "cannot be told apart" in block["note"]
    block = beside_controls({"score": 95.0, "ci95": [85.0, 99.0]}, controls)
    assert block["overlaps_controls"] is False and block["note"] is None
    assert "not measured" in beside_controls({"ci95": [1.0, 2.0]}, None)["note"]
