"""GET /api/health/ against the real database and broker."""

import pytest

pytestmark = pytest.mark.django_db


def test_health_reports_database_and_broker_to_anonymous_callers(api):
    response = api.get("/api/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True
    assert set(body["workers"]) == {"ok", "count", "detail"}


@pytest.mark.integration
def test_health_counts_a_live_worker_on_our_queue(api, celery_worker):
    body = api.get("/api/health/").json()
    assert body["workers"]["ok"] is True
    assert body["workers"]["count"] >= 1
    assert body["status"] == "ok"


def test_health_says_degraded_when_the_broker_is_unreachable(api, settings):
    from parley.celery import app

    original = app.conf.broker_url
    app.conf.broker_url = "amqp://guest:guest@127.0.0.1:1//"
    try:
        body = api.get("/api/health/").json()
    finally:
        app.conf.broker_url = original
    assert body["status"] == "degraded"
    assert body["broker"] == {"ok": False, "detail": "The job queue (broker) is unreachable."}
