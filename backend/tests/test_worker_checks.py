"""Key and connector checks run as short runs in a real worker, against fake providers on loopback."""

import pytest
from celery.signals import before_task_publish

from accounts.models import LLMKey
from engine.llm.offline.server import running_fake_server
from runs.models import Run
from tests.conftest import finished_run
from tests.doubles.connectors import fake_for
from workspace.models import Connector

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

CANARY = "sk-canary-worker-0123456789abcdefghijklmnop"


@pytest.fixture
def published():
    bodies = []

    def record(body=None, **_):
        bodies.append(repr(body))

    before_task_publish.connect(record, weak=False)
    yield bodies
    before_task_publish.disconnect(record)


def test_a_good_key_is_confirmed_by_the_worker_and_the_key_never_travels(celery_worker, auth_api, published):
    with running_fake_server(api_key=CANARY) as server:
        key_id = auth_api.post(
            "/api/keys/",
            {"name": "local", "provider": "openai-compatible", "base_url": server.base_url, "key": CANARY},
            format="json",
        ).json()["id"]
        started = auth_api.post(f"/api/keys/{key_id}/test/")
        assert started.status_code == 202
        run = finished_run(auth_api, started.json()["id"])
    assert run["status"] == "succeeded", run
    assert run["result"]["ok"] is True
    key = auth_api.get(f"/api/keys/{key_id}/").json()
    assert key["last_check_ok"] is True
    assert published and all(CANARY not in body for body in published)
    assert CANARY not in str(Run.objects.get(pk=run["id"]).__dict__)


def test_a_rejected_key_is_reported_in_words_without_the_key(celery_worker, auth_api):
    with running_fake_server(api_key="sk-the-right-one-000000000000000000") as server:
        key_id = auth_api.post(
            "/api/keys/",
            {"name": "wrong", "provider": "openai-compatible", "base_url": server.base_url, "key": CANARY},
            format="json",
        ).json()["id"]
        run = finished_run(auth_api, auth_api.post(f"/api/keys/{key_id}/test/").json()["id"])
    assert run["result"]["ok"] is False
    assert "rejected" in run["result"]["message"]
    assert CANARY not in run["result"]["message"]
    assert LLMKey.objects.get(pk=key_id).last_check_ok is False


def test_the_models_of_a_key_come_from_the_provider(celery_worker, auth_api):
    with running_fake_server() as server:
        key_id = auth_api.post(
            "/api/keys/",
            {"name": "local", "provider": "openai-compatible", "base_url": server.base_url, "key": "x"},
            format="json",
        ).json()["id"]
        run = finished_run(auth_api, auth_api.post(f"/api/keys/{key_id}/models/").json()["id"])
    assert run["result"]["source"] == "live"
    assert run["result"]["models"]


def test_connection_test_shows_the_parsed_reply(celery_worker, auth_api):
    server, _ = fake_for("taskyto", lambda session, text: f"You said: {text}")
    with server:
        connector = auth_api.post(
            "/api/connectors/",
            {"name": "bot", "technology": "taskyto", "params": {"base_url": server.base_url}},
            format="json",
        )
        assert connector.status_code == 201, connector.json()
        run = finished_run(
            auth_api, auth_api.post(f"/api/connectors/{connector.json()['id']}/test/").json()["id"]
        )
    assert run["status"] == "succeeded", run
    assert run["result"]["ok"] is True
    assert run["result"]["reply"]["messages"]
    assert run["result"]["latency_s"] >= 0


def test_a_connector_pointing_at_a_private_address_is_refused_by_the_guard(celery_worker, auth_api):
    body = {"name": "internal", "technology": "taskyto", "params": {"base_url": "http://10.1.2.3:5000"}}
    refused = auth_api.post("/api/connectors/", body, format="json")
    assert (
        refused.status_code == 400
    )  # a literal address is refused on save (tests/test_destination_checks.py)
    assert "10.1.2.3" in refused.json()["fields"]["params.base_url"][0]
    # One saved before the operator withdrew the allowance is still refused by the guard when it runs.
    connector = {"id": Connector.objects.create(owner=auth_api.user, **body).pk}
    run = finished_run(auth_api, auth_api.post(f"/api/connectors/{connector['id']}/test/").json()["id"])
    assert run["result"]["ok"] is False
    assert "10.1.2.3" in run["result"]["error_message"]
    assert "PARLEY_EGRESS_ALLOW" in run["result"]["error_message"]
