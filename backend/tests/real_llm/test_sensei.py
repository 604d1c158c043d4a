"""SENSEI with the real model (SmolLM2-135M-Instruct) as simulated user and extractor, on the CLI and through one
platform run, against the unmodified pizza and bike bots and against a bot that answers HTTP 500 on turn 2.

The issue's Done-when, each asserted on what the real model did, not on a double:
- no conversation lost to an LLM or format error (3000, 3001), the server's refusal of `json_schema` (an HTTP
  500) learned once per run and never retried;
- no output reported as found without a chatbot turn that states it;
- no user message that speaks for the chatbot reaches it;
- no conversation `failed` when the simulated user never conveyed the goal's inputs;
- against the bot that answers 500 on turn 2, every conversation that met the fault `failed`, with the chatbot's
  turn as its proof;
- verdicts with proof: on the unmodified bots, seeds 1 to 3, two conversations each, no conversation `failed`.
The checks here are written independently of the code they check where they can be (a speaker-label regex,
the quote inside the chatbot's turn). Few conversations, few turns: the model runs on one thread.
"""

from __future__ import annotations

import json
import logging
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import cli
from engine.bots.server import Faults, build_server
from engine.sensei.closing import normalise
from engine.sensei.evidence import mentions, states

pytestmark = pytest.mark.real_llm

PIZZA = """
test_name: pizza_order
user:
  role: You order a pizza to pick up tonight.
  goals:
    - "order a {{size}} margherita pizza and {{drinks}} coke"
    - size: {function: forward(), type: string, data: [small, large]}
    - drinks: {function: forward(), type: int, data: [1]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: the total price of the order}
conversation: {number: 2, goal_style: {steps: 3}, interaction_style: [default]}
"""
BIKE = """
test_name: bike_booking
user:
  role: Your bike needs the workshop.
  goals:
    - "book a {{service}} for tomorrow at {{hour}}"
    - service: {function: forward(), type: string, data: [repair, tune-up]}
    - hour: {function: forward(), type: string, data: [10am]}
chatbot:
  is_starter: true
  fallback: Sorry, the workshop is noisy today. Could you say that again?
  output:
    - price: {type: money, description: the starting price of the service}
conversation: {number: 2, goal_style: {steps: 2}, interaction_style: [default]}
"""
CONNECTOR = """technology: http
base_url: {url}
timeout: 30
new_conversation: {{path: /chat, method: POST, payload_template: {{}}, session_id_path: session_id, greeting_path: messages}}
send_message: {{path: /chat, method: POST, payload_template: {{session_id: "{{session_id}}", message: "{{user_msg}}"}}}}
messages_path: messages
buttons_path: buttons
"""
# A line of a user message that speaks for the chatbot, as the 135M model writes them ("Chatbot: Thank you…").
SPEAKS_FOR_CHATBOT = re.compile(r"^\W*(chat\s?bot|assistant|bot|agent)\W*:", re.IGNORECASE | re.MULTILINE)
LLM_ERRORS = {3000, 3001}
SIMULATOR_REASONS = {
    "user_left_role",
    "user_llm_failed",
    "inputs_not_conveyed",
    "goal_not_asked",
    "cut_short",
}
GOAL_REASONS = {"goal_not_completed", "goals_not_verified", "fallback_loop", "repetition_loop"}


@pytest.fixture(scope="module")
def bots() -> Iterator[dict[str, str]]:
    """The unmodified pizza and bike bots, and the pizza bot answering HTTP 500 on every conversation's turn 2."""
    servers = {
        "pizza": build_server("pizza", protocol="json")[0],
        "bike": build_server("bike", protocol="json")[0],
        "pizza-500": build_server("pizza", protocol="json", faults=Faults(fail_on_turn=2))[0],
    }
    for server in servers.values():
        server.start()
    yield {name: server.base_url for name, server in servers.items()}
    for server in servers.values():
        server.stop()


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")


