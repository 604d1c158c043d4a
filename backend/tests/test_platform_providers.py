"""Real providers on the platform, with a real Celery worker on real RabbitMQ against the strict OpenAI double:
a provider that is down fails the run within 30 s with its message; a 429 with `Retry-After: 2` costs time but no
conversation; what a server refused is learned once, stored with the key and not paid again by the next run
(README D10); a chosen model the key's provider did not list is warned about at project save and run start
(decision D7)."""

from __future__ import annotations

from datetime import datetime

import pytest
from django.utils import timezone

from accounts.models import LLMKey
from engine.llm.offline.server import DEFAULT_MODELS, running_fake_server
from runs.models import Conversation, Run, RunEvent
from tests.conftest import create_llm_key, create_pizza_project, finished_run
from tests.test_workspace_api import PROFILE

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fake_llm():
    models = (*DEFAULT_MODELS, "acme-reasoner")
    with running_fake_server(latency_s=0.02, models=models, kinds={"acme-reasoner": "reasoning"}) as server:
        yield server


@pytest.fixture
def key(auth_api, fake_llm):
    return create_llm_key(auth_api, fake_llm.base_url)


@pytest.fixture
def project(auth_api, key):
    return create_pizza_project(auth_api, key)


def start_sensei(api, project, text=PROFILE, **body):
    profile = api.post(f"/api/projects/{project['id']}/profiles/", {"text": text}, format="json").json()
    assert profile["valid"], profile["problems"]
    body = {"kind": "sensei", "profiles": [profile["id"]], "concurrency": 3, "seed": 3, **body}
    response = api.post(f"/api/projects/{project['id']}/runs/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def _seconds(run: dict) -> float:
    started, ended = (datetime.fromisoformat(run[name]) for name in ("started_at", "finished_at"))
    return (ended - started).total_seconds()


def test_a_provider_that_is_down_fails_the_run_within_30_s_with_its_message(
    celery_worker, auth_api, project, fake_llm
):
    fake_llm.inject("server_error", times=100_000, status=503, message="The engine is currently overloaded.")
    run = finished_run(auth_api, start_sensei(auth_api, project))
    assert run["status"] == "failed", run
    assert _seconds(run) < 30, run
    assert (
        "has failed 5 times in a row: HTTP 503: The engine is currently overloaded." in run["error_message"]
    )
    # Each conversation would otherwise have retried for ~15 s and been stored as failed, one after another.
    assert len(fake_llm.chat_requests()) <= 5 + 3


# Two user turns, nothing to extract: a conversation fails only if the LLM calls do.
SHORT = """\
test_name: pizza_hello
llm: {model: gpt-5-mini}
user:
  role: You want to order a pizza.
  goals:
    - "order a {{size}} pizza"
    - size: {function: forward(), type: string, data: [small, medium, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I did not understand.
conversation:
  number: all_combinations
  goal_style: {steps: 2}
  interaction_style: [default]
"""


def test_a_429_with_retry_after_2_costs_time_but_no_conversation(celery_worker, auth_api, project, fake_llm):
    fake_llm.inject("rate_limit", times=3, retry_after=2)
    run = finished_run(auth_api, start_sensei(auth_api, project, SHORT))
    assert run["status"] == "succeeded", run
    assert [r.status for r in fake_llm.chat_requests()].count(429) == 3
    conversations = Conversation.objects.filter(run_id=run["id"])
    assert conversations.count() == 3
    assert not conversations.filter(has_errors=True).exists(), [c.error_codes for c in conversations]
    assert _seconds(run) >= 2


def test_refusals_are_learned_once_stored_with_the_key_and_not_paid_again(
    celery_worker, auth_api, project, key, fake_llm
):
    text = PROFILE.replace("llm: {model: gpt-4o-mini}", "llm: {model: acme-reasoner, temperature: 0.7}")
    first = finished_run(auth_api, start_sensei(auth_api, project, text))
    assert first["status"] == "succeeded", first
    refused = {str(r.error["error"]["param"]) for r in fake_llm.refused()}
    assert refused == {"max_tokens", "temperature"} and len(fake_llm.refused()) == 2
    warnings = [
        e.data["text"] for e in RunEvent.objects.filter(run_id=first["id"], type=RunEvent.Type.WARNING)
    ]
    assert sum("refused a parameter for acme-reasoner" in w for w in warnings) == 2
    # …and the run's result carries them, each once, for the run page to show above its figures.
    assert first["result"]["warnings"] == list(dict.fromkeys(warnings))
    # The simulated user played the profile's model; extraction used the project's (D6).
    assert first["result"]["models"]["sensei.user_turn"] == ["acme-reasoner"]
    assert first["result"]["models"]["sensei.extract"] == ["fake-model"]
    stored = LLMKey.objects.get(pk=key["id"]).capabilities
    assert stored[f"{fake_llm.base_url}|acme-reasoner"]["dropped"] == ["temperature"]

    fake_llm.reset()
    second = finished_run(
        auth_api, start_sensei(auth_api, project, text.replace("pizza_order", "pizza_again"))
    )
    assert second["status"] == "succeeded", second
    assert fake_llm.refused() == []
    notes = [e.data["text"] for e in RunEvent.objects.filter(run_id=second["id"], type=RunEvent.Type.WARNING)]
    assert any("in an earlier run" in n for n in notes)


def test_a_model_the_key_did_not_list_is_warned_about_at_save_and_at_run_start(auth_api, project, key):
    # Nothing is known until a key test or model list ran: no warning.
    assert auth_api.get(f"/api/projects/{project['id']}/").json()["model_warnings"] == []
    LLMKey.objects.filter(pk=key["id"]).update(
        models_seen=["gpt-4o-mini", "gpt-5-mini", "fake-model"], models_seen_at=timezone.now()
    )
    saved = auth_api.patch(f"/api/projects/{project['id']}/", {"judge_model": "gpt-5-mni"}, format="json")
    assert saved.status_code == 200  # a warning, never a refusal
    [warning] = saved.json()["model_warnings"]
    assert "'gpt-5-mni' is not among the 3 models the key 'fake' listed" in warning
    assert "closest: gpt-5-mini" in warning
    text = PROFILE.replace("llm: {model: gpt-4o-mini}", "llm: {model: gpt-4o-mni}")
    run_id = start_sensei(auth_api, project, text)
    events = RunEvent.objects.filter(run_id=run_id, type=RunEvent.Type.WARNING)
    texts = sorted(e.data["text"] for e in events)
    assert len(texts) == 2
    assert "'gpt-4o-mni'" in texts[0] and "closest: gpt-4o-mini" in texts[0]
    assert "'gpt-5-mni'" in texts[1]
    Run.objects.filter(pk=run_id).update(status=Run.Status.CANCELLED)  # not meant to run (no worker here)


def test_a_model_list_job_stores_what_the_provider_listed(celery_worker, auth_api, key, fake_llm):
    response = auth_api.post(f"/api/keys/{key['id']}/models/")
    assert response.status_code == 202
    run = finished_run(auth_api, response.json()["id"], seconds=60)
    assert run["status"] == "succeeded", run
    stored = LLMKey.objects.get(pk=key["id"])
    assert stored.models_seen == sorted(fake_llm.models)
    assert stored.models_seen_at is not None


def test_tracer_and_sensei_runs_with_a_gpt5_family_project_model_succeed(
    celery_worker, auth_api, project, fake_llm
):
    auth_api.patch(
        f"/api/projects/{project['id']}/",
        {"exploration_model": "gpt-5-mini", "profile_model": "gpt-5-mini"},
        format="json",
    )
    response = auth_api.post(
        f"/api/projects/{project['id']}/runs/", {"kind": "tracer", "sessions": 2, "turns": 3}, format="json"
    )
    assert response.status_code == 201, response.json()
    tracer = finished_run(auth_api, response.json()["id"])
    assert tracer["status"] == "succeeded", tracer
    sensei = finished_run(auth_api, start_sensei(auth_api, project, SHORT.replace("gpt-5-mini", "o4-mini")))
    assert sensei["status"] == "succeeded", sensei
    assert not Conversation.objects.filter(run_id=sensei["id"], has_errors=True).exists()
    assert fake_llm.refused() == []
    assert {r.body["model"] for r in fake_llm.chat_requests()} == {"gpt-5-mini", "o4-mini"}


def test_a_model_the_provider_does_not_offer_fails_the_run_with_the_providers_message(
    celery_worker, auth_api, project, fake_llm
):
    run = finished_run(auth_api, start_sensei(auth_api, project, SHORT.replace("gpt-5-mini", "gpt-5-mni")))
    assert run["status"] == "failed", run
    assert "does not offer the model 'gpt-5-mni' (HTTP 404)" in run["error_message"]
    assert "The model `gpt-5-mni` does not exist or you do not have access to it." in run["error_message"]
    # The first call said so; no conversation went on to ask again.
    assert len([r for r in fake_llm.chat_requests() if r.status == 404]) <= 3
