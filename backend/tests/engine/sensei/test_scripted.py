"""Scripted profiles: literal user turns with checks on the replies, validated with positions, run and decided with
no LLM call against the reference pizza bot and its mutants."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from engine.bots.connector import BotConnector
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, UsageLedger
from engine.sensei import SenseiJob, load_profile, profile_json_schema, run_profiles, validate
from engine.sensei.simulator import TAG_USER_TURN

from .conftest import TODAY, FakeBot, profile_from

# A large margherita with a coke: the pizza bot states the total (19$) after the drink, then the order id.
ORDER = """\
test_name: pizza_total
script:
  - user: "I'd like to order a house pizza"
    expect: [{contains: SIZE}]
  - user: "a large margherita"
    expect: {contains: drinks}
  - user: "1"
  - user: "coke"
    expect:
      - states: money
      - not_contains: error
      - matches: 'order number is [0-9A-F]{6}'
"""


class ForbiddenChatModel:
    """An LLM double that fails the test the moment anything asks it for a completion."""

    def __init__(self) -> None:
        self.calls = 0

    def send(self, payload: dict[str, Any], *, headers: dict[str, str], timeout_s: float) -> Any:
        self.calls += 1
        pytest.fail(f"a scripted profile called the LLM: {str(payload)[:300]}")

    def close(self) -> None:
        pass


def _forbidden_llm() -> tuple[LLMClient, ForbiddenChatModel]:
    model = ForbiddenChatModel()
    config = ProviderConfig("openai-compatible", base_url="http://127.0.0.1:9/v1", model="gpt-4o-mini")
    client = LLMClient(
        config,
        guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
        chat_model=model,  # type: ignore[arg-type]
        ledger=UsageLedger(),
    )
    return client, model


def _run(text: str, connector_factory: Any, llm: LLMClient | None = None) -> list[Any]:
    client, model = (llm, None) if llm is not None else _forbidden_llm()
    records: list[Any] = []
    summary = run_profiles(
        SenseiJob(
            [profile_from(text)], connector_factory, client, sink=records.append, seed=3, today=lambda: TODAY
        )
    )
    if model is not None:
        assert model.calls == 0
        assert summary.usage["calls"] == 0
    return sorted(records, key=lambda r: r.index)


# -- running and deciding --------------------------------------------------------------------------------------


def test_a_script_passes_on_the_pizza_bot_with_no_llm_call():
    (record,) = _run(ORDER, lambda: BotConnector("pizza"))
    assert [t.text for t in record.turns if t.role == "user"] == [
        "I'd like to order a house pizza",
        "a large margherita",
        "1",
        "coke",
    ]
    assert record.verdict == "passed", record.verdict_reason
    assert record.verdict_reason == "passed: all 5 check(s) of the script held"
    assert [c.held for c in record.outcome.checks] == [True] * 5
    assert record.usage.calls == 0 and record.outcome.llm_calls == {}


def test_a_script_fails_on_the_mutant_that_never_states_the_total_with_the_turn_of_the_first_failed_check():
    # delete-sequence-step-3 drops the pizza bot's price step: it confirms the order without any total.
    (record,) = _run(ORDER, lambda: BotConnector("pizza", mutant="delete-sequence-step-3"))
    assert record.verdict == "failed"
    assert record.verdict_reason.startswith("check_failed: step 4 ('coke'): states money failed")
    (fault,) = [e for e in record.errors if e.code == 1004]
    assert record.turns[fault.turn].role == "bot"
    assert record.turns[fault.turn - 1].text == "coke"
    assert "order number" in record.turns[fault.turn].text  # it went on, only the total is missing
    held = {c.check: c.held for c in record.outcome.checks}
    assert held["states money"] is False and held["matches 'order number is [0-9A-F]{6}'"] is True


def test_the_first_failing_check_names_the_verdict_even_when_a_later_one_fails_too():
    text = """\
test_name: two_failures
script:
  - user: hello
    expect: [{contains: "never said"}]
  - user: again
    expect: [{not_contains: "noted"}]
"""
    (record,) = _run(text, lambda: FakeBot())
    assert record.verdict == "failed"
    assert "step 1 ('hello')" in record.verdict_reason and "(turn 2)" in record.verdict_reason
    assert [e.turn for e in record.errors] == [1, 3]


def test_a_crash_decides_and_the_steps_it_cut_off_are_not_checked():
    text = """\
test_name: crash
script:
  - user: hello
    expect: [{contains: hello}]
  - user: CRASH now
  - user: are you there?
    expect: [{contains: "yes"}]
