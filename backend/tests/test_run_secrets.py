"""Secrets echoed by a chatbot or provider never reach what a run stores, and a public run never shows the
chatbot's address (the public project view hides it too)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from engine.errors import ParleyError
from runs.models import Run, RunEvent
from runs.worker import bookkeeping
from runs.worker.reporting import RunRecorder
from tests.factories import RunFactory
from workspace.models import Connector, Project

pytestmark = pytest.mark.django_db

TOKEN = "mb-token-canary-0123456789"
ADDRESS = "https://bot.internal.example:5000/api/chat"


@pytest.fixture
def project(auth_api):
    secret = next(
        p["name"]
        for t in auth_api.get("/api/connectors/technologies/").json()
        if t["name"] == "millionbot"
        for p in t["parameters"]
        if p["secret"]
    )
    body = {"name": "mb", "technology": "millionbot", "params": {"bot_id": "b1", secret: TOKEN}}
    assert auth_api.post("/api/connectors/", body, format="json").status_code == 201
    connector = Connector.objects.get(name="mb")
    connector.params = {**connector.params, "base_url": ADDRESS}
    connector.save()
    return Project.objects.create(owner=auth_api.user, name="p", connector=connector, public=True)


def test_a_chatbot_echoing_its_token_does_not_put_it_in_events_or_the_failure(project):
    run = RunFactory(owner=project.owner, project=project, kind=Run.Kind.SENSEI, status=Run.Status.RUNNING)
    RunRecorder(run.pk).event("log", {"text": f"HTTP 500: invalid token {TOKEN} for bot b1"})
    assert TOKEN not in str(RunEvent.objects.get(run=run).data)
    assert "[redacted]" in str(RunEvent.objects.get(run=run).data)

    def body(run):
        raise ParleyError(f"The chatbot answered HTTP 401: Bearer {TOKEN} is not valid.")

    queued = RunFactory(owner=project.owner, project=project, kind=Run.Kind.SENSEI)
    bookkeeping.run_task(body)(queued.pk)
    queued.refresh_from_db()
    assert queued.status == Run.Status.FAILED
    assert TOKEN not in queued.error_message and "[redacted]" in queued.error_message


def test_a_visitor_of_a_public_run_never_sees_the_chatbot_address(auth_api, project):
    run = RunFactory(
        owner=project.owner,
        project=project,
        kind=Run.Kind.SENSEI,
        status=Run.Status.FAILED,
        error_message=f"The chatbot at {ADDRESS} answered HTTP 500.",
    )
    RunEvent.objects.create(
        run=run, type="log", data={"text": f"Could not connect to the chatbot at {ADDRESS}"}
    )
    visitor = APIClient()
    for path in (f"/api/runs/{run.pk}/", f"/api/runs/{run.pk}/events/", "/api/runs/"):
        shown = visitor.get(path)
        assert shown.status_code == 200, path
        assert b"bot.internal.example" not in shown.content, path
    # The owner sees where their chatbot failed.
    assert b"bot.internal.example" in auth_api.get(f"/api/runs/{run.pk}/").content
