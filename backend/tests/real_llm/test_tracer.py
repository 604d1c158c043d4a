"""TRACER with the real model (SmolLM2-135M-Instruct), on the CLI against the pizza and bike bots and through one
platform run: every exploration session completes, no LLM call fails, and the server's refusal of `json_schema`
(an HTTP 500) is learned once per run, said once, never retried. A 135M model finds few functionalities, if any:
what is asserted is that TRACER copes with the server and the model, not what the model understood."""

from __future__ import annotations

import json
import logging

import pytest

import cli

pytestmark = pytest.mark.real_llm


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")


@pytest.mark.parametrize("bot", ["pizza", "bike"])
def test_tracer_cli_explores_a_reference_bot_with_the_real_model(
    tmp_path, real_llm_url, real_llm_model, bot, capsys, caplog
):
    caplog.set_level(logging.WARNING, logger="engine.llm")
    connector = tmp_path / "bot.yaml"
    connector.write_text(f"technology: demo\nbot: {bot}\n")
    out = tmp_path / "out"
    code = cli.main(
        [
            "tracer", "--connector", str(connector), "--provider", "openai-compatible", "--base-url", real_llm_url,
            "--api-key", "none", "-m", real_llm_model, "-s", "1", "-n", "2", "--seed", "1", "-o", str(out),
            "--json", str(tmp_path / "summary.json"),
        ]
    )  # fmt: skip
    printed = capsys.readouterr()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert code == (0 if summary["ok"] else 1), printed.err  # never 2: the server and the model were usable
    assert summary["usage"]["calls"] > 0 and summary["usage"]["failed_calls"] == 0, summary["usage"]
    sessions = json.loads((out / "transcripts.json").read_text())
    assert len(sessions) == 1 and sessions[0]["error"] is None, sessions
    assert any(turn["role"] == "chatbot" for turn in sessions[0]["turns"])
    assert (out / "report.md").exists() and (out / "model.json").exists()
    adapted = [line for line in printed.err.splitlines() if "refused a parameter" in line]
    assert len(adapted) == 1 and "json_schema" in adapted[0], printed.err
    assert not [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_platform_tracer_run_with_the_real_model(celery_worker, auth_api, real_llm_url, real_llm_model):
    from runs.models import Artefact, RunEvent
    from tests.conftest import create_llm_key, create_pizza_project, finished_run

    key = create_llm_key(auth_api, real_llm_url, name="local", key="none")
    models = {"exploration_model": real_llm_model, "profile_model": real_llm_model}
    project = create_pizza_project(auth_api, key, "Bike, real model", bot="bike", **models)
    started = auth_api.post(
        f"/api/projects/{project['id']}/runs/", {"kind": "tracer", "sessions": 1, "turns": 2}, format="json"
    )
    assert started.status_code == 201, started.json()
    run_id = started.json()["id"]
    run = finished_run(auth_api, run_id, seconds=600, interval=1.0)
    assert run and run["status"] == "succeeded", (run or {}).get("error_message")
    assert run["progress"] == {"done": 1, "total": 1}
    names = set(Artefact.objects.filter(run_id=run_id).values_list("name", flat=True))
    assert {"model", "report", "transcripts", "usage"} <= names
    transcripts = Artefact.objects.get(run_id=run_id, name="transcripts").content
    assert transcripts[0]["error"] is None and any(t["role"] == "chatbot" for t in transcripts[0]["turns"])
    assert Artefact.objects.get(run_id=run_id, name="usage").content["failed_calls"] == 0
    warnings = [e.data["text"] for e in RunEvent.objects.filter(run_id=run_id, type=RunEvent.Type.WARNING)]
    assert sum("refused a parameter" in w and "json_schema" in w for w in warnings) == 1, warnings
