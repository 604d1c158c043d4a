"""The end of a conversation, from either side: it stops with `finished`, and what follows a closing is a note,
never a loop or a fault; `items_given` matches items by meaning, not spelling."""

from __future__ import annotations

import pytest

from engine.bots import bot_definition
from engine.bots.definition import Action, AnswerItem, Faq, Form, Menu
from engine.bots.phrases import phrasebook
from engine.conversation import ErrorCode
from engine.sensei import Simulator, plan, prompts
from engine.sensei.closing import (
    END_MARK,
    chatbot_farewell,
    match_item,
    offers_more_help,
    split_end_mark,
    user_closing,
)
from engine.sensei.simulator import TAG_EXTRACT, TAG_GOAL_CHECK, TAG_USER_TURN

from .conftest import TODAY, FakeBot, ReferenceBotConnector, profile_from

PROFILE = """
test_name: ending
user:
  role: You want to buy something.
  goals:
    - ask for the opening hours
    - buy a lamp
chatbot:
  is_starter: false
  fallback: I do not understand you at all.
  output: []
conversation:
  number: 1
  goal_style: {steps: 8}
  interaction_style: [default]
"""

ALL_ANSWERED = PROFILE.replace("goal_style: {steps: 8}", "goal_style: {all_answered: {limit: 8}}")


def _run(text, bot, llm):
    profile = profile_from(text)
    planned = plan(profile, seed=1, today=TODAY).conversations[0]
    return Simulator(llm, today=lambda: TODAY).run(profile, planned, bot)


def _verdict(goals, items=()):
    return {"json": {"goals": [{"goal": g, "answered": True} for g in goals], "items_given": list(items)}}


class Ending(FakeBot):
    """A fake bot whose reply on turn `at` carries the protocol's end-of-conversation flag."""

    def __init__(self, at: int) -> None:
        super().__init__(lambda text, turn: f"Reply {turn}.")
        self.at = at

    def send(self, text):
        reply = super().send(text)
        return reply.model_copy(update={"ended": len(self.received) == self.at})


def test_the_chatbot_saying_goodbye_ends_the_conversation(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: ["When do you open?", "A lamp, please.", "more", "more"]})
    answers = {1: "We open at noon.", 2: "Here is your lamp. Goodbye and have a nice day!"}
    record = _run(PROFILE, FakeBot(lambda t, n: answers.get(n, "What?")), llm)
    assert record.outcome.stopped_because == "finished"
    assert record.outcome.ended_by == "chatbot"
    assert record.outcome.end_signal.startswith("farewell")
    assert len(record.user_phrases) == 2  # nothing is said after the goodbye
    assert record.errors == []


def test_the_chatbot_s_end_flag_ends_the_conversation(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "next"})
    record = _run(PROFILE, Ending(at=3), llm)
    assert record.outcome.stopped_because == "finished"
    assert (record.outcome.ended_by, record.outcome.end_signal) == ("chatbot", "final state")
    assert len(record.user_phrases) == 3


def test_a_user_thanking_after_a_correct_order_is_no_repetition_loop(make_llm):
    # D15a: today the user says "Thanks, that's all." again and again and the pizza bot's polite fallback,
    # the same each time, is reported as a repetition loop.
    text = """
test_name: pizza_then_thanks
user:
  role: You order a pizza for tonight.
  goals: ["order a large margherita with 2 cokes"]
chatbot: {is_starter: false, fallback: "I do not understand you at all.", output: []}
conversation: {number: 1, goal_style: {steps: 8}, interaction_style: [default]}
"""
    order = ["I'd like a large margherita", "2 cokes please"]
    llm, model = make_llm({TAG_USER_TURN: [*order, "Thanks, that's all."]})
    bot = ReferenceBotConnector("pizza")
    record = _run(text, bot, llm)
    assert "Your order number is" in record.turns[3].text
    assert record.errors == []
    assert record.outcome.stopped_because == "finished"
    assert record.outcome.ended_by == "user"
    assert bot.received == [*order, "Thanks, that's all."]  # the closing is said once
    assert [n.model_dump() for n in record.outcome.notes or []] == [
        {"turn": 5, "note": "the chatbot answered the user's closing with a message"}
    ]
    assert len(model.calls_for(TAG_USER_TURN)) == 3


