"""Security campaigns on the platform: stored per project beside profiles and rules (validated with lines,
schema for the editor, plan, convert), a `security` run kind whose request is checked, and the attempts
endpoint, stats and exports of a run (the run itself is executed by a real worker in
tests/test_security_runs.py)."""

import pytest

from runs.models import Run, SecurityAttempt
from tests.conftest import create_demo_project
from tests.factories import UserFactory
from tests.test_security_compare_api import campaign_run
from tests.test_workspace_api import PROFILE

pytestmark = pytest.mark.django_db

CAMPAIGN = """\
name: pizza_security
target_context: Takes pizza orders for pickup.
canaries: [ZEBRA-7781]
attacks:
  - name: system_prompt_stealer
  - name: amnesia
"""


@pytest.fixture
def project(auth_api):
    return create_demo_project(auth_api, "leaky", "Shop")


def campaigns(project):
    return f"/api/projects/{project['id']}/campaigns/"


def test_campaigns_are_stored_validated_and_kept_when_invalid(auth_api, project):
    created = auth_api.post(campaigns(project), {"text": CAMPAIGN}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["name"] == "pizza_security" and created.json()["valid"]
    broken = auth_api.post(
        campaigns(project), {"text": CAMPAIGN.replace("amnesia", "amnezia"), "name": "b"}, format="json"
    ).json()
    assert not broken["valid"]
    problem = broken["problems"][0]
    assert problem["line"] == 6 and problem["hint"] == "did you mean 'amnesia'?"
    checked = auth_api.post(f"{campaigns(project)}validate/", {"text": "name: x\n"}, format="json").json()
    assert not checked["valid"] and "`attacks` is required" in checked["problems"][0]["message"]
    template = auth_api.get(f"{campaigns(project)}template/").json()["text"]
    assert auth_api.post(f"{campaigns(project)}validate/", {"text": template}, format="json").json()["valid"]
    assert [c["name"] for c in auth_api.get(campaigns(project)).json()["results"]] == ["b", "pizza_security"]


def test_the_editor_schema_plan_and_conversion(auth_api, api, project):
    schema = api.get("/api/schemas/campaign/")
    assert schema.status_code == 200 and schema.json()["title"] == "Parley security campaign"
    document = auth_api.post(campaigns(project), {"text": CAMPAIGN}, format="json").json()
    plan = auth_api.post(f"{campaigns(project)}{document['id']}/plan/", format="json").json()
    assert plan["attempts"] == 2 and plan["llm_calls_at_most"] == 0 and plan["estimated_cost_usd"] == 0.0
    reference = (
        "name: r\nexecution: {attempts: 3}\ngeneration: {target_context: Pizza.}\nattacks: [{name: ucar}]\n"
    )
    converted = auth_api.post(f"{campaigns(project)}convert/", {"text": reference}, format="json").json()
    assert "attempts: 3" in converted["text"] and "target_context: Pizza." in converted["text"]


def test_a_stranger_sees_no_private_campaign(auth_api, project, api):
    auth_api.post(campaigns(project), {"text": CAMPAIGN}, format="json")
    from accounts.services import open_session

    stranger = UserFactory()
    api.credentials(HTTP_AUTHORIZATION=f"Token {open_session(stranger)['token']}")
    assert api.get(campaigns(project)).status_code == 404


def test_a_security_run_request_snapshots_the_campaign_and_its_warm_up_profiles(auth_api, project):
    start = f"/api/projects/{project['id']}/runs/"
    assert auth_api.post(start, {"kind": "security"}, format="json").status_code == 400
    warm = CAMPAIGN + "  - name: ucar\n    delivery: {mode: simulated_user, profile: pizza_order}\n"
    needs_llm = auth_api.post(campaigns(project), {"text": warm}, format="json").json()
    refused = auth_api.post(start, {"kind": "security", "campaign": needs_llm["id"]}, format="json")
    assert refused.status_code == 400 and "needs the project's LLM" in str(refused.json())
    offline = auth_api.post(campaigns(project), {"text": CAMPAIGN, "name": "offline"}, format="json").json()
    response = auth_api.post(start, {"kind": "security", "campaign": offline["id"], "seed": 4}, format="json")
    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    assert run.input["campaign"]["text"] == CAMPAIGN and run.input["seed"] == 4 and run.input["llm"] is False
    assert response.json()["params"]["campaign"] == {"id": offline["id"], "name": "offline"}  # no text shown
    key = auth_api.post(
        "/api/keys/",
        {
            "name": "local",
            "provider": "openai-compatible",
            "base_url": "http://127.0.0.1:9/v1",
            "key": "sk-x",
        },
        format="json",
    ).json()
    body = {"llm_key": key["id"], "exploration_model": "fake-model"}
    assert auth_api.patch(f"/api/projects/{project['id']}/", body, format="json").status_code == 200
    unknown = auth_api.post(start, {"kind": "security", "campaign": needs_llm["id"]}, format="json")
    assert unknown.status_code == 400 and "no valid profile for: pizza_order" in str(unknown.json())
    auth_api.post(f"/api/projects/{project['id']}/profiles/", {"text": PROFILE}, format="json")
    with_model = auth_api.post(start, {"kind": "security", "campaign": needs_llm["id"]}, format="json")
    assert with_model.status_code == 201, with_model.json()
    snapshot = Run.objects.get(pk=with_model.json()["id"]).input
    assert snapshot["llm"] is True and [p["name"] for p in snapshot["profiles"]] == ["pizza_order"]


def test_attempts_stats_and_exports_of_a_security_run(auth_api, project):
    run = campaign_run(auth_api.user, project["id"], "leaky", text=CAMPAIGN + "attempts: 2\n", seed=1)
    page = auth_api.get(f"/api/runs/{run.pk}/attempts/?verdict=breached").json()
    assert page["count"] == 4
    assert all(item["record"]["evidence"] for item in page["results"])
    assert auth_api.get(f"/api/runs/{run.pk}/attempts/?verdict=resisted").json()["count"] == 0
    stats = auth_api.get(f"/api/runs/{run.pk}/stats/").json()
    assert [row["attack_id"] for row in stats["by_attack"]] == ["system_prompt_stealer", "amnesia"]
    assert stats["by_attack"][0]["breach_rate"] == 1.0 and stats["by_attack"][0]["interval"][0] > 0.3
    csv_text = auth_api.get(f"/api/runs/{run.pk}/export/csv/").content.decode()
    assert csv_text.splitlines()[0].startswith("attack,strategy,attempt,delivery,verdict")
    assert "ZEBRA-7781" in csv_text
    junit = auth_api.get(f"/api/runs/{run.pk}/export/junit/").content.decode()
    assert 'tests="4"' in junit and 'failures="4"' in junit
    exported = auth_api.get(f"/api/runs/{run.pk}/export/json/").json()
    assert len(exported["attempts"]) == 4


def test_hostile_text_in_an_export_cannot_become_a_formula(auth_api, project):
    run = Run.objects.create(owner=auth_api.user, project_id=project["id"], kind=Run.Kind.SECURITY)
    record = {
        "attack_id": "amnesia",
        "attack": "amnesia",
        "index": 0,
        "delivery": "direct",
        "verdict": "breached",
        "because": '=HYPERLINK("http://evil")',
        "evidence": [],
        "transcript": [{"role": "bot", "text": "=1+1", "phase": "attack"}],
    }
    SecurityAttempt.objects.create(
        run=run,
        attack="amnesia",
        attack_id="amnesia",
        index=0,
        delivery="direct",
        verdict="breached",
        record=record,
    )
    lines = auth_api.get(f"/api/runs/{run.pk}/export/csv/").content.decode().splitlines()
    assert "'=HYPERLINK" in lines[1] and "'=1+1" in lines[1]
