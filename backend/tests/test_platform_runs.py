"""TRACER, SENSEI and check runs end to end: the API enqueues, a real Celery worker on real RabbitMQ runs the
engines against the fake OpenAI-compatible server and the in-process pizza bot, and PostgreSQL holds the results."""

import time

import pytest

from engine.llm.offline.server import running_fake_server
from runs.models import Artefact, Conversation, RuleResult, Run
from tests.conftest import create_llm_key, create_pizza_project, finished_run, wait_for
from tests.test_workspace_api import PROFILE
from workspace.models import Profile

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

RULE = """\
name: the_bot_answers
description: every conversation gets at least one answer from the chatbot
conversations: 1
then: len(chatbot_phrases) > 0
"""


@pytest.fixture
def fake_llm():
    with running_fake_server(latency_s=0.05) as server:
        yield server


@pytest.fixture
def project(auth_api, fake_llm):
    return create_pizza_project(auth_api, create_llm_key(auth_api, fake_llm.base_url))


def start(api, project, **body):
    return api.post(f"/api/projects/{project['id']}/runs/", body, format="json")


def test_a_tracer_run_explores_files_artefacts_and_profiles(celery_worker, auth_api, project):
    response = start(auth_api, project, kind="tracer", sessions=2, turns=3)
    assert response.status_code == 201, response.json()
    run = finished_run(auth_api, response.json()["id"])
    assert run and run["status"] == "succeeded", run
    assert run["progress"] == {"done": 2, "total": 2}
    assert run["usage"]["calls"] > 0
    names = set(Artefact.objects.filter(run_id=run["id"]).values_list("name", flat=True))
    assert names == {"model", "report", "graph", "transcripts", "usage"}
    report = auth_api.get(f"/api/runs/{run['id']}/artefacts/report/").json()["content"]
    assert "#" in report
    events = auth_api.get(f"/api/runs/{run['id']}/events/").json()["results"]
    assert any(e["type"] == "message" and e["data"]["role"] == "chatbot" for e in events)
    assert (
        Profile.objects.filter(source_run_id=run["id"], origin="tracer").count() == run["result"]["profiles"]
    )


def test_a_sensei_run_stores_each_conversation_as_it_finishes(celery_worker, auth_api, project, fake_llm):
    profile = auth_api.post(
        f"/api/projects/{project['id']}/profiles/", {"text": PROFILE}, format="json"
    ).json()
    assert profile["valid"], profile["problems"]
    fake_llm.latency_s = 0.25  # slow enough to watch the conversations arrive one by one
    run_id = start(auth_api, project, kind="sensei", profiles=[profile["id"]], concurrency=1, seed=3).json()[
        "id"
    ]
    seen_while_running = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run = auth_api.get(f"/api/runs/{run_id}/").json()
        if run["status"] == "running":
            seen_while_running.add(Conversation.objects.filter(run_id=run_id).count())
        elif run["status"] not in ("queued",):
            break
        time.sleep(0.1)
    assert run["status"] == "succeeded", run
    assert Conversation.objects.filter(run_id=run_id).count() == 3
    assert seen_while_running & {1, 2}, f"conversations were not stored one by one: {seen_while_running}"
    listing = auth_api.get(f"/api/runs/{run_id}/conversations/").json()
    detail = auth_api.get(f"/api/runs/{run_id}/conversations/{listing['results'][0]['id']}/").json()
    assert detail["record"]["turns"][0]["text"]
    stats = auth_api.get(f"/api/runs/{run_id}/stats/").json()
    assert stats["conversations"] == 3 and stats["response_times"]["count"] > 0
    junit = auth_api.get(f"/api/runs/{run_id}/export/junit/")
    assert junit.status_code == 200 and b'tests="3"' in junit.content

    rule = auth_api.post(f"/api/projects/{project['id']}/rules/", {"text": RULE}, format="json").json()
    check = start(auth_api, project, kind="check", sensei_runs=[run_id], rules=[rule["id"]])
    assert check.status_code == 201, check.json()
    checked = finished_run(auth_api, check.json()["id"])
    assert checked["status"] == "succeeded", checked
    result = RuleResult.objects.get(run_id=checked["id"])
    assert (result.name, result.checks, result.passed) == ("the_bot_answers", 3, 3)


def test_a_running_tracer_run_can_be_cancelled(celery_worker, auth_api, project, fake_llm):
    fake_llm.latency_s = 0.3
    run_id = start(auth_api, project, kind="tracer", sessions=20, turns=10).json()["id"]
    assert wait_for(lambda: Run.objects.get(pk=run_id).status == "running", seconds=60)
    assert auth_api.post(f"/api/runs/{run_id}/cancel/").status_code == 202
    run = finished_run(auth_api, run_id, seconds=60)
    assert run["status"] == "cancelled", run


def test_a_queued_run_can_be_cancelled_and_a_second_cancel_changes_nothing(auth_api, project):
    # Made here, not started through the API: the session's worker (alive once an earlier test started it)
    # would claim a published run within milliseconds, and the run must stay queued for this test.
    run_id = Run.objects.create(
        kind=Run.Kind.TRACER, owner=auth_api.user, project_id=project["id"], input={"sessions": 1, "turns": 2}
    ).pk
    first = auth_api.post(f"/api/runs/{run_id}/cancel/").json()
    second = auth_api.post(f"/api/runs/{run_id}/cancel/").json()
    assert first["status"] == second["status"] == "cancelled"
    assert first["finished_at"] == second["finished_at"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "tracer", "sessions": 2, "turns": 99}, "turns"),
        ({"kind": "tracer", "sessions": 0, "turns": 3}, "sessions"),
        ({"kind": "tracer"}, "sessions"),
        ({"kind": "sensei", "profiles": []}, "profiles"),
        ({"kind": "check", "sensei_runs": [999999]}, "sensei_runs"),
        ({"kind": "party"}, "kind"),
    ],
)
def test_invalid_requests_are_refused_before_anything_is_queued(auth_api, project, body, field):
    response = start(auth_api, project, **body)
    assert response.status_code == 400
    assert field in response.json()["fields"]
    assert not Run.objects.filter(project_id=project["id"]).exists()


