"""`parley bench` over HTTP: the fake OpenAI-compatible server on 127.0.0.1 plays TRACER and SENSEI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commands import bench as bench_command
from engine.llm.offline.server import running_fake_server
from tests.parley_cli import run_command

from .conftest import sensei_script, tracer_script


def _main(argv: list[str]) -> int:
    return run_command(bench_command, *argv)


def test_cli_bench_writes_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    monkeypatch.setenv("PARLEY_API_KEY", "sk-fake")
    out = tmp_path / "bench"
    script = {**tracer_script("bike"), **sensei_script("bike")}
    with running_fake_server(script) as server:
        code = _main(
            [
                "bench",
                "--bots",
                "bike",
                "--provider",
                "openai-compatible",
                "--base-url",
                server.base_url,
                "--model",
                "fake-model",
                "-s",
                "2",
                "-n",
                "3",
                "--repeats",
                "2",  # one repeat kills nothing: a kill needs two conclusive runs of the original
                "--controls",
                "1",
                "--concurrency",
                "1",
                "--mutant",
                "bike:crash-on-value-1",
                "--out",
                str(out),
                "--json",
                str(tmp_path / "summary.json"),
            ]
        )
    assert code == 0, capsys.readouterr().err
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["killed"] == 1
    assert summary["mutation_score"] == 100.0
    data = json.loads((out / "bench.json").read_text())
    assert data["config"]["model"] == "fake-model"
    assert data["overall"]["usage"]["calls"] > 0
    assert (out / "bench.md").exists()
    assert "mutation score 100.0 %" in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra",
    [["--bots", "nosuchbot"], ["--operators", "no-such-operator"], ["--mutant", "bike"]],
)
def test_cli_bench_usage_errors(tmp_path: Path, extra: list[str]) -> None:
    argv = ["bench", "--provider", "openai", "--api-key", "sk-x", "--out", str(tmp_path), *extra]
    assert _main(argv) == 2


def test_cli_prints_the_estimate_first_and_honours_max_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = [
        "bench",
        "--provider",
        "openai",
        "--api-key",
        "sk-x",
        "--model",
        "gpt-4.1-mini",
        "--out",
        str(tmp_path),
    ]
    assert _main([*base, "--estimate", "--json", str(tmp_path / "estimate.json")]) == 0
    estimate = json.loads((tmp_path / "estimate.json").read_text())
    assert estimate["cost_usd"] > 1 and estimate["conversations"] > 0
    assert capsys.readouterr().err.startswith("Estimate: about ")
    # An estimate above the budget: refused before any call, with the way out.
    assert _main([*base, "--max-cost", "0.5"]) == 2
    err = capsys.readouterr().err
    assert "is above --max-cost $0.50" in err and "--repeats" in err
    # A budget on a model Parley cannot price cannot be kept.
    unpriced = [
        "bench",
        "--provider",
        "openai-compatible",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--api-key",
        "x",
    ]
    assert _main([*unpriced, "--model", "my-local-model", "--max-cost", "5", "--out", str(tmp_path)]) == 2
    assert "needs a model with a known price" in capsys.readouterr().err
    assert not (tmp_path / "bench.json").exists()


def test_cli_bench_on_the_imperfect_doubles_labels_its_figures_as_fake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fake"
    argv = ["bench", "--double", "imperfect", "--bots", "bike", "--operators", "crash-on-value"]
    argv += ["--mutants-per-operator", "1", "--repeats", "1", "--controls", "0", "-s", "2", "-n", "3"]
    assert _main([*argv, "--out", str(out)]) == 0
    data = json.loads((out / "bench.json").read_text())
    assert data["provenance"]["llm_note"].startswith("fake LLM")
    assert data["provenance"]["matcher"] == "lexical"
    assert "fake LLM" in (out / "bench.md").read_text().splitlines()[2]
    assert "[fake LLM" in capsys.readouterr().out
