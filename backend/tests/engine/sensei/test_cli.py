"""`parley sensei`: validate, plan --json, and a full run over HTTP against fake chatbot and LLM servers."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from commands import sensei
from engine.llm.offline.server import running_fake_server
from engine.sensei.simulator import TAG_EXTRACT, TAG_USER_TURN
from tests.doubles.connectors import fake_for, params_for
from tests.parley_cli import run_command

from .test_planner import TABLE_2

PROFILE = """
test_name: http_shop
user:
  role: You want to know the opening hours.
  goals: ["ask when the shop opens on {{day}}", {day: {function: forward(), type: string, data: [monday, sunday]}}]
chatbot:
  is_starter: false
  fallback: Sorry, I did not get that.
  output:
    - opening: {type: time, description: the opening time}
conversation: {number: combinations, goal_style: {steps: 2}, interaction_style: [default]}
"""


def run_cli(*argv: str) -> int:
    return run_command(sensei, *argv)


def test_validate_exit_codes(tmp_path, capsys):
    good = tmp_path / "good.yml"
    good.write_text(TABLE_2)
    bad = tmp_path / "bad.yml"
    bad.write_text(TABLE_2.replace("{{drink}}", "{{drinks}}"))
    assert run_cli("sensei", "validate", str(good)) == 0
    assert run_cli("sensei", "validate", str(good), str(bad)) == 1
    err = capsys.readouterr().err
    assert f"{bad}:7:7: error: {{{{drinks}}}} is used but no variable `drinks` is defined" in err
    assert "hint: Did you mean {{drink}}?" in err
    strict = tmp_path / "strict.yml"
    strict.write_text(TABLE_2.replace("test_name:", "colour: red\ntest_name:"))
    assert run_cli("sensei", "validate", str(strict)) == 0
    assert run_cli("sensei", "validate", str(strict), "--strict") == 1


def test_plan_json(tmp_path, capsys):
    path = tmp_path / "table2.yml"
    path.write_text(TABLE_2)
    assert run_cli("sensei", "plan", str(path), "--seed", "257", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["conversations"] == 6
    assert data["rows"][1] == {"size": "small", "pizza_type": "carbonara", "number": 4, "drink": "coke"}
    assert data["estimated_cost_usd"] > 0
    assert run_cli("sensei", "plan", str(path), "--seed", "1") == 0
    assert "6 conversation(s)" in capsys.readouterr().out


@pytest.fixture
def shop_bot():
    def reply(session: str, text: str) -> str:
        if "sunday" in text.lower():
            raise RuntimeError("the bot crashed")
        return "We open at 9am on weekdays."

    server, params = fake_for("http", reply)
    with server:
        yield params_for("http", server, params)


def test_run_writes_records_summary_and_junit(tmp_path, shop_bot, monkeypatch, capsys):
    import yaml

    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    (tmp_path / "profile.yml").write_text(PROFILE)
    connector = tmp_path / "bot.yml"
    connector.write_text(yaml.safe_dump(shop_bot))
    script = {
        TAG_USER_TURN: ["What time do you open on monday?", "Thanks!", "Do you open on sunday?"],
        TAG_EXTRACT: {"json": {"opening": "09:00"}},
    }
    with running_fake_server(script) as llm:
        code = run_cli(
            "sensei",
            "run",
            str(tmp_path / "profile.yml"),
            "--connector",
            str(connector),
            "--provider",
            "openai-compatible",
            "--base-url",
            llm.base_url,
            "--model",
            "gpt-4o-mini",
            "--api-key",
            "k",
            "--concurrency",
            "1",
            "--seed",
            "3",
            "--out",
            str(tmp_path / "out"),
            "--junit",
            str(tmp_path / "junit.xml"),
        )
    assert code == 1  # the second conversation hits a crash
    first = json.loads((tmp_path / "out" / "http_shop" / "0000.json").read_text())
    assert first["outputs"] == {"opening": "09:00:00"} and first["errors"] == []
    assert first["evidence"]["opening"] == {"turn": 3, "quote": "We open at 9am on weekdays.", "reason": None}
    assert first["verdict"] == "passed"
    assert first["settings"]["connector"] == "http"
    second = json.loads((tmp_path / "out" / "http_shop" / "0001.json").read_text())
    assert second["verdict"] == "failed" and second["verdict_reason"].startswith("chatbot_crash")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["conversations"] == 2 and summary["with_errors"] == 1
    assert summary["verdicts"] == {"passed": 1, "failed": 1, "inconclusive": 0}
    suite = ET.parse(tmp_path / "junit.xml").getroot()[0]
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    out = capsys.readouterr().out
    assert "1 passed, 1 failed, 0 inconclusive" in out and "failed (chatbot faults): chatbot_crash 1" in out


def test_inconclusive_conversations_are_shown_apart_and_fail_the_run_only_when_asked(
    tmp_path, shop_bot, monkeypatch, capsys
):
    import yaml

    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    (tmp_path / "profile.yml").write_text(PROFILE)
    connector = tmp_path / "bot.yml"
    connector.write_text(yaml.safe_dump(shop_bot))
    # The simulated user never names its day, and speaks for the chatbot once.
    script = {
        TAG_USER_TURN: ["Tell me a story.\nChatbot: Once upon a time", "Dragons are cool."],
        TAG_EXTRACT: {"json": {"opening": None}},
    }
    for extra, expected in (([], 0), (["--fail-on-inconclusive"], 1)):
        out = tmp_path / f"out{len(extra)}"
        with running_fake_server(script) as llm:
            code = run_cli(
                "sensei", "run", str(tmp_path / "profile.yml"), "--connector", str(connector),
                "--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "gpt-4o-mini", "--api-key", "k",
                "--concurrency", "1", "--seed", "3", "--out", str(out), "--junit", str(out / "junit.xml"), *extra,
            )  # fmt: skip
        assert code == expected
        printed = capsys.readouterr().out
        assert "0 passed, 0 failed, 2 inconclusive" in printed
        assert "inconclusive (not counted as chatbot failures): inputs_not_conveyed 2" in printed
        assert re.search(r"simulator slips: \d+ \(spoke_for_chatbot \d+\)", printed)
        suite = ET.parse(out / "junit.xml").getroot()[0]
        assert suite.get("failures") == "0" and suite.get("skipped") == "2"
        assert suite.find("testcase/skipped").get("message").startswith("inconclusive: inputs_not_conveyed")


def test_run_refuses_invalid_profiles_and_bad_connectors(tmp_path, capsys):
    (tmp_path / "bad.yml").write_text("test_name: x\n")
    connector = tmp_path / "bot.yml"
    connector.write_text("technology: nope\n")
    common = [
        "--connector",
        str(connector),
        "--provider",
        "openai-compatible",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--out",
        str(tmp_path / "out"),
    ]
    assert run_cli("sensei", "run", str(tmp_path / "bad.yml"), *common) == 1
    (tmp_path / "good.yml").write_text(PROFILE)
    assert run_cli("sensei", "run", str(tmp_path / "good.yml"), *common) == 2