"""
    (record,) = _run(text, lambda: FakeBot())
    assert record.verdict == "failed" and record.verdict_reason.startswith("chatbot_crash")
    assert [c.held for c in record.outcome.checks] == [True, None]
    assert record.outcome.checks[1].detail == "the chatbot never replied to it"


def test_a_slow_expression_leaves_the_check_undecided_never_failed():
    text = """\
test_name: slow_regex
script:
  - user: hello
    expect: [{matches: '(a|aa)+$'}]
"""
    (record,) = _run(text, lambda: FakeBot(lambda text, turn: "a" * 60 + "!"))
    assert record.verdict == "inconclusive"
    assert record.verdict_reason.startswith("check_undecided: step 1")
    assert record.errors == []


@pytest.mark.parametrize(
    ("check", "reply", "held"),
    [
        ("{contains: 'large  MARGHERITA'}", "A large margherita, then.", True),
        ("{not_contains: sorry}", "Sorry, I did not get that.", False),
        ("{states: money}", "That will be 21 euros.", True),
        ("{states: money}", "That will be 21.", False),
        ("{states: int}", "You ordered 3 pizzas.", True),
        ("{states: date}", "Your table is booked for 12 March.", True),
        ("{states: time}", "Ready at 7:30 pm.", True),
        ("{states: 'enum[small, medium, large]'}", "We only have medium left.", True),
        ("{states: 'enum[small, medium, large]'}", "Which size?", False),
        ("{matches: '^Order [0-9A-F]{6}$'}", "Order 3FA9C1", True),
    ],
)
def test_each_kind_of_check(check: str, reply: str, held: bool) -> None:
    text = f"test_name: kinds\nscript:\n  - user: hi\n    expect: [{check}]\n"
    (record,) = _run(text, lambda: FakeBot(lambda text, turn: reply))
    assert record.outcome.checks[0].held is held
    assert record.verdict == ("passed" if held else "failed")


def test_a_custom_type_is_stated_when_its_expression_finds_a_value():
    text = "test_name: phone\nscript:\n  - user: hi\n    expect: [{states: phone_number}]\n"
    (good,) = _run(text, lambda: FakeBot(lambda text, turn: "Call us on 555-1234567."))
    (bad,) = _run(text, lambda: FakeBot(lambda text, turn: "Call us any time."))
    assert (good.verdict, bad.verdict) == ("passed", "failed")


def test_a_script_comes_before_the_simulated_user_and_only_the_simulated_turns_call_the_llm(make_llm):
    text = """\
test_name: mixed
script:
  - user: hello
    expect: [{contains: "noted"}]
user:
  role: You buy a lamp.
  goals: [buy a lamp]
chatbot:
  fallback: Sorry?
conversation:
  number: 1
  goal_style: {steps: 3}