def test_the_end_marker_ends_the_conversation_and_is_never_sent(make_llm):
    llm, model = make_llm({TAG_USER_TURN: ["When do you open?", f"Great, thanks! {END_MARK}", "again"]})
    bot = FakeBot(lambda t, n: "Noted.")
    record = _run(PROFILE, bot, llm)
    assert bot.received == ["When do you open?", "Great, thanks!"]
    assert record.outcome.stopped_because == "finished"
    assert record.outcome.end_signal == "end marker"
    assert END_MARK in model.calls_for(TAG_USER_TURN)[0].messages[0][1]  # the prompt asks for it


def test_all_answered_an_offer_of_more_help_after_the_goals_are_met_ends_it(make_llm):
    text = ALL_ANSWERED.replace("output: []", "output:\n    - price: {type: money, description: the price}")
    llm, _ = make_llm(
        {
            TAG_USER_TURN: ["When do you open and do you have lamps?", "more", "more"],
            TAG_GOAL_CHECK: _verdict([1, 2]),  # the price was never stated: all_answered alone would go on
            TAG_EXTRACT: {"json": {"price": None}},
        }
    )
    bot = FakeBot(lambda t, n: "We open at noon and lamps are in aisle 3. Is there anything else I can do?")
    record = _run(text, bot, llm)
    assert record.outcome.stopped_because == "finished"
    assert record.outcome.end_signal.startswith("offer of more help")
    assert len(record.user_phrases) == 1
    assert record.error_codes == [ErrorCode.GOAL_NOT_COMPLETED]  # the missing output is still reported


def test_an_offer_of_more_help_before_the_goals_are_met_is_no_end(make_llm):
    llm, _ = make_llm(
        {
            TAG_USER_TURN: ["hi", "lamp?", "hours?"],
            TAG_GOAL_CHECK: [_verdict([]), _verdict([2]), _verdict([1])],
        }
    )
    answers = {1: "Hello! Anything else?", 2: "Lamps are in aisle 3.", 3: "We open at noon."}
    record = _run(ALL_ANSWERED, FakeBot(lambda t, n: answers[n]), llm)
    assert record.outcome.stopped_because == "all_answered"
    assert len(record.user_phrases) == 3


def test_all_answered_an_early_user_closing_is_no_end_and_its_answer_no_loop(make_llm):
    llm, model = make_llm(
        {
            TAG_USER_TURN: ["Do you have lamps?", "Thanks, bye!", "Thanks, bye!", "When do you open?"],
            TAG_GOAL_CHECK: [_verdict([2]), _verdict([]), _verdict([]), _verdict([1])],
        }
    )
    answers = {1: "Lamps are in aisle 3.", 4: "We open at noon."}
    record = _run(ALL_ANSWERED, FakeBot(lambda t, n: answers.get(n, "Lamps are in aisle 3.")), llm)
    # Three identical answers in a row would be a repetition loop; the two that answer closings are notes.
    assert record.errors == []
    assert record.outcome.stopped_because == "all_answered"
    assert [n.turn for n in record.outcome.notes or []] == [3, 5]
    reminder = model.calls_for(TAG_USER_TURN)[2].messages[-1][1]
    assert prompts.GOALS_LEFT.fill(goals="ask for the opening hours") in reminder


def test_all_answered_a_chatbot_that_ends_before_the_goals_are_met_is_reported(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: ["hi", "more"], TAG_GOAL_CHECK: _verdict([])})
    record = _run(ALL_ANSWERED, FakeBot(lambda t, n: "Goodbye."), llm)
    assert record.outcome.stopped_because == "finished"
    assert record.error_codes == [ErrorCode.GOALS_NOT_VERIFIED]
    assert "the chatbot ended the conversation" in record.errors[0].message


@pytest.mark.parametrize("given", ["Order IDs", "order-id", "ORDER_ID", "the order id", "Órder ids"])
def test_items_given_are_matched_by_meaning_not_spelling(make_llm, given):
    text = ALL_ANSWERED.replace(
        "output: []",
        "output:\n    - order_id: {type: string, description: the order number}\n"
        "    - prices: {type: money, description: the price}",
    )
    llm, _ = make_llm(
        {
            TAG_USER_TURN: ["hours and a lamp?", "more", "more"],
            TAG_GOAL_CHECK: _verdict([1, 2], [given, "Price"]),
            TAG_EXTRACT: {"json": {"order_id": "A1", "prices": {"amount": 3, "currency": "EUR"}}},
        }
    )
    record = _run(text, FakeBot(lambda t, n: "Noon. Lamp ordered, number A1, 3 EUR."), llm)
    assert record.outcome.stopped_because == "all_answered"
    assert record.errors == []


