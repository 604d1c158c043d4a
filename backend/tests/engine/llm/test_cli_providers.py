"""The issue's done-when, through the CLI: `parley sensei run` and `parley tracer` with gpt-5-mini, o4-mini and
gpt-4o-mini against the strict OpenAI double complete every conversation with at most one refusal per distinct
parameter per run; a provider that is down fails the run within 30 s with its message; a provider answering
429 with `Retry-After: 2` still gets every conversation done."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import cli
from engine.bots.connector import register_demo_bots
from engine.llm.offline.server import FakeLLMServer, running_fake_server
from engine.sensei.simulator import TAG_EXTRACT, TAG_USER_TURN
from tests.doubles.connectors import fake_for, params_for
from tests.engine.tracer.conftest import BotConnector, ground_truth_script

MODELS = ("gpt-5-mini", "o4-mini", "gpt-4o-mini")

PROFILE = """
test_name: opening_hours
llm:
  temperature: 0.8
  model: {model}
user:
  role: You want to know when the shop opens.
  goals: ["ask when the shop opens on {{{{day}}}}", {{day: {{function: forward(), type: string, data: [monday, tuesday, friday]}}}}]
chatbot:
  is_starter: false
  fallback: Sorry, I did not get that.
  output:
    - opening: {{type: time, description: the opening time}}
