"""`parley sensei shrink` end to end: a failed run's record shrunk with no API key, the pinned profile played by
`parley sensei run` (fails on the mutant, passes on the original) and compared as its own group; the Markdown bug
report and the JUnit case; hostile records refused with a message."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from commands import sensei as sensei_command
from tests.parley_cli import run_command

from .test_shrink import DETOURS, _script

MUTANT = "delete-sequence-step-7"  # a pizza you build gets no total


@pytest.fixture(autouse=True)
def _no_key(monkeypatch):
    for name in ("OPENAI_API_KEY", "PARLEY_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _parley(*argv: str) -> int:
    return run_command(sensei_command, "sensei", *argv)


def _connector(tmp_path: Path, mutant: str | None) -> str:
    path = tmp_path / f"connector-{mutant or 'original'}.yml"
    path.write_text(f"technology: demo\nbot: pizza{'@' + mutant if mutant else ''}\n")
    return str(path)


def _failed_record(tmp_path: Path) -> Path:
    (tmp_path / "long.yml").write_text(_script(DETOURS, "{states: money}"))
    out = tmp_path / "run"
    assert (
        _parley(
            "run", str(tmp_path / "long.yml"), "--connector", _connector(tmp_path, MUTANT), "--out", str(out)
        )
        == 1
    )
    (record,) = (out / "long_order").glob("*.json")
    return record


def test_shrink_pins_a_profile_that_sensei_run_plays_and_compare_treats_as_a_group(tmp_path, capsys):
    record = _failed_record(tmp_path)
    capsys.readouterr()
    out = tmp_path / "shrunk"
    code = _parley(
        "shrink", str(record), "--connector", _connector(tmp_path, MUTANT), "--out", str(out),
        "--markdown", str(tmp_path / "bug.md"), "--junit", str(tmp_path / "bug.xml"),
    )  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "warning: Shrinking replays" in printed.err and "real requests" in printed.err
    result = json.loads((out / "shrink.json").read_text())
    assert result["reproduced"] and result["llm_calls"] == 0
    assert result["shrunk_turns"] < result["original_turns"] == 9
    assert f"shrunk: 9 → {result['shrunk_turns']} user turn(s)" in printed.out
    pinned = out / f"{result['name']}.yaml"
    assert pinned.is_file()

    baseline, broken = tmp_path / "on-original", tmp_path / "on-mutant"
    assert _parley("run", str(pinned), "--connector", _connector(tmp_path, None), "--out", str(baseline)) == 0
    assert _parley("run", str(pinned), "--connector", _connector(tmp_path, MUTANT), "--out", str(broken)) == 1
    for folder in (baseline, broken):
        assert json.loads((folder / "summary.json").read_text())["usage"]["calls"] == 0
    capsys.readouterr()
    assert _parley("compare", str(baseline), str(broken), "--json") == 1
    comparison = json.loads(capsys.readouterr().out)
    # Its own group, newly failing; one conversation is too few for the pass-rate interval, so its
    # min_pass_rate of 100 % decides.
    assert comparison["verdict"] == "regressed"
    (group,) = [g for g in comparison["profiles"] if g["name"] == result["name"]]
    assert group["baseline"]["passed"] == 1 and group["run"]["failed"] == 1
    assert [c["profile"] for c in comparison["newly_failing"]] == [result["name"]]
    (gate,) = comparison["gates"]
    assert (gate["gate"], gate["profile"], gate["status"]) == ("min-pass-rate", result["name"], "failed")

    markdown = (tmp_path / "bug.md").read_text()
    assert "**Reproduced in 3 of 3 replays**" in markdown
    assert "**⚠ Failing reply** (fails `states money`)" in markdown
    assert "- hi there" in markdown and result["name"] in markdown
    case = ET.parse(tmp_path / "bug.xml").getroot().find("testcase")
    assert case is not None and case.get("name") == result["name"]
    failure = case.find("failure")
    assert failure is not None and "reproduced in 3 of 3 replays" in failure.get("message", "")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["shrunk_turns"] == str(result["shrunk_turns"]) and properties["llm_calls"] == "0"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\xff not json", "is not a conversation record"),
        (b"[1, 2, 3]", "is not a conversation record"),
        (b'{"id": "x", "profile": "p", "turns": [{"role": "robot", "text": "hi"}]}', "turns.0.role"),
        (b'{"id": "x", "profile": "p", "verdict": "passed"}', "Only a failed conversation can be shrunk"),
        (
            (
                b'{"id": "x", "profile": "p", "verdict": "failed", "verdict_reason": "chatbot_crash: boom", '
                b'"turns": [{"role": "user", "text": "hi\\u0000"}], "errors": [{"code": 500, "message": "boom", "turn": 1}]}'
            ),
            "User turn 1 cannot be a script step",
        ),
    ],
)
def test_hostile_or_unsuitable_records_are_refused_with_a_message(tmp_path, capsys, content, message):
    record = tmp_path / "record.json"
    record.write_bytes(content)
    code = _parley(
        "shrink", str(record), "--connector", _connector(tmp_path, None), "--out", str(tmp_path / "o")
    )
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o" / "shrink.json").exists()


def test_a_missing_record_and_needed_above_replays_are_usage_errors(tmp_path, capsys):
    connector = _connector(tmp_path, None)
    assert (
        _parley("shrink", str(tmp_path / "none.json"), "--connector", connector, "--out", str(tmp_path)) == 2
    )
    assert "cannot be read" in capsys.readouterr().err
    record = _failed_record(tmp_path)
    code = _parley("shrink", str(record), "--connector", connector, "--out", str(tmp_path), "--needed", "4")
    assert code == 2 and "--needed (4) cannot exceed --replays (3)" in capsys.readouterr().err


def test_a_failure_the_chatbot_no_longer_shows_exits_1_and_pins_nothing(tmp_path, capsys):
    record = _failed_record(tmp_path)
    out = tmp_path / "shrunk"
    assert _parley("shrink", str(record), "--connector", _connector(tmp_path, None), "--out", str(out)) == 1
    result = json.loads((out / "shrink.json").read_text())
    assert not result["reproduced"] and result["original"]["failed"] == 0
    assert not list(out.glob("*.yaml"))
    assert "did not reproduce" in capsys.readouterr().out
