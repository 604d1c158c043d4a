"""A connector's volatile patterns on the platform (README D24): checked on save (a bad one is a 400 naming it),
kept and shown back, read from a connector file, and used by a re-run against the current chatbot, which then makes
no LLM call when the chatbot only changed such a value."""

from __future__ import annotations

import time

import pytest

from engine.connectors.volatile import MAX_PATTERNS
from runs.models import Run
from runs.worker.execution import execute_sensei
from tests.conftest import unpublished_run
from tests.engine.sensei.conftest import FakeBot
from tests.test_run_compare import PROFILE, fake_llm, project  # noqa: F401 - fixtures
from workspace.models import Connector

BODY = {"name": "tables", "technology": "taskyto", "params": {"base_url": "http://127.0.0.1:5000"}}


@pytest.mark.django_db
def test_patterns_are_checked_on_save_and_a_bad_one_is_named(auth_api):
    bad = auth_api.post("/api/connectors/", {**BODY, "volatile": [r"TKT-\d+", "table ("]}, format="json")
    assert bad.status_code == 400
    (message,) = bad.json()["fields"]["volatile"]
    assert message.startswith("Pattern 2 `table (`: not a valid regular expression")
    assert not Connector.objects.exists()

    empty = auth_api.post("/api/connectors/", {**BODY, "volatile": ["x*"]}, format="json")
    assert "matches empty text" in empty.json()["fields"]["volatile"][0]
    many = auth_api.post("/api/connectors/", {**BODY, "volatile": ["a"] * (MAX_PATTERNS + 1)}, format="json")
    assert many.status_code == 400 and "volatile" in many.json()["fields"]

    created = auth_api.post("/api/connectors/", {**BODY, "volatile": [r"TKT-\d+"]}, format="json")
    assert created.status_code == 201, created.json()
    url = f"/api/connectors/{created.json()['id']}/"
    assert auth_api.get(url).json()["volatile"] == [r"TKT-\d+"]
    assert auth_api.patch(url, {"volatile": ["table ["]}, format="json").status_code == 400
    assert auth_api.patch(url, {"volatile": []}, format="json").json()["volatile"] == []
    assert auth_api.patch(url, {"name": "renamed"}, format="json").json()["volatile"] == []


@pytest.mark.django_db
def test_a_connector_file_brings_its_patterns_and_a_bad_one_is_named_with_its_line(auth_api):
    text = "technology: taskyto\nbase_url: http://127.0.0.1:5000\nvolatile:\n  - 'TKT-\\d+'\n"
    created = auth_api.post("/api/connectors/", {"name": "file", "yaml": text}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["volatile"] == [r"TKT-\d+"] and "volatile" not in created.json()["params"]
    broken = auth_api.post(
        "/api/connectors/", {"name": "broken", "yaml": text.replace("TKT-", "TKT-(")}, format="json"
    )
    assert broken.status_code == 400
    (message,) = broken.json()["fields"]["yaml"]
    assert "line 4" in message and "pattern 1 `TKT-(\\d+`" in message


def sent_since(server, moment: float) -> list[str]:
    """The tags of the requests the model server received from `moment` on."""
    return [request.tag for request in server.chat_requests() if request.started >= moment]


def two_step_run(project, user) -> Run:  # noqa: F811
    """A SENSEI run of 3 conversations of 2 user turns: the second turn's prompt holds the chatbot's reply."""
    profile = project.profiles.create(name="sizes", text=PROFILE.replace("steps: 1", "steps: 2"), valid=True)
    return unpublished_run(project, user, kind="sensei", profiles=[profile.pk], concurrency=1, seed=5)


@pytest.mark.django_db(transaction=True)
def test_a_re_run_ignores_a_value_the_connector_marks_volatile(auth_api, project, fake_llm, monkeypatch):  # noqa: F811
    Connector.objects.filter(pk=project.connector_id).update(technology="demo", params={"bot": "pizza"})
    table = {"word": "kiwi"}  # the chatbot names a new table in every run; no built-in pattern sees a word
    monkeypatch.setattr(
        "runs.worker.execution.create_connector",
        lambda config, guard: FakeBot(lambda text, turn: f"Sure. Your table is {table['word']}."),
    )
    Connector.objects.filter(pk=project.connector_id).update(volatile=["(?<=table is )[a-z]+"])
    source = two_step_run(project, auth_api.user)
    first = execute_sensei(source)
    assert first["replay"]["calls_made"] > 0
    Run.objects.filter(pk=source.pk).update(status=Run.Status.SUCCEEDED)

    table["word"] = "mango"
    rerun = Run.objects.get(pk=auth_api.post(f"/api/runs/{source.pk}/rerun/").json()["id"])
    started = time.time()
    result = execute_sensei(rerun)
    assert result["replay"]["calls_made"] == 0
    assert result["replay"]["calls_saved"] == first["replay"]["calls_made"]
    assert sent_since(fake_llm, started) == []  # not one request reached the model server

    # Without the pattern, the changed word is a changed reply: the re-run asks the LLM again.
    Connector.objects.filter(pk=project.connector_id).update(volatile=[])
    again = Run.objects.get(pk=auth_api.post(f"/api/runs/{source.pk}/rerun/").json()["id"])
    started = time.time()
    assert execute_sensei(again)["replay"]["calls_made"] > 0
    assert sent_since(fake_llm, started)
