"""One SENSEI: the platform runs the engine's entry point with the same inputs as the CLI — any() items resolved,
the project's personalities, the run's seed chosen at creation and reused on resume — and same-named profiles
never lose conversations. The run executes in this process (no worker), against the in-process pizza bot and
the fake OpenAI-compatible server."""

from __future__ import annotations

import argparse
import gc
import json
from pathlib import Path

import pytest
from django.db import connection

from commands import sensei as sensei_command
from engine.llm.offline.server import running_fake_server
from runs.models import Artefact, Conversation
from runs.worker.execution import execute_sensei
from tests.conftest import create_llm_key, create_pizza_project, unpublished_run
from workspace.models import Project

pytestmark = [pytest.mark.django_db(transaction=True)]

PERSONALITY = """\
name: hurried-customer
context:
  - You are in a hurry and write very briefly.
"""

PROFILE = """\
test_name: one_engine
user:
  role: You order a pizza to pick up tonight.
  context:
    - personality: hurried-customer
    - You pay in cash.
  goals:
    - "order a {{size}} {{pizza}} pizza"
    - size: {function: another(), type: string, data: [small, medium, large]}
    - pizza: {function: forward(), type: string, data: [margherita, "any(2 other house pizzas)"]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - size: {type: string, description: the size of the pizza}
conversation:
  number: 3
  goal_style: {steps: 2}
  interaction_style:
    - random: [short phrases, single question, make spelling mistakes]
"""

SCRIPT = {
    "sensei.any_list": {"json": {"values": ["hawaiian", "four cheese"]}},
    "sensei.user_turn": ["I want to order a pizza", "house pizza please"],
    "sensei.extract": {"json": {"size": None}},
}


@pytest.fixture
def fake_llm():
    with running_fake_server(SCRIPT) as server:
        yield server


@pytest.fixture
def project(auth_api, fake_llm, settings):
    settings.EGRESS_ALLOW = ["127.0.0.1"]
    key = create_llm_key(auth_api, fake_llm.base_url)
    created = create_pizza_project(auth_api, key, judge_model="fake-model")
    personality = auth_api.post(
        f"/api/projects/{created['id']}/personalities/", {"text": PERSONALITY}, format="json"
    ).json()
    assert personality["valid"], personality
    return Project.objects.get(pk=created["id"])


def _profile(auth_api, project, text=PROFILE):
    created = auth_api.post(f"/api/projects/{project.pk}/profiles/", {"text": text}, format="json").json()
    assert created["valid"], created["problems"]
    return created["id"]


def _sensei_run(project, user, profiles, **body):
    """A SENSEI run as the API creates it (same serializer), but not published: this test executes it."""
    return unpublished_run(
        project, user, **{"kind": "sensei", "profiles": profiles, "concurrency": 1, **body}
    )


def _run_cli(tmp_path: Path, base_url: str, seed: int) -> Path:
    (tmp_path / "personalities").mkdir()
    (tmp_path / "personalities" / "hurried-customer.yml").write_text(PERSONALITY)
    (tmp_path / "profile.yml").write_text(PROFILE)
    (tmp_path / "connector.yml").write_text("technology: demo\nbot: pizza\n")
    out = tmp_path / "out"
    parser = argparse.ArgumentParser(prog="parley")
    sensei_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        [
            "sensei", "run", str(tmp_path / "profile.yml"), "--connector", str(tmp_path / "connector.yml"),
            "--provider", "openai-compatible", "--base-url", base_url, "--api-key", "sk-test",
            "--model", "fake-model", "--concurrency", "1", "--seed", str(seed), "--out", str(out),
        ]
    )  # fmt: skip
    args.handler(args)
    return out


VOLATILE = {"id", "started_at", "duration_s"}


def _comparable(record: dict) -> dict:
    """A record without what differs between any two executions: ids, clocks, latencies."""
    kept = {k: v for k, v in record.items() if k not in VOLATILE}
    kept["turns"] = [{k: v for k, v in t.items() if k not in ("at_s", "latency_s")} for t in record["turns"]]
    return kept


