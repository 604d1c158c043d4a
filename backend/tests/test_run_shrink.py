""" "Shrink this failure" on the platform: the owner starts a `shrink` run on a failed conversation, the worker runs
the CLI's engine entry point against the project's chatbot and files the pinned scripted profile in the test
center (linked to the run and conversation), which a SENSEI run then plays with no LLM call; the bug report and
JUnit export, without the chatbot's address for visitors. Runs execute in this process, against the in-process
pizza bot's mutant and the fake OpenAI-compatible server."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from runs.models import Conversation, Run
from runs.worker import tasks
from runs.worker.execution import execute_sensei
from runs.worker.shrinking import execute_shrink
from tests.conftest import unpublished_run
from tests.engine.regression.test_shrink import DETOURS, _script
from tests.test_run_compare import fake_llm, project  # noqa: F401 - fixtures
from tests.test_run_coverage import stranger
from workspace.models import Profile, Project

pytestmark = [pytest.mark.django_db(transaction=True)]

MUTANT = "delete-sequence-step-7"  # a pizza you build gets no total


def _sensei(project, user, profile: Profile) -> Run:  # noqa: F811
    run = unpublished_run(project, user, kind="sensei", profiles=[profile.pk], concurrency=1, seed=5)
    execute_sensei(run)
    return run


def _on(project, bot: str) -> None:  # noqa: F811
    project.connector.technology, project.connector.params = "demo", {"bot": bot}
    project.connector.save()


@pytest.fixture
def failed(auth_api, project):  # noqa: F811
    _on(project, f"pizza@{MUTANT}")
    long = project.profiles.create(name="long_order", text=_script(DETOURS, "{states: money}"), valid=True)
    run = _sensei(project, auth_api.user, long)
    (row,) = Conversation.objects.filter(run=run)
    assert row.record["verdict"] == "failed"
    return run, row


def test_the_owner_shrinks_a_failure_into_a_pinned_profile_that_sensei_plays_with_no_llm(
    auth_api,
    project,  # noqa: F811
    fake_llm,  # noqa: F811
    failed,
    monkeypatch,
):
    run, row = failed
    started = auth_api.post(f"/api/runs/{run.pk}/conversations/{row.pk}/shrink/", {}, format="json")
    assert started.status_code == 202, started.json()
    job = Run.objects.get(pk=started.json()["id"])
    assert job.kind == Run.Kind.SHRINK and job.input["conversation"] == row.pk
    result = execute_shrink(job)
    assert result["reproduced"] and result["llm_calls"] == 0 and not fake_llm.chat_requests()
    assert result["shrunk_turns"] < result["original_turns"] == 9
    profile = Profile.objects.get(pk=result["pinned"]["id"])
    assert profile.name == "shrunk_long_order_0_check_failed" and profile.valid
    assert profile.project_id == project.pk and profile.source_run_id == job.pk
    assert f"SENSEI run #{run.pk}, conversation {row.pk}" in profile.text

    # The pinned test fails on the mutant and passes on the original, each with no LLM call.
    (on_mutant,) = Conversation.objects.filter(run=_sensei(project, auth_api.user, profile))
    _on(project, "pizza")
    (on_original,) = Conversation.objects.filter(run=_sensei(project, auth_api.user, profile))
    assert (on_mutant.record["verdict"], on_original.record["verdict"]) == ("failed", "passed")
    assert not fake_llm.chat_requests()

    # The developer's evidence: the report and the JUnit case of the finished run.
    Run.objects.filter(pk=job.pk).update(status=Run.Status.SUCCEEDED, result=result)
    report = auth_api.get(f"/api/runs/{job.pk}/shrink-report/markdown/")
    assert report.status_code == 200 and report["Content-Type"].startswith("text/markdown")
    assert "**⚠ Failing reply** (fails `states money`)" in report.content.decode()
    junit = auth_api.get(f"/api/runs/{job.pk}/shrink-report/junit/")
    assert junit.status_code == 200 and b'<failure message="check_failed: states money' in junit.content


def test_only_the_owner_shrinks_and_only_a_failed_sensei_conversation(auth_api, project, failed):  # noqa: F811
    run, row = failed
    url = f"/api/runs/{run.pk}/conversations/{row.pk}/shrink/"
    assert APIClient().post(url, {}, format="json").status_code in (401, 403)
    assert stranger().post(url, {}, format="json").status_code == 404  # a private project's run is not there
    Project.objects.filter(pk=project.pk).update(public=True)
    assert stranger().post(url, {}, format="json").status_code == 403  # readable, not the visitor's to shrink
    assert not Run.objects.filter(kind=Run.Kind.SHRINK).exists()

    bad = auth_api.post(url, {"replays": 2, "needed": 3}, format="json")
    assert bad.status_code == 400 and "needed" in bad.json()["fields"]
    Conversation.objects.filter(pk=row.pk).update(
        record={**row.record, "verdict": "passed", "verdict_reason": "ok"}
    )
    passed = auth_api.post(url, {}, format="json")
    assert passed.status_code == 400 and "Only a failed conversation shrinks" in str(passed.json())
    assert (
        auth_api.post(f"/api/runs/{run.pk}/conversations/999999/shrink/", {}, format="json").status_code
        == 404
    )


def test_a_visitor_reads_the_report_without_the_chatbot_address(auth_api, project, failed):  # noqa: F811
    run, row = failed
    job = Run.objects.get(
        pk=auth_api.post(f"/api/runs/{run.pk}/conversations/{row.pk}/shrink/", {}, format="json").json()["id"]
    )
    tasks.shrink.apply((job.pk,))  # the Celery task, run here: the bookkeeping files its result
    job.refresh_from_db()
    assert job.status == Run.Status.SUCCEEDED, job.error_message
    assert job.result["reproduced"] and job.result["pinned"]["name"] == "shrunk_long_order_0_check_failed"
    # Served over HTTP, the chatbot echoed its address in the failing reply, as error pages often do.
    project.connector.technology, project.connector.params = (
        "http",
        {"url": "http://bot.internal.example/chat"},
    )
    project.connector.save()
    result = job.result
    result["transcript"][-1]["text"] += " (served by http://bot.internal.example/chat)"
    Run.objects.filter(pk=job.pk).update(result=result)
    url = f"/api/runs/{job.pk}/shrink-report/markdown/"
    assert "bot.internal.example" in auth_api.get(url).content.decode()  # the owner sees everything
    assert APIClient().get(url).status_code == 404  # private project
    Project.objects.filter(pk=project.pk).update(public=True)
    for fmt in ("markdown", "junit"):
        seen = APIClient().get(f"/api/runs/{job.pk}/shrink-report/{fmt}/")
        assert seen.status_code == 200 and "bot.internal.example" not in seen.content.decode()
    assert APIClient().get(f"/api/runs/{job.pk}/shrink-report/pdf/").status_code == 400
    # A run that is no shrink has no report.
    assert auth_api.get(f"/api/runs/{run.pk}/shrink-report/markdown/").status_code == 400


def test_a_failure_that_no_longer_shows_pins_nothing(auth_api, project, failed):  # noqa: F811
    run, row = failed
    job = Run.objects.get(
        pk=auth_api.post(f"/api/runs/{run.pk}/conversations/{row.pk}/shrink/", {}, format="json").json()["id"]
    )
    _on(project, "pizza")  # fixed before the shrink ran
    result = execute_shrink(job)
    assert not result["reproduced"] and result["pinned"] is None
    assert not Profile.objects.filter(source_run=job).exists()
