"""Connectors, projects and a project's documents, as their owner uses them through the API."""

import pytest

from runs.models import Run
from tests.engine.test_yamlguard import billion_laughs
from tests.factories import UserFactory
from workspace.models import Connector, Profile

pytestmark = pytest.mark.django_db

SECRET = "millionbot-secret-canary-123456"

PROFILE = """\
test_name: pizza_order
llm: {model: gpt-4o-mini}
user:
  language: English
  role: You want to order a pizza.
  context: [You are hungry.]
  goals:
    - "order a {{size}} pizza"
    - size: {function: forward(), type: string, data: [small, medium, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I did not understand.
  output:
    - price: {type: money, description: the total price}
conversation:
  number: all_combinations
  goal_style: {steps: 10}
  interaction_style: [single question]
"""

RULE = """\
name: price_given
description: a price is always given
conversations: 1
then: outputs.price is not None
"""


@pytest.fixture
def project(auth_api, connector):
    response = auth_api.post(
        "/api/projects/",
        {"name": "Pizza shop", "connector": connector["id"], "exploration_model": "gpt-4.1-mini"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()


def test_technologies_describe_their_parameters(auth_api):
    technologies = {t["name"]: t for t in auth_api.get("/api/connectors/technologies/").json()}
    assert {"http", "taskyto", "rasa", "millionbot", "langgraph", "openai-chat", "demo"} <= set(technologies)
    millionbot = {p["name"]: p for p in technologies["millionbot"]["parameters"]}
    assert any(p["secret"] for p in millionbot.values())
    assert technologies["taskyto"]["json_schema"]["type"] == "object"


def test_secret_parameters_are_encrypted_and_never_shown_back(auth_api):
    secret_name = next(
        p["name"]
        for t in auth_api.get("/api/connectors/technologies/").json()
        if t["name"] == "millionbot"
        for p in t["parameters"]
        if p["secret"]
    )
    response = auth_api.post(
        "/api/connectors/",
        {"name": "mb", "technology": "millionbot", "params": {"bot_id": "b1", secret_name: SECRET}},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert SECRET.encode() not in response.content
    assert response.json()["secrets_set"] == [secret_name]
    stored = Connector.objects.get(name="mb")
    assert SECRET not in str(stored.params) and SECRET not in stored.encrypted_secrets
    assert stored.reveal_secrets()[secret_name] == SECRET
    # An update that leaves the secret out keeps it.
    auth_api.patch(f"/api/connectors/{stored.pk}/", {"params": {"bot_id": "b2"}}, format="json")
    stored.refresh_from_db()
    assert stored.params["bot_id"] == "b2" and stored.reveal_secrets()[secret_name] == SECRET
    assert SECRET.encode() not in auth_api.get("/api/connectors/").content


def test_a_bad_parameter_is_named(auth_api):
    response = auth_api.post(
        "/api/connectors/",
        {"name": "x", "technology": "taskyto", "params": {"base_url": "not a url"}},
        format="json",
    )
    assert response.status_code == 400
    assert "params.base_url" in response.json()["fields"]


def test_an_unknown_technology_is_named(auth_api):
    response = auth_api.post("/api/connectors/", {"name": "x", "technology": "carrier-pigeon"}, format="json")
    assert response.status_code == 400
    assert "carrier-pigeon" in response.json()["detail"]


def test_a_connector_file_can_be_validated_with_its_line(auth_api):
    response = auth_api.post(
        "/api/connectors/validate/", {"yaml": "technology: taskyto\nbase_url: [oops\n"}, format="json"
    )
    body = response.json()
    assert body["valid"] is False
    assert body["problems"][0]["line"] is not None


def test_deleting_a_connector_in_use_is_refused_with_the_projects_named(auth_api, connector, project):
    response = auth_api.delete(f"/api/connectors/{connector['id']}/")
    assert response.status_code == 400
    assert "Pizza shop" in response.json()["detail"]
    assert Connector.objects.filter(pk=connector["id"]).exists()


def test_project_names_are_unique_per_owner(auth_api, connector, project):
    again = auth_api.post(
        "/api/projects/", {"name": "pizza SHOP", "connector": connector["id"]}, format="json"
    )
    assert again.status_code == 400
    assert "name" in again.json()["fields"]


def test_a_project_cannot_use_someone_elses_connector(auth_api):
    theirs = Connector.objects.create(
        owner=UserFactory(), name="theirs", technology="taskyto", params={"base_url": "https://x.example"}
    )
    response = auth_api.post("/api/projects/", {"name": "p", "connector": theirs.pk}, format="json")
    assert response.status_code == 400
    assert "connector" in response.json()["fields"]


def test_a_profile_is_validated_on_save_and_kept_when_invalid(auth_api, project):
    base = f"/api/projects/{project['id']}/profiles/"
    good = auth_api.post(base, {"text": PROFILE}, format="json").json()
    assert good["valid"] is True and good["name"] == "pizza_order"
    bad = auth_api.post(base, {"text": PROFILE.replace("{{size}}", "{{sise}}")}, format="json").json()
    assert bad["valid"] is False
    assert any("sise" in p["message"] for p in bad["problems"])
    assert Profile.objects.filter(project_id=project["id"]).count() == 2


def test_validate_reports_line_and_column_without_saving(auth_api, project):
    response = auth_api.post(
        f"/api/projects/{project['id']}/profiles/validate/", {"text": "test_name: [unclosed\n"}, format="json"
    ).json()
    assert response["valid"] is False
    assert response["problems"][0]["line"] == 1 or response["problems"][0]["line"] == 2
    assert not Profile.objects.exists()


def test_plan_lists_every_conversation(auth_api, project):
    profile = auth_api.post(
        f"/api/projects/{project['id']}/profiles/", {"text": PROFILE}, format="json"
    ).json()
    planned = auth_api.post(
        f"/api/projects/{project['id']}/profiles/{profile['id']}/plan/", {"seed": 7}, format="json"
    )
    assert planned.status_code == 200, planned.json()
    body = planned.json()
    assert body["conversations"] == 3
    assert sorted(row["size"] for row in body["rows"]) == ["large", "medium", "small"]


def test_tracer_profiles_are_immutable_and_edits_become_copies(auth_api, project):
    original = Profile.objects.create(
        project_id=project["id"], name="generated", text=PROFILE, valid=True, origin=Profile.Origin.TRACER
    )
    edited = auth_api.patch(
        f"/api/projects/{project['id']}/profiles/{original.pk}/",
        {"text": PROFILE.replace("small", "tiny")},
        format="json",
    ).json()
    assert edited["id"] != original.pk
    assert edited["origin"] == "manual" and edited["derived_from"] == original.pk
    original.refresh_from_db()
    assert "small" in original.text


def test_upload_stores_every_file(auth_api, project):
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = [SimpleUploadedFile("a.yaml", PROFILE.encode()), SimpleUploadedFile("b.yaml", b"not: [valid")]
    response = auth_api.post(
        f"/api/projects/{project['id']}/profiles/upload/", {"files": files}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    stored = response.json()
    assert isinstance(stored, list), "upload answers a plain list, not a page"
    assert [item["valid"] for item in stored] == [True, False]
    assert stored[1]["name"] == "b"
    assert [item["id"] for item in stored] == list(
        Profile.objects.filter(project_id=project["id"]).order_by("id").values_list("id", flat=True)
    )


def test_the_schema_describes_upload_as_a_list_of_stored_documents_and_the_connection_test_body():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    for kind, item in (("profiles", "Profile"), ("rules", "Rule"), ("personalities", "Personality")):
        upload = schema["paths"][f"/api/projects/{{project_id}}/{kind}/upload/"]["post"]
        assert upload["responses"]["201"]["content"]["application/json"]["schema"] == {
            "type": "array",
            "items": {"$ref": f"#/components/schemas/{item}"},
        }
    body = schema["paths"]["/api/connectors/{id}/test/"]["post"]["requestBody"]
    assert not body.get("required")
    reference = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    assert schema["components"]["schemas"][reference]["properties"]["message"] == {
        "type": "string",
        "maxLength": 500,
        "description": 'What to send (at most 500 characters); "Hello" when omitted.',
    }


@pytest.mark.parametrize(
    ("body", "sent"),
    [
        (None, "Hello"),
        ({}, "Hello"),
        ({"message": ""}, "Hello"),
        ({"message": "What pizzas do you have?"}, "What pizzas do you have?"),
    ],
)
def test_a_connection_test_sends_the_given_message_or_hello(auth_api, connector, body, sent):
    response = auth_api.post(f"/api/connectors/{connector['id']}/test/", body, format="json")
    assert response.status_code == 202, response.json()
    assert Run.objects.get(pk=response.json()["id"]).input == {
        "connector_id": connector["id"],
        "message": sent,
    }


@pytest.mark.parametrize(
    ("body", "problem"),
    [({"message": "x" * 501}, "no more than 500 characters"), ({"message": ["hi"]}, "Not a valid string")],
)
def test_a_connection_test_refuses_a_bad_message_before_anything_is_queued(
    auth_api, connector, body, problem
):
    response = auth_api.post(f"/api/connectors/{connector['id']}/test/", body, format="json")
    assert response.status_code == 400
    assert problem in response.json()["fields"]["message"][0]
    assert not Run.objects.filter(kind=Run.Kind.CONNECTOR_TEST).exists()


def test_yaml_whose_aliases_expand_too_far_is_refused_with_its_line(auth_api, project):
    rule = auth_api.post(f"/api/projects/{project['id']}/rules/", {"text": billion_laughs()}, format="json")
    assert rule.json()["valid"] is False
    assert rule.json()["problems"][0]["line"] == 6
    assert "more than 10,000 values" in rule.json()["problems"][0]["message"]
    # The connector file of the report: 417 bytes that held a gunicorn worker until it was killed.
    connector = auth_api.post("/api/connectors/validate/", {"yaml": billion_laughs()}, format="json")
    assert connector.status_code == 200
    assert connector.json()["valid"] is False
    assert connector.json()["problems"][0]["line"] == 6


def test_rules_and_personalities(auth_api, project):
    rule = auth_api.post(f"/api/projects/{project['id']}/rules/", {"text": RULE}, format="json").json()
    assert rule["valid"] is True and rule["name"] == "price_given" and rule["active"] is True
    escape = auth_api.post(
        f"/api/projects/{project['id']}/rules/validate/",
        {"text": RULE.replace("outputs.price is not None", "().__class__.__bases__")},
        format="json",
    ).json()
    assert escape["valid"] is False
    personality = auth_api.post(
        f"/api/projects/{project['id']}/personalities/",
        {"text": "name: night-owl\ncontext:\n  - You only chat late at night.\n"},
        format="json",
    ).json()
    assert personality["valid"] is True and personality["name"] == "night-owl"


def test_templates_are_valid(auth_api, project):
    for kind in ("profiles", "rules", "personalities"):
        text = auth_api.get(f"/api/projects/{project['id']}/{kind}/template/").json()["text"]
        result = auth_api.post(
            f"/api/projects/{project['id']}/{kind}/validate/", {"text": text}, format="json"
        ).json()
        assert result["valid"] is True, (kind, result)


def test_editor_schemas_are_public(api):
    for kind in ("profile", "rule", "connector"):
        schema = api.get(f"/api/schemas/{kind}/")
        assert schema.status_code == 200
        assert schema.json()
    assert api.get("/api/schemas/nothing/").status_code == 404


def test_the_plan_is_priced_with_the_model_that_will_play_the_user(auth_api, project):
    """README D6: the profile's llm.model, else the project's simulation model — not always the project's."""

    def estimate(text):
        doc = auth_api.post(f"/api/projects/{project['id']}/profiles/", {"text": text}, format="json").json()
        url = f"/api/projects/{project['id']}/profiles/{doc['id']}/plan/"
        return auth_api.post(url, {"seed": 7}, format="json").json()["estimated_cost_usd"]

    def named(name, model):
        text = PROFILE.replace("test_name: pizza_order", f"test_name: {name}")
        return (
            text.replace("gpt-4o-mini", model) if model else text.replace("llm: {model: gpt-4o-mini}\n", "")
        )

    own = {
        model: estimate(named(f"p-{model}", model)) for model in ("gpt-4o-mini", "gpt-5-mini", "gpt-4.1-mini")
    }
    assert len(set(own.values())) == 3  # each profile priced with its own model
    # A profile that names no model is played by the project's exploration model (gpt-4.1-mini here).
    assert estimate(named("no-model", None)) == own["gpt-4.1-mini"]
