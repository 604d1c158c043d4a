"""Verdicts: `failed` only for a chatbot fault; `inconclusive`, with its reason, when the conversation says
nothing about the chatbot — and inconclusive never swallows a chatbot fault."""

from __future__ import annotations

from datetime import date

import pytest

from engine.connectors import BotReply, ChatbotHTTPError, Connector
from engine.conversation import ConversationError, ConversationRecord, ErrorCode, OutputEvidence, Turn
from engine.sensei import SenseiJob, Simulator, plan, run_profiles
from engine.sensei.simulator import TAG_EXTRACT, TAG_USER_TURN
from engine.sensei.verdicts import VERDICT_RULES, decide, reason_code, tally, verdict_of

from .conftest import TODAY, FakeBot, profile_from

GOALS = ["order a {{size}} pizza", "ask whether you deliver"]


def _record(user_says: list[str], *codes: int, bot_says: str = "ok") -> ConversationRecord:
    turns = []
    for text in user_says:
        turns += [Turn(role="user", text=text), Turn(role="bot", text=bot_says)]
    return ConversationRecord(
        id="c",
        profile="p",
        goals=GOALS,
        inputs={"size": "small"},
        turns=turns,
        errors=[ConversationError(code=code, message=f"error {code}", turn=1) for code in codes],
        started_at=None,
    )


CONVEYED = ["A small pizza please", "Do you deliver?"]
FANTASY = ["I'm going to be a superhero and protect humanity.", "What do you think about dragons?"]


@pytest.mark.parametrize(
    ("says", "codes", "verdict", "reason"),
    [
        (CONVEYED, [], "passed", "passed"),
        (CONVEYED, [ErrorCode.GOAL_NOT_COMPLETED], "failed", "goal_not_completed"),
        (CONVEYED, [ErrorCode.FALLBACK_LOOP], "failed", "fallback_loop"),
        # The run: outputs reported missing although the user never asked for the small pizza.
        (FANTASY, [ErrorCode.GOAL_NOT_COMPLETED], "inconclusive", "inputs_not_conveyed"),
        (FANTASY, [ErrorCode.FALLBACK_LOOP], "inconclusive", "inputs_not_conveyed"),
        (FANTASY, [], "inconclusive", "inputs_not_conveyed"),
        (["A small pizza please"], [ErrorCode.GOALS_NOT_VERIFIED], "inconclusive", "goal_not_asked"),
        (
            ["A small pizza please", "Is it delivered?"],
            [ErrorCode.GOALS_NOT_VERIFIED],
            "failed",
            "goals_not_verified",
        ),
        # Inconclusive never swallows a chatbot fault.
        (FANTASY, [ErrorCode.CHATBOT_CRASH], "failed", "chatbot_crash"),
        (FANTASY, [ErrorCode.TIMEOUT, ErrorCode.USER_LLM_FAILED], "failed", "timeout"),
        (CONVEYED, [ErrorCode.REPETITION_LOOP], "failed", "repetition_loop"),
        (FANTASY, [ErrorCode.REPETITION_LOOP], "inconclusive", "inputs_not_conveyed"),
        (FANTASY, [404], "failed", "http_404"),
        (CONVEYED, [ErrorCode.RATE_LIMITED], "inconclusive", "rate_limited"),
        (CONVEYED, [ErrorCode.EXTRACTION_FAILED], "inconclusive", "extraction_failed"),
        (CONVEYED, [ErrorCode.USER_LEFT_ROLE], "inconclusive", "user_left_role"),
        (CONVEYED, [ErrorCode.CHATBOT_UNREACHABLE], "inconclusive", "chatbot_unreachable"),
        (
            CONVEYED,
            [ErrorCode.BUDGET_REFUSED, ErrorCode.GOAL_NOT_COMPLETED],
            "inconclusive",
            "budget_refused",
        ),
        (CONVEYED, [ErrorCode.CANCELLED], "inconclusive", "cancelled"),
    ],
)
def test_verdicts_and_their_reasons(says, codes, verdict, reason):
    found, why = decide(_record(says, *codes), date(2027, 3, 10))
    assert (found, reason_code(why)) == (verdict, reason)
    if reason == "inputs_not_conveyed":
        assert "goal 1 (size=small)" in why


