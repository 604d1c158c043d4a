"""The reaper: runs whose worker went silent are resumed (TRACER, SENSEI) or failed — never left running."""

import time
from datetime import timedelta

import pytest
from celery.signals import before_task_publish
from django.utils import timezone

from runs.models import Run
from runs.worker.bookkeeping import MAX_ATTEMPTS, Heartbeat, reap_stale_runs, republish_unclaimed
from runs.worker.tasks import JOBS, TASKS
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db
LONG_AGO = timezone.now() - timedelta(hours=1)


@pytest.fixture
def published():
    names = []

    def record(sender=None, body=None, **_):
        names.append((sender, body[0][0] if body and body[0] else None))

    before_task_publish.connect(record, weak=False)
    yield names
    before_task_publish.disconnect(record)


def test_a_silent_tracer_run_is_queued_again_to_resume(published):
    run = RunFactory(
        kind=Run.Kind.TRACER, status=Run.Status.RUNNING, started_at=LONG_AGO, heartbeat_at=LONG_AGO
    )
    assert reap_stale_runs(TASKS) == {"requeued": 1}
    run.refresh_from_db()
    assert (run.status, run.attempts) == (Run.Status.QUEUED, 1)
    assert published == [("runs.tracer", run.pk)]


def test_a_silent_bench_fails_instead_of_starting_over(published):
    # A bench cannot resume (its phases are in memory); starting over would silently double its LLM bill.
    run = RunFactory(
        kind=Run.Kind.BENCH, status=Run.Status.RUNNING, started_at=LONG_AGO, heartbeat_at=LONG_AGO
    )
    assert reap_stale_runs(TASKS) == {"failed": 1}
    run.refresh_from_db()
    assert (run.status, run.error_type) == (Run.Status.FAILED, "worker_lost")
    assert published == []


def test_a_run_that_keeps_losing_its_worker_fails_with_a_reason():
    run = RunFactory(
        kind=Run.Kind.SENSEI,
        status=Run.Status.RUNNING,
        started_at=LONG_AGO,
        heartbeat_at=LONG_AGO,
        attempts=MAX_ATTEMPTS - 1,
    )
    assert reap_stale_runs(TASKS) == {"failed": 1}
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "stopped answering" in run.error_message


def test_a_silent_short_run_fails_and_a_live_one_is_left_alone():
    silent = RunFactory(kind=Run.Kind.PING, status=Run.Status.RUNNING, started_at=LONG_AGO)
    live = RunFactory(
        kind=Run.Kind.TRACER, status=Run.Status.RUNNING, started_at=LONG_AGO, heartbeat_at=timezone.now()
    )
    reap_stale_runs(TASKS)
    silent.refresh_from_db()
    live.refresh_from_db()
    assert silent.status == Run.Status.FAILED and silent.error_type == "worker_lost"
    assert live.status == Run.Status.RUNNING


def test_a_silent_run_that_was_being_cancelled_ends_cancelled():
    run = RunFactory(
        kind=Run.Kind.TRACER,
        status=Run.Status.RUNNING,
        started_at=LONG_AGO,
        heartbeat_at=LONG_AGO,
        cancel_requested=True,
    )
    assert reap_stale_runs(TASKS) == {"cancelled": 1}
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED


def test_beat_runs_the_reaper_often_enough_to_end_a_dead_workers_run_within_a_minute(settings):
    assert settings.CELERY_BEAT_SCHEDULE["reap-stale-runs"] == {"task": "runs.reap", "schedule": 15.0}
    # The worst case: the last heartbeat just before the death, then a whole stale period, then one reaper pass.
    assert settings.RUN_HEARTBEAT_S + settings.RUN_STALE_AFTER_S + settings.REAP_EVERY_S <= 65
    assert settings.RUN_STALE_AFTER_S >= 3 * settings.RUN_HEARTBEAT_S  # a slow beat is not a death


def test_a_queued_run_whose_message_was_lost_is_published_again_once(published):
    lost = RunFactory(kind=Run.Kind.CONNECTOR_TEST, status=Run.Status.QUEUED)
    Run.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    fresh = RunFactory(kind=Run.Kind.SENSEI, status=Run.Status.QUEUED)
    assert reap_stale_runs(JOBS) == {"republished": 1}
    assert published == [("runs.connector_test", lost.pk)]
    assert reap_stale_runs(JOBS) == {}  # published a moment ago: not again on the next pass
    fresh.refresh_from_db()
    assert fresh.status == Run.Status.QUEUED


def test_a_run_waiting_behind_busy_workers_is_published_only_a_few_times_an_hour(published):
    waiting = RunFactory(kind=Run.Kind.SENSEI, status=Run.Status.QUEUED)
    start = timezone.now() - timedelta(hours=1)
    Run.objects.filter(pk=waiting.pk).update(created_at=start)
    publications = 0
    for minute in range(60):  # the reaper every minute for an hour
        now = start + timedelta(minutes=minute)
        Run.objects.filter(pk=waiting.pk).update(created_at=start)
        publications += republish_unclaimed(JOBS, now=now)
    assert 3 <= publications <= 12


@pytest.mark.django_db(transaction=True)
def test_the_worker_heartbeat_keeps_a_quiet_run_alive():
    run = RunFactory(
        kind=Run.Kind.TRACER, status=Run.Status.RUNNING, started_at=LONG_AGO, heartbeat_at=LONG_AGO
    )
    with Heartbeat(run.pk, every=0.05):
        deadline = time.monotonic() + 5
        while Run.objects.get(pk=run.pk).heartbeat_at == LONG_AGO and time.monotonic() < deadline:
            time.sleep(0.05)
    assert reap_stale_runs(JOBS) == {}
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING


@pytest.mark.django_db(transaction=True)
def test_a_run_whose_database_connection_dropped_still_ends(monkeypatch):
    from django.db import OperationalError

    from runs.worker import bookkeeping

    real = bookkeeping.succeed
    calls = []

    def flaky(run_id, result):
        calls.append(run_id)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(run_id, result)

    monkeypatch.setattr(bookkeeping, "succeed", flaky)
    run = RunFactory(kind=Run.Kind.PING)
    bookkeeping.run_task(lambda run: {"pong": True})(run.pk)
    run.refresh_from_db()
    assert (run.status, run.result, len(calls)) == (Run.Status.SUCCEEDED, {"pong": True}, 2)
