"""Conversation loaders (Parley records, the reference's three-document YAML files) and report formats."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

from engine.check import load_conversations
from tests.engine.check.conftest import conversation, rule, run

REFERENCE_FILE = """\
serial: 7f3a
language: English
context:
- personality: personalities/curious.yml
- likes spicy food
ask_about:
- 'a {{size}} pizza with {{topping}}'
- size: large
- topping: mushrooms
conversation:
- interaction_style:
  - single question
- number: 2
- goal_style:
    steps: 6
data_output:
- price: 18 dollars
- order_id: null
errors:
- 1001: 1 goals left to complete
total_cost($): 0.00042
----
conversation time: 9.5
assistant response time:
- 1.25
- 0.75
response time report:
  average: 1.0
  max: 1.25
  min: 0.75
----
interaction:
- User: I would like a large pizza with mushrooms.
- Assistant: Sure, a large mushroom pizza costs 18 dollars.
- User: Great, thanks.
- Assistant: Anything else?
"""


def test_reference_yaml_conversations_become_records(tmp_path):
    folder = tmp_path / "pizza_test" / "7f3a"
    folder.mkdir(parents=True)
    (folder / "1_pizza_test_7f3a.yml").write_text(REFERENCE_FILE)
    (folder / "2_pizza_test_7f3a.yml").write_text(REFERENCE_FILE.replace("----", "---"))
    (tmp_path / "__stats_reports__").mkdir()
    (tmp_path / "__stats_reports__" / "report.yml").write_text("Global report: {}\n")
    (tmp_path / "profile.yml").write_text("test_name: pizza\nuser:\n  role: customer\n")
    (tmp_path / "broken.yml").write_text("interaction: [unclosed\n")
    result = load_conversations(tmp_path)
    assert len(result.conversations) == 2
    record = result.conversations[0]
    assert record.id == "pizza_test/7f3a/1_pizza_test_7f3a"
    assert (record.profile, record.index, record.language) == ("pizza_test", 1, "English")
    assert record.inputs == {"size": "large", "topping": "mushrooms"}
    assert record.goals == ["a {{size}} pizza with {{topping}}"]
    assert record.outputs == {"price": "18 dollars", "order_id": None}
    assert record.settings.imported_from == "reference"
    assert record.settings.reference == {
        "interaction_style": ["single question"],
        "number": 2,
        "goal_style": {"steps": 6},
    }
    assert record.error_codes == [1001]
    assert record.response_times == [1.25, 0.75]
    assert record.duration_s == 9.5 and record.usage.cost_usd == 0.00042
    assert record.chatbot_phrases[0] == "Sure, a large mushroom pizza costs 18 dollars."
    skipped = {path.split("/")[-1]: why for path, why in result.skipped}
    assert set(skipped) == {"profile.yml", "broken.yml"}
    assert "not a conversation" in skipped["profile.yml"]

    report = run(
        rule("name: r\ndescription: d\nthen: extract_float(price) == 18 and steps == 6\n"),
        result.conversations,
    )
    assert report.rules[0].passed == 2
    assert [(e.code, e.count) for e in report.conversation_errors] == [(1001, 2)]


def test_parley_records_as_json_and_jsonl(tmp_path):
    one = conversation("one")
    two = conversation("two")
    (tmp_path / "a.json").write_text(one.model_dump_json())
    (tmp_path / "b.jsonl").write_text(two.model_dump_json() + "\n" + one.model_dump_json() + "\n")
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    result = load_conversations(tmp_path)
    assert [r.id for r in result.conversations] == ["one", "two"]
    assert len(result.skipped) == 2  # the duplicate id and the non-conversation JSON


def _report(pizza_conversations):
    rules = [
        rule(
            "name: cheap\ndescription: under 12\nthen: extract_float(price) < 12\non-error: f'price {price}'\n"
        ),
        rule("name: fine\ndescription: always\nthen: True\n"),
        rule("name: never\ndescription: n/a\nwhen: False\nthen: True\n"),
        rule("name: broken\ndescription: error\nthen: 1 / 0\n"),
    ]
    return run(rules, pizza_conversations)


def test_json_report(pizza_conversations):
    data = _report(pizza_conversations).to_json()
    assert data["ok"] is False
    assert data["totals"] == {"rules": 4, "passed": 1, "failed": 1, "error": 1, "not_applicable": 1}
    cheap = data["rules"][0]
    assert (cheap["checks"], cheap["passed"], cheap["failed"], cheap["fail_rate"], cheap["status"]) == (
        4,
        2,
        2,
        50.0,
        "failed",
    )
    assert cheap["results"][0] == {
        "conversations": ["c1"],
        "outcome": "fail",
        "reason": "extract_float(price) < 12 is false: extract_float(price) is 13.0",
        "message": "price $13.00",
    }
    assert data["rules"][3]["results"][0]["reason"].startswith("then: division by zero")
    json.dumps(data)


def test_csv_reports(pizza_conversations):
    report = _report(pizza_conversations)
    rows = list(csv.DictReader(io.StringIO(report.to_csv())))
    assert rows[0] == {
        "rule": "cheap",
        "conversations": "1",
        "checks": "4",
        "passed": "2",
        "failed": "2",
        "not_applicable": "0",
        "errors": "0",
        "fail_rate": "50.00%",
        "status": "failed",
    }
    assert rows[2]["fail_rate"] == ""
    failures = list(csv.DictReader(io.StringIO(report.failures_csv())))
    assert {f["rule"] for f in failures} == {"cheap", "broken"}


def test_junit_report(pizza_conversations):
    root = ET.fromstring(_report(pizza_conversations).to_junit())
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "4",
        "1",
        "1",
        "1",
    )
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert "c1" in cases["cheap"].find("failure").text
    assert cases["broken"].find("error") is not None
    assert cases["never"].find("skipped") is not None
    assert len(list(cases["fine"])) == 1  # only system-out