def test_a_missing_output_is_not_due_while_the_chatbot_is_still_asking_at_the_message_limit():
    asking = _record(
        CONVEYED, ErrorCode.GOAL_NOT_COMPLETED, bot_says="Got it. How many drinks would you like?"
    )
    asking.outcome.stopped_because, asking.settings.max_user_turns = "steps", 2
    verdict, why = decide(asking)
    assert (verdict, reason_code(why)) == ("inconclusive", "cut_short")
    assert "limit of 2 user messages" in why and "How many drinks would you like?" in why
    done = _record(CONVEYED, ErrorCode.GOAL_NOT_COMPLETED, bot_says="Your order is ready. Bye!")
    done.outcome.stopped_because = "steps"
    assert decide(done)[0] == "failed"  # it stopped asking and never gave the output
    menu = _record(
        CONVEYED, ErrorCode.GOAL_NOT_COMPLETED, bot_says="You can ask me: When do you open?, Do you deliver?"
    )
    menu.outcome.stopped_because = "steps"
    assert decide(menu)[0] == "failed"  # a menu of questions asks the user for nothing
    fallback = _record(CONVEYED, ErrorCode.GOAL_NOT_COMPLETED, bot_says="Sorry? Could you say that again?")
    fallback.outcome.stopped_because, fallback.outcome.ended_on_fallback = "steps", True
    assert decide(fallback)[0] == "failed"  # not understanding is no question about an input
    ended = _record(CONVEYED, ErrorCode.GOAL_NOT_COMPLETED, bot_says="How many drinks would you like?")
    ended.outcome.stopped_because = "finished"  # the chatbot's own end: no limit cut it short
    # …but the user never said how many drinks: the chatbot asked, the user did not do its part.
    assert reason_code(decide(ended)[1]) == "question_not_answered"
    answered = _record(
        ["A small pizza please", "Two, and do you deliver?"],
        ErrorCode.GOAL_NOT_COMPLETED,
        bot_says="How many drinks would you like?",
    )
    answered.outcome.stopped_because = "finished"
    assert decide(answered)[0] == "failed"


def test_an_output_the_extractor_may_have_missed_makes_a_doubt_not_a_failure():
    record = _record(CONVEYED, ErrorCode.GOAL_NOT_COMPLETED, bot_says="Done! It starts at 35$.")
    record.outputs = {"price": None}
    record.evidence = {"price": OutputEvidence(turn=3, quote="It starts at 35$.", reason="doubtful")}
    verdict, why = decide(record)
    assert (verdict, reason_code(why)) == ("inconclusive", "extraction_doubtful")
    assert "price, though turn 3 says 'It starts at 35$.'" in why
    record.outputs["order_id"] = None
    record.evidence["order_id"] = OutputEvidence(reason="not_stated")  # this one the chatbot never gave
    assert decide(record)[0] == "failed"


def test_a_stored_record_without_a_verdict_gets_one_and_tally_counts_reasons():
    old = _record(FANTASY, ErrorCode.CHATBOT_CRASH).model_dump(mode="json")
    old.pop("verdict")
    assert verdict_of(old)[0] == "failed"
    assert verdict_of({"id": "c0"})[0] == "passed"  # a bare stored record: nothing went wrong in it
    assert reason_code(verdict_of({"turns": "?"})[1]) == "unreadable"
    # A verdict decided by the current rules is read as stored; one of an older version is decided again.
    current_rules = {**old, "verdict": "inconclusive", "verdict_reason": "rate_limited: x"}
    assert verdict_of({**current_rules, "verdict_rules": VERDICT_RULES}) == (
        "inconclusive",
        "rate_limited: x",
    )
    assert verdict_of(current_rules)[0] == "failed"  # no version: re-decided (the crash on turn 1 is a fault)
    assert verdict_of({**current_rules, "verdict_rules": VERDICT_RULES - 1})[0] == "failed"
    counted = tally(
        [("passed", "passed"), ("inconclusive", "rate_limited: a"), ("inconclusive", "user_left_role: b")]
    )
    assert counted == {
        "passed": 1,
        "failed": 0,
        "inconclusive": 2,
        "failed_reasons": {},
        "inconclusive_reasons": {"rate_limited": 1, "user_left_role": 1},
        "faults": {
            "chatbot": 0,
            "simulated_user": 1,
            "parley_llm": 0,
            "infrastructure": 1,
            "test_setup": 0,
        },
        "verdict_rules": VERDICT_RULES,
    }


class CrashOnSecondMessage(Connector):
    """A bot that answers HTTP 500 on turn 2, whatever it was asked."""

    technology = "fake"

    def __init__(self) -> None:
        self.sent = 0

    def new_conversation(self) -> None:
        self.sent = 0

    def greeting(self) -> BotReply | None:
        return None

    def send(self, text: str) -> BotReply:
        self.sent += 1
        if self.sent == 2:
            raise ChatbotHTTPError("The chatbot answered HTTP 500 Internal Server Error.", status=500)
        return BotReply(messages=["Which size would you like?"])

    def close(self) -> None:
        pass


