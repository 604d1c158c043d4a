"""`parley sensei compare`: exit codes (README D25), the text, --json, --junit, --rules, --fail-on-inconclusive and bad
input, on folders as `parley sensei run --out` writes them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from commands import sensei
from tests.parley_cli import run_command

from .records import record, write_run


def run_cli(*argv: str) -> int:
    return run_command(sensei, "sensei", "compare", *argv)


@pytest.fixture
def folders(tmp_path):
    def make(name: str, records: list[dict], **options) -> str:
        return str(write_run(tmp_path / name, records, **options))

    return make


def clean(profile: str, n: int, **options) -> list[dict]:
    return [record(profile, i, **options) for i in range(n)]


def test_unchanged_exits_0_and_says_so(folders, capsys):
    base = folders("base", clean("order", 6), cost=0.01)
    new = folders("new", clean("order", 6), cost=0.012)
    assert run_cli(base, new) == 0
    out = capsys.readouterr().out
    assert out.startswith("UNCHANGED: ")
    assert "cost: $0.0100 → $0.0120 (+0.0020)" in out


def test_a_regression_exits_1_names_the_profile_and_json_carries_the_evidence(folders, capsys, tmp_path):
    base = folders("base", clean("order", 6) + clean("faq", 4))
    new = folders("new", clean("order", 6, errors=[500]) + clean("faq", 4))
    assert run_cli(base, new, "--json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "regressed"
    order = next(r for r in data["regressions"] if r["kind"] == "profile")
    assert order["name"] == "order" and len(order["newly_failing"]) == 6
    assert order["newly_failing"][0]["run"][0]["errors"][0]["code"] == 500
    assert run_cli(base, new, "--junit", str(tmp_path / "junit.xml")) == 1
    assert "profile order: regressed" in capsys.readouterr().out
    suite = ET.parse(tmp_path / "junit.xml").getroot()[0]
    failed = {case.get("name") for case in suite if case.find("failure") is not None}
    assert failed == {"all conversations", "order"}
    assert suite.get("tests") == "3"


def test_inconclusive_exits_0_with_the_reason_unless_asked_to_fail(folders, capsys, tmp_path):
    base = folders("base", clean("order", 2))
    new = folders("new", [record("order", 0), record("order", 1, errors=[500])])
    assert run_cli(base, new, "--junit", str(tmp_path / "j.xml")) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("INCONCLUSIVE")
    assert "the comparison is inconclusive: profile order: inconclusive" in captured.err
    skipped = ET.parse(tmp_path / "j.xml").getroot()[0].findall("testcase/skipped")
    assert skipped
    assert run_cli(base, new, "--fail-on-inconclusive") == 1


def test_the_threshold_is_an_option(folders):
    after = [record("order", i, errors=[500] if i < 6 else None) for i in range(20)]
    base, new = folders("base", clean("order", 20)), folders("new", after)
    assert run_cli(base, new) == 1
    assert run_cli(base, new, "--threshold", "50%") == 0
    assert run_cli(base, new, "--threshold", "0.5") == 0


def test_bad_usage_and_unreadable_input_exit_2(folders, tmp_path, capsys):
    base = folders("base", clean("order", 2))
    assert run_cli(base, str(tmp_path / "nowhere")) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert run_cli(base, str(tmp_path / "empty")) == 2
    broken = tmp_path / "broken" / "order"
    broken.mkdir(parents=True)
    (broken / "0000.json").write_text("{not json")
    assert run_cli(base, str(tmp_path / "broken")) == 2
    assert "cannot be read as JSON" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        run_cli(base, base, "--threshold", "2")
    assert usage.value.code == 2
    assert run_cli("1", "2", "--server", "http://127.0.0.1:9") == 2
    assert "PARLEY_TOKEN" in capsys.readouterr().err


def test_rules_from_check_json_or_checked_now(folders, tmp_path, capsys):
    def priced(run: str, price: str) -> list[dict]:
        return [record("order", i, outputs={"price": price}, run=run) for i in range(6)]

    def check_report(records: list[dict], failing: bool) -> dict:
        results = [{"conversations": [r["id"]], "outcome": "fail", "reason": "too cheap"} for r in records]
        return {
            "rules": [
                {
                    "name": "price_at_least_10",
                    "passed": 0 if failing else len(records),
                    "failed": len(records) if failing else 0,
                    "results": results if failing else [],
                }
            ]
        }

    before, after = priced("a", "12.50"), priced("b", "8.00")
    base = folders("base", before, check=check_report(before, failing=False))
    new = folders("new", after, check=check_report(after, failing=True))
    assert run_cli(base, new, "--json") == 1
    data = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in data["regressions"] if r["kind"] == "rule"] == ["price_at_least_10"]

    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "price.yml").write_text(
        "name: price_at_least_10\ndescription: nothing costs less than 10\noracle: extract_float(price) >= 10\n"
    )
    plain_base, plain_new = folders("plain-base", before), folders("plain-new", after)
    assert run_cli(plain_base, plain_new) == 0  # without rules the conversations all pass
    assert run_cli(plain_base, plain_new, "--rules", str(rules), "--json") == 1
    capsys.readouterr()