def test_the_platform_and_the_cli_plan_and_record_the_same_conversations(
    auth_api, project, fake_llm, tmp_path, monkeypatch
):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    run = _sensei_run(project, auth_api.user, [_profile(auth_api, project)], seed=1234)
    result = execute_sensei(run)
    assert result["conversations"] == 3
    platform_plan = Artefact.objects.get(run=run, name="plan").content
    platform = [
        _comparable(row.record) for row in Conversation.objects.filter(run=run).order_by("profile", "index")
    ]

    fake_llm.reset()
    fake_llm.player.clear()
    for tag, replies in SCRIPT.items():
        fake_llm.set_replies(tag, replies)
    out = _run_cli(tmp_path, fake_llm.base_url, seed=1234)
    cli_plan = json.loads((out / "plan.json").read_text())
    cli = [_comparable(json.loads(p.read_text())) for p in sorted((out / "one_engine").glob("*.json"))]

    assert platform_plan["seed"] == cli_plan["seed"] == 1234
    assert platform_plan["profiles"] == cli_plan["profiles"]
    assert platform_plan["any_values"] == cli_plan["any_values"]
    rows = platform_plan["profiles"][0]["rows"]
    assert {row["pizza"] for row in rows} <= {"margherita", "hawaiian", "four cheese"}
    assert len(platform) == len(cli) == 3
    assert platform == cli
    # The any() values reached the simulated user; no placeholder did, and the personality was loaded.
    assert not any("<any:" in json.dumps(r) for r in platform)
    assert platform[0]["context"][0] == "You are in a hurry and write very briefly."
    assert "hawaiian" in json.dumps([r["settings"]["goals"] for r in platform])
    prompts = [r.messages[0]["content"] for r in fake_llm.chat_requests("sensei.user_turn")]
    assert any("hawaiian" in p for p in prompts) and not any("<any:" in p for p in prompts)


def test_a_run_s_seed_is_chosen_at_creation_and_a_resume_plans_the_same(auth_api, project, fake_llm):
    profile = _profile(auth_api, project)
    run = _sensei_run(project, auth_api.user, [profile])  # no seed given
    seed = run.input["seed"]
    assert isinstance(seed, int)
    assert [p["name"] for p in run.input["personalities"]] == ["hurried-customer"]

    execute_sensei(run)
    first = {row.index: row.record for row in Conversation.objects.filter(run=run)}
    plan = Artefact.objects.get(run=run, name="plan").content
    assert plan["seed"] == seed and plan["any_values"]

    # A crash after the first conversation: the next attempt must plan the same rows, even though the LLM now
    # invents other any() values, and run only what is missing.
    Conversation.objects.filter(run=run, index__gt=0).delete()
    fake_llm.set_replies("sensei.any_list", {"json": {"values": ["calzone", "diavola"]}})
    calls_before = len(fake_llm.chat_requests("sensei.any_list"))
    run.refresh_from_db()
    execute_sensei(run)
    again = {row.index: row.record for row in Conversation.objects.filter(run=run)}
    assert sorted(again) == [0, 1, 2]
    assert len(fake_llm.chat_requests("sensei.any_list")) == calls_before  # remembered, not asked again
    for index in (1, 2):
        assert again[index]["inputs"] == first[index]["inputs"]
        assert again[index]["settings"]["seed"] == first[index]["settings"]["seed"]
        assert again[index]["settings"]["styles"] == first[index]["settings"]["styles"]
    assert Artefact.objects.get(run=run, name="plan").content["profiles"] == plan["profiles"]


def test_profiles_with_the_same_name_never_lose_conversations(auth_api, project, fake_llm):
    first = _profile(auth_api, project)
    second = _profile(auth_api, project, PROFILE.replace("number: 3", "number: 2"))
    run = _sensei_run(project, auth_api.user, [first, second], seed=7)
    result = execute_sensei(run)
    assert result["conversations"] == 5
    keys = sorted(set(Conversation.objects.filter(run=run).values_list("profile", flat=True)))
    assert keys == ["one_engine", "one_engine#2"]
    second_records = Conversation.objects.filter(run=run, profile="one_engine#2")
    assert second_records.count() == 2
    assert all(row.record["settings"]["test_name"] == "one_engine" for row in second_records)