PROFILE = """
test_name: verdicts
user:
  role: You order a pizza.
  goals:
    - "order a {{size}} pizza"
    - size: {function: forward(), type: string, data: [small, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I did not catch that.
  output:
    - price: {type: money, description: total price}
conversation:
  number: 4
  goal_style: {steps: 3}
  interaction_style: [default]
"""


def test_against_a_bot_that_crashes_on_turn_2_every_conversation_fails_even_with_a_user_out_of_its_role(
    make_llm,
):
    # The user never says its size and even speaks for the chatbot: still, the crash is the chatbot's.
    llm, _ = make_llm(
        {TAG_USER_TURN: "I like dragons.\nChatbot: me too", TAG_EXTRACT: {"json": {"price": None}}}
    )
    records: list[ConversationRecord] = []
    summary = run_profiles(
        SenseiJob(
            [profile_from(PROFILE)],
            CrashOnSecondMessage,
            llm,
            sink=records.append,
            seed=3,
            today=lambda: TODAY,
        )
    )
    assert len(records) == 4
    assert {r.verdict for r in records} == {"failed"}
    assert all(reason_code(r.verdict_reason) == "chatbot_crash" for r in records)
    assert (summary.failed, summary.inconclusive, summary.passed) == (4, 0, 0)
    assert summary.failed_reasons == {"chatbot_crash": 4} and not summary.ok
    assert summary.simulator_slips == 8  # both messages of each conversation cut, counted for the run


def test_a_user_who_never_conveys_its_inputs_makes_the_conversation_inconclusive_not_failed(make_llm):
    llm, _ = make_llm(
        {
            TAG_USER_TURN: "Tell me about superheroes.",
            TAG_EXTRACT: {"json": {"price": {"amount": 1.5, "currency": "USD"}}},
        }
    )
    profile = profile_from(PROFILE)
    planned = plan(profile, seed=1, today=TODAY).conversations[0]
    record = Simulator(llm, today=lambda: TODAY).run(
        profile, planned, FakeBot(lambda text, turn: "Which size?")
    )
    assert record.outputs == {"price": None}  # 1.5 USD: said by no chatbot turn
    assert record.evidence["price"].reason == "no_evidence"
    # The chatbot asked "Which size?" three times of a user who never gave one: its job, not a loop to blame.
    assert ErrorCode.REPETITION_LOOP in record.error_codes
    assert record.verdict == "inconclusive"
    assert record.verdict_reason.startswith(
        "inputs_not_conveyed: the simulated user never said the inputs of goal 1"
    )


def test_every_verdict_reason_maps_to_who_is_at_fault_in_one_table():
    import inspect
    import re

    from engine.sensei import verdicts
    from engine.sensei.errors import ERROR_TABLE

    assert verdicts.FAULTS == ("chatbot", "simulated_user", "parley_llm", "infrastructure", "test_setup")
    assert set(verdicts.REASON_FAULTS.values()) == set(verdicts.FAULTS)
    # Every error code's slug, and only findings about the chatbot are the chatbot's.
    for info in ERROR_TABLE.values():
        assert info.slug in verdicts.REASON_FAULTS, info.slug
        assert (verdicts.REASON_FAULTS[info.slug] == "chatbot") == (info.kind == "finding"), info.slug
    # Every reason the rules write ("<reason>: …" in the module's source).
    written = set(re.findall(r'"([a-z_]+): ', inspect.getsource(verdicts))) - {"passed"}
    assert written and written <= set(verdicts.REASON_FAULTS), written - set(verdicts.REASON_FAULTS)
    assert verdicts.fault_of("http_404: not found") == "chatbot"
    assert verdicts.fault_of("passed: no chatbot fault") is None
    assert verdicts.fault_of("something_new: a reason this version does not know") == "infrastructure"


def test_a_failed_verdict_always_names_a_chatbot_turn_and_an_inconclusive_one_never_blames_the_chatbot():
    from engine.sensei.verdicts import decision

    cases = [
        _record(says, *codes)
        for says in (CONVEYED, FANTASY)
        for codes in (
            [],
            [ErrorCode.CHATBOT_CRASH],
            [ErrorCode.GOAL_NOT_COMPLETED],
            [ErrorCode.REPETITION_LOOP],
            [ErrorCode.FALLBACK_LOOP],
            [ErrorCode.USER_LLM_FAILED],
            [ErrorCode.RATE_LIMITED, ErrorCode.GOAL_NOT_COMPLETED],
        )
    ]
    for record in cases:
        found = decision(record, date(2027, 3, 10))
        if found.verdict == "failed":
            assert found.fault == "chatbot" and found.evidence_turn is not None, found
            turn = found.evidence_turn
            assert turn == len(record.turns) or record.turns[turn].role == "bot", found
        else:
            assert found.evidence_turn is None and found.fault != "chatbot", found
