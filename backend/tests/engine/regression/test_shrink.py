"""Shrinking: failed conversations on the pizza bot's mutants that fail deep in a conversation shrink to fewer user
turns; the pinned scripted profile fails on the mutant and passes on the original, with 0 LLM calls; k-of-n
decides on a flaky chatbot; the cap on chatbot calls holds; hostile records get a clear refusal."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine.bots.connector import BotConnector
from engine.connectors import BotReply, ChatbotHTTPError, Connector
from engine.context import Cancelled, RecordingReporter, RunContext
from engine.conversation import ConversationRecord, OutputEvidence, Turn
from engine.regression.shrink import ShrinkError, ShrinkJob, derive_failure, shrink_record
from engine.sensei import SenseiJob, run_profiles
from engine.sensei.errors import error
from engine.sensei.verdicts import judge
from tests.engine.cancelling import CancelAfter
from tests.engine.sensei.conftest import TODAY, make_llm, profile_from  # noqa: F401 - make_llm is a fixture
from tests.engine.sensei.test_scripted import _forbidden_llm

# A customer who chats about the shop before building a pizza: the fault shows only at the end of the order.
DETOURS = [
    "hi there",
    "what are your opening hours?",
    "do you deliver?",
    "I want to order a pizza",
    "I'd like to build my own",
    "medium",
    "mushrooms and olives",
    "2",
    "coke",
]


def _script(messages: list[str], last_check: str | None = None) -> str:
    lines = ["test_name: long_order", "script:"]
    for i, message in enumerate(messages):
        lines.append(f'  - user: "{message}"')
        if last_check and i == len(messages) - 1:
            lines.append(f"    expect: [{last_check}]")
    return "\n".join(lines) + "\n"


def _play(text: str, mutant: str | None, bot: str = "pizza") -> ConversationRecord:
    """`text` (a scripted profile) played by SENSEI against a reference bot or one of its mutants, no LLM."""
    llm, model = _forbidden_llm()
    records: list[Any] = []
    run_profiles(
        SenseiJob(
            [profile_from(text)],
            lambda: BotConnector(bot, mutant=mutant),
            llm,
            sink=records.append,
            seed=1,
            today=lambda: TODAY,
        )
    )
    assert model.calls == 0
    (record,) = records
    return record


def _factory(mutant: str | None) -> Any:
    return lambda: BotConnector("pizza", mutant=mutant)


def _user_turns(yaml_text: str) -> int:
    return len(profile_from(yaml_text).script)


def test_a_failed_check_deep_in_an_order_shrinks_and_the_pin_fails_on_the_mutant_and_passes_on_the_original():
    # delete-sequence-step-7: a pizza you build gets no total. The check that says so is on the 9th user turn.
    record = _play(_script(DETOURS, "{states: money}"), "delete-sequence-step-7")
    assert record.verdict == "failed" and record.verdict_reason.startswith("check_failed")
    llm, model = _forbidden_llm()
    result = shrink_record(ShrinkJob(record, _factory("delete-sequence-step-7"), llm=llm, today=TODAY))
    assert model.calls == 0 and result.llm_calls == 0
    assert result.reproduced and result.failure.source == "rule"
    assert result.original_turns == 9 and result.shrunk_turns < 9
    assert result.script[-1].endswith("coke") and not {"hi there", "do you deliver?"} & set(result.script)
    assert result.reproduction.failed == result.reproduction.replays == 3
    assert 0 < result.chatbot_calls <= 200
    assert {d.op for d in result.diff} >= {"removed"} and "hi there" in [
        d.text for d in result.diff if d.op == "removed"
    ]
    pinned = result.pinned_profile
    assert _user_turns(pinned) == result.shrunk_turns
    assert _play(pinned, "delete-sequence-step-7").verdict == "failed"
    original = _play(pinned, None)
    assert original.verdict == "passed", original.verdict_reason


def test_a_missing_total_derives_states_money_on_the_confirmation_and_shrinks_with_no_llm():
    # The record SENSEI leaves when the extractor found the order id but no total: goal_not_completed.
    turns: list[Turn] = []
    bot = BotConnector("pizza", mutant="delete-sequence-step-7")
    bot.new_conversation()
    for message in [*DETOURS, "thanks, bye"]:
        turns += [Turn(role="user", text=message), Turn(role="bot", text=bot.send(message).text)]
    confirmation = next(i for i, t in enumerate(turns) if "order number" in t.text)
    record = ConversationRecord(
        id="c1",
        profile="order",
        turns=turns,
        outputs={"order_id": "93FCA4", "total_price": None},
        evidence={
            "order_id": OutputEvidence(turn=confirmation, quote="93FCA4"),
            "total_price": OutputEvidence(reason="not_stated"),
        },
        errors=[error(1001, "1 output(s) not found: total_price (not_stated)")],
    )
    judge(record, TODAY)
    assert record.verdict == "failed", record.verdict_reason
    failure = derive_failure(record, today=TODAY)
    assert failure.check is not None and failure.check.label() == "states money"
    assert failure.failing_turn == confirmation  # not the goodbye after it
    llm, model = _forbidden_llm()
    result = shrink_record(ShrinkJob(record, _factory("delete-sequence-step-7"), llm=llm, today=TODAY))
    assert model.calls == 0 and result.reproduced
    assert result.shrunk_turns < result.original_turns == 10
    assert _play(result.pinned_profile, "delete-sequence-step-7").verdict == "failed"
    assert _play(result.pinned_profile, None).verdict == "passed"


def test_a_missing_total_with_nothing_else_stated_anchors_on_the_confirmation_not_the_closing_fallbacks():
    # The user says goodbye twice and gets the fallback twice: anchoring the check on that reply would let a
    # one-turn "bye" reproduce "no total", and the pin would fail on the original bot too.
    turns: list[Turn] = []
    bot = BotConnector("pizza", mutant="delete-sequence-step-7")
    bot.new_conversation()
    for message in [*DETOURS[4:], "Cheers, I'm off now.", "That's all, thanks."]:
        turns += [Turn(role="user", text=message), Turn(role="bot", text=bot.send(message).text)]
    record = ConversationRecord(
        id="c2",
        profile="order",
        turns=turns,
        outputs={"price": None},
        evidence={"price": OutputEvidence(reason="not_stated")},
        settings={"ended_on_fallback": True},
        errors=[error(1001, "1 output(s) not found: price (not_stated)")],
    )
    judge(record, TODAY)
    failure = derive_failure(record, today=TODAY)
    assert "order number" in record.turns[failure.failing_turn].text
    result = shrink_record(ShrinkJob(record, _factory("delete-sequence-step-7"), today=TODAY))
    assert result.reproduced and result.shrunk_turns < 7 and result.script[-1] != "That's all, thanks."
    assert _play(result.pinned_profile, "delete-sequence-step-7").verdict == "failed"
    assert _play(result.pinned_profile, None).verdict == "passed"


def test_a_reply_repeated_to_the_same_request_is_an_answer_and_a_reply_to_different_ones_a_fallback():
    # change-response-template-1: the bike's booking confirmation loses its price's currency ("…, 150.").
    mutant = "change-response-template-1"
    messages = [
        "I want to book a tune-up for next friday at 10am.",
        "Perfect, bye!",
        "I mean: book a tune-up for next friday at 10am.",
        "Great, thank you. That's everything.",
    ]
    bot = BotConnector("bike", mutant=mutant)
    bot.new_conversation()
    turns = [Turn(role="bot", text=(bot.greeting() or BotReply(messages=["hi"])).text)]
    for message in messages:
        turns += [Turn(role="user", text=message), Turn(role="bot", text=bot.send(message).text)]
    assert turns[2].text == turns[6].text and turns[4].text == turns[8].text  # two answers, two fallbacks
    record = ConversationRecord(
        id="c4",
        profile="booking",
        turns=turns,
        outputs={"price": None},
        errors=[error(1001, "1 output(s) not found: price (not_stated)")],
    )
    judge(record, TODAY)
    failure = derive_failure(record, today=TODAY)
    assert failure.failing_turn == 6 and failure.check is not None and failure.check.label() == "states money"
    result = shrink_record(ShrinkJob(record, lambda: BotConnector("bike", mutant=mutant), today=TODAY))
    assert result.reproduced and result.shrunk_turns == 1 and "tune-up" in result.script[0]
    assert _play(result.pinned_profile, mutant, "bike").verdict == "failed"
    assert _play(result.pinned_profile, None, "bike").verdict == "passed"


def test_a_missing_total_when_every_reply_was_the_same_pins_the_repeated_reply():
    # repeat-loop-1 greets every message: the total is missing because the chatbot never got anywhere.
    turns: list[Turn] = []
    bot = BotConnector("pizza", mutant="repeat-loop-1")
    bot.new_conversation()
    for message in DETOURS[3:]:
        turns += [Turn(role="user", text=message), Turn(role="bot", text=bot.send(message).text)]
    record = ConversationRecord(
        id="c3",
        profile="order",
        turns=turns,
        outputs={"price": None},
        errors=[error(1001, "1 output(s) not found: price (not_stated)")],
    )
    judge(record, TODAY)
    failure = derive_failure(record, today=TODAY)
    assert failure.check is not None and failure.check.kind == "not_contains"
    assert failure.check.value in turns[1].text
    result = shrink_record(ShrinkJob(record, _factory("repeat-loop-1"), today=TODAY))
    assert result.reproduced and result.shrunk_turns == 1
    assert _play(result.pinned_profile, "repeat-loop-1").verdict == "failed"
    assert _play(result.pinned_profile, None).verdict == "passed"


def test_a_crash_on_a_large_pizza_shrinks_to_the_turns_that_reach_it():
    # crash-on-value-4: the price table of built pizzas lost `large`, so pricing a large one answers HTTP 500.
    messages = [*DETOURS[:5], "large", "ham and corn", "1", "water"]
    record = _play(_script(messages), "crash-on-value-4")
    assert record.verdict == "failed" and record.verdict_reason.startswith("chatbot_crash")
    result = shrink_record(ShrinkJob(record, _factory("crash-on-value-4"), today=TODAY))
    assert result.failure.kind == "error" and result.reproduced
    assert result.shrunk_turns < 9 and "large" in " ".join(result.script)
    assert result.transcript[-1].role == "error"
    assert _play(result.pinned_profile, "crash-on-value-4").verdict_reason.startswith("chatbot_crash")
    assert _play(result.pinned_profile, None).verdict == "passed"


def test_a_repetition_loop_becomes_not_contains_of_the_repeated_reply():
    record = _play(_script(DETOURS[:4]), "repeat-loop-1")
    repeated = record.turns[-1].text
    record.errors.append(error(1003, "the chatbot kept giving the same answer", len(record.turns) - 1))
    judge(record, TODAY)
    result = shrink_record(ShrinkJob(record, _factory("repeat-loop-1"), today=TODAY))
    assert result.failure.check is not None and result.failure.check.kind == "not_contains"
    assert result.failure.check.value in repeated
    assert result.shrunk_turns == 1
    assert _play(result.pinned_profile, None).verdict == "passed"


class FlakyCrash(Connector):
    """Answers everything, but the word "pay" crashes it in the conversations `unlucky` marks, in turn: a fault
    that shows in some conversations only, in a known pattern."""

    technology = "fake"

    def __init__(self, unlucky: itertools.cycle[bool], calls: list[int]) -> None:
        self.pattern, self.calls = unlucky, calls

    def new_conversation(self) -> None:
        self.unlucky = next(self.pattern)

    def send(self, text: str) -> BotReply:
        self.calls.append(1)
        if "pay" in text and self.unlucky:
            raise ChatbotHTTPError("HTTP 500", status=500)
        return BotReply(messages=[f"ok: {text}"])


def _crash_record() -> ConversationRecord:
    turns = []
    for message in ["a", "b", "c", "d", "e", "f", "pay"]:
        turns += [Turn(role="user", text=message), Turn(role="bot", text=f"ok: {message}")]
    turns.pop()
    record = ConversationRecord(
        id="f", profile="flaky", turns=turns, errors=[error(500, "HTTP 500", len(turns))]
    )
    return judge(record, TODAY)


def test_on_a_flaky_chatbot_a_fault_seen_in_two_of_three_conversations_is_shrunk_and_its_rate_reported():
    calls: list[int] = []
    pattern = itertools.cycle([True, True, False])  # any three conversations in a row: two fail
    result = shrink_record(ShrinkJob(_crash_record(), lambda: FlakyCrash(pattern, calls), today=TODAY))
    assert result.reproduced and result.script == ["pay"]
    assert result.reproduction.replays == 3 and result.reproduction.failed == 2
    assert result.chatbot_calls == len(calls)
    assert "shrunk_flaky_0_chatbot_crash" in result.pinned_profile


def test_on_a_flaky_chatbot_a_fault_seen_in_one_of_three_is_not_reproduced_and_nothing_is_pinned():
    pattern = itertools.cycle([True, False, False])
    result = shrink_record(ShrinkJob(_crash_record(), lambda: FlakyCrash(pattern, []), today=TODAY))
    assert not result.reproduced and not result.pinned_profile
    assert result.original.failed == 1 and result.original.replays == 3
    assert any("did not reproduce (1 of 3 replays failed, 2 needed)" in w for w in result.warnings)
    # Asking for 1 of 3 (a fault worth pinning even when rare) reproduces it.
    again = shrink_record(ShrinkJob(_crash_record(), lambda: FlakyCrash(pattern, []), needed=1, today=TODAY))
    assert again.reproduced and again.script == ["pay"]


def test_the_run_context_hears_each_stage_and_a_cancel_stops_the_shrink():
    reporter = RecordingReporter()
    pattern = itertools.cycle([True])
    job = ShrinkJob(_crash_record(), lambda: FlakyCrash(pattern, []), today=TODAY)
    assert shrink_record(job, RunContext(reporter=reporter)).reproduced
    assert [event[1] for event in reporter.of("stage")] == ["reproducing", "shrinking", "confirming"]

    calls: list[int] = []
    job = ShrinkJob(_crash_record(), lambda: FlakyCrash(pattern, calls), today=TODAY)
    with pytest.raises(Cancelled, match="nothing was pinned"):
        shrink_record(job, RunContext(cancel=CancelAfter(2)))  # cancelled once the original was replayed
    assert calls  # the original was replayed before the cancel was seen


def test_the_chatbot_call_cap_is_never_exceeded_and_says_the_search_stopped():
    calls: list[int] = []
    result = shrink_record(
        ShrinkJob(
            _crash_record(),
            lambda: FlakyCrash(itertools.cycle([True]), calls),
            max_chatbot_calls=16,
            today=TODAY,
        )
    )
    # 14 calls reproduce the original (7 turns, twice), 2 more find that "pay" alone fails: the rate's replays
    # would cross the cap, so the search's own replays give it.
    assert len(calls) == result.chatbot_calls == 16
    assert result.capped and any("cap of 16" in w for w in result.warnings)
    assert result.reproduction.failed == result.reproduction.replays == 2
    assert result.shrunk_turns < 7  # what it found before the cap is kept


def test_records_that_cannot_be_shrunk_are_refused_with_a_reason():
    passed = _play(_script(DETOURS[:2]), None)
    with pytest.raises(ShrinkError, match="Only a failed conversation"):
        shrink_record(ShrinkJob(passed, _factory(None), today=TODAY))
    odd = ConversationRecord(id="x", profile="p", verdict="failed", verdict_reason="goals_not_verified: no")
    with pytest.raises(ShrinkError, match="No code rule"):
        shrink_record(ShrinkJob(odd, _factory(None), today=TODAY))
    with pytest.raises(ShrinkError, match="needed"):
        shrink_record(ShrinkJob(_crash_record(), _factory(None), replays=2, needed=3, today=TODAY))


def _unanswered_question() -> ConversationRecord:
    # delete-qa-pair-5: the pizza bot lost its answer to "do you deliver?" and gives its fallback instead. (The
    # user opens with a question of its own: after "hi there" the greeting's "What would you like?" would stand
    # unanswered, and the verdict would rightly be inconclusive.)
    turns: list[Turn] = []
    bot = BotConnector("pizza", mutant="delete-qa-pair-5")
    bot.new_conversation()
    for message in ["what are your opening hours?", "do you deliver?", "ok thanks"]:
        turns += [Turn(role="user", text=message), Turn(role="bot", text=bot.send(message).text)]
    assert "didn't catch" in turns[3].text
    record = ConversationRecord(
        id="q1",
        profile="questions",
        goals=["ask whether you deliver"],
        turns=turns,
        errors=[error(1002, "the user ended the conversation before goals [1] were verified", 5)],
    )
    return judge(record, TODAY)


def test_a_failure_no_rule_covers_gets_its_check_from_the_llm_validated_on_the_recorded_reply(make_llm):  # noqa: F811
    record = _unanswered_question()
    assert record.verdict == "failed" and record.verdict_reason.startswith("goals_not_verified")
    with pytest.raises(ShrinkError, match="No code rule"):
        derive_failure(record, today=TODAY)
    answer = {
        "turn": 4,
        "check": {"not_contains": "didn't catch that"},
        "why": "the delivery question got the fallback",
    }
    llm, _ = make_llm({"shrink_derive_check": [{"json": answer}]})
    result = shrink_record(ShrinkJob(record, _factory("delete-qa-pair-5"), llm=llm, today=TODAY))
    assert result.failure.source == "llm" and result.llm_calls == 1
    assert result.reproduced and result.script == ["do you deliver?"]
    assert _play(result.pinned_profile, "delete-qa-pair-5").verdict == "failed"
    assert _play(result.pinned_profile, None).verdict == "passed"


def test_an_llm_check_that_holds_on_the_recorded_reply_is_refused(make_llm):  # noqa: F811
    answer = {"turn": 4, "check": {"contains": "didn't catch"}, "why": "wrong way round"}
    llm, _ = make_llm({"shrink_derive_check": [{"json": answer}]})
    with pytest.raises(ShrinkError, match="does not fail on the recorded reply"):
        shrink_record(ShrinkJob(_unanswered_question(), _factory("delete-qa-pair-5"), llm=llm, today=TODAY))
    nowhere = {"turn": 99, "check": {"contains": "x"}, "why": ""}
    llm, _ = make_llm({"shrink_derive_check": [{"json": nowhere}]})
    with pytest.raises(ShrinkError, match="no chatbot turn"):
        shrink_record(ShrinkJob(_unanswered_question(), _factory("delete-qa-pair-5"), llm=llm, today=TODAY))
