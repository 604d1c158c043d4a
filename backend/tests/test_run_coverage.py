"""The coverage map on the platform: a SENSEI run over the project's latest TRACER graph (or a chosen one), readable
by whoever may read the run (public visitors without the chatbot's address), and the owner's action that drafts
profiles for unreached functionalities with the project's LLM, landing as editable profiles."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import open_session
from engine.tracer.artefacts import graph_json, model_json
from engine.tracer.model import Functionality, FunctionalModel, Parameter
from runs.models import Artefact, Conversation, Run
from runs.worker.drafting import execute_profile_draft
from tests.factories import UserFactory
from tests.test_run_compare import fake_llm, filled, project, record  # noqa: F401 - fixtures
from workspace.models import Profile, Project

pytestmark = [pytest.mark.django_db(transaction=True)]

MODEL = FunctionalModel(
    languages=["English"],
    fallback="Sorry, I didn't catch that.",
    functionalities=[
        Functionality(name="order_pizza", description="Takes a margherita order", parameters=[
            Parameter(name="pizza_size", options=["small", "medium", "large"])
        ]),
        Functionality(name="opening_hours", description="Tells when the shop opens on weekdays"),
        Functionality(name="track_delivery", description="Tracks where a delivery driver is", parents=["order_pizza"]),
    ],
)  # fmt: skip


def tracer_run(project, user, model: FunctionalModel = MODEL, *, finished_minutes_ago: int = 0) -> Run:  # noqa: F811
    run = Run.objects.create(
        kind=Run.Kind.TRACER,
        owner=user,
        project=project,
        status=Run.Status.SUCCEEDED,
        input={"sessions": 1, "turns": 2, "seed": 1},
        finished_at=timezone.now() - timezone.timedelta(minutes=finished_minutes_ago),
    )
    Artefact.objects.create(run=run, name=Artefact.Name.GRAPH, content=graph_json(model))
    Artefact.objects.create(run=run, name=Artefact.Name.MODEL, content=model_json(model))
    return run


def stranger() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {open_session(UserFactory())['token']}")
    return client


def test_the_map_counts_reached_and_failed_functionalities_of_the_latest_tracer_run(auth_api, project):  # noqa: F811
    older = tracer_run(project, auth_api.user, FunctionalModel(functionalities=[]), finished_minutes_ago=60)
    latest = tracer_run(project, auth_api.user)
    # The records' chatbot replies: "One margherita, http://bot.internal.example/orders/1" — the pizza order.
    run = filled(project, auth_api.user, [record(0), record(1, errors=[500]), record(2)])

    body = auth_api.get(f"/api/runs/{run.pk}/coverage/").json()
    assert body["tracer_run"] == latest.pk and body["conversations"] == 3
    nodes = {n["name"]: n for n in body["nodes"]}
    assert (nodes["order_pizza"]["reached"], nodes["order_pizza"]["failed"]) == (3, 1)
    assert body["unreached"] == ["opening_hours", "track_delivery"] and body["decided"] is True
    assert "approximation" in body["method_note"]
    assert {n["id"] for n in body["graph"]["nodes"]} >= {"order_pizza", "opening_hours"}
    assert nodes["order_pizza"]["evidence"][0]["words"] == ["margherita", "order"]

    chosen = auth_api.get(f"/api/runs/{run.pk}/coverage/", {"tracer": older.pk}).json()
    assert chosen["tracer_run"] == older.pk and chosen["nodes"] == []

    bad = auth_api.get(f"/api/runs/{run.pk}/coverage/", {"tracer": run.pk})
    assert bad.status_code == 400 and "tracer" in bad.json()["fields"]


def test_without_a_tracer_run_the_map_says_what_to_do(auth_api, project):  # noqa: F811
    run = filled(project, auth_api.user, [record(0)])
    response = auth_api.get(f"/api/runs/{run.pk}/coverage/")
    assert response.status_code == 400
    assert "explore the chatbot with TRACER first" in response.json()["fields"]["tracer"][0]


def test_strangers_see_nothing_and_public_visitors_read_without_the_address_or_drafting(auth_api, project):  # noqa: F811
    tracer_run(project, auth_api.user)
    run = filled(project, auth_api.user, [record(0), record(1)])
    assert stranger().get(f"/api/runs/{run.pk}/coverage/").status_code == 404
    assert (
        stranger()
        .post(f"/api/runs/{run.pk}/coverage/drafts/", {"functionalities": ["opening_hours"]})
        .status_code
        == 404
    )

    Project.objects.filter(pk=project.pk).update(public=True)
    visitor = APIClient().get(f"/api/runs/{run.pk}/coverage/")
    assert visitor.status_code == 200 and visitor.json()["nodes"][0]["reached"] == 2
    assert "bot.internal.example" not in visitor.content.decode()
    body = {"functionalities": ["opening_hours"]}
    assert APIClient().post(f"/api/runs/{run.pk}/coverage/drafts/", body, format="json").status_code in (
        401,
        403,
    )
    assert stranger().post(f"/api/runs/{run.pk}/coverage/drafts/", body, format="json").status_code == 403
    assert not Run.objects.filter(kind=Run.Kind.PROFILE_DRAFT).exists()


def test_the_owner_drafts_profiles_for_unreached_functionalities_as_editable_profiles(
    auth_api,
    project,  # noqa: F811
    fake_llm,  # noqa: F811
    monkeypatch,
):
    tracer = tracer_run(project, auth_api.user)
    run = filled(project, auth_api.user, [record(0)])
    unknown = auth_api.post(
        f"/api/runs/{run.pk}/coverage/drafts/", {"functionalities": ["fly"]}, format="json"
    )
    assert unknown.status_code == 400 and "fly" in unknown.json()["fields"]["functionalities"][0]

    fake_llm.set_replies(
        "tracer.group",
        [
            {
                "json": {
                    "profiles": [
                        {
                            "name": "Early bird",
                            "role": "You want to know when the shop opens.",
                            "functionalities": ["opening_hours"],
                        }
                    ]
                }
            }
        ],
    )
    fake_llm.set_replies(
        "tracer.profiles", [{"json": {"goals": ["ask when the shop opens"], "context": ["You are hungry."]}}]
    )
    started = auth_api.post(
        f"/api/runs/{run.pk}/coverage/drafts/", {"functionalities": ["opening_hours"]}, format="json"
    )
    assert started.status_code == 202, started.json()
    job = Run.objects.get(pk=started.json()["id"])
    assert job.kind == Run.Kind.PROFILE_DRAFT and job.input["tracer_run"] == tracer.pk
    again = auth_api.post(
        f"/api/runs/{run.pk}/coverage/drafts/", {"functionalities": ["opening_hours"]}, format="json"
    )
    assert again.status_code == 400 and "already" in again.json()["fields"]["functionalities"][0]
    result = execute_profile_draft(job)

    (stored,) = result["profiles"]
    profile = Profile.objects.get(pk=stored["id"])
    assert profile.name == "draft_early_bird" and profile.valid and profile.project_id == project.pk
    assert profile.origin == Profile.Origin.MANUAL and profile.source_run_id == job.pk
    assert "when the shop opens" in profile.text
    # A draft is the user's to edit: it is changed in place, not copied as a TRACER original would be.
    edited = auth_api.patch(
        f"/api/projects/{project.pk}/profiles/{profile.pk}/",
        {"text": profile.text.replace("ask when the shop opens", "ask when the shop opens on sunday")},
        format="json",
    )
    assert edited.status_code == 200 and edited.json()["id"] == profile.pk
    assert Conversation.objects.filter(run=run).count() == 1
