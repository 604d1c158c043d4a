"""Simulated-user hygiene: no line that speaks for the chatbot reaches it; recitals and empty turns are written
again once, then the conversation ends inconclusive; every slip is counted."""

from __future__ import annotations

import pytest

from engine.conversation import ErrorCode
from engine.sensei import Simulator, plan
from engine.sensei.hygiene import chatbot_names, clean_user_turn, recited
from engine.sensei.simulator import TAG_USER_TURN

from .conftest import TODAY, FakeBot, profile_from

ROLE = "You order a pizza to pick up tonight."


@pytest.mark.parametrize(
    ("written", "sent"),
    [
        # The 135M model's own words, from the run that filed the issue.
        (
            "I'd like a small pizza, please.\nChatbot: Thank you for being here! What size would you like?",
            "I'd like a small pizza, please.",
        ),
        ("A large one.\n**Assistant:** Great choice!\n**User:** thanks", "A large one."),
        ("Two cokes.\nBot: Anything else?", "Two cokes."),
        ("Two cokes.\n  [Chatbot]: Anything else?", "Two cokes."),
        ("Two cokes.\nPizzaBot: Anything else?", "Two cokes."),
        ("Two cokes.\nSlice Station: Anything else?", "Two cokes."),  # the chatbot's own name
        ("Two cokes, please. Chatbot: Sure, anything else?", "Two cokes, please."),
        ("I want to test you.\nYour next message as the chatbot: You're ready!", "I want to test you."),
        (
            "A margherita.\nUser: and a coke\nChatbot: ok",
            "A margherita.",
        ),  # writes the rest of the transcript
        ('User: "I\'d like a lamp"', "I'd like a lamp"),  # its own label and quotes: removed, no slip
        ('My next message was:\n"A small pizza, please."', "A small pizza, please."),  # a heading, removed
        ("Your next message as the user: hello", "hello"),
        ("Note: I am allergic to nuts.", "Note: I am allergic to nuts."),  # a label that is no speaker
    ],
)
def test_a_turn_is_cut_where_the_model_starts_speaking_for_the_chatbot(written, sent):
    turn = clean_user_turn(written, names=["Slice Station"], instructions=[ROLE])
    assert turn.message == sent
    assert turn.usable
    spoke = [s.kind for s in turn.slips]
    assert spoke == ([] if written.startswith(("User:", "Note:", "My next", "Your next")) else [spoke[0]])
    assert not any(
        line.lower().startswith(("chatbot", "assistant", "bot:")) for line in turn.message.splitlines()
    )


@pytest.mark.parametrize(
    ("written", "kinds"),
    [
        ("Chatbot: Welcome to Slice Station! What would you like?", ["spoke_for_chatbot", "empty"]),
        ("You order a pizza to pick up tonight. Hi!", ["recited_instructions"]),
        ("Hi! Your next message as the user: hello", ["recited_instructions"]),
        # A paraphrase of its own prompt: six words in a row of it are enough.
        ("I'm excited. Your last answer was not a message from the chatbot.", ["recited_instructions"]),
        ("A: Welcome! What would you like?", ["spoke_for_chatbot", "empty"]),
        ("Hey there, I'm the user. What can I get for you today?", ["assistant_voice"]),
        ("Hello! How can I help you today?", ["assistant_voice"]),
        ("Hi, I'm here to assist you with your bike restoration.", ["assistant_voice"]),
    ],
)
def test_a_recital_an_assistants_voice_or_nothing_left_must_be_written_again(written, kinds):
    turn = clean_user_turn(written, instructions=[ROLE])
    assert [s.kind for s in turn.slips] == kinds
    assert not turn.usable


def test_saying_what_it_wants_in_its_own_words_is_no_recital():
    assert recited("I'd like to order a pizza to pick up tonight.", [ROLE]) is None
    assert recited("Sorry, you did not understand my last message: a small one.", [ROLE]) is None
    assert recited("Hi! You order a pizza to pick up tonight, right?", [ROLE]) is not None
    assert recited("pizza", ["Short."]) is None  # sentences of fewer than five words are never matched


def test_the_chatbots_names_come_from_what_it_says():
    said = ["Hi! Spoke & Chain Cycles here.", "Welcome to Slice Station! I'm Sparky, your helper."]
    assert chatbot_names(said) == ["Spoke & Chain Cycles", "Slice Station", "Sparky"]


PROFILE = """
test_name: hygiene
user:
  role: You order a pizza to pick up tonight.
  goals:
    - "order a {{size}} pizza"
    - size: {function: forward(), type: string, data: [small]}
chatbot:
  is_starter: false
  fallback: Sorry, I did not catch that.
  output: []
conversation:
  number: 1
  goal_style: {steps: 2}
  interaction_style: [default]
"""


def _run(llm, bot):
    profile = profile_from(PROFILE)
    planned = plan(profile, seed=1, today=TODAY).conversations[0]
    return Simulator(llm, today=lambda: TODAY).run(profile, planned, bot)


def test_no_line_that_speaks_for_the_chatbot_reaches_it_and_each_slip_is_counted(make_llm):
    llm, model = make_llm(
        {
            TAG_USER_TURN: [
                "A small pizza, please.\nChatbot: Sure! Anything to drink?\nUser: no",
                "You order a pizza to pick up tonight.",  # a recital: written again…
                "No drinks, thanks.",  # …and the second answer is sent
            ]
        }
    )
    bot = FakeBot()
    record = _run(llm, bot)
    assert bot.received == ["A small pizza, please.", "No drinks, thanks."]
    slips = record.outcome.simulator_slips or []
    assert [(s.turn, s.attempt, s.kind) for s in slips] == [
        (0, 1, "spoke_for_chatbot"),
        (2, 1, "recited_instructions"),
    ]
    # The second request says why it is asked again.
    assert "not a message from the user" in model.calls_for(TAG_USER_TURN)[2].messages[-1][1]
    assert record.verdict == "passed"


def test_a_turn_no_better_when_written_again_ends_the_conversation_inconclusive(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: ["Chatbot: Welcome!", "Assistant: What size?", "never asked"]})
    bot = FakeBot()
    record = _run(llm, bot)
    assert bot.received == []
    assert record.error_codes == [ErrorCode.USER_LEFT_ROLE]
    assert record.outcome.stopped_because == "user_left_role"
    assert record.verdict == "inconclusive" and record.verdict_reason.startswith("user_left_role")
    assert [s.kind for s in record.outcome.simulator_slips or []] == [
        "spoke_for_chatbot",
        "empty",
        "spoke_for_chatbot",
        "empty",
    ]
