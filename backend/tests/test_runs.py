"""The run state machine, the bookkeeping that drives it, and who may see a run."""

import itertools

import pytest

from runs.models import IllegalTransition, Run
from runs.worker import bookkeeping
from tests.factories import RunFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Run.Status

LEGAL = [(old, new) for old, targets in Run.TRANSITIONS.items() for new in targets]
ILLEGAL = [pair for pair in itertools.product(S.values, S.values) if pair not in LEGAL]


@pytest.mark.parametrize(("old", "new"), LEGAL)
def test_every_legal_transition_happens(old, new):
    run = RunFactory(status=old)
    assert bookkeeping.transition(run.pk, old, new) is True
    run.refresh_from_db()
    assert run.status == new
    assert (run.finished_at is not None) == run.is_finished


@pytest.mark.parametrize(("old", "new"), ILLEGAL)
def test_every_illegal_transition_raises(old, new):
    run = RunFactory(status=old)
    with pytest.raises(IllegalTransition):
        bookkeeping.transition(run.pk, old, new)
    run.refresh_from_db()
    assert run.status == old


def test_a_run_is_claimed_once():
    run = RunFactory()
    assert bookkeeping.start(run.pk) is not None
    assert bookkeeping.start(run.pk) is None


def _body_returning(result):
    return lambda run: result


def test_the_wrapper_records_success():
    run = RunFactory()
    bookkeeping.run_task(_body_returning({"answer": 42}))(run.pk)
    run.refresh_from_db()
    assert (run.status, run.result) == (S.SUCCEEDED, {"answer": 42})
    assert run.started_at <= run.finished_at


def test_the_wrapper_records_a_crash_without_raising():
    run = RunFactory()

    def crash(run):
        raise KeyError("secret internals")

    bookkeeping.run_task(crash)(run.pk)
    run.refresh_from_db()
    assert run.status == S.FAILED
    assert run.error_type == "internal_error"
    assert "KeyError" in run.error_message
    assert "secret internals" not in run.error_message


def test_the_wrapper_leaves_a_cancelled_run_cancelled():
    run = RunFactory()

    def cancelled_meanwhile(run):
        bookkeeping.cancel(run.pk)
        return {"late": True}

    bookkeeping.run_task(cancelled_meanwhile)(run.pk)
    run.refresh_from_db()
    assert run.status == S.CANCELLED
    assert run.result == {}


def test_the_wrapper_does_nothing_for_a_run_that_is_not_queued():
    run = RunFactory(status=S.CANCELLED)
    calls = []
    bookkeeping.run_task(lambda r: calls.append(r) or {})(run.pk)
    assert calls == []


def test_a_second_cancel_is_a_no_op():
    run = RunFactory()
    assert bookkeeping.cancel(run.pk) is True
    assert bookkeeping.cancel(run.pk) is False


def test_a_worker_failure_signal_marks_the_run_failed():
    from runs.worker.tasks import on_task_failure, ping

    run = RunFactory(status=S.RUNNING)
    on_task_failure(sender=ping, args=(run.pk,), exception=None)
    run.refresh_from_db()
    assert (run.status, run.error_type) == (S.FAILED, "worker_lost")


def test_other_users_runs_are_invisible(auth_api):
    mine = RunFactory(owner=auth_api.user)
    theirs = RunFactory(owner=UserFactory())
    listed = [item["id"] for item in auth_api.get("/api/runs/").json()["results"]]
    assert listed == [mine.pk]
    assert auth_api.get(f"/api/runs/{theirs.pk}/").status_code == 404
    assert auth_api.get(f"/api/runs/{theirs.pk}/").json() == {"detail": "Not found.", "code": "not_found"}


def test_runs_are_paginated_newest_first(auth_api):
    runs = [RunFactory(owner=auth_api.user) for _ in range(3)]
    body = auth_api.get("/api/runs/").json()
    assert body["count"] == 3
    assert [item["id"] for item in body["results"]] == [run.pk for run in reversed(runs)]


def test_run_lists_filter_and_refuse_bad_filters_by_name(auth_api):
    RunFactory(owner=auth_api.user, kind=Run.Kind.PING)
    RunFactory(owner=auth_api.user, kind=Run.Kind.TRACER)
    assert auth_api.get("/api/runs/?kind=tracer").json()["count"] == 1
    bad = auth_api.get("/api/runs/?kind=party&project=null")
    assert bad.status_code == 400
    assert set(bad.json()["fields"]) == {"kind", "project"}


def test_the_direct_run_document_matches_what_the_declared_fields_build(auth_api):
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework import serializers

    from runs.http.serializers import RunSerializer
    from workspace.models import Connector, Project

    connector = Connector.objects.create(
        owner=auth_api.user, name="c", technology="demo", params={"bot": "pizza"}
    )
    project = Project.objects.create(owner=auth_api.user, name="p", connector=connector)
    started = timezone.now()
    runs = [
        RunFactory(owner=auth_api.user),  # no project, never started
        RunFactory(
            owner=auth_api.user,
            kind=Run.Kind.SENSEI,
            project=project,
            status=S.SUCCEEDED,
            input={"profiles": [{"id": 1, "name": "a", "text": "secret yaml"}], "seed": 3},
            result={"conversations": 2},
            usage={"calls": 4},
            cost_usd=0.25,
            started_at=started,
            finished_at=started + timedelta(seconds=90),
            stage="done",
        ),
    ]
    other = UserFactory(display_name="Someone")
    runs.append(RunFactory(owner=other, project=project, error_type="x", error_message="y"))
    request = auth_api.get("/api/runs/").wsgi_request
    for run in runs:
        serializer = RunSerializer(context={"request": request})
        generic = serializers.ModelSerializer.to_representation(serializer, run)
        assert serializer.to_representation(run) == dict(generic)
    assert RunSerializer(runs[1]).data["params"]["profiles"] == [{"id": 1, "name": "a"}]