def sensei_cli(
    tmp_path: Path, bot_url: str, llm_url: str, model: str, profile: str, *extra: str, seed: int = 1
) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    (tmp_path / "profile.yaml").write_text(profile)
    (tmp_path / "bot.yaml").write_text(CONNECTOR.format(url=bot_url))
    out = tmp_path / "out"
    code = cli.main(
        [
            "sensei", "run", str(tmp_path / "profile.yaml"), "--connector", str(tmp_path / "bot.yaml"),
            "--provider", "openai-compatible", "--base-url", llm_url, "--model", model, "--api-key", "none",
            "--seed", str(seed), "--concurrency", "2", "--out", str(out), "--junit", str(tmp_path / "junit.xml"), *extra,
        ]
    )  # fmt: skip
    records = [json.loads(path.read_text()) for path in sorted(out.glob("*/*.json"))]
    return code, records, json.loads((out / "summary.json").read_text())


def assert_done_when(records: list[dict[str, Any]]) -> None:
    """The four points of the issue's Done-when that hold for any conversation."""
    assert records
    for record in records:
        where = f"{record['profile']} #{record['index']}"
        assert not {e["code"] for e in record["errors"]} & LLM_ERRORS, (where, record["errors"])
        assert record["verdict"] in ("passed", "failed", "inconclusive") and record["verdict_reason"], where
        for turn in record["turns"]:
            if turn["role"] == "user":
                assert not SPEAKS_FOR_CHATBOT.search(turn["text"]), (where, turn["text"])
        for name, value in record["outputs"].items():
            proof = record["evidence"][name]
            if value is None:
                assert proof["reason"], (where, name, proof)
                continue
            said = record["turns"][proof["turn"]]
            assert said["role"] == "bot", (where, name, proof)
            assert normalise(proof["quote"]) in normalise(said["text"]), (where, name, proof, said["text"])
            assert states("money", value, said["text"], date.today()), (where, name, value, said["text"])
        said = "\n".join(t["text"] for t in record["turns"] if t["role"] == "user")
        unsaid = [v for v in record["inputs"].values() if not mentions(v, said, date.today())]
        if record["verdict"] == "failed" and record["verdict_reason"].split(":")[0] in GOAL_REASONS:
            assert not unsaid, (where, record["verdict_reason"], said)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("bot", "profile"), [("pizza", PIZZA), ("bike", BIKE)])
def test_sensei_cli_on_an_unmodified_bot_keeps_every_verdict_about_the_chatbot(
    tmp_path, bots, real_llm_url, real_llm_model, bot, profile, seed, capsys, caplog
):
    caplog.set_level(logging.INFO)  # the handler too: the LLM server's answers are logged (by httpx) at INFO
    # Two user messages each (CI budget: three seeds, two bots, two conversations each, with a 135M model).
    short = profile.replace("steps: 3", "steps: 2")
    code, records, summary = sensei_cli(tmp_path, bots[bot], real_llm_url, real_llm_model, short, seed=seed)
    printed = capsys.readouterr()
    assert len(records) == 2
    assert_done_when(records)
    # Verdicts with proof (README D28): the unmodified bot has no fault, so whatever the 135M model does as the user and
    # the extractor, no conversation is `failed` — each one that is not passed says why and who is at fault.
    assert [(r["verdict_reason"], r["fault"]) for r in records if r["verdict"] == "failed"] == []
    assert all(
        r["fault"] in (None, "simulated_user", "parley_llm", "infrastructure", "test_setup") for r in records
    )
    assert code == 0 and summary["faults"]["chatbot"] == 0
    # The server refuses `json_schema` with an HTTP 500: learned once, said once, never retried. Whether the run
    # asks for structured output at all depends on the model (a conversation cut short never reaches extraction).
    calls = [r.getMessage() for r in caplog.records if r.name == "httpx" and "completions" in r.getMessage()]
    refused = [line for line in calls if " 500 " in line]
    adapted = [line for line in printed.err.splitlines() if "refused a parameter" in line]
    assert len(refused) <= 2, calls  # at most the two concurrent conversations' first structured calls
    assert len(adapted) == (1 if refused else 0), printed.err
    assert all("json_schema" in line for line in adapted), adapted
    assert not [r.message for r in caplog.records if "retrying" in r.getMessage()]
    # The run says what the simulator did: verdicts, reasons apart, slips counted.
    verdicts = summary["verdicts"]
    assert sum(verdicts.values()) == 2
    assert sum(summary["inconclusive_reasons"].values()) == verdicts["inconclusive"]
    assert summary["simulator_slips"] == sum(len(r["outcome"]["simulator_slips"]) for r in records)
    assert f"{verdicts['passed']} passed, {verdicts['failed']} failed" in printed.out
    assert "simulator slips:" in printed.out


