"""`GET /api/runs/{id}/security-compare/?baseline={id}`: two campaign runs of a project compared on the platform,
with the engine's verdict, and who may see it (default-deny: a private run is a 404 to anyone else)."""

import pytest

from engine.bots.adversarial import AdversarialConnector
from engine.security import CampaignJob, load_campaign, run_campaign
from runs.models import Run, SecurityAttempt
from runs.worker.security import store_attempt
from tests.conftest import create_demo_project
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CAMPAIGN = """\
name: pizza_security
target_context: Takes pizza orders for pickup.
canaries: [ZEBRA-7781]
attempts: 3
attacks:
  - name: system_prompt_stealer
  - name: base64_injection
"""


@pytest.fixture
def project(auth_api):
    return create_demo_project(auth_api, "leaky", "Shop")


def campaign_run(owner, project_id, bot, *, kind=Run.Kind.SECURITY, text=CAMPAIGN, seed=4):
    """A finished campaign run against the reference bot `bot`, its attempts stored as the worker stores them."""
    run = Run.objects.create(owner=owner, project_id=project_id, kind=kind, status=Run.Status.SUCCEEDED)
    result = run_campaign(
        CampaignJob(load_campaign(text).campaign, lambda: AdversarialConnector(bot), seed=seed)
    )
    for record in result.records:
        store_attempt(run, record)
    return run


def compare_url(run, baseline=None, **query):
    params = {**({"baseline": baseline.pk} if baseline is not None else {}), **query}
    text = "&".join(f"{k}={v}" for k, v in params.items())
    return f"/api/runs/{run.pk}/security-compare/?{text}"


def test_a_leaky_run_against_a_guarded_baseline_regressed_with_the_quotes(auth_api, project):
    guarded = campaign_run(auth_api.user, project["id"], "guarded")
    leaky = campaign_run(auth_api.user, project["id"], "leaky")

    response = auth_api.get(compare_url(leaky, guarded))

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["verdict"], body["baseline_run"], body["run"]) == ("regressed", guarded.pk, leaky.pk)
    assert body["baseline_label"] == f"run {guarded.pk}"
    stealer = next(g for g in body["attacks"] if g["name"] == "system_prompt_stealer")
    assert stealer["status"] == "regressed"
    assert (stealer["baseline"]["rate"], stealer["run"]["rate"]) == (0.0, 1.0)
    assert stealer["run"]["low"] > 0.3  # three of three breached: at least ~44 % for sure
    assert len(body["newly_breached"]) == 6 and body["matched"] == 6
    assert any("ZEBRA-7781" in quote for c in body["newly_breached"] for quote in c["run"]["quotes"])

    reverse = auth_api.get(compare_url(guarded, leaky)).json()
    assert reverse["verdict"] == "improved" and len(reverse["newly_resisted"]) == 6
    assert auth_api.get(compare_url(leaky, guarded, threshold=1)).json()["verdict"] == "regressed"


def test_errors_in_the_run_make_it_inconclusive_not_safer(auth_api, project):
    leaky = campaign_run(auth_api.user, project["id"], "leaky")
    down = campaign_run(auth_api.user, project["id"], "guarded")
    SecurityAttempt.objects.filter(run=down).update(verdict="error")
    for row in SecurityAttempt.objects.filter(run=down):
        row.record = {**row.record, "verdict": "error", "because": "the chatbot answered HTTP 502"}
        row.save()

    body = auth_api.get(compare_url(down, leaky)).json()

    assert body["verdict"] == "inconclusive" and body["newly_resisted"] == []
    assert body["overall"]["run"]["error"] == 6 and body["overall"]["run"]["rate"] is None
    assert len(body["errors"]["run"]) == 6


def test_only_campaign_runs_of_one_project_are_compared(auth_api, project):
    first = campaign_run(auth_api.user, project["id"], "guarded")
    second = campaign_run(auth_api.user, project["id"], "leaky")
    sensei = Run.objects.create(owner=auth_api.user, project_id=project["id"], kind=Run.Kind.SENSEI)
    other_project = auth_api.post(
        "/api/projects/", {"name": "Other", "connector": project["connector"]}, format="json"
    ).json()
    elsewhere = campaign_run(auth_api.user, other_project["id"], "guarded")

    for url, field in (
        (compare_url(second), "baseline"),
        (compare_url(second, sensei), "baseline"),
        (compare_url(sensei, first), "run"),
        (compare_url(second, second), "baseline"),
        (compare_url(second, elsewhere), "baseline"),
        (compare_url(second, first, threshold=0), "threshold"),
    ):
        response = auth_api.get(url)
        assert response.status_code == 400, url
        assert list(response.json()["fields"]) == [field], response.json()


def test_strangers_get_404_for_private_runs_and_visitors_read_public_ones(auth_api, api, project):
    baseline = campaign_run(auth_api.user, project["id"], "guarded")
    run = campaign_run(auth_api.user, project["id"], "leaky")
    stranger = UserFactory()
    api.force_authenticate(stranger)
    assert api.get(compare_url(run, baseline)).status_code == 404
    # The stranger's own run cannot reach the owner's either.
    own = campaign_run(stranger, project["id"], "guarded")
    assert api.get(compare_url(own, baseline)).status_code == 404
    api.force_authenticate(None)
    assert api.get(compare_url(run, baseline)).status_code == 404

    assert (
        auth_api.patch(f"/api/projects/{project['id']}/", {"public": True}, format="json").status_code == 200
    )
    visitor = api.get(compare_url(run, baseline))
    assert visitor.status_code == 200 and visitor.json()["verdict"] == "regressed"
