"""A SENSEI run's verdicts on the platform: the run's result, the dashboards' statistics and the exports count only
`failed` as chatbot failures and list inconclusive conversations apart with their reasons; records stored
before verdicts existed get theirs when read."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET

import pytest

from engine.conversation import ErrorCode
from runs.http import exports
from runs.http.statistics import statistics
from runs.models import Run
from runs.worker.execution import _sensei_result
from tests.factories import RunFactory
from tests.verdict_records import pizza_record as _record
from tests.verdict_records import store_judged as _store

pytestmark = pytest.mark.django_db


@pytest.fixture
def run() -> Run:
    run = RunFactory(kind=Run.Kind.SENSEI)
    _store(run, 0, _record(0, "A small pizza"))  # passed
    _store(run, 1, _record(1, "Dragons!", ErrorCode.GOAL_NOT_COMPLETED, slips=2))  # inputs never said
    _store(run, 2, _record(2, "Dragons!", ErrorCode.CHATBOT_CRASH))  # a crash is the chatbot's, whatever else
    _store(
        run, 3, _record(3, "A small pizza", ErrorCode.RATE_LIMITED), drop=("verdict", "verdict_reason")
    )  # an older record
    return run


def test_the_result_and_statistics_count_verdicts_and_reasons(run):
    result = _sensei_result(run).model_dump()
    assert (result["passed"], result["failed"], result["inconclusive"]) == (1, 1, 2)
    assert result["failed_reasons"] == {"chatbot_crash": 1}
    assert result["inconclusive_reasons"] == {"inputs_not_conveyed": 1, "rate_limited": 1}
    assert result["simulator_slips"] == 2
    assert result["ok"] is False and result["with_errors"] == 3
    stats = statistics(run).model_dump(mode="json", by_alias=True)
    assert stats["failed"] == 1 and stats["inconclusive_reasons"] == result["inconclusive_reasons"]
    assert stats["profiles"][0]["failed"] == 1 and stats["profiles"][0]["inconclusive"] == 2
    # Who is at fault, per conversation that did not pass: the runs table and the dashboard read `faults`.
    faults = {"chatbot": 1, "simulated_user": 1, "parley_llm": 0, "infrastructure": 1, "test_setup": 0}
    assert result["faults"] == faults and stats["faults"] == faults


def test_junit_fails_only_chatbot_faults_and_skips_inconclusive_conversations(run):
    body, _, _ = exports.render(run, "junit")
    suite = ET.fromstring(body)
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "1", "2")
    failure = suite.find("testcase[@name='conversation 2']/failure")
    assert failure is not None and failure.get("message").startswith("chatbot_crash")
    skipped = suite.find("testcase[@name='conversation 1']/skipped")
    assert skipped is not None and skipped.get("message").startswith("inconclusive: inputs_not_conveyed")


def test_csv_and_json_carry_the_verdict_and_the_evidence(run):
    body, _, _ = exports.render(run, "csv")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [row["verdict"] for row in rows] == ["passed", "inconclusive", "failed", "inconclusive"]
    assert rows[3]["verdict_reason"].startswith("rate_limited")
    assert '"quote": "It is 9$."' in rows[0]["evidence"]
    assert [(row["fault"], row["evidence_turn"]) for row in rows] == [
        ("", ""),
        ("simulated_user", ""),
        ("chatbot", "1"),
        ("infrastructure", ""),
    ]
    document, _, _ = exports.render(run, "json")
    assert '"verdict": "passed"' in document


def test_a_run_counted_by_older_verdict_rules_is_counted_again_when_read(run, auth_api):
    run.owner = auth_api.user
    run.status = Run.Status.SUCCEEDED
    # Counted when it finished, before faults existed: every conversation with an error was a failure.
    run.result = {"conversations": 4, "passed": 1, "failed": 3, "inconclusive": 0, "ok": False}
    run.save()
    listed = auth_api.get(f"/api/runs/{run.pk}/").json()["result"]
    assert (listed["failed"], listed["inconclusive"], listed["ok"]) == (1, 2, False)
    assert listed["faults"]["chatbot"] == 1 and listed["faults"]["simulated_user"] == 1
    run.refresh_from_db()
    assert run.result["verdict_rules"] == listed["verdict_rules"]  # stored: counted once