def test_against_a_bot_that_answers_500_on_turn_2_every_conversation_that_meets_it_fails(
    tmp_path, bots, real_llm_url, real_llm_model, capsys
):
    profile = PIZZA.replace("steps: 3", "steps: 2").replace(
        "  output:\n    - price: {type: money, description: the total price of the order}\n", "  output: []\n"
    )
    code, records, summary = sensei_cli(tmp_path, bots["pizza-500"], real_llm_url, real_llm_model, profile)
    capsys.readouterr()
    assert len(records) == 2
    assert_done_when(records)
    # Every conversation whose second message reached the bot met the fault, and is `failed` for it. One whose
    # simulated user left its role before its second message never met it: inconclusive, and said why.
    met = [r for r in records if sum(t["role"] == "user" for t in r["turns"]) >= 2]
    assert met, [r["verdict_reason"] for r in records]
    for record in records:
        if record in met:
            assert record["verdict"] == "failed", record["verdict_reason"]
            assert record["verdict_reason"].startswith("chatbot_crash"), record["verdict_reason"]
            # The proof: the chatbot's reply to the second user message, the one that never came.
            second = [i for i, t in enumerate(record["turns"]) if t["role"] == "user"][1]
            assert (record["fault"], record["evidence_turn"]) == ("chatbot", second + 1)
        else:
            assert record["verdict"] == "inconclusive", record["verdict_reason"]
            assert record["verdict_reason"].split(":")[0] in SIMULATOR_REASONS, record["verdict_reason"]
    assert summary["failed_reasons"] == {"chatbot_crash": len(met)} and code == 1
    suite = ET.parse(tmp_path / "junit.xml").getroot()[0]
    assert (suite.get("failures"), suite.get("skipped")) == (str(len(met)), str(len(records) - len(met)))


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_platform_sensei_run_with_the_real_model(celery_worker, auth_api, real_llm_url, real_llm_model):
    from runs.models import Conversation, RunEvent
    from tests.conftest import create_llm_key, create_pizza_project, finished_run

    key = create_llm_key(auth_api, real_llm_url, name="local", key="none")
    models = {"exploration_model": real_llm_model, "profile_model": real_llm_model}
    project = create_pizza_project(auth_api, key, "Pizza, real model", **models)
    text = PIZZA.replace("steps: 3", "steps: 2")
    profile = auth_api.post(f"/api/projects/{project['id']}/profiles/", {"text": text}, format="json").json()
    assert profile["valid"], profile["problems"]
    started = auth_api.post(
        f"/api/projects/{project['id']}/runs/",
        {"kind": "sensei", "profiles": [profile["id"]], "concurrency": 2, "seed": 1},
        format="json",
    )
    assert started.status_code == 201, started.json()
    run_id = started.json()["id"]
    run = finished_run(auth_api, run_id, seconds=600, interval=1.0)
    assert run and run["status"] == "succeeded", (run or {}).get("error_message")
    records = [row.record for row in Conversation.objects.filter(run_id=run_id)]
    assert len(records) == 2
    assert_done_when(records)
    result = run["result"]
    assert result["passed"] + result["failed"] + result["inconclusive"] == 2
    assert result["ok"] == (result["failed"] == 0)
    assert (
        result["failed"] == 0 and result["faults"]["chatbot"] == 0
    )  # the unmodified bot: no fault of its own
    assert sum(result["faults"].values()) == result["inconclusive"]
    warnings = [e.data["text"] for e in RunEvent.objects.filter(run_id=run_id, type=RunEvent.Type.WARNING)]
    extracted = any(proof["reason"] != "not_extracted" for r in records for proof in r["evidence"].values())
    adapted = [w for w in warnings if "refused a parameter" in w]
    assert len(adapted) <= 1 and all("json_schema" in w for w in adapted), adapted
    if extracted:  # an extraction asked for structured output, which this server refuses as `json_schema`
        assert len(adapted) == 1, warnings
    stats = auth_api.get(f"/api/runs/{run_id}/stats/").json()
    assert stats["failed"] == result["failed"] and stats["simulator_slips"] == result["simulator_slips"]
