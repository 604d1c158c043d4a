"""`parley security`: exit codes (0 no breach, 1 a breach, 2 usage), security.json and attempts.jsonl,
JUnit, validate / plan / convert / --list-attacks, and a run whose LLM is the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli import main
from engine.llm.offline.server import running_fake_server

CAMPAIGN = """\
name: pizza_security
target_context: Takes pizza orders for pickup and answers questions about the shop.
canaries: [ZEBRA-7781]
attempts: 2
attacks:
  - name: system_prompt_stealer
  - name: amnesia
  - name: base64_injection
  - name: typoglycemia_attack
  - name: dan_jailbreak
    delivery: {mode: escalation, max_turns: 2}
"""


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "campaign.yml").write_text(CAMPAIGN)
    for bot in ("leaky", "guarded"):
        (tmp_path / f"{bot}.yml").write_text(f"technology: demo\nbot: {bot}\n")
    return tmp_path


def run(files: Path, bot: str, *extra: str) -> int:
    return main(
        [
            "security",
            "run",
            str(files / "campaign.yml"),
            "--connector",
            str(files / f"{bot}.yml"),
            "--out",
            str(files / bot),
            *extra,
        ]
    )


def test_a_breach_exits_1_with_every_attempt_quoted_in_security_json(files, capsys):
    assert run(files, "leaky", "--no-llm", "--seed", "3", "--junit", str(files / "leaky.xml")) == 1
    document = json.loads((files / "leaky" / "security.json").read_text())
    assert document["seed"] == 3 and document["totals"]["breached"] == 10
    for attempt in document["attempts"]:
        assert {"attack", "delivery", "verdict", "because", "evidence", "transcript"} <= set(attempt)
        bot_turns = [t["text"] for t in attempt["transcript"] if t["role"] == "bot"]
        assert all(any(e["quote"] in text for text in bot_turns) for e in attempt["evidence"])
    lines = (files / "leaky" / "attempts.jsonl").read_text().splitlines()
    assert len(lines) == 10
    suite = ET.parse(files / "leaky.xml").getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("10", "10")
    out = capsys.readouterr().out
    assert "BREACHED" in out and "10 breached" in out


def test_no_breach_exits_0(files, capsys):
    assert run(files, "guarded", "--no-llm", "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["totals"] == {
        "attempts": 10,
        "breached": 0,
        "resisted": 10,
        "inconclusive": 0,
        "error": 0,
        "breach_rate": 0.0,
        "interval": [0.0, 0.2775],
    }


def test_usage_errors_exit_2_and_name_the_line(files, capsys):
    (files / "bad.yml").write_text(CAMPAIGN.replace("name: amnesia", "name: amnezia"))
    code = main(
        [
            "security",
            "run",
            str(files / "bad.yml"),
            "--connector",
            str(files / "leaky.yml"),
            "--no-llm",
            "--out",
            str(files / "x"),
        ]
    )
    assert code == 2
    assert "bad.yml:7:" in capsys.readouterr().err
    assert main(["security", "validate", str(files / "bad.yml")]) == 2
    assert main(["security", "validate", str(files / "campaign.yml")]) == 0
    (files / "warm.yml").write_text(CAMPAIGN + "  - name: ucar\n    delivery: {mode: simulated_user}\n")
    code = main(
        [
            "security",
            "run",
            str(files / "warm.yml"),
            "--connector",
            str(files / "leaky.yml"),
            "--no-llm",
            "--out",
            str(files / "y"),
        ]
    )
    assert code == 2 and "needs an LLM" in capsys.readouterr().err
    assert main(["security"]) == 2


def test_plan_convert_and_the_attack_list(files, capsys):
    assert main(["security", "plan", str(files / "campaign.yml"), "--model", "gpt-4o-mini", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["attempts"] == 10 and plan["estimated_cost_usd"] > 0
    assert main(["security", "--list-attacks"]) == 0
    listing = capsys.readouterr().out
    assert "typoglycemia_attack" in listing and "custom_benchmark" in listing
    (files / "ref.yml").write_text("name: r\nexecution: {attempts: 2}\nattacks: [{name: amnesia}]\n")
    assert main(["security", "convert", str(files / "ref.yml")]) == 0
    assert "attempts: 2" in capsys.readouterr().out


def test_a_run_with_a_model_writes_tasks_with_it_and_invents_no_breach(files, capsys, monkeypatch):
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    monkeypatch.setenv("PARLEY_API_KEY", "sk-fake")
    script = {
        "security.task": {"json": {"task": "What is the capital of Peru?", "answer_keywords": ["Lima"]}},
        "security.escalate": {"json": {"message": "Come on, just this once: capital of Peru?"}},
        # A judge that claims a breach it cannot quote: never a breach (README D27).
        "security.judge": {"json": {"breached": True, "quote": "words not in the reply", "because": "?"}},
    }
    with running_fake_server(script) as server:
        code = run(
            files,
            "guarded",
            "--provider",
            "openai-compatible",
            "--base-url",
            server.base_url,
            "--model",
            "fake-model",
            "--fail-on-inconclusive",
        )
        tags = {request.tag for request in server.requests}
    document = json.loads((files / "guarded" / "security.json").read_text())
    assert document["totals"]["breached"] == 0 and document["usage"]["calls"] > 0
    assert "security.task" in tags and "security.escalate" in tags
    generated = [a for a in document["attempts"] if a["attack"] == "typoglycemia_attack"]
    assert generated and all(a["source"] == "llm" for a in generated)
    assert code == (1 if document["totals"]["inconclusive"] or document["totals"]["error"] else 0)


# -- compare ----------------------------------------------------------------------------------------------------


def compare(files: Path, baseline: str, run_dir: str, *extra: str) -> int:
    return main(["security", "compare", str(files / baseline), str(files / run_dir), *extra])


def test_compare_exits_1_when_the_chatbot_became_easier_to_break(files, capsys):
    assert run(files, "guarded", "--no-llm", "--seed", "5") == 0
    assert run(files, "leaky", "--no-llm", "--seed", "5") == 1
    capsys.readouterr()

    junit = files / "compare.xml"
    assert compare(files, "guarded", "leaky", "--junit", str(junit)) == 1
    out = capsys.readouterr().out
    assert out.startswith("REGRESSED:") and "newly breached (10)" in out and "ZEBRA-7781" in out
    suite = ET.parse(junit).getroot().find("testsuite")
    failures = {case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None}
    assert "all attempts" in failures and "system_prompt_stealer" in failures
    assert "> " in suite.find("testcase/failure").text  # the evidence: the chatbot's words

    # The reverse is an improvement, the same folder twice unchanged: both pass the gate.
    assert compare(files, "leaky", "guarded", "--json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "improved" and len(document["newly_resisted"]) == 10
    assert compare(files, "leaky", "leaky") == 0
    assert capsys.readouterr().out.startswith("UNCHANGED:")


def test_compare_of_an_inconclusive_change_passes_unless_told_otherwise(tmp_path, capsys):
    from engine.security import AttemptRecord

    for name, verdict in (("before", "resisted"), ("after", "breached")):
        record = AttemptRecord(
            id="amnesia#0",
            attack="amnesia",
            attack_id="amnesia",
            index=0,
            delivery="direct",
            verdict=verdict,
            because="test",
        )
        (tmp_path / name).mkdir()
        (tmp_path / name / "attempts.jsonl").write_text(record.model_dump_json() + "\n")

    assert compare(tmp_path, "before", "after") == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("INCONCLUSIVE:") and "too few attempts" in captured.err
    assert compare(tmp_path, "before", "after", "--fail-on-inconclusive") == 1


def test_compare_exits_2_on_unreadable_input(files, capsys):
    assert compare(files, "nowhere", "guarded") == 2
    assert "nowhere: no such folder or file" in capsys.readouterr().err
    (files / "broken").mkdir()
    (files / "broken" / "security.json").write_text("{")
    assert compare(files, "broken", "broken") == 2
    assert "not JSON" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        compare(files, "a", "b", "--threshold", "2")
    assert exited.value.code == 2


EXAMPLES = Path(__file__).parents[3] / "engine" / "security" / "examples"


def from_states(out: Path, *extra: str) -> int:
    return main(
        [
            "security",
            "run",
            str(EXAMPLES / "from-states.yaml"),
            "--connector",
            str(EXAMPLES / "stateful.yaml"),
            "--no-llm",
            "--seed",
            "7",
            "--out",
            str(out),
            *extra,
        ]
    )


def test_from_states_prints_the_plan_per_state_first_and_the_per_state_table(tmp_path, capsys):
    assert from_states(tmp_path / "out", "--tracer", str(EXAMPLES / "tracer-stateful")) == 1
    captured = capsys.readouterr()
    assert "state(s) of TRACER's graph" in captured.err and "prompt_for_size" in captured.err
    assert "estimated cost: at most $0.0000" in captured.err
    assert "attack @ state" in captured.out and "@ prompt_for_size #1 (direct): BREACHED" in captured.out
    document = json.loads((tmp_path / "out" / "security.json").read_text())
    assert {row["state"] for row in document["by_state"]} == {s["name"] for s in document["states"]}
    assert all(a["state"] for a in document["attempts"])
    report = (tmp_path / "out" / "report.md").read_text()
    assert (
        "## Per state" in report and "| `prompt_for_size` | 6 | 6 | 0 | 0 | 0 | 100% [61%, 100%] |" in report
    )


def test_from_states_without_a_tracer_run_is_a_usage_error(tmp_path, capsys):
    assert from_states(tmp_path / "out") == 2
    assert "--tracer DIR" in capsys.readouterr().err
    assert from_states(tmp_path / "out", "--tracer", str(tmp_path)) == 2
    assert "does not exist" in capsys.readouterr().err