def _open_connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def test_a_run_leaves_no_database_connection_open_behind_its_conversation_threads(
    auth_api, project, fake_llm
):
    # A long-lived worker runs run after run: connections left to the garbage collector pile up until PostgreSQL
    # refuses new ones. The garbage collector is off here, so only an explicit close frees them.
    run = _sensei_run(project, auth_api.user, [_profile(auth_api, project)], seed=3, concurrency=3)
    before = _open_connections()
    gc.disable()
    try:
        assert execute_sensei(run)["conversations"] == 3
        assert _open_connections() == before
    finally:
        gc.enable()


SCRIPTED = """\
test_name: scripted_total
script:
  - user: "I'd like to order a house pizza"
    expect: [{contains: size}]
  - user: "a large margherita"
    expect: {contains: drinks}
  - user: "1"
  - user: "coke"
    expect: [{states: money}, {not_contains: error}]
"""

SCRIPTED_WRONG = """\
test_name: scripted_wrong
script:
  - user: "I'd like to order a house pizza"
    expect: [{contains: size}]
  - user: "a large margherita"
    expect: {matches: 'gluten[- ]free'}
"""


def test_a_platform_run_plays_scripted_profiles_with_no_llm_call_and_reports_pass_k(
    auth_api, project, fake_llm
):
    # The fake LLM has no answer for these tags: any call would make a conversation inconclusive, and is counted.
    fake_llm.reset()
    fake_llm.player.clear()
    profiles = [_profile(auth_api, project, SCRIPTED), _profile(auth_api, project, SCRIPTED_WRONG)]
    run = _sensei_run(project, auth_api.user, profiles, seed=9, repeats=2)
    result = execute_sensei(run)
    assert fake_llm.chat_requests() == []
    assert result["conversations"] == 4
    assert (result["passed"], result["failed"], result["inconclusive"]) == (2, 2, 0)
    rows = {(row.profile, row.index): row.record for row in Conversation.objects.filter(run=run)}
    wrong = rows[("scripted_wrong", 1)]
    assert wrong["verdict"] == "failed"
    assert wrong["verdict_reason"].startswith("check_failed: step 2 ('a large margherita'): matches")
    (fault,) = wrong["errors"]
    assert fault["code"] == 1004 and wrong["turns"][fault["turn"]]["role"] == "bot"
    assert rows[("scripted_total", 0)]["verdict_reason"] == "passed: all 4 check(s) of the script held"
    reliability = {item["profile"]: item for item in result["reliability"]}
    assert reliability["scripted_total"]["k"] == 2
    assert reliability["scripted_total"]["pass_k"]["rate"] == 1.0
    assert reliability["scripted_wrong"]["pass_k"]["rate"] == 0.0
    assert reliability["scripted_wrong"]["pass_at_1"]["decided"] == 2


def test_the_cli_plays_a_scripted_profile_with_no_llm_and_no_api_key(tmp_path, monkeypatch, capsys):
    for name in ("OPENAI_API_KEY", "PARLEY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "scripted.yml").write_text(SCRIPTED)
    (tmp_path / "connector.yml").write_text("technology: demo\nbot: pizza@delete-sequence-step-3\n")
    out = tmp_path / "out"
    parser = argparse.ArgumentParser(prog="parley")
    sensei_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["sensei", "run", str(tmp_path / "scripted.yml"), "--connector", str(tmp_path / "connector.yml"),
         "--out", str(out)]
    )  # fmt: skip
    assert args.handler(args) == 1  # the mutant never states the total
    (record,) = [json.loads(p.read_text()) for p in (out / "scripted_total").glob("*.json")]
    assert record["verdict"] == "failed" and "states money failed" in record["verdict_reason"]
    assert json.loads((out / "summary.json").read_text())["usage"]["calls"] == 0
    assert "0 passed, 1 failed, 0 inconclusive" in capsys.readouterr().out


def test_the_platform_refuses_a_bad_script_with_its_line(auth_api, project):
    text = SCRIPTED.replace("{contains: drinks}", "{matches: '(unclosed'}")
    created = auth_api.post(f"/api/projects/{project.pk}/profiles/", {"text": text}, format="json").json()
    assert created["valid"] is False
    (problem,) = created["problems"]
    assert problem["line"] == 6 and problem["path"] == "script.1.expect.matches"
    assert problem["message"].startswith("`matches`: not a valid regular expression")
