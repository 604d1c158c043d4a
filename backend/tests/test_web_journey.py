"""The API side of the web journey's dead ends (Web issue items 3 and 6): what the SPA relies on to link, refuse
and explain instead of leaving the user stuck."""

import pytest

from accounts.models import LLMKey
from runs.models import Conversation, Run
from tests.factories import RunFactory
from tests.test_workspace_api import PROFILE

pytestmark = pytest.mark.django_db


def rule(then: str, *, conversations: str = "1", extra: str = "") -> str:
    return f"name: r\ndescription: d\nconversations: {conversations}\n{extra}then: {then}\n"


@pytest.fixture
def key(auth_api):
    return LLMKey.objects.create(owner=auth_api.user, name="k", provider="openai")


@pytest.fixture
def project(auth_api, connector):
    response = auth_api.post("/api/projects/", {"name": "Pizza", "connector": connector["id"]}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


# -- item 3: a check result's conversation, found in one request -------------------------------------------------


def test_a_conversation_is_found_by_the_record_id_a_check_result_names(auth_api):
    run = RunFactory(owner=auth_api.user, kind=Run.Kind.SENSEI, status=Run.Status.SUCCEEDED)
    # Two profiles whose names give the same slug, with the same index: only the record id tells them apart.
    first = Conversation.objects.create(run=run, profile="a b", index=0, record={"id": "1a2b3c4d-a_b-0"})
    Conversation.objects.create(run=run, profile="a/b", index=0, record={"id": "9f8e7d6c-a_b-0"})

    rows = auth_api.get(f"/api/runs/{run.pk}/conversations/", {"record": "1a2b3c4d-a_b-0"}).json()["results"]
    assert [row["id"] for row in rows] == [first.pk]
    assert auth_api.get(f"/api/runs/{run.pk}/conversations/", {"record": "nope"}).json()["results"] == []


# -- item 6: a project cannot be saved without the model its runs need -------------------------------------------


def test_a_project_with_a_key_needs_its_exploration_model(auth_api, connector, key):
    body = {"name": "P", "connector": connector["id"], "llm_key": key.pk}
    response = auth_api.post("/api/projects/", body, format="json")
    assert response.status_code == 400
    assert "exploration model" in response.json()["fields"]["exploration_model"][0]

    created = auth_api.post("/api/projects/", {**body, "exploration_model": "gpt-4.1-mini"}, format="json")
    assert created.status_code == 201, created.json()
    cleared = auth_api.patch(
        f"/api/projects/{created.json()['id']}/", {"exploration_model": ""}, format="json"
    )
    assert cleared.status_code == 400
    assert "exploration_model" in cleared.json()["fields"]


def test_a_project_without_a_key_may_be_saved_as_a_draft_but_not_given_a_key_alone(auth_api, project, key):
    assert project["llm_key"] is None
    response = auth_api.patch(f"/api/projects/{project['id']}/", {"llm_key": key.pk}, format="json")
    assert response.status_code == 400
    assert "exploration_model" in response.json()["fields"]


# -- item 6: a connector URL that is not http(s) is refused at save ---------------------------------------------


@pytest.mark.parametrize(
    ("technology", "params"),
    [
        ("taskyto", {"base_url": "ftp://bot.example.com"}),
        ("rasa", {"base_url": "ftp://bot.example.com"}),
        ("langgraph", {"base_url": "ftp://bot.example.com", "assistant_id": "a"}),
        ("http", {"base_url": "ftp://bot.example.com", "send_message": {"path": "/chat"}}),
        ("millionbot", {"bot_id": "b", "api_key": "k", "site_url": "ftp://bot.example.com/page"}),
        ("millionbot", {"bot_id": "b", "api_key": "k", "site_url": "javascript:alert(1)"}),
    ],
)
def test_a_connector_url_that_is_not_http_is_refused_at_save(auth_api, technology, params):
    response = auth_api.post(
        "/api/connectors/", {"name": "x", "technology": technology, "params": params}, format="json"
    )
    assert response.status_code == 400, response.json()
    assert "http:// or https://" in response.json()["detail"]


def test_a_page_url_with_a_query_is_accepted(auth_api):
    params = {"bot_id": "b", "api_key": "k", "site_url": "https://shop.example.com/help?lang=en"}
    response = auth_api.post(
        "/api/connectors/", {"name": "x", "technology": "millionbot", "params": params}, format="json"
    )
    assert response.status_code == 201, response.json()


# -- item 6: a rule naming an undefined variable is not valid -----------------------------------------------------


@pytest.fixture
def with_profile(auth_api, project):
    response = auth_api.post(f"/api/projects/{project['id']}/profiles/", {"text": PROFILE}, format="json")
    assert response.json()["valid"], response.json()
    return project


def save_rule(auth_api, project, text):
    response = auth_api.post(f"/api/projects/{project['id']}/rules/", {"text": text}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_rule_naming_an_undefined_variable_is_saved_invalid_with_the_close_name(auth_api, with_profile):
    saved = save_rule(auth_api, with_profile, rule("extract_float(prise) >= 10"))
    assert saved["valid"] is False
    [problem] = saved["problems"]
    assert problem["severity"] == "error"
    assert "'prise'" in problem["message"]
    assert problem["hint"] == "did you mean 'price'?"
    assert problem["line"] == 4

    assert save_rule(auth_api, with_profile, rule("outputs.prise is not None"))["valid"] is False


def test_a_rule_using_the_profiles_names_builtins_and_its_own_names_is_valid(auth_api, with_profile):
    texts = [
        rule("extract_float(price) >= 10"),
        rule("outputs.price is not None and inputs.size in ('small', 'large', 'medium')"),
        rule("all(len(p) > 0 for p in chatbot_phrases)", extra="when: steps > 2\n"),
        rule("|\n  total = extract_float(price)\n  total is None or total > 0"),
        rule("conv[0].price == conv[1].price", conversations="2"),
        rule("is_unique('price')", conversations="all"),
    ]
    for text in texts:
        saved = save_rule(auth_api, with_profile, text)
        assert saved["valid"], (text, saved["problems"])


def test_a_rule_over_several_conversations_sees_only_conv(auth_api, with_profile):
    saved = save_rule(auth_api, with_profile, rule("price == 10", conversations="2"))
    assert saved["valid"] is False
    assert "conv[0].price" in saved["problems"][0]["message"]


def test_before_any_profile_an_unknown_name_is_only_a_warning(auth_api, project):
    checked = auth_api.post(
        f"/api/projects/{project['id']}/rules/validate/", {"text": rule("prise > 1")}, format="json"
    ).json()
    assert checked["valid"] is True
    assert checked["problems"][0]["severity"] == "warning"
    assert "no profile of this project defines 'prise' yet" in checked["problems"][0]["message"]
