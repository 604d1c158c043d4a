"""One user cannot hold every worker: short jobs have their own lane and a per-user cap, long runs a cap below the
worker's concurrency, and the long-run cap is counted and claimed atomically."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import open_session
from runs.models import Run
from runs.worker.bookkeeping import AT_CAP, start_within_cap
from tests.factories import RunFactory, UserFactory
from tests.test_keys_api import create_key

pytestmark = pytest.mark.django_db


def _client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {open_session(user)['token']}")
    return client


def test_short_jobs_run_on_their_own_queue(settings):
    from parley.celery import app

    for name in ("runs.key_test", "runs.key_models", "runs.connector_test", "runs.ping"):
        assert app.amqp.router.route({}, name)["queue"].name == settings.CELERY_SHORT_QUEUE
    for name in ("runs.tracer", "runs.sensei", "runs.check", "runs.bench"):
        assert app.amqp.router.route({}, name)["queue"].name == settings.CELERY_TASK_DEFAULT_QUEUE


def test_a_third_short_job_of_one_user_is_a_429_and_another_users_job_starts(auth_api):
    key = create_key(auth_api).json()
    for _ in range(2):
        assert auth_api.post(f"/api/keys/{key['id']}/test/").status_code == 202
    third = auth_api.post(f"/api/keys/{key['id']}/models/")
    assert third.status_code == 429
    assert third.json()["code"] == "too_many_jobs"
    assert "wait until one finishes" in third.json()["detail"]
    assert Run.objects.filter(owner=auth_api.user).count() == 2

    other = _client(UserFactory())
    their_key = create_key(other).json()
    assert other.post(f"/api/keys/{their_key['id']}/test/").status_code == 202


def test_finished_short_jobs_free_their_slot(auth_api):
    key = create_key(auth_api).json()
    for _ in range(2):
        assert auth_api.post(f"/api/keys/{key['id']}/test/").status_code == 202
    Run.objects.filter(owner=auth_api.user).update(status=Run.Status.SUCCEEDED)
    assert auth_api.post(f"/api/keys/{key['id']}/test/").status_code == 202


def test_the_default_long_run_cap_leaves_a_worker_process_for_someone_else(settings):
    assert settings.RUNS_PER_USER == max(1, settings.CELERY_WORKER_CONCURRENCY - 1) < 3


def test_a_long_run_past_the_owners_cap_waits_and_another_users_starts(settings):
    settings.RUNS_PER_USER = 1
    busy = UserFactory()
    RunFactory(owner=busy, kind=Run.Kind.SENSEI, status=Run.Status.RUNNING)
    waiting = RunFactory(owner=busy, kind=Run.Kind.TRACER)
    assert start_within_cap(waiting.pk) is AT_CAP
    waiting.refresh_from_db()
    assert waiting.status == Run.Status.QUEUED

    someone_else = RunFactory(owner=UserFactory(), kind=Run.Kind.TRACER)
    claimed = start_within_cap(someone_else.pk)
    assert claimed is not AT_CAP and claimed.status == Run.Status.RUNNING


def test_short_jobs_do_not_count_against_the_long_run_cap(settings):
    settings.RUNS_PER_USER = 1
    user = UserFactory()
    RunFactory(owner=user, kind=Run.Kind.CONNECTOR_TEST, status=Run.Status.RUNNING)
    claimed = start_within_cap(RunFactory(owner=user, kind=Run.Kind.SENSEI).pk)
    assert claimed is not AT_CAP and claimed.status == Run.Status.RUNNING