conversation: {{number: combinations, goal_style: {{steps: 2}}, interaction_style: [default]}}
"""
SCRIPT = {
    TAG_USER_TURN: ["When do you open?", "Thanks, that is all."],
    TAG_EXTRACT: {"json": {"opening": "09:00"}},
}


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[Path]:
    server, params = fake_for("http", lambda session, text: "We open at 9am every weekday.")
    with server:
        connector = tmp_path / "bot.yml"
        connector.write_text(yaml.safe_dump(params_for("http", server, params)))
        yield connector


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    for variable in ("PARLEY_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)


def refusals_by_parameter(server: FakeLLMServer) -> Counter[str]:
    return Counter(str(r.error["error"].get("param")) for r in server.refused())


def sensei_run(
    tmp_path: Path, connector: Path, server: FakeLLMServer, *options: str, model: str = "gpt-5-mini"
) -> int:
    profile = tmp_path / "profile.yml"
    profile.write_text(PROFILE.format(model=model))
    base = ["sensei", "run", str(profile), "--connector", str(connector), "--base-url", server.base_url]
    return cli.main(
        [*base, "--api-key", "sk-cli-test", "--seed", "3", "--out", str(tmp_path / "out"), *options]
    )


def summary_of(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out" / "summary.json").read_text())


@pytest.mark.parametrize("model", MODELS)
def test_sensei_run_completes_every_conversation_with_each_model_and_no_refusal(
    tmp_path, shop, capsys, model
):
    with running_fake_server(SCRIPT) as server:
        code = sensei_run(
            tmp_path, shop, server, "--provider", "openai-compatible", "--model", model, "--concurrency", "3"
        )
    assert code == 0, capsys.readouterr().err
    summary = summary_of(tmp_path)
    assert (summary["conversations"], summary["with_errors"]) == (3, 0)
    assert refusals_by_parameter(server) == Counter()
    assert {r.body["model"] for r in server.chat_requests()} == {model}
    record = json.loads((tmp_path / "out" / "opening_hours" / "0000.json").read_text())
    assert record["outputs"] == {"opening": "09:00:00"}
    assert record["settings"]["user_model"] == model
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning:" in line]
    # The validator points at the profile's line; the run says once what it adapted.
    located = [line for line in warnings if "profile.yml:" in line]
    adapted = [line for line in warnings if line not in located]
    # The profile itself names gpt-5-mini with a temperature: the validator says so whatever --model plays.
    assert len(located) == 1 and "gpt-5-mini accepts only its default temperature" in located[0]
    if model == "gpt-4o-mini":
        assert adapted == []
    else:  # the profile's temperature 0.8 (and the judge's 0) are left out, said once
        assert len(adapted) == 1 and f"{model} accepts only its default temperature" in adapted[0]


def test_a_model_parley_does_not_know_is_learned_with_one_refusal_per_parameter(tmp_path, shop, capsys):
    with running_fake_server(
        SCRIPT, models=("acme-reasoner",), kinds={"acme-reasoner": "reasoning"}
    ) as server:
        code = sensei_run(
            tmp_path, shop, server, "--provider", "openai-compatible", "--model", "acme-reasoner",
            "--concurrency", "3",
        )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err
    assert (summary_of(tmp_path)["conversations"], summary_of(tmp_path)["with_errors"]) == (3, 0)
    refusals = refusals_by_parameter(server)
    assert refusals == Counter({"max_tokens": 1, "temperature": 1})
    assert err.count("refused a parameter for acme-reasoner") == 2


def test_without_an_override_the_profile_model_plays_the_user_and_the_run_model_judges(
    tmp_path, shop, capsys
):
    with running_fake_server(SCRIPT) as server:
        code = sensei_run(tmp_path, shop, server, "--provider", "openai", model="gpt-5-mini")
    assert code == 0, capsys.readouterr().err
    models = {(r.tag, r.body["model"]) for r in server.chat_requests()}
    assert models == {(TAG_USER_TURN, "gpt-5-mini"), (TAG_EXTRACT, "gpt-4.1-mini")}
    usage = summary_of(tmp_path)["usage"]
    assert usage["models_by_tag"] == {TAG_EXTRACT: ["gpt-4.1-mini"], TAG_USER_TURN: ["gpt-5-mini"]}
    record = json.loads((tmp_path / "out" / "opening_hours" / "0000.json").read_text())
    assert (record["settings"]["user_model"], record["settings"]["judge_model"]) == (
        "gpt-5-mini",
        "gpt-4.1-mini",
    )


def test_a_provider_answering_429_with_retry_after_2_still_completes_every_conversation(
    tmp_path, shop, capsys
):
    with running_fake_server(SCRIPT) as server:
        server.inject("rate_limit", times=2, retry_after=2)
        started = time.monotonic()
        code = sensei_run(
            tmp_path,
            shop,
            server,
            "--provider",
            "openai-compatible",
            "--model",
            "gpt-5-mini",
            "--concurrency",
            "3",
        )
    assert code == 0, capsys.readouterr().err
    assert (summary_of(tmp_path)["conversations"], summary_of(tmp_path)["with_errors"]) == (3, 0)
    assert [r.status for r in server.chat_requests()].count(429) == 2
    assert time.monotonic() - started >= 2  # the wait the provider asked for was kept


def test_a_provider_that_is_down_fails_the_sensei_run_within_30_s_with_its_message(tmp_path, shop, capsys):
    with running_fake_server(SCRIPT) as server:
        server.inject("server_error", times=10_000, status=503, message="The engine is currently overloaded.")
        started = time.monotonic()
        code = sensei_run(
            tmp_path,
            shop,
            server,
            "--provider",
            "openai-compatible",
            "--model",
            "gpt-4o-mini",
            "--concurrency",
            "3",
        )
        elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 1
    assert elapsed < 30, elapsed
    assert "has failed 5 times in a row: HTTP 503: The engine is currently overloaded." in err
    assert len(server.chat_requests()) <= 5 + 3


@pytest.fixture
def demo_bots() -> Iterator[None]:
    previous = register_demo_bots(BotConnector)
    yield
    register_demo_bots(previous)


@pytest.mark.parametrize("model", MODELS)
def test_tracer_completes_with_each_model_and_no_refusal(tmp_path, demo_bots, capsys, model):
    connector = tmp_path / "bot.yaml"
    connector.write_text("technology: demo\nbot: bike\n")
    with running_fake_server(ground_truth_script("bike")) as server:
        code = cli.main(
            [
                "tracer", "--connector", str(connector), "--provider", "openai-compatible",
                "--base-url", server.base_url, "--api-key", "sk-cli-test", "-m", model, "-s", "2", "-n", "3",
                "-o", str(tmp_path / "out"), "--json", str(tmp_path / "summary.json"),
            ]
        )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["ok"] and summary["profiles"] == 2
    assert refusals_by_parameter(server) == Counter()
    assert {r.body["model"] for r in server.chat_requests()} == {model}


def test_tracer_learns_an_unknown_reasoning_model_once_per_parameter(tmp_path, demo_bots, capsys):
    connector = tmp_path / "bot.yaml"
    connector.write_text("technology: demo\nbot: bike\n")
    scenario = ground_truth_script("bike")
    with running_fake_server(
        scenario, models=("acme-reasoner",), kinds={"acme-reasoner": "reasoning-early"}
    ) as server:
        code = cli.main(
            [
                "tracer", "--connector", str(connector), "--provider", "openai-compatible",
                "--base-url", server.base_url, "-m", "acme-reasoner", "-s", "2", "-n", "3",
                "-o", str(tmp_path / "out"),
            ]
        )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    refusals = refusals_by_parameter(server)
    # o1-mini-like: no temperature, no system role, no response format, no tools; each refused once, never again.
    assert refusals == Counter({"temperature": 1, "messages[0].role": 1, "response_format": 1, "tools": 1})
    assert "warning:" in capsys.readouterr().err