"""
    llm, model = make_llm({TAG_USER_TURN: ["I want to buy a lamp", "That is all, bye"]})
    (record,) = _run(text, lambda: FakeBot(), llm)
    assert [t.text for t in record.turns if t.role == "user"] == [
        "hello",
        "I want to buy a lamp",
        "That is all, bye",
    ]
    assert len(model.calls_for(TAG_USER_TURN)) == 2
    assert "Chatbot: Noted: hello" in model.calls_for(TAG_USER_TURN)[0].messages[-1][1]
    assert record.outcome.checks[0].held is True


# -- validation ------------------------------------------------------------------------------------------------


def _problems(text: str) -> list[tuple[str, int | None, str]]:
    result = validate(text, source="p.yaml")
    return [(p.code, p.line, p.severity) for p in result.problems]


def test_a_scripted_profile_needs_no_user_chatbot_or_conversation_section():
    profile, problems = load_profile(ORDER)
    assert profile is not None, [p.render() for p in problems]
    assert problems == []
    assert profile.scripted_only and len(profile.script) == 4
    assert profile.conversation.goal_style.steps == 4  # exactly its steps: no simulated turn follows
    assert profile.script[3].expect[0].type is not None and profile.script[3].expect[0].type.kind == "money"


@pytest.mark.parametrize(
    ("step", "code"),
    [
        ("  - user: hi\n    expect: [{matches: '(unclosed'}]\n", "bad_regex"),
        ("  - user: hi\n    expect: [{includes: x}]\n", "unknown_check"),
        ("  - user: hi\n    expect: [{states: string}]\n", "unstatable_type"),
        ("  - user: hi\n    expect: [{states: dollars}]\n", "unknown_type"),
        ("  - user: hi\n    expect: [{contains: x, matches: y}]\n", "wrong_type"),
        ("  - user: ''\n", "wrong_type"),
        ("  - expect: [{contains: x}]\n", "missing"),
        ('  - user: "a\\0b"\n', "bad_text"),
        ("  - user: hi\n    expect: [{contains: [[[[x]]]]}]\n", "wrong_type"),
        ("  - user: {nested: {deeper: x}}\n", "wrong_type"),
        ("  - user: hi\n    expect: 5\n", "wrong_type"),
        ("  - user: hi\n    expect: [" + "{contains: x}, " * 21 + "]\n", "out_of_range"),
        ("  - user: " + "x" * 5000 + "\n", "too_long"),
        ("  - user: hi\n    expect: [{contains: '" + "y" * 600 + "'}]\n", "too_long"),
    ],
)
def test_a_bad_script_is_a_problem_with_its_line_never_a_crash(step: str, code: str) -> None:
    text = "test_name: bad\nscript:\n" + step
    result = validate(text, source="p.yaml")
    assert result.profile is None or not result.ok
    found = [(p.code, p.line) for p in result.errors]
    assert (code, 3) in found or (code, 4) in found, found


def test_a_script_that_is_not_a_list_or_too_long_is_refused():
    assert ("wrong_type", 2, "error") in _problems("test_name: bad\nscript: hello\n")
    many = "test_name: long\nscript:\n" + "  - user: hi\n" * 201
    assert any(code == "out_of_range" for code, _, _ in _problems(many))


def test_outputs_without_goals_are_refused_because_they_need_an_llm():
    text = ORDER + "chatbot:\n  output:\n    - total: {type: money, description: the total}\n"
    problems = validate(text).errors
    assert [p.code for p in problems] == ["outputs_need_goals"]


def test_a_script_that_fills_every_user_message_is_a_warning():
    text = """\
test_name: mixed
script: [{user: hello}, {user: again}]
user: {role: You buy a lamp., goals: [buy a lamp]}
chatbot: {fallback: Sorry?}
conversation: {number: 1, goal_style: {steps: 2}}
"""
    result = validate(text)
    assert result.ok
    assert [p.code for p in result.warnings] == ["script_fills_conversation"]


@pytest.mark.parametrize(
    ("value", "expected"), [("0.9", 0.9), ("'85%'", 0.85), ("1", 1.0), ("0", None), ("'150%'", None)]
)
def test_min_pass_rate_is_a_fraction_or_a_percentage(value: str, expected: float | None) -> None:
    profile, problems = load_profile(ORDER + f"min_pass_rate: {value}\n")
    if expected is None:
        assert profile is None and [p.code for p in problems if p.is_error] == ["out_of_range"]
    else:
        assert profile is not None and profile.min_pass_rate == pytest.approx(expected)


def test_the_published_schema_describes_scripts_for_the_editor():
    schema = profile_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    yaml = YAML(typ="safe", pure=True)
    assert list(validator.iter_errors(yaml.load(ORDER + "min_pass_rate: 90%\n"))) == []
    two_keys = yaml.load("test_name: x\nscript: [{user: hi, expect: [{contains: a, matches: b}]}]\n")
    assert list(validator.iter_errors(two_keys))
    neither = yaml.load("test_name: x\n")
    assert list(validator.iter_errors(neither))
    check = schema["properties"]["script"]["items"]["properties"]["expect"]["anyOf"][1]
    assert set(check["properties"]) == {"contains", "not_contains", "matches", "states"}


# -- the command line ------------------------------------------------------------------------------------------


def _cli(*argv: str) -> int:
    import argparse

    from commands import sensei

    parser = argparse.ArgumentParser(prog="parley")
    sensei.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sensei", *argv])
    return int(args.handler(args))


def test_plan_says_a_script_needs_no_llm_and_validate_points_at_the_bad_check(tmp_path, capsys):
    good = tmp_path / "order.yaml"
    good.write_text(ORDER)
    assert _cli("plan", str(good), "--seed", "1") == 0
    out = capsys.readouterr().out
    assert (
        "script: 4 literal user turn(s), 5 check(s); no simulated turn: decided by its checks, no LLM call"
        in out
    )
    assert "estimated cost: at most $0.0000" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        ORDER.replace("{states: money}", "{states: price}").replace("- states: money", "- states: price")
    )
    assert _cli("validate", str(bad)) == 1
    err = capsys.readouterr().err
    assert f"{bad}:10:9: error" in err and "output type 'price' does not exist" in err
