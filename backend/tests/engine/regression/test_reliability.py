"""pass^k and pass@1 over repeats (README D33): counted from records, shown by `parley sensei run`, gated by
`parley sensei compare --gate pass-k` and `min_pass_rate`, and measured on a reference bot that is really flaky."""

from __future__ import annotations

import argparse
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from commands import sensei
from engine.bots.server import Faults, build_server
from engine.connectors import create_connector
from engine.connectors.base import RetryPolicy
from engine.egress import EgressGuard, EgressPolicy
from engine.regression import Repeats, reliability, reliability_text, run_data
from engine.sensei import SenseiJob, run_profiles
from tests.engine.sensei.conftest import TODAY, profile_from
from tests.engine.sensei.test_scripted import ORDER, _forbidden_llm

from .records import record, write_run

GUARD = EgressGuard(EgressPolicy.parse("127.0.0.1"))


def repeats_of(profile: str, planned: int, verdicts: str, **settings: Any) -> list[dict[str, Any]]:
    """The records of one planned conversation's repeats: `verdicts` spelled P (passed), F (failed), I."""
    names = {"P": "passed", "F": "failed", "I": "inconclusive"}
    k = len(verdicts)
    out = []
    for repeat, letter in enumerate(verdicts):
        item = record(
            profile,
            planned * k + repeat,
            inputs={"n": planned},
            verdict=names[letter],
            reason=f"{names[letter]}: test",
            repeat=repeat,
            planned=planned,
        )
        item["settings"].update(settings)
        out.append(item)
    return out


def run_cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="parley")
    sensei.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sensei", *argv])
    return int(args.handler(args))


# -- counting --------------------------------------------------------------------------------------------------


def test_pass_k_counts_planned_conversations_whose_decided_repeats_all_passed():
    records = (
        repeats_of("order", 0, "PPP")
        + repeats_of("order", 1, "PFP")  # flaky: passes 2 of 3, fails pass^3
        + repeats_of("order", 2, "PIP")  # an inconclusive repeat is left out: 2 of 2 decided passed
        + repeats_of("order", 3, "III")  # nothing decided: listed, not counted
    )
    (profile,) = reliability(run_data("run", records).conversations)
    data = profile.to_json()
    assert (data["k"], data["planned"], data["counted"]) == (3, 4, 3)
    assert (data["pass_k"]["passed"], data["pass_k"]["decided"]) == (2, 3)
    assert (data["pass_at_1"]["passed"], data["pass_at_1"]["decided"]) == (7, 8)
    assert data["decided_repeats"] == 8 and data["repeats"] == 12 and data["flaky"] == 1
    assert data["pass_k"]["low"] < data["pass_k"]["rate"] < data["pass_k"]["high"]
    first = data["conversations"][0]
    assert (first["planned_index"], first["verdict"], first["pass_k"]) == (1, "flaky", False)
    by_index = {c["planned_index"]: c for c in data["conversations"]}
    assert by_index[2]["decided"] == 2 and by_index[2]["pass_k"] is True
    assert by_index[3]["decided"] == 0 and by_index[3]["pass_k"] is None
    text = reliability_text([profile])
    assert "order: pass^3 67 % [21-94 %] of 3 planned conversation(s) with a decided repeat (of 4)" in text
    assert "pass@1 88 % " in text and "of 8 decided repeat(s) (of 12); 1 flaky" in text
    assert "#1 (n=1): flaky, 2 of 3 decided repeat(s) passed (of 3)" in text


# -- a reference bot that fails only some of the time ----------------------------------------------------------


def _scripted_repeats(faults: Faults, k: int = 3, number: int = 6) -> list[Any]:
    server, _ = build_server("pizza", protocol="taskyto", faults=faults, today=TODAY)
    text = ORDER + f"conversation: {{number: {number}}}\n"
    llm, model = _forbidden_llm()
    repeats = Repeats(k)
    records: list[Any] = []
    fast = RetryPolicy(attempts=1, first_wait_s=0)
    with server:
        run_profiles(
            SenseiJob(
                [profile_from(text)],
                lambda: create_connector(
                    {"technology": "taskyto", "base_url": server.base_url}, GUARD, retry=fast
                ),
                llm,  # one order of turns, so the seeded fault fails the same turns every time
                replan=repeats.plan,
                sink=lambda r: records.append(repeats.tag(r)),
                seed=5,
                concurrency=1,
                today=lambda: TODAY,
            )
        )
    assert model.calls == 0
    return records


def test_on_the_flaky_pizza_bot_pass_k_falls_below_pass_at_1_with_no_llm_call():
    records = _scripted_repeats(Faults(fail_rate=0.15, fault_seed=11))
    (profile,) = reliability(run_data("run", records).conversations)
    verdicts = [r.verdict for r in sorted(records, key=lambda r: r.index)]
    assert set(verdicts) == {"passed", "failed"}  # it fails only some of the time
    assert all(r.verdict_reason.startswith("chatbot_crash") for r in records if r.verdict == "failed")
    assert profile.flaky >= 1
    assert profile.pass_k.rate is not None and profile.pass_at_1.rate is not None
    assert profile.pass_k.rate < profile.pass_at_1.rate
    # The same seed and order of turns give the same failures: the flakiness is reproducible.
    again = _scripted_repeats(Faults(fail_rate=0.15, fault_seed=11))
    assert [r.verdict for r in sorted(again, key=lambda r: r.index)] == verdicts


def test_on_the_original_pizza_bot_pass_k_equals_pass_at_1():
    records = _scripted_repeats(Faults(), number=2)
    (profile,) = reliability(run_data("run", records).conversations)
    assert profile.pass_k.rate == profile.pass_at_1.rate == 1.0 and profile.flaky == 0


