"""The regression workflow on the platform: a project's baseline, the compare endpoint, repeats in a platform
run, and `parley sensei compare --server` reading the same comparison. Runs execute in this process (no worker),
against the in-process pizza bot and the fake OpenAI-compatible server."""

from __future__ import annotations

import argparse
import json

import httpx
import pytest
from rest_framework.test import APIClient

from accounts.services import open_session
from commands import sensei as sensei_command
from engine.llm.offline.server import running_fake_server
from runs.models import Conversation, RuleResult, Run
from runs.worker.execution import execute_sensei
from tests.conftest import create_llm_key, create_pizza_project, unpublished_run
from tests.factories import UserFactory
from workspace.models import Connector, Project

pytestmark = [pytest.mark.django_db(transaction=True)]

PROFILE = """\
test_name: sizes
user:
  role: You order a pizza to pick up tonight.
  goals:
    - "order a {{size}} margherita pizza"
    - size: {function: forward(), type: string, data: [small, medium, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output: []
conversation:
  number: 3
  goal_style: {steps: 1}
  interaction_style: [default]
"""

SCRIPT = {"sensei.user_turn": ["I would like a small margherita pizza, please."]}


@pytest.fixture
def fake_llm():
    with running_fake_server(SCRIPT) as server:
        yield server


@pytest.fixture
def project(auth_api, fake_llm, settings):
    settings.EGRESS_ALLOW = ["127.0.0.1"]
    key = create_llm_key(auth_api, fake_llm.base_url)
    # The chatbot's address appears in its records, as a chatbot's error pages often show it.
    connector = Connector.objects.create(
        owner=auth_api.user,
        name="pizza",
        technology="http",
        params={"url": "http://bot.internal.example/chat"},
    )
    created = create_pizza_project(auth_api, key, connector=connector.pk, profile_model="")
    return Project.objects.get(pk=created["id"])


def sensei_run(project, user, **body) -> Run:
    """A SENSEI run as the API creates it (same serializer), not published: the test fills or executes it."""
    profile = project.profiles.create(name="sizes", text=PROFILE, valid=True)
    body = {"profiles": [profile.pk], "concurrency": 1, "seed": 5, **body}
    return unpublished_run(project, user, kind="sensei", **body)


def record(index: int, *, errors: list[int] | None = None, run: str = "a") -> dict:
    size = ["small", "medium", "large"][index % 3]
    return {
        "id": f"{run}-sizes-{index}",
        "profile": "sizes",
        "index": index,
        "inputs": {"size": size},
        "settings": {"seed": index},
        "turns": [
            {"role": "user", "text": f"A {size} margherita."},
            {"role": "bot", "text": "One margherita, http://bot.internal.example/orders/1", "latency_s": 0.1},
        ],
        "errors": [
            {"code": c, "message": f"HTTP {c} from http://bot.internal.example/chat", "turn": 1}
            for c in errors or []
        ],
        "usage": {"calls": 1, "cost_usd": 0.001},
    }


def filled(project, user, records: list[dict]) -> Run:
    run = sensei_run(project, user)
    for item in records:
        Conversation.objects.create(
            run=run,
            profile=item["profile"],
            index=item["index"],
            record=item,
            has_errors=bool(item["errors"]),
            error_codes=[e["code"] for e in item["errors"]],
            turns=len(item["turns"]),
        )
    Run.objects.filter(pk=run.pk).update(status=Run.Status.SUCCEEDED, cost_usd=0.006)
    run.refresh_from_db()
    return run


