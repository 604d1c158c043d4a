"""The conversations list of a SENSEI run shows each conversation's verdict and reason and filters by verdict
(Web issue, "verdicts where users look"): only `failed` is a chatbot fault, inconclusive ones keep their reason,
records stored before verdicts get theirs when listed, and the usual visibility holds — a stranger gets a 404 for
a private run's conversations, an anonymous visitor reads a public project's."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import open_session
from engine.conversation import ConversationError, ConversationRecord, ErrorCode, Turn
from runs.models import Conversation, Run
from tests.factories import RunFactory, UserFactory
from tests.verdict_records import pizza_record as _record
from tests.verdict_records import store_judged as _store
from workspace.models import Connector, Project

pytestmark = pytest.mark.django_db


# What a record stored before verdicts existed lacks.
OLD = ("verdict", "verdict_reason", "fault", "evidence_turn", "verdict_rules")


def _run(owner, *, public: bool = False) -> Run:
    connector = Connector.objects.create(owner=owner, name="bot", technology="demo", params={"bot": "pizza"})
    project = Project.objects.create(owner=owner, name="Pizza", connector=connector, public=public)
    run = RunFactory(owner=owner, project=project, kind=Run.Kind.SENSEI, status=Run.Status.SUCCEEDED)
    _store(run, 0, _record(0, "A small pizza"))  # passed
    _store(run, 1, _record(1, "Dragons!", ErrorCode.GOAL_NOT_COMPLETED))  # the user never said the size
    _store(run, 2, _record(2, "Dragons!", ErrorCode.CHATBOT_CRASH))  # a crash is the chatbot's fault
    _store(run, 3, _record(3, "A small pizza", ErrorCode.RATE_LIMITED), drop=OLD)  # an older record
    _store(run, 4, _record(4, "A small pizza", ErrorCode.CHATBOT_CRASH), drop=OLD)  # an older failure
    return run


def _client(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {open_session(user)['token']}")
    return client


def _rows(client: APIClient, run: Run, **query) -> list[dict]:
    response = client.get(f"/api/runs/{run.pk}/conversations/", query)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_every_row_shows_its_verdict_and_why_old_records_included(auth_api):
    run = _run(auth_api.user)
    rows = {row["index"]: row for row in _rows(auth_api, run)}
    assert {index: row["verdict"] for index, row in rows.items()} == {
        0: "passed",
        1: "inconclusive",
        2: "failed",
        3: "inconclusive",
        4: "failed",
    }
    assert rows[1]["verdict_reason"].startswith("inputs_not_conveyed")
    assert rows[2]["verdict_reason"].startswith("chatbot_crash")
    assert rows[3]["verdict_reason"].startswith("rate_limited")  # decided when listed
    # The list carries no transcript.
    assert "record" not in rows[0]


@pytest.mark.parametrize(
    ("verdict", "indexes"), [("passed", [0]), ("failed", [2, 4]), ("inconclusive", [1, 3])]
)
def test_the_list_filters_by_verdict(auth_api, verdict, indexes):
    run = _run(auth_api.user)
    rows = _rows(auth_api, run, verdict=verdict)
    assert sorted(row["index"] for row in rows) == indexes
    assert {row["verdict"] for row in rows} == {verdict}


def test_the_verdict_filter_combines_with_the_others(auth_api):
    run = _run(auth_api.user)
    rows = _rows(auth_api, run, verdict="failed", error_code=int(ErrorCode.CHATBOT_CRASH))
    assert sorted(row["index"] for row in rows) == [2, 4]
    assert _rows(auth_api, run, verdict="passed", has_errors="true") == []


def test_an_unknown_verdict_is_refused_by_name(auth_api):
    run = _run(auth_api.user)
    response = auth_api.get(f"/api/runs/{run.pk}/conversations/", {"verdict": "maybe"})
    assert response.status_code == 400
    assert "passed, failed, inconclusive" in response.content.decode(), response.content


def test_a_stranger_cannot_list_a_private_run_s_conversations(auth_api):
    run = _run(auth_api.user)
    assert _client(UserFactory()).get(f"/api/runs/{run.pk}/conversations/").status_code == 404
    anonymous = _client().get(f"/api/runs/{run.pk}/conversations/", {"verdict": "failed"})
    assert anonymous.status_code == 404


def test_a_public_run_s_verdicts_are_read_anonymously(auth_api):
    run = _run(auth_api.user, public=True)
    rows = _rows(_client(), run, verdict="failed")
    assert sorted(row["index"] for row in rows) == [2, 4]
    assert all(row["verdict_reason"].startswith("chatbot_crash") for row in rows)


def test_every_row_says_who_is_at_fault_and_which_chatbot_turn_proves_a_failure(auth_api):
    run = _run(auth_api.user)
    rows = {row["index"]: row for row in _rows(auth_api, run)}
    assert {index: row["fault"] for index, row in rows.items()} == {
        0: None,
        1: "simulated_user",
        2: "chatbot",
        3: "infrastructure",
        4: "chatbot",  # an old record, decided when listed
    }
    assert {index: row["evidence_turn"] for index, row in rows.items()} == {
        0: None,
        1: None,
        2: 1,
        3: None,
        4: 1,
    }
    detail = auth_api.get(
        f"/api/runs/{run.pk}/conversations/{Conversation.objects.get(run=run, index=2).pk}/"
    )
    assert (detail.json()["fault"], detail.json()["evidence_turn"]) == ("chatbot", 1)


@pytest.mark.parametrize(
    ("fault", "indexes"),
    [("chatbot", [2, 4]), ("simulated_user", [1]), ("infrastructure", [3]), ("parley_llm", [])],
)
def test_the_list_filters_by_fault(auth_api, fault, indexes):
    run = _run(auth_api.user)
    rows = _rows(auth_api, run, fault=fault)
    assert sorted(row["index"] for row in rows) == indexes
    refused = auth_api.get(f"/api/runs/{run.pk}/conversations/", {"fault": "the_moon"})
    assert refused.status_code == 400 and "simulated_user" in refused.content.decode()


def test_a_record_decided_by_older_rules_is_decided_again_when_listed(auth_api):
    run = _run(auth_api.user)
    # Stored under the first rules: a repetition loop, `failed`, although the user never answered the question.
    looping = ConversationRecord(
        id="r-9",
        profile="order",
        index=9,
        goals=["order a {{size}} pizza"],
        inputs={"size": "small"},
        turns=[
            Turn(role="user", text="A small pizza"),
            Turn(role="bot", text="Which drink would you like? Coke, lemonade or water?"),
            Turn(role="user", text="Do you deliver to my street?"),
            Turn(role="bot", text="Which drink would you like? Coke, lemonade or water?"),
            Turn(role="user", text="And are you open on Sundays?"),
            Turn(role="bot", text="Which drink would you like? Coke, lemonade or water?"),
        ],
        errors=[ConversationError(code=ErrorCode.REPETITION_LOOP, message="the same answer 3 times", turn=5)],
    )
    data = looping.model_dump(mode="json") | {
        "verdict": "failed",
        "verdict_reason": "repetition_loop: the same answer 3 times",
        "verdict_rules": 1,
    }
    Conversation.objects.create(
        run=run, profile="order", index=9, record=data, has_errors=True, error_codes=[1003]
    )
    rows = {row["index"]: row for row in _rows(auth_api, run)}
    assert rows[9]["verdict"] == "inconclusive" and rows[9]["fault"] == "simulated_user"
    assert rows[9]["verdict_reason"].startswith("question_not_answered")
    assert 9 not in [row["index"] for row in _rows(auth_api, run, verdict="failed")]
    assert 9 in [row["index"] for row in _rows(auth_api, run, fault="simulated_user")]


def test_the_run_s_stats_count_conversations_per_fault(auth_api):
    run = _run(auth_api.user)
    stats = auth_api.get(f"/api/runs/{run.pk}/stats/").json()
    assert stats["faults"] == {
        "chatbot": 2,
        "simulated_user": 1,
        "parley_llm": 0,
        "infrastructure": 1,
        "test_setup": 0,
    }
    assert sum(stats["faults"].values()) == stats["failed"] + stats["inconclusive"]
