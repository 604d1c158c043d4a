"""A project's documents in one zip: the export holds its profiles, rules, security campaigns and personalities,
the import reads them back into another project; an invalid campaign refuses the whole archive, naming its file and
line, and so does a personality that would replace another of the same name."""

import io
import zipfile

import pytest

from tests.conftest import create_demo_project
from tests.factories import UserFactory
from tests.test_security_campaigns import CAMPAIGN as SECURITY_CAMPAIGN
from tests.test_workspace_api import PROFILE, RULE

pytestmark = pytest.mark.django_db

CAMPAIGN = SECURITY_CAMPAIGN + "    oracles: [refusal]\n"  # amnesia's
BROKEN = """\
name: broken
target_context: Takes pizza orders for pickup.
attacks:
  - name: amnezia
"""
PERSONALITY = "name: night-owl\ncontext:\n  - You only chat late at night.\n"
REFERENCE = """\
name: ref
execution: {attempts: 3, max_cost: 0.5}
generation: {target_context: A bank's help desk.}
attacks:
  - {name: amnesia, enabled: true, oracle: refusal}
"""


def new_project(client, name="Shop"):
    return create_demo_project(client, "leaky", name)


def documents(client, project, kind):
    page = client.get(f"/api/projects/{project['id']}/{kind}/").json()
    return {item["name"]: item for item in page["results"]}


def archive(files: dict[str, str]) -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as handle:
        for name, text in files.items():
            handle.writestr(name, text)
    buffer.seek(0)
    buffer.name = "project.zip"
    return buffer


def import_zip(client, project, buffer):
    return client.post(f"/api/projects/{project['id']}/import/", {"file": buffer}, format="multipart")


