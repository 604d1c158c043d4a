"""Model qualification on the platform: the estimate before the start, max_cost refused, names the key cannot take
refused; one path — the worker's run and `parley qualify` give the same figures for the same seed on the doubles;
the result served typed, its recommendation applied to a project, and the models' last qualification per key."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from commands import qualify as qualify_command
from runs.models import Conversation, Run
from runs.worker import bookkeeping
from runs.worker.qualifying import execute_qualify
from tests.factories import UserFactory
from workspace.models import Project

pytestmark = [pytest.mark.django_db(transaction=True)]

TIME_FIELDS = {"latency_s_mean", "seconds_per_kill"}
# Thresholds low enough that the tiny plan gives a verdict and a recommendation (users may change them, D32).
THRESHOLDS = {
    "min_decided": 1,
    "usable_kills": 10.0,
    "usable_false_alarms": 100.0,
    "min_explorer_sessions": 1,
    "usable_explorer_precision": 10.0,
    "usable_explorer_recall": 10.0,
}


@pytest.fixture
def key(auth_api, settings) -> dict[str, Any]:
    settings.EGRESS_ALLOW = ["127.0.0.1"]
    body = {
        "name": "local",
        "provider": "openai-compatible",
        "base_url": "http://127.0.0.1:9/v1",
        "key": "sk-x",
    }
    response = auth_api.post("/api/keys/", body, format="json")
    assert response.status_code == 201, response.content
    return dict(response.json())


def test_the_estimate_comes_before_the_start_and_max_cost_refuses_above_it(auth_api, key) -> None:
    body = {"models": ["double:imperfect", "qwen2.5"], "size": "tiny"}
    estimate = auth_api.post(f"/api/keys/{key['id']}/qualify/estimate/", body, format="json")
    assert estimate.status_code == 200, estimate.content
    data = estimate.json()
    assert data["partner"] == "double:imperfect" and data["size"] == "tiny"
    rows = {row["model"]: row for row in data["rows"]}
    assert rows["openai-compatible:qwen2.5"]["seconds"] > 0  # unpriced: estimated in time, not refused
    assert Run.objects.count() == 0  # an estimate starts nothing

    openai = auth_api.post(
        "/api/keys/", {"name": "o", "provider": "openai", "key": "sk-y"}, format="json"
    ).json()
    priced = {"models": ["gpt-4.1-mini"], "size": "default"}
    cost = auth_api.post(f"/api/keys/{openai['id']}/qualify/estimate/", priced, format="json").json()[
        "cost_usd"
    ]
    assert 0 < cost < 1.0  # the default size stays under a dollar
    refused = auth_api.post(f"/api/keys/{openai['id']}/qualify/", {**priced, "max_cost": 0.2}, format="json")
    assert refused.status_code == 400 and "above max_cost $0.20" in refused.json()["fields"]["max_cost"][0]
    assert Run.objects.count() == 0

    for bad in (["openai:gpt-4.1"], ["double:great"], []):
        response = auth_api.post(
            f"/api/keys/{key['id']}/qualify/", {"models": bad, "size": "tiny"}, format="json"
        )
        assert response.status_code == 400 and "models" in response.json()["fields"]
    assert (
        auth_api.post(
            f"/api/keys/{key['id']}/qualify/", {"models": ["x"], "size": "huge"}, format="json"
        ).status_code
        == 400
    )


def test_another_users_key_is_not_found(auth_api, api, key) -> None:
    api.force_authenticate(UserFactory())
    assert (
        api.post(
            f"/api/keys/{key['id']}/qualify/estimate/",
            {"models": ["double:imperfect"], "size": "tiny"},
            format="json",
        ).status_code
        == 404
    )
    assert api.get(f"/api/keys/{key['id']}/qualifications/").status_code == 404


def _cli(tmp_path: Path, seed: int) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="parley")
    qualify_command.register(parser.add_subparsers(dest="command"))
    flags = [f"--{name.replace('_', '-')}={value}" for name, value in THRESHOLDS.items()]
    args = parser.parse_args(
        [
            "qualify",
            "--models",
            "double:imperfect",
            "--size",
            "tiny",
            "--seed",
            str(seed),
            *flags,
            "--out",
            str(tmp_path),
        ]
    )
    assert args.handler(args) == 0  # a recommendation was found
    return dict(json.loads((tmp_path / "qualify.json").read_text()))


def _figures(result: dict[str, Any]) -> dict[str, Any]:
    def strip(row: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in row.items() if k not in TIME_FIELDS}

    rec = result["recommendation"]
    return {
        "models": [strip(r) for r in result["models"]],
        "explorers": [strip(r) for r in result["explorers"]],
        "together": strip(rec["figures"]["together"]),
        "recommended": [rec["simulated_user"], rec["judge"], rec["explorer"]],
        "header": [result["seed"], result["size"], result["plan"], result["thresholds"], result["partner"]],
    }


def test_the_platform_and_the_cli_give_the_same_figures_and_the_recommendation_applies(
    auth_api, key, user, tmp_path
) -> None:
    body = {"models": ["double:imperfect"], "size": "tiny", "seed": 4, "thresholds": THRESHOLDS}
    started = auth_api.post(f"/api/keys/{key['id']}/qualify/", body, format="json")
    assert started.status_code == 202, started.content
    run = Run.objects.get(pk=started.json()["id"])
    assert run.kind == "qualify" and run.project is None
    claimed = bookkeeping.start_within_cap(run.pk)
    assert isinstance(claimed, Run)
    bookkeeping.execute(claimed, execute_qualify)  # what the worker's task does
    run.refresh_from_db()
    assert run.status == Run.Status.SUCCEEDED, run.error_message

    served = auth_api.get(f"/api/runs/{run.pk}/qualification/")
    assert served.status_code == 200
    platform = served.json()
    assert _figures(platform) == _figures(_cli(tmp_path, seed=4))

    # Every false alarm and missed mutant links a conversation stored with the run.
    refs = {
        ref
        for row in platform["models"]
        for ref in (*row["false_alarm_conversations"], *row["missed_mutant_conversations"])
    }
    assert refs and refs <= set(platform["conversations"])
    stored = Conversation.objects.filter(run=run, pk__in=platform["conversations"].values())
    assert stored.count() == len(set(platform["conversations"].values()))

    connector = auth_api.post(
        "/api/connectors/", {"name": "pizza", "technology": "demo", "params": {"bot": "pizza"}}, format="json"
    ).json()
    project = auth_api.post(
        "/api/projects/", {"name": "P", "connector": connector["id"]}, format="json"
    ).json()
    applied = auth_api.post(
        f"/api/runs/{run.pk}/qualification/apply/", {"project": project["id"]}, format="json"
    )
    assert applied.status_code == 200, applied.content
    saved = Project.objects.get(pk=project["id"])
    assert (saved.llm_key_id, saved.profile_model, saved.judge_model, saved.exploration_model) == (
        key["id"],
        "double:imperfect",
        "double:imperfect",
        "double:imperfect",
    )

    [label] = auth_api.get(f"/api/keys/{key['id']}/qualifications/").json()
    user_row = next(r for r in platform["models"] if r["role"] == "simulated_user")
    assert label["model"] == "double:imperfect" and label["run"] == run.pk
    assert (label["kill_rate"], label["false_alarm_rate"], label["verdict"]) == (
        user_row["kill_rate"],
        user_row["false_alarm_rate"],
        user_row["verdict"],
    )
    assert (label["seed"], label["size"]) == (4, "tiny") and label["parley_version"]
    assert (
        auth_api.post(
            f"/api/runs/{run.pk}/qualification/apply/", {"project": 99999}, format="json"
        ).status_code
        == 404
    )