def test_closing_phrases():
    assert chatbot_farewell("Your order is ready. Goodbye!") == "goodbye"
    assert chatbot_farewell("¡Gracias! Que tengas un buen día.") == "que tengas un buen dia"
    assert chatbot_farewell("Type 'bye' to leave the chat. What would you like?") is None
    assert chatbot_farewell("Bye the way, we sell lamps. What would you like?") == "bye"  # first sentence
    assert chatbot_farewell("We open at noon, see you there? Lamps are in aisle 3.") is None
    assert offers_more_help("Done. Is there anything else I can help you with?") == "anything else"
    assert offers_more_help("Anything else? No? Then which size would you like?") is None
    assert user_closing("Perfect, thanks — that's all!") == "that s all"
    assert user_closing("No thanks") is None and user_closing("nothing else on the pizza") is None
    assert split_end_mark("Bye! [END]") == ("Bye!", True)
    assert split_end_mark("Bye! (end).") == ("Bye!", True)
    assert split_end_mark("The end is near") == ("The end is near", False)


def test_no_reference_bot_line_looks_like_a_goodbye():
    # A false goodbye would cut every conversation that meets it.
    from engine.bots.registry import BOTS

    for bot_id in BOTS:
        definition = bot_definition(bot_id)
        lines = list(phrasebook(definition.language, definition.phrases).values())
        for module in definition.modules.values():
            if isinstance(module, Menu):
                lines += [module.presentation or "", module.fallback or ""]
                lines += [item.answer for item in module.items if isinstance(item, AnswerItem)]
            elif isinstance(module, Faq):
                lines += [question.answer for question in module.questions]
            elif isinstance(module, Form):
                lines += [module.response or ""] + [slot.prompt for slot in module.slots]
            elif isinstance(module, Action):
                lines.append(module.response or "")
        if definition.greeting.text:
            lines.append(definition.greeting.text)
        looks = [line for line in lines if line and chatbot_farewell(line)]
        assert looks == [], (bot_id, looks)


def test_item_names_normalise_case_accents_separators_and_plurals():
    outputs = ["order_id", "price", "pickup_time"]
    assert match_item("Order IDs", outputs) == "order_id"
    assert match_item("prices", outputs) == "price"
    assert match_item("Pickup-Times", outputs) == "pickup_time"
    assert match_item("the total price of the order", outputs) == "price"
    assert match_item("delivery", outputs) is None


def test_the_same_statement_to_the_same_request_is_no_repetition_loop(make_llm):
    # The user asks the same thing again (a judge that missed the answer, a typo) and gets the same answer.
    llm, _ = make_llm(
        {TAG_USER_TURN: ["When do you open?", "so when do you opne?", "Quick question: when do you open?"]}
    )
    record = _run(PROFILE.replace("steps: 8", "steps: 3"), FakeBot(lambda t, n: "We open at noon."), llm)
    assert record.errors == []
    assert record.outcome.stopped_because == "steps"


def test_a_question_asked_again_and_again_is_still_a_repetition_loop(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "large"})
    bot = FakeBot(lambda t, n: "Which size would you like? Small, medium or large?")
    record = _run(PROFILE, bot, llm)
    assert record.error_codes == [ErrorCode.REPETITION_LOOP]
    llm, _ = make_llm({TAG_USER_TURN: ["a lamp", "the opening hours", "a discount"]})
    record = _run(PROFILE, FakeBot(lambda t, n: "We open at noon."), llm)
    assert record.error_codes == [ErrorCode.REPETITION_LOOP]  # the same statement to different requests


def test_a_closing_before_the_user_said_its_inputs_does_not_end_a_steps_conversation(make_llm):
    # The 135M model's first message: "It was a little bit empty, but that's all. …" — no pizza size in it.
    text = PROFILE.replace(
        "    - buy a lamp",
        '    - "buy a {{size}} lamp"\n    - size: {function: forward(), type: string, data: [small]}',
    )
    llm, model = make_llm(
        {TAG_USER_TURN: ["It was empty, but that's all.", "A small lamp, please.", "Thanks, that's all."]}
    )
    bot = FakeBot()
    record = _run(text, bot, llm)
    assert bot.received == ["It was empty, but that's all.", "A small lamp, please.", "Thanks, that's all."]
    assert record.outcome.stopped_because == "finished" and record.outcome.ended_by == "user"
    assert (
        prompts.INPUTS_LEFT.fill(goals="ask for the opening hours; buy a small lamp")
        in (model.calls_for(TAG_USER_TURN)[1].messages[-1][1])
    )
    assert record.verdict == "passed"
