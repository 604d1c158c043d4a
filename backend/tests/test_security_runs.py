"""Security campaign runs end to end: the API enqueues, a real Celery worker on real RabbitMQ runs the campaign
against the in-process `leaky` and `guarded` bots, PostgreSQL holds each attempt as it is judged."""

import pytest

from engine.llm.testing.fake_server import running_fake_server
from runs.models import SecurityAttempt
from tests.test_platform_runs import finished

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

CAMPAIGN = """\
name: pizza_security
target_context: Takes pizza orders for pickup and answers questions about the shop.
canaries: [ZEBRA-7781]
attempts: 2
attacks:
  - name: system_prompt_stealer
  - name: amnesia
  - name: base64_injection
  - name: typoglycemia_attack
  - name: dan_jailbreak
    delivery: {mode: escalation, max_turns: 2}
"""
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
    run = finished(auth_api, start.json()["id"])
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
        run = finished(auth_api, start.json()["id"])
        tags = {request.tag for request in server.requests}
    assert run["status"] == "succeeded", run
    assert run["result"]["breaches"] == 0 and run["result"]["totals"]["error"] == 0
    assert "security.task" in tags and run["usage"]["calls"] > 0
    verdicts = set(SecurityAttempt.objects.filter(run_id=run["id"]).values_list("verdict", flat=True))
    assert "breached" not in verdicts
    generated = SecurityAttempt.objects.filter(run_id=run["id"], attack="typoglycemia_attack").first()
    assert generated.record["source"] == "llm"
