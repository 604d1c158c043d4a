"""`parley qualify` on the command line: the estimate comes first, --max-cost refuses above it (an unpriced
model is estimated in time instead), a bad models list is a usage error; nothing is called before that."""

from __future__ import annotations

from pathlib import Path

import pytest

from commands import qualify as qualify_command
from tests.parley_cli import run_command


def _main(argv: list[str]) -> int:
    return run_command(qualify_command, *argv)


def test_the_estimate_comes_first_and_max_cost_refuses_above_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PARLEY_API_KEY", "sk-fake")
    monkeypatch.setenv("PARLEY_LOCAL_LLM_URL", "http://127.0.0.1:8297/v1")
    base = [
        "qualify",
        "--models",
        "openai:gpt-4.1,local:smollm2-135m,double:imperfect",
        "--out",
        str(tmp_path),
    ]
    assert _main([*base, "--estimate"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(
        "Estimate (size default, partner openai:gpt-4.1)"
    )  # the priced one is the strongest
    assert "openai:gpt-4.1: ~" in err and "about $" in err
    assert "local:smollm2-135m" in err and "unpriced: about" in err and "min of LLM time" in err
    assert _main([*base, "--max-cost", "0.01"]) == 2
    err = capsys.readouterr().err
    assert "is above --max-cost $0.01" in err and "--size tiny" in err
    assert not (tmp_path / "qualify.json").exists()
    # Unpriced models alone are never refused on cost: they are estimated in time.
    assert (
        _main(["qualify", "--models", "local:x", "--max-cost", "0", "--estimate", "--out", str(tmp_path)])
        == 0
    )


@pytest.mark.parametrize(
    "models", ["gpt-4", "double:great", "openai-compatible:qwen", "double:imperfect,double:imperfect"]
)
def test_a_models_list_it_cannot_read_is_a_usage_error(
    models: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(["qualify", "--models", models, "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("parley: ")


def test_a_partner_not_in_the_list_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["qualify", "--models", "double:imperfect", "--partner", "double:perfect", "--out", str(tmp_path)]
    assert _main(argv) == 2
    assert "is not in --models" in capsys.readouterr().err


def test_the_default_plan_costs_under_a_dollar_on_a_priced_model_and_covers_every_operator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from engine.bots import bot_ids
    from engine.bots.registry import mutants_of
    from engine.evaluation.bench_runs import select_mutants
    from engine.evaluation.config import BenchConfig
    from engine.evaluation.qualify_plan import SIZES

    monkeypatch.setenv("PARLEY_API_KEY", "sk-fake")
    argv = ["qualify", "--models", "openai:gpt-4.1-mini", "--estimate", "--out", str(tmp_path)]
    assert _main(argv) == 0
    err = capsys.readouterr().err
    assert err.startswith("Estimate (size default, partner openai:gpt-4.1-mini)")
    total = float(err.split("total priced: about $")[1].split()[0])
    assert 0.0 < total < 1.0
    assert _main([*argv, "--max-cost", "1"]) == 0  # a one-dollar cap lets the default through
    plan = SIZES["default"]
    assert plan.controls >= 3 and plan.repeats >= 3
    for bot in plan.bots:
        assert bot in bot_ids()
        drawn = select_mutants(bot, BenchConfig(bots=(bot,), mutants_per_operator=plan.mutants_per_operator))
        every = {m.operator for m in mutants_of(bot) if not m.stillborn}
        assert {m.operator for m in drawn if not m.stillborn} == every