def test_a_baseline_is_marked_moved_and_compared_with(auth_api, project):
    user = auth_api.user
    first = filled(project, user, [record(i) for i in range(6)])
    second = filled(project, user, [record(i, run="b") for i in range(6)])
    broken = filled(project, user, [record(i, run="c", errors=[500]) for i in range(6)])

    missing = auth_api.get(f"/api/runs/{second.pk}/compare/")
    assert missing.status_code == 400 and "no baseline" in json.dumps(missing.json())

    assert auth_api.get(f"/api/projects/{project.pk}/baseline/").json() == {
        "project": project.pk,
        "run": None,
    }
    marked = auth_api.post(f"/api/runs/{first.pk}/baseline/")
    assert marked.status_code == 200 and marked.json() == {"project": project.pk, "run": first.pk}
    assert auth_api.post(f"/api/runs/{second.pk}/baseline/").json()["run"] == second.pk
    assert list(Run.objects.filter(project=project, is_baseline=True)) == [second]
    assert auth_api.get(f"/api/projects/{project.pk}/baseline/").json()["run"] == second.pk

    same = auth_api.get(f"/api/runs/{first.pk}/compare/").json()
    assert (same["verdict"], same["baseline_run"], same["run"]) == ("unchanged", second.pk, first.pk)

    worse = auth_api.get(f"/api/runs/{broken.pk}/compare/").json()
    assert worse["verdict"] == "regressed"
    assert [r["name"] for r in worse["regressions"] if r["kind"] == "profile"] == ["sizes"]
    assert len(worse["newly_failing"]) == 6
    assert worse["newly_failing"][0]["run"][0]["id"] == "c-sizes-0"  # what the SPA opens side by side
    assert [e["code"] for e in worse["new_error_codes"]] == [500]

    lenient = auth_api.get(f"/api/runs/{broken.pk}/compare/", {"baseline": first.pk, "threshold": 1.0}).json()
    assert lenient["baseline_run"] == first.pk and lenient["verdict"] == "regressed"
    assert auth_api.get(f"/api/runs/{broken.pk}/compare/", {"threshold": 2}).status_code == 400
    assert auth_api.get(f"/api/runs/{broken.pk}/compare/", {"baseline": broken.pk}).status_code == 400

    unmarked = auth_api.delete(f"/api/runs/{second.pk}/baseline/")
    assert unmarked.json() == {"project": project.pk, "run": None}
    assert not Run.objects.filter(project=project, is_baseline=True).exists()


def test_rules_come_from_the_check_run_over_that_run_alone(auth_api, project):
    user = auth_api.user
    base = filled(project, user, [record(i) for i in range(6)])
    new = filled(project, user, [record(i, run="b") for i in range(6)])
    for run, failing in ((base, []), (new, [f"b-sizes-{i}" for i in range(6)])):
        check = Run.objects.create(
            kind=Run.Kind.CHECK,
            owner=user,
            project=project,
            status=Run.Status.SUCCEEDED,
            input={"sensei_runs": [run.pk]},
        )
        report = {
            "name": "names_the_size",
            "passed": 6 - len(failing),
            "failed": len(failing),
            "results": [{"conversations": [c], "outcome": "fail", "reason": "no size"} for c in failing],
        }
        RuleResult.objects.create(
            run=check, name="names_the_size", status="failed" if failing else "passed", report=report
        )
    comparison = auth_api.get(f"/api/runs/{new.pk}/compare/", {"baseline": base.pk}).json()
    assert comparison["verdict"] == "regressed"
    rule = next(r for r in comparison["regressions"] if r["kind"] == "rule")
    assert rule["name"] == "names_the_size" and len(rule["failing_conversations"]) == 6


def test_only_the_owner_chooses_the_baseline_and_outsiders_see_nothing(auth_api, project):
    run = filled(project, auth_api.user, [record(i) for i in range(3)])
    outsider = APIClient()
    outsider.credentials(HTTP_AUTHORIZATION=f"Token {open_session(UserFactory())['token']}")
    assert outsider.post(f"/api/runs/{run.pk}/baseline/").status_code == 404
    assert outsider.get(f"/api/runs/{run.pk}/compare/").status_code == 404
    assert outsider.get(f"/api/projects/{project.pk}/baseline/").status_code == 404
    running = sensei_run(project, auth_api.user)
    Run.objects.filter(pk=running.pk).update(status=Run.Status.RUNNING)
    assert auth_api.post(f"/api/runs/{running.pk}/baseline/").status_code == 400


def test_a_visitor_of_a_public_project_compares_without_the_chatbot_address(auth_api, project):
    base = filled(project, auth_api.user, [record(i) for i in range(6)])
    new = filled(project, auth_api.user, [record(i, run="b", errors=[500]) for i in range(6)])
    auth_api.post(f"/api/runs/{base.pk}/baseline/")
    Project.objects.filter(pk=project.pk).update(public=True)
    visitor = APIClient().get(f"/api/runs/{new.pk}/compare/")
    assert visitor.status_code == 200 and visitor.json()["verdict"] == "regressed"
    assert "bot.internal.example" not in visitor.content.decode()
    assert APIClient().post(f"/api/runs/{base.pk}/baseline/").status_code in (401, 403)