def test_parley_sensei_run_prints_and_stores_pass_k_and_junit_carries_it(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("PARLEY_API_KEY", raising=False)
    monkeypatch.setenv("PARLEY_EGRESS_ALLOW", "127.0.0.1")
    server, _ = build_server("pizza", protocol="taskyto", faults=Faults(fail_rate=0.15, fault_seed=11))
    (tmp_path / "order.yaml").write_text(ORDER + "conversation: {number: 6}\n")
    with server:
        (tmp_path / "bot.yaml").write_text(f"technology: taskyto\nbase_url: {server.base_url}\n")
        code = run_cli(
            "run", str(tmp_path / "order.yaml"), "--connector", str(tmp_path / "bot.yaml"), "--repeats", "3",
            "--concurrency", "1", "--seed", "5", "--out", str(tmp_path / "out"), "--junit", str(tmp_path / "j.xml"),
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1  # some conversations failed
    assert "reliability (pass^k: every decided repeat passed; inconclusive repeats left out):" in out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["usage"]["calls"] == 0
    (profile,) = summary["reliability"]
    assert profile["k"] == 3 and profile["planned"] == 6
    assert profile["pass_k"]["rate"] < profile["pass_at_1"]["rate"]
    line = next(line for line in out.splitlines() if line.startswith("  pizza_total: pass^3 "))
    assert f"of {profile['pass_at_1']['decided']} decided repeat(s) (of 18)" in line
    case = next(
        c for c in ET.parse(tmp_path / "j.xml").iter("testcase") if c.get("name").endswith("reliability")
    )
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert float(properties["pass_k"]) == pytest.approx(profile["pass_k"]["rate"], abs=1e-4)
    assert properties["k"] == "3" and case.find("system-out").text == line.strip()


# -- the gates -------------------------------------------------------------------------------------------------


def _folders(tmp_path: Path, base: list[dict[str, Any]], new: list[dict[str, Any]]) -> tuple[str, str]:
    return str(write_run(tmp_path / "base", base)), str(write_run(tmp_path / "new", new))


def test_gate_pass_k_catches_a_task_that_now_fails_one_repeat_in_three(tmp_path, capsys):
    base = [r for p in range(10) for r in repeats_of("order", p, "PPP")]
    new = [r for p in range(10) for r in repeats_of("order", p, "PPF" if p < 5 else "PPP")]
    old, run = _folders(tmp_path, base, new)
    # The pass rate alone cannot tell: only flaky conversations make its drop.
    assert run_cli("compare", old, run) == 0
    assert "only flaky conversations make the drop" in capsys.readouterr().out
    junit = tmp_path / "compare.xml"
    assert run_cli("compare", old, run, "--gate", "pass-k", "--junit", str(junit)) == 1
    out = capsys.readouterr().out
    assert out.startswith("REGRESSED")
    assert "regressed    pass-k order: pass^3 100 % (10/10, CI 72-100 %) → 50 % (5/10, CI 24-76 %)" in out
    failing = [c for c in ET.parse(junit).iter("testcase") if c.get("classname") == "compare.pass-k"]
    assert [c.find("failure") is not None for c in failing] == [True]
    assert run_cli("compare", old, run, "--gate", "pass-k", "--json") == 1
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "regressed"
    assert [(g["gate"], g["status"]) for g in document["gates"]] == [("pass-k", "regressed")]


def test_gate_pass_k_with_too_few_planned_conversations_is_inconclusive(tmp_path, capsys):
    base = repeats_of("order", 0, "PPP") + repeats_of("order", 1, "PPP")
    new = repeats_of("order", 0, "PPP") + repeats_of("order", 1, "PFP")
    old, run = _folders(tmp_path, base, new)
    assert run_cli("compare", old, run, "--gate", "pass-k") == 0
    assert "too few planned conversations to tell" in capsys.readouterr().out
    assert run_cli("compare", old, run, "--gate", "pass-k", "--fail-on-inconclusive") == 1


def test_min_pass_rate_of_a_profile_and_the_cli_default(tmp_path, capsys):
    # pass@1 of `order` is 25 of 30 (83 %); `faq` passes everything.
    order = [r for p in range(10) for r in repeats_of("order", p, "PPF" if p < 5 else "PPP")]
    faq = [r for p in range(3) for r in repeats_of("faq", p, "PPP")]
    old, run = _folders(tmp_path, order + faq, order + faq)
    assert run_cli("compare", old, run) == 0
    assert run_cli("compare", old, run, "--min-pass-rate", "80%") == 0
    capsys.readouterr()
    assert run_cli("compare", old, run, "--min-pass-rate", "0.9") == 1
    out = capsys.readouterr().out
    assert (
        "failed       min-pass-rate order: pass@1 83 % (25/30, CI 66-93 %) is below --min-pass-rate 90 %"
        in out
    )
    assert "passed       min-pass-rate faq:" in out
    # A profile's own min_pass_rate wins over the command's default, both ways.
    strict = [r for p in range(3) for r in repeats_of("faq", p, "PPP", min_pass_rate=1.0)]
    lenient = [
        r for p in range(10) for r in repeats_of("order", p, "PPF" if p < 5 else "PPP", min_pass_rate=0.5)
    ]
    old, run = _folders(tmp_path / "own", lenient + strict, lenient + strict)
    assert run_cli("compare", old, run, "--min-pass-rate", "0.9") == 0
    assert "meets the profile's min_pass_rate 50 %" in capsys.readouterr().out


def test_gates_that_read_records_are_refused_with_a_server(capsys):
    assert run_cli("compare", "1", "2", "--server", "http://127.0.0.1:9", "--gate", "pass-k") == 2
    assert "work on folders" in capsys.readouterr().err
