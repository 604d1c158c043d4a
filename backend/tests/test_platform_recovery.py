"""Crash recovery and scale-out with real workers: a killed worker process does not cost a TRACER run its
finished sessions, and two workers on one queue run every run exactly once."""

import os
import signal

import pytest

from engine.llm.offline.server import running_fake_server
from parley.celery import app
from runs.models import Conversation, Run, RunEvent
from tests.conftest import create_llm_key, create_pizza_project, finished_run, wait_for, worker_process
from tests.test_platform_runs import PROFILE, start

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def project(auth_api):
    with running_fake_server(latency_s=0.2) as server:
        yield create_pizza_project(auth_api, create_llm_key(auth_api, server.base_url), profile_model="")


def _worker_pid_running(run_id):
    for tasks in (app.control.inspect(timeout=1.0).active() or {}).values():
        for task in tasks:
            if task.get("args") in ([run_id], (run_id,)) or str(task.get("args")) == f"[{run_id}]":
                return task.get("worker_pid")
    return None


def _session_one_messages(run_id):
    return RunEvent.objects.filter(run_id=run_id, type="message", data__session=1).count()


def test_a_tracer_run_whose_worker_process_is_killed_resumes_without_repeating_sessions(
    celery_worker, auth_api, project
):
    run_id = start(auth_api, project, kind="tracer", sessions=4, turns=3).json()["id"]
    assert wait_for(lambda: Run.objects.get(pk=run_id).progress_done >= 2, seconds=120)
    before = _session_one_messages(run_id)
    pid = wait_for(lambda: _worker_pid_running(run_id), seconds=10)
    assert pid, "could not find the worker process running the run"
    os.kill(pid, signal.SIGKILL)

    run = finished_run(auth_api, run_id, seconds=180)
    assert run["status"] == "succeeded", run
    assert Run.objects.get(pk=run_id).attempts == 1
    assert run["result"]["resumed"] is True
    assert _session_one_messages(run_id) == before  # session 1 was not explored again


def test_two_workers_on_one_queue_run_six_runs_each_exactly_once(celery_worker, auth_api, project):
    one_conversation = PROFILE.replace("data: [small, medium, large]", "data: [small]")
    profile = auth_api.post(
        f"/api/projects/{project['id']}/profiles/", {"text": one_conversation}, format="json"
    ).json()
    with worker_process("second-worker"):
        ids = [
            start(auth_api, project, kind="sensei", profiles=[profile["id"]]).json()["id"] for _ in range(6)
        ]
        runs = [finished_run(auth_api, run_id, seconds=240) for run_id in ids]
    assert [run["status"] for run in runs] == ["succeeded"] * 6
    for run_id in ids:
        assert Conversation.objects.filter(run_id=run_id).count() == 1
        assert Run.objects.get(pk=run_id).attempts == 0


def test_a_run_whose_whole_worker_is_killed_resumes_or_ends_within_a_minute(auth_api, project):
    """The worker (main process and pool child) dies at once, as under an OOM kill: no failure signal is sent,
    only the missing heartbeat tells. The reaper, as beat runs it, must act within 60 s of the death."""
    import time

    from runs.worker import bookkeeping
    from runs.worker.bookkeeping import reap_stale_runs
    from runs.worker.tasks import JOBS

    with worker_process("doomed") as node:
        run_id = start(auth_api, project, kind="tracer", sessions=6, turns=4).json()["id"]
        assert wait_for(lambda: Run.objects.get(pk=run_id).status == Run.Status.RUNNING, seconds=60)
        child = wait_for(lambda: _worker_pid_running(run_id), seconds=10)
        main = app.control.inspect(destination=[node], timeout=2.0).stats()[node]["pid"]
        for pid in (child, main):
            os.kill(pid, signal.SIGKILL)
        died = time.monotonic()

    def ended_or_requeued():
        reap_stale_runs(JOBS)  # what Celery beat does every REAP_EVERY_S
        run = Run.objects.get(pk=run_id)
        # Requeued (attempts 1) — and maybe already taken again by the session's worker — or ended.
        return run if run.attempts >= 1 or run.status not in Run.ACTIVE else None

    run = wait_for(ended_or_requeued, seconds=70, interval=5)
    assert run, "the run was still 'running' on its dead worker 70 s after the worker died"
    assert time.monotonic() - died <= 60 + 5  # one reaper interval of slack for this polling loop
    assert run.attempts == 1  # TRACER resumes from its checkpoint rather than failing
    assert run.status in (Run.Status.QUEUED, Run.Status.RUNNING, Run.Status.SUCCEEDED)
    bookkeeping.cancel(run_id)  # whichever worker picks it up next stops; nothing else to check here
