"""The reaper: runs whose worker went silent are resumed (TRACER, SENSEI) or failed — never left running."""

from datetime import timedelta

import pytest
from celery.signals import before_task_publish
from django.utils import timezone

from runs.bookkeeping import MAX_ATTEMPTS, reap_stale_runs
from runs.models import Run
from runs.tasks import TASKS
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


def test_beat_runs_the_reaper_every_minute(settings):
    assert settings.CELERY_BEAT_SCHEDULE["reap-stale-runs"] == {"task": "runs.reap", "schedule": 60.0}
