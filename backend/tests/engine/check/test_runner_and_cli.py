"""The child process with OS limits, and `parley check` exit codes and outputs."""

from __future__ import annotations

import json
import time

import pytest

import cli
from engine.check import Limits, SandboxLimits, check
from tests.engine.check.conftest import ScriptedJudge, conversation, rule

ISOLATED = Limits(rule_cpu_seconds=2, cpu_seconds=60, wall_seconds=60)


def test_isolated_run_matches_the_in_process_run(pizza_conversations):
    rules = [
        rule("name: small\ndescription: d\nwhen: size == 'small'\nthen: extract_float(price) >= 10\n"),
        rule("name: ids\ndescription: d\nconversations: all\nthen: is_unique('order_id')\n"),
    ]
    isolated = check(rules, pizza_conversations, limits=ISOLATED).to_json()
    here = check(rules, pizza_conversations, limits=Limits(isolate=False)).to_json()
    for data in (isolated, here):
        for item in data["rules"]:
            item.pop("duration_s")
        data.pop("duration_s")
    assert isolated == here


def test_the_judge_is_asked_through_the_parent():
    rules = [rule("name: topic\ndescription: d\nthen: only_talks_about('pizza')\n")]
    judge = ScriptedJudge({"TopicAnswer": {"off_topic": ["I love the sea"], "explanation": "not pizza"}})
    report = check(rules, [conversation("a")], judge=judge, limits=ISOLATED)
    assert report.rules[0].failed == 1 and "I love the sea" in report.rules[0].results[0].reason
    assert judge.questions and judge.questions[0][0] == "check.only_talks_about"


def test_a_rule_burning_cpu_is_stopped_and_the_next_rule_still_runs():
    # Hashing a tuple of 10^5 references to one 10^5-item tuple is 10^10 steps inside C, invisible to the
    # interpreter's step counter: only the CPU limit can stop it.
    greedy = rule(
        "name: greedy\ndescription: d\nthen: |\n  u = (1,) * 100000\n  t = (u,) * 100000\n  len({t})\n"
    )
    fine = rule("name: fine\ndescription: d\nthen: True\n")
    started = time.monotonic()
    report = check([greedy, fine], [conversation("a")], limits=Limits(rule_cpu_seconds=1, wall_seconds=60))
    assert time.monotonic() - started < 30
    first, second = report.rules
    assert first.status == "error" and "CPU" in first.results[0].reason
    assert second.status == "passed"


def test_the_wall_clock_limit_stops_the_run():
    greedy = rule(
        "name: greedy\ndescription: d\nthen: |\n  u = (1,) * 100000\n  t = (u,) * 100000\n  len({t})\n"
    )
    limits = Limits(rule_cpu_seconds=100, wall_seconds=1.5)
    started = time.monotonic()
    report = check([greedy], [conversation("a")], limits=limits)
    assert time.monotonic() - started < 10
    assert "longer than 1.5 s" in report.rules[0].results[0].reason


def test_the_child_gets_an_empty_environment_and_rules_cannot_name_it(monkeypatch):
    from engine.check import runner

    monkeypatch.setenv("PARLEY_SECRET_FOR_TEST", "s3cr3t")
    assert set(runner._CHILD_ENV) == {"PATH", "LANG", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE"}
    rules = [rule("name: env\ndescription: d\nthen: environ\n")]
    report = check(rules, [conversation("a")], limits=ISOLATED)
    assert report.rules[0].errors == 1 and "unknown name 'environ'" in report.rules[0].results[0].reason


# -- CLI --------------------------------------------------------------------------------------------------------


@pytest.fixture
def parley(monkeypatch):
    monkeypatch.setattr(cli, "COMMANDS", tuple(dict.fromkeys((*cli.COMMANDS, "check"))))
    for variable in ("PARLEY_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    return cli.main


@pytest.fixture
def workspace(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    convs = tmp_path / "convs"
    convs.mkdir()
    for record in (conversation("a", outputs={"price": "$12"}), conversation("b", outputs={"price": "$8"})):
        (convs / f"{record.id}.json").write_text(record.model_dump_json())
    return tmp_path


def test_cli_exit_0_when_every_rule_passes(parley, workspace, capsys):
    (workspace / "rules" / "ok.yml").write_text("name: ok\ndescription: d\nthen: extract_float(price) > 5\n")
    code = parley(["check", "--rules", str(workspace / "rules"), "--conversations", str(workspace / "convs")])
    assert code == 0
    assert "PASSED  ok" in capsys.readouterr().out


def test_cli_exit_1_on_failures_with_json_and_junit(parley, workspace, capsys):
    (workspace / "rules" / "min.yml").write_text(
        "name: min\ndescription: d\nthen: extract_float(price) >= 10\n"
    )
    junit = workspace / "out.xml"
    code = parley(
        [
            "check",
            "--rules",
            str(workspace / "rules" / "min.yml"),
            "--conversations",
            str(workspace / "convs"),
            "--json",
            "--junit",
            str(junit),
        ]
    )
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["rules"][0]["failed"] == 1 and data["rules"][0]["results"][0]["conversations"] == ["b"]
    assert "<failure" in junit.read_text()


def test_cli_exit_2_for_invalid_rules_or_missing_conversations(parley, workspace, capsys):
    (workspace / "rules" / "bad.yml").write_text("name: bad\ndescription: d\nthen: ().__class__\n")
    code = parley(["check", "--rules", str(workspace / "rules"), "--conversations", str(workspace / "convs")])
    assert code == 2
    assert "bad.yml:3:7" in capsys.readouterr().err
    (workspace / "rules" / "bad.yml").write_text("name: ok\ndescription: d\nthen: True\n")
    code = parley(
        ["check", "--rules", str(workspace / "rules"), "--conversations", str(workspace / "nothing")]
    )
    assert code == 2
    assert parley(["check"]) == 2


def test_cli_without_a_judge_reports_llm_rules_as_not_applicable(parley, workspace, capsys):
    (workspace / "rules" / "tone.yml").write_text(
        "name: tone\ndescription: d\nthen: \"'NEGATIVE' not in tone(chatbot_phrases)\"\n"
    )
    code = parley(["check", "--rules", str(workspace / "rules"), "--conversations", str(workspace / "convs")])
    assert code == 0
    assert "no judge model configured" in capsys.readouterr().out


def test_cli_lists_functions_and_prints_the_rule_schema(parley, capsys):
    assert parley(["check", "--list-functions"]) == 0
    assert "repeated_answers" in capsys.readouterr().out
    assert parley(["check", "--rule-schema"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "Parley correctness rule"


def test_sandbox_limits_pass_through_to_the_child():
    tight = Limits(sandbox=SandboxLimits(max_steps=50), wall_seconds=60)
    report = check(
        [rule("name: r\ndescription: d\nthen: sum(range(100)) > 0 and all(x >= 0 for x in range(100))\n")],
        [conversation("a")],
        limits=tight,
    )
    assert "evaluation steps" in report.rules[0].results[0].reason


def test_running_out_of_memory_in_the_child_is_this_rule_error():
    hungry = rule(
        "name: hungry\ndescription: d\nthen: |\n  s = 'a' * 999990\n  len([s + str(i) for i in range(100000)])\n"
    )
    limits = Limits(sandbox=SandboxLimits(max_total_size=10**12), memory_bytes=600 * 1024**2, wall_seconds=60)
    report = check(
        [hungry, rule("name: fine\ndescription: d\nthen: True\n")], [conversation("a")], limits=limits
    )
    assert "memory" in report.rules[0].results[0].reason
    assert report.rules[1].status == "passed"
