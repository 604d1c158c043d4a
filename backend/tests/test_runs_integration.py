"""Runs executed by a real Celery worker over real RabbitMQ against the real (test) PostgreSQL database."""

import pytest

from runs.models import Run
from runs.services import create_run
from runs.worker.tasks import ping
from tests import worker_tasks
from tests.conftest import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _finished(run_id):
    run = Run.objects.get(pk=run_id)
    return run if run.is_finished else None


def test_ping_enqueued_through_the_api_is_executed_and_its_result_is_visible(celery_worker, auth_api):
    response = auth_api.post("/api/runs/ping/", {"message": "hello worker"}, format="json")
    assert response.status_code == 201
    assert response.json()["status"] == "queued"
    run_id = response.json()["id"]

    def succeeded():
        body = auth_api.get(f"/api/runs/{run_id}/").json()
        return body if body["status"] == "succeeded" else None

    body = wait_for(succeeded, seconds=60)
    assert body, f"the ping run did not succeed: {auth_api.get(f'/api/runs/{run_id}/').json()}"
    assert body["result"]["pong"] is True
    assert body["result"]["message"] == "hello worker"
    assert body["started_at"] and body["finished_at"]
    assert body["duration_seconds"] >= 0


def test_a_run_past_its_soft_time_limit_fails_with_a_readable_reason(celery_worker, user):
    run = create_run(user, "ping", worker_tasks.sleep_past_soft_limit)
    finished = wait_for(lambda: _finished(run.pk), seconds=30)
    assert finished and finished.status == Run.Status.FAILED
    assert finished.error_type == "time_limit"
    assert "time limit" in finished.error_message


def test_a_run_killed_by_the_hard_time_limit_does_not_stay_running(celery_worker, user):
    run = create_run(user, "ping", worker_tasks.sleep_past_hard_limit)
    finished = wait_for(lambda: _finished(run.pk), seconds=40)
    assert finished and finished.status == Run.Status.FAILED
    assert finished.error_type == "time_limit"


def test_a_worker_process_that_dies_mid_run_marks_the_run_failed(celery_worker, user):
    run = create_run(user, "ping", worker_tasks.die)
    finished = wait_for(lambda: _finished(run.pk), seconds=40)
    assert finished and finished.status == Run.Status.FAILED
    assert finished.error_type == "worker_lost"
    assert "stopped unexpectedly" in finished.error_message


def test_an_engine_error_becomes_the_runs_user_readable_reason(celery_worker, user):
    run = create_run(user, "ping", worker_tasks.raise_user_error)
    finished = wait_for(lambda: _finished(run.pk), seconds=30)
    assert finished and finished.status == Run.Status.FAILED
    assert finished.error_type == "chatbot_unreachable"
    assert finished.error_message == "The chatbot at http://bot.example did not answer."


def test_delivering_the_same_run_twice_executes_it_once(celery_worker, user):
    run = create_run(user, Run.Kind.PING, ping)
    first = wait_for(lambda: _finished(run.pk), seconds=30)
    assert first and first.status == Run.Status.SUCCEEDED

    ping.delay(run.pk)  # duplicate deliveries of a finished run
    ping.delay(run.pk)
    # One worker process takes messages in order: once a later run has finished, the duplicates were handled.
    sentinel = create_run(user, Run.Kind.PING, ping)
    assert wait_for(lambda: _finished(sentinel.pk), seconds=30)

    again = Run.objects.get(pk=run.pk)
    assert (again.status, again.started_at, again.finished_at, again.result) == (
        first.status,
        first.started_at,
        first.finished_at,
        first.result,
    )


def test_nothing_is_published_when_the_creating_transaction_rolls_back(celery_worker, user):
    from celery.signals import before_task_publish
    from django.db import transaction

    published = []

    def record(body=None, **_):
        published.append(body[0][0] if body and body[0] else None)

    before_task_publish.connect(record, weak=False)
    try:
        with pytest.raises(RuntimeError), transaction.atomic():
            rolled_back = create_run(user, Run.Kind.PING, ping)
            raise RuntimeError("abort")
        assert not Run.objects.filter(pk=rolled_back.pk).exists()
        assert published == []

        kept = create_run(user, Run.Kind.PING, ping)
        assert published == [kept.pk]
        assert wait_for(lambda: _finished(kept.pk), seconds=30)
    finally:
        before_task_publish.disconnect(record)