def test_an_export_holds_the_campaigns_and_an_import_restores_them(auth_api):
    source = new_project(auth_api)
    base = f"/api/projects/{source['id']}"
    assert auth_api.post(f"{base}/profiles/", {"text": PROFILE}, format="json").status_code == 201
    assert auth_api.post(f"{base}/rules/", {"text": RULE}, format="json").status_code == 201
    for text in (CAMPAIGN, CAMPAIGN.replace("pizza_security", "night/shift ../attack")):
        assert auth_api.post(f"{base}/campaigns/", {"text": text}, format="json").json()["valid"]
    assert auth_api.post(f"{base}/personalities/", {"text": PERSONALITY}, format="json").json()["valid"]

    response = auth_api.get(f"{base}/export/")

    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert f"parley-project-{source['id']}.zip" in response["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(response.content)) as exported:
        names = sorted(exported.namelist())
        assert exported.read("campaigns/pizza_security.yaml").decode() == CAMPAIGN
    # A name is free text; the file it becomes stays inside its folder.
    assert names == [
        "campaigns/night_shift_.._attack.yaml",
        "campaigns/pizza_security.yaml",
        "personalities/night-owl.yaml",
        "profiles/pizza_order.yaml",
        "rules/price_given.yaml",
    ]

    target = new_project(auth_api, "Copy")
    imported = import_zip(auth_api, target, io.BytesIO(response.content))

    assert imported.status_code == 201, imported.json()
    assert [item["file"] for item in imported.json()["campaigns"]] == names[:2]
    restored = documents(auth_api, target, "campaigns")
    assert set(restored) == {"pizza_security", "night/shift ../attack"}
    assert restored["pizza_security"]["text"] == CAMPAIGN and restored["pizza_security"]["valid"]
    assert set(documents(auth_api, target, "profiles")) == {"pizza_order"}
    assert set(documents(auth_api, target, "rules")) == {"price_given"}
    assert documents(auth_api, target, "personalities")["night-owl"]["text"] == PERSONALITY

    # The same archive again: the personality is already there, word for word, and is skipped, not doubled.
    again = import_zip(auth_api, target, io.BytesIO(response.content))
    assert again.status_code == 201, again.json()
    assert again.json()["personalities"] == []
    assert {
        "file": "personalities/night-owl.yaml",
        "why": "the project already has the personality 'night-owl'",
    } in (again.json()["skipped"])
    assert len(documents(auth_api, target, "personalities")) == 1


def test_a_personality_that_would_replace_another_refuses_the_archive(auth_api):
    project = new_project(auth_api)
    base = f"/api/projects/{project['id']}"
    assert auth_api.post(f"{base}/personalities/", {"text": PERSONALITY}, format="json").status_code == 201
    other = PERSONALITY.replace("late at night", "at dawn")

    response = import_zip(
        auth_api, project, archive({"profiles/pizza_order.yaml": PROFILE, "personalities/owl.yaml": other})
    )

    assert response.status_code == 400
    message = response.json()["fields"]["file"][0]
    assert message.startswith("personalities/owl.yaml: the project already has a different personality named")
    assert "Nothing was imported" in message
    assert documents(auth_api, project, "profiles") == {}
    assert documents(auth_api, project, "personalities")["night-owl"]["text"] == PERSONALITY


def test_an_invalid_campaign_refuses_the_archive_with_its_file_and_line(auth_api):
    project = new_project(auth_api)
    buffer = archive(
        {
            "profiles/pizza_order.yaml": PROFILE,
            "campaigns/good.yaml": CAMPAIGN,
            "campaigns/broken.yaml": BROKEN,
        }
    )

    response = import_zip(auth_api, project, buffer)

    assert response.status_code == 400
    message = response.json()["fields"]["file"][0]
    assert message.startswith("campaigns/broken.yaml, line 4:") and "amnezia" in message
    assert "Nothing was imported" in message
    for kind in ("profiles", "rules", "campaigns"):
        assert documents(auth_api, project, kind) == {}


def test_campaigns_are_recognised_outside_their_folder_and_in_the_reference_format(auth_api):
    project = new_project(auth_api)
    buffer = archive(
        {
            # Starts with `name:` and has `oracles:`, as a rule would: its attacks make it a campaign.
            "mine/pizza.yml": CAMPAIGN,
            "kumite/security.yml": REFERENCE,
            "rules/price_given.yaml": RULE,
            "notes.yaml": "just: a note\n",
        }
    )

    response = import_zip(auth_api, project, buffer)

    assert response.status_code == 201, response.json()
    body = response.json()
    assert sorted(item["file"] for item in body["campaigns"]) == ["kumite/security.yml", "mine/pizza.yml"]
    assert [item["file"] for item in body["rules"]] == ["rules/price_given.yaml"]
    assert [item["file"] for item in body["skipped"]] == ["notes.yaml"]
    stored = documents(auth_api, project, "campaigns")
    assert set(stored) == {"pizza_security", "ref"} and all(c["valid"] for c in stored.values())


def test_only_readers_export_and_only_the_owner_imports(auth_api, api):
    project = new_project(auth_api)
    auth_api.post(f"/api/projects/{project['id']}/campaigns/", {"text": CAMPAIGN}, format="json")
    url = f"/api/projects/{project['id']}/export/"
    stranger = UserFactory()
    api.force_authenticate(stranger)
    assert api.get(url).status_code == 404
    assert import_zip(api, project, archive({"campaigns/c.yaml": CAMPAIGN})).status_code == 404
    api.force_authenticate(None)
    assert api.get(url).status_code == 404

    auth_api.patch(f"/api/projects/{project['id']}/", {"public": True}, format="json")
    visitor = api.get(url)
    assert visitor.status_code == 200
    with zipfile.ZipFile(io.BytesIO(visitor.content)) as exported:
        assert exported.namelist() == ["campaigns/pizza_security.yaml"]
    api.force_authenticate(stranger)
    assert import_zip(api, project, archive({"campaigns/c.yaml": CAMPAIGN})).status_code == 403
    assert set(documents(auth_api, project, "campaigns")) == {"pizza_security"}