def test_a_platform_run_repeats_each_conversation_and_compares_with_its_repeats(auth_api, project, fake_llm):
    project.connector.technology, project.connector.params = "demo", {"bot": "pizza"}
    project.connector.save()
    once = sensei_run(project, auth_api.user)
    assert once.input["repeats"] == 1
    execute_sensei(once)
    twice = sensei_run(project, auth_api.user, repeats=2)
    execute_sensei(twice)
    rows = list(Conversation.objects.filter(run=twice).order_by("index"))
    assert [row.index for row in rows] == list(range(6))
    assert [(r.record["settings"]["planned_index"], r.record["settings"]["repeat"]) for r in rows] == [
        (0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1),
    ]  # fmt: skip
    Run.objects.filter(pk__in=[once.pk, twice.pk]).update(status=Run.Status.SUCCEEDED)
    comparison = auth_api.get(f"/api/runs/{twice.pk}/compare/", {"baseline": once.pk}).json()
    assert comparison["matched"] == 3 and comparison["run_only"] == 0
    assert all(len(m) == 0 for m in (comparison["flaky"], comparison["newly_failing"]))
    assert (
        auth_api.post(
            f"/api/projects/{project.pk}/runs/",
            {"kind": "sensei", "profiles": [1], "repeats": 11},
            format="json",
        ).status_code
        == 400
    )


def test_the_cli_compares_platform_runs_with_server(auth_api, project, monkeypatch, capsys):
    """`--server`: the whole server stack answers (routing, token authentication, the view), in this process:
    httpx is given Django's WSGI application as its transport instead of a socket."""
    from django.core.wsgi import get_wsgi_application

    server = httpx.Client(transport=httpx.WSGITransport(app=get_wsgi_application()))
    monkeypatch.setattr(httpx, "get", server.get)
    base = filled(project, auth_api.user, [record(i) for i in range(6)])
    new = filled(project, auth_api.user, [record(i, run="b", errors=[500]) for i in range(6)])
    parser = argparse.ArgumentParser(prog="parley")
    sensei_command.register(parser.add_subparsers(dest="command"))

    def compare(*extra: str) -> int:
        argv = ["sensei", "compare", str(base.pk), str(new.pk), "--server", "http://testserver", *extra]
        args = parser.parse_args(argv)
        return int(args.handler(args))

    monkeypatch.setenv("PARLEY_TOKEN", open_session(auth_api.user)["token"])
    assert compare("--json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "regressed" and (data["baseline_run"], data["run"]) == (base.pk, new.pk)
    assert compare("--threshold", "1") == 1
    assert "REGRESSED: run " in capsys.readouterr().out
    monkeypatch.setenv("PARLEY_TOKEN", "not-a-token")
    assert compare() == 2
    assert "HTTP 401" in capsys.readouterr().err


def test_a_re_run_against_an_unchanged_chatbot_makes_no_llm_call(auth_api, project, fake_llm):
    project.connector.technology, project.connector.params = "demo", {"bot": "pizza"}
    project.connector.save()
    source = sensei_run(project, auth_api.user)
    first = execute_sensei(source)
    assert first["replay"]["calls_made"] > 0 and first["replay"]["source"] is None
    Run.objects.filter(pk=source.pk).update(status=Run.Status.SUCCEEDED)
    calls_before = len(fake_llm.chat_requests())

    created = auth_api.post(f"/api/runs/{source.pk}/rerun/")
    assert created.status_code == 201, created.json()
    rerun = Run.objects.get(pk=created.json()["id"])
    assert rerun.input["replay_of"] == source.pk and rerun.input["seed"] == source.input["seed"]
    result = execute_sensei(rerun)

    assert len(fake_llm.chat_requests()) == calls_before  # not one request reached the model server
    assert result["replay"]["calls_made"] == 0
    assert result["replay"]["calls_saved"] == first["replay"]["calls_made"]
    Run.objects.filter(pk=rerun.pk).update(status=Run.Status.SUCCEEDED)
    comparison = auth_api.get(f"/api/runs/{rerun.pk}/compare/", {"baseline": source.pk}).json()
    assert comparison["verdict"] == "unchanged" and comparison["matched"] == 3

    outsider = APIClient()
    outsider.credentials(HTTP_AUTHORIZATION=f"Token {open_session(UserFactory())['token']}")
    assert outsider.post(f"/api/runs/{source.pk}/rerun/").status_code == 404