def test_an_invalid_profile_cannot_be_run(auth_api, project):
    bad = auth_api.post(
        f"/api/projects/{project['id']}/profiles/", {"text": "test_name: x\n"}, format="json"
    ).json()
    response = start(auth_api, project, kind="sensei", profiles=[bad["id"]])
    assert response.status_code == 400
    assert "Fix these profiles first" in response.json()["fields"]["profiles"][0]


def test_a_project_without_a_key_cannot_explore(auth_api, project):
    auth_api.patch(f"/api/projects/{project['id']}/", {"llm_key": None}, format="json")
    response = start(auth_api, project, kind="tracer", sessions=1, turns=2)
    assert response.status_code == 400
    assert "no LLM key" in response.json()["detail"]


def test_a_bench_run_measures_the_built_in_bot_and_files_its_report(celery_worker, auth_api, project):
    body = {"kind": "bench", "sessions": 2, "turns": 3, "repeats": 1, "mutants_per_operator": 1}
    response = start(auth_api, project, operators=["wrong-price-formula", "delete-qa-pair"], **body)
    assert response.status_code == 201, response.json()
    assert response.json()["params"]["bot"] == "pizza"
    run = finished_run(auth_api, response.json()["id"], seconds=300)
    assert run["status"] == "succeeded", run
    result = run["result"]
    assert result["bot"] == "pizza"
    assert result["mutants"] == 2 and 0 <= result["killed"] <= result["mutants"]
    assert run["usage"]["calls"] == result["usage"]["calls"] > 0
    assert run["progress"] == {"done": 2, "total": 2}
    bench = auth_api.get(f"/api/runs/{run['id']}/artefacts/bench/").json()["content"]
    pizza = bench["bots"]["pizza"]
    assert {m["operator"] for m in pizza["mutation"]["mutants"]} == {"wrong-price-formula", "delete-qa-pair"}
    coverage = pizza["tracer"]["coverage"]
    assert coverage["conversations"] >= 2  # one per session at least
    assert all(0 <= coverage[dimension] <= 100 for dimension in ("module", "input", "value", "question"))
    assert bench["config"]["model"] == "fake-model"
    # Differential kills, the two scores apart and the thesis's counting beside them (issue 22).
    assert set(bench["scores"]) == {"automatic", "with_oracles", "thesis_rule"}
    assert result["mutation_score_automatic"] == bench["scores"]["automatic"]["score"]
    for mutant in pizza["mutation"]["mutants"]:
        assert mutant["killed"] == any(k["kills"] for k in mutant["kills"])
        assert all(k["original_count"] == 0 for k in mutant["kills"] if k["kills"])
    assert bench["provenance"]["repeats"] == 1 and bench["provenance"]["parley_version"]
    report = auth_api.get(f"/api/runs/{run['id']}/artefacts/report/").json()["content"]
    assert report.startswith("# Parley bench")
    events = auth_api.get(f"/api/runs/{run['id']}/events/").json()["results"]
    assert [e["data"]["mutant"] for e in events if e["type"] == "progress"] == [
        m["id"] for m in pizza["mutation"]["mutants"]
    ]
    csv_rows = auth_api.get(f"/api/runs/{run['id']}/export/csv/").content.decode().splitlines()
    assert csv_rows[0].startswith("bot,mutant,operator,status") and len(csv_rows) == 3
    assert "killing_signatures" in csv_rows[0]
    junit = auth_api.get(f"/api/runs/{run['id']}/export/junit/").content
    assert b'tests="2"' in junit


def test_a_running_bench_can_be_cancelled(celery_worker, auth_api, project, fake_llm):
    fake_llm.latency_s = 0.3
    body = {"kind": "bench", "sessions": 10, "turns": 10, "repeats": 5, "mutants_per_operator": 2}
    run_id = start(auth_api, project, **body).json()["id"]
    assert wait_for(lambda: Run.objects.get(pk=run_id).status == "running", seconds=60)
    assert auth_api.post(f"/api/runs/{run_id}/cancel/").status_code == 202
    run = finished_run(auth_api, run_id, seconds=60)
    assert run["status"] == "cancelled", run
    assert not Artefact.objects.filter(run_id=run_id).exists()


def test_a_bench_needs_a_built_in_bot_and_known_operators(auth_api, project):
    refused = start(auth_api, project, kind="bench", sessions=2, turns=3, operators=["make-it-worse"])
    assert refused.status_code == 400 and "make-it-worse" in refused.json()["fields"]["operators"][0]
    connector = auth_api.post(
        "/api/connectors/",
        {"name": "mutant", "technology": "demo", "params": {"bot": "pizza@wrong-price-formula-1"}},
        format="json",
    ).json()
    auth_api.patch(f"/api/projects/{project['id']}/", {"connector": connector["id"]}, format="json")
    refused = start(auth_api, project, kind="bench", sessions=2, turns=3)
    assert refused.status_code == 400 and "built-in reference bot" in refused.json()["fields"]["kind"][0]
    assert not Run.objects.filter(project_id=project["id"]).exists()
