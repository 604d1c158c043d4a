"""`parley tracer` end to end over HTTP: the fake OpenAI-compatible server, a reference bot, sqlite checkpoints."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from commands import tracer as tracer_command
from engine.bots.connector import register_demo_bots
from engine.llm.offline.server import running_fake_server

from .conftest import BotConnector, ground_truth_script


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parley")
    tracer_command.register(parser.add_subparsers(dest="command"))
    return parser


def _main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return int(args.handler(args))


@pytest.fixture
def demo_bots() -> Iterator[None]:
    previous = register_demo_bots(BotConnector)
    yield
    register_demo_bots(previous)


def test_plumbing_cli_run_writes_artefacts_and_resumes(
    tmp_path: Path, demo_bots: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    connector = tmp_path / "bot.yaml"
    connector.write_text("technology: demo\nbot: bike\n")
    out = tmp_path / "out"
    with running_fake_server(ground_truth_script("bike")) as server:
        argv = [
            "tracer",
            "--connector",
            str(connector),
            "--provider",
            "openai-compatible",
            "--base-url",
            server.base_url,
            "-m",
            "fake-model",
            "-pm",
            "gpt-4.1-mini",
            "-s",
            "2",
            "-n",
            "3",
            "-o",
            str(out),
            "--json",
            str(tmp_path / "summary.json"),
        ]
        assert _main([*argv, "--seed", "7"]) == 0
        summary = json.loads((tmp_path / "summary.json").read_text())
        assert summary["ok"] and summary["profiles"] == 2
        assert (out / ".checkpoint.sqlite").is_file()
        for name in ("model.json", "report.md", "graph.json", "transcripts.json", "usage.json"):
            assert (out / name).is_file()
        assert "model: gpt-4.1-mini" in next((out / "profiles").glob("*.yaml")).read_text()
        calls = len(server.requests)
        # --resume on a finished run returns its result without calling anything again.
        assert _main([*argv, "--resume"]) == 0
        assert len(server.requests) == calls
        # The seed given is kept in OUT and the resume uses it, as the platform stores it with the run.
        assert summary["seed"] == 7
        assert json.loads((out / "seed.json").read_text()) == {"seed": 7}
        assert json.loads((tmp_path / "summary.json").read_text())["seed"] == 7


def test_without_seed_a_random_one_is_chosen_and_kept_for_the_resume(tmp_path: Path) -> None:
    path = tmp_path / "seed.json"
    first = tracer_command._seed(path, None, resume=False)
    assert json.loads(path.read_text()) == {"seed": first}
    assert tracer_command._seed(path, None, resume=True) == first
    others = {tracer_command._seed(path, None, resume=False) for _ in range(5)}
    assert len(others | {first}) > 1  # random, not a constant 0


def test_cli_bad_connector_file_is_a_usage_error(tmp_path: Path) -> None:
    connector = tmp_path / "bot.yaml"
    connector.write_text("technology: nosuchthing\n")
    assert (
        _main(
            [
                "tracer",
                "--connector",
                str(connector),
                "--provider",
                "openai-compatible",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "-m",
                "x",
                "-o",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    with pytest.raises(SystemExit) as exit_info:
        _main(["tracer", "--connector", str(connector), "-o", str(tmp_path / "o"), "-s", "0"])
    assert exit_info.value.code == 2
