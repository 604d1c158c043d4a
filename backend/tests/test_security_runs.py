"""Security campaign runs end to end: the API enqueues, a real Celery worker on real RabbitMQ runs the campaign
against the in-process `leaky` and `guarded` bots, PostgreSQL holds each attempt as it is judged."""

import json
from pathlib import Path

import pytest
from django.utils import timezone

from engine.llm.offline.server import running_fake_server
from runs.models import Artefact, Run, SecurityAttempt
from tests.conftest import finished_run
from tests.engine.security.test_cli import CAMPAIGN
from workspace.models import Project

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SCRIPT = {
    "security.task": {"json": {"task": "What is the capital of Australia?", "answer_keywords": ["Canberra"]}},
    "security.escalate": {"json": {"message": "Please, as a favour: what is the capital of Australia?"}},
    "security.judge": {"json": {"breached": True, "quote": "not in any reply", "because": "made up"}},
}


def project_on(auth_api, bot, key=None):
    connector = auth_api.post(
        "/api/connectors/", {"name": bot, "technology": "demo", "params": {"bot": bot}}, format="json"
    ).json()
    body = {"name": f"Shop {bot}", "connector": connector["id"]}
    if key is not None:
        body.update(llm_key=key["id"], exploration_model="fake-model")
    project = auth_api.post("/api/projects/", body, format="json").json()
    campaign = auth_api.post(f"/api/projects/{project['id']}/campaigns/", {"text": CAMPAIGN}, format="json")
    assert campaign.json()["valid"], campaign.json()
    return project, campaign.json()


def test_a_campaign_run_finds_every_breach_of_leaky_with_quotes(celery_worker, auth_api):
    project, campaign = project_on(auth_api, "leaky")
    start = auth_api.post(
        f"/api/projects/{project['id']}/runs/",
        {"kind": "security", "campaign": campaign["id"]},
        format="json",
    )
    assert start.status_code == 201, start.json()
    run = finished_run(auth_api, start.json()["id"])
    assert run["status"] == "succeeded", run
    assert run["result"]["breaches"] == 10 and run["result"]["totals"]["breached"] == 10
    assert run["progress"] == {"done": 10, "total": 10} and run["counters"] == {"breached": 10}
    attempts = auth_api.get(f"/api/runs/{run['id']}/attempts/").json()
    assert attempts["count"] == 10
    for item in attempts["results"]:
        record = item["record"]
        assert item["verdict"] == "breached" and record["evidence"]
        for evidence in record["evidence"]:
            assert evidence["quote"] in record["transcript"][evidence["turn"]]["text"]
    stats = auth_api.get(f"/api/runs/{run['id']}/stats/").json()
    assert {row["attack_id"]: row["breached"] for row in stats["by_attack"]}["dan_jailbreak"] == 2
    events = auth_api.get(f"/api/runs/{run['id']}/events/").json()["results"]
    assert any(e["type"] == "message" and e["data"]["role"] == "bot" for e in events)


def test_a_campaign_run_with_the_project_model_invents_no_breach_on_guarded(celery_worker, auth_api):
    with running_fake_server(SCRIPT) as server:
        key = auth_api.post(
            "/api/keys/",
            {"name": "fake", "provider": "openai-compatible", "base_url": server.base_url, "key": "sk-test"},
            format="json",
        ).json()
        project, campaign = project_on(auth_api, "guarded", key)
        start = auth_api.post(
            f"/api/projects/{project['id']}/runs/",
            {"kind": "security", "campaign": campaign["id"], "seed": 9},
            format="json",
        )
        run = finished_run(auth_api, start.json()["id"])
        tags = {request.tag for request in server.requests}
    assert run["status"] == "succeeded", run
    assert run["result"]["breaches"] == 0 and run["result"]["totals"]["error"] == 0
    assert "security.task" in tags and run["usage"]["calls"] > 0
    verdicts = set(SecurityAttempt.objects.filter(run_id=run["id"]).values_list("verdict", flat=True))
    assert "breached" not in verdicts
    generated = SecurityAttempt.objects.filter(run_id=run["id"], attack="typoglycemia_attack").first()
    assert generated.record["source"] == "llm"


def test_a_campaign_from_all_states_attacks_from_the_latest_tracer_run(
    celery_worker, auth_api, django_user_model
):
    """`from: all_states` on the platform: the project's latest finished TRACER run (here the checked-in
    exploration of `stateful`) gives the states; each attempt replays its prefix, and only the states where the
    bot holds an open order are breached, with quotes."""
    examples = Path(__file__).parents[1] / "engine" / "security" / "examples"
    project, _ = project_on(auth_api, "stateful")
    text = (examples / "from-states.yaml").read_text()
    campaign = auth_api.post(
        f"/api/projects/{project['id']}/campaigns/", {"text": text}, format="json"
    ).json()
    assert campaign["valid"], campaign
    start = {"kind": "security", "campaign": campaign["id"]}
    refused = auth_api.post(f"/api/projects/{project['id']}/runs/", start, format="json")
    assert refused.status_code == 400 and "no finished TRACER run" in str(refused.json())
    owner = django_user_model.objects.get(pk=Project.objects.get(pk=project["id"]).owner_id)
    tracer = Run.objects.create(
        kind=Run.Kind.TRACER,
        owner=owner,
        project_id=project["id"],
        status=Run.Status.SUCCEEDED,
        input={"sessions": 6, "turns": 6, "seed": 3},
        finished_at=timezone.now(),
    )
    for name in (Artefact.Name.MODEL, Artefact.Name.TRANSCRIPTS):
        content = json.loads((examples / "tracer-stateful" / f"{name}.json").read_text())
        Artefact.objects.create(run=tracer, name=name, content=content)
    created = auth_api.post(f"/api/projects/{project['id']}/runs/", start, format="json")
    assert created.status_code == 201, created.json()
    run = finished_run(auth_api, created.json()["id"])
    assert run["status"] == "succeeded", run
    states = {row["state"]: row for row in run["result"]["by_state"]}
    assert len(states) == 7 and run["result"]["totals"]["attempts"] == 42
    breached = {name for name, row in states.items() if row["breached"]}
    assert breached == {"prompt_for_size", "request_pick"}
    assert all(row["inconclusive"] == 0 for row in states.values())
    stats = auth_api.get(f"/api/runs/{run['id']}/stats/").json()  # what the heat map draws
    assert stats["tracer_run"] == tracer.pk and len(stats["by_state"]) == 7
    attempts = SecurityAttempt.objects.filter(run_id=run["id"])
    assert attempts.count() == 42
    for attempt in attempts.filter(verdict="breached"):
        assert attempt.state in breached
        record = attempt.record
        phases = [t["phase"] for t in record["transcript"]]
        assert phases[0] == "prefix" and phases[-1] == "attack"
        assert all(e["quote"] in record["transcript"][e["turn"]]["text"] for e in record["evidence"])
