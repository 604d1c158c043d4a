"""The simulator with the scripted LLM double, against a reference bot and a fake one."""

from __future__ import annotations

from engine.context import CancelToken
from engine.conversation import ErrorCode
from engine.llm import Budget
from engine.sensei import Simulator, SimulatorSettings, plan, prompts
from engine.sensei.simulator import TAG_EXTRACT, TAG_EXTRACT_QUOTES, TAG_GOAL_CHECK, TAG_USER_TURN

from .conftest import FALLBACK, TODAY, FakeBot, ReferenceBotConnector, profile_from

PROFILE = """
test_name: fake_shop
user:
  role: You want to buy something.
  goals:
    - ask for the opening hours
    - buy a {{item}}
    - item: {function: forward(), type: string, data: [lamp]}
chatbot:
  is_starter: true
  fallback: "Sorry, I did not understand that. Could you say it another way?"
  output: []
conversation:
  number: 1
  goal_style: {steps: 2}
  interaction_style: [default]
"""


def _run(profile_text, bot, llm, *, settings=None, cancel=None, **replace):
    profile = profile_from(profile_text)
    planned = plan(profile, seed=1, today=TODAY).conversations[0]
    simulator = Simulator(llm, settings=settings, today=lambda: TODAY)
    return simulator.run(profile, planned, bot, cancel=cancel)


def _user_prompts(model):
    return [call.messages[-1][1] for call in model.calls_for(TAG_USER_TURN)]


def test_bot_starts_greeting_first_and_every_user_message_is_sent(make_llm):
    llm, model = make_llm({TAG_USER_TURN: ["Hi! When do you open?", 'User: "I\'d like a lamp"']})
    bot = FakeBot(greeting="Hello, I am the shop assistant.")
    record = _run(PROFILE, bot, llm)
    assert [t.role for t in record.turns] == ["bot", "user", "bot", "user", "bot"]
    assert record.turns[0].text == "Hello, I am the shop assistant."
    assert bot.events[:2] == ["open", "greeting"]
    assert bot.received == ["Hi! When do you open?", "I'd like a lamp"]
    assert [t.text for t in record.turns if t.role == "user"] == bot.received
    assert "Chatbot: Hello, I am the shop assistant." in _user_prompts(model)[0]
    assert record.errors == []
    assert record.outcome.llm_calls == {TAG_USER_TURN: 2}  # steps mode: one call per user turn
    assert record.turns[2].latency_s is not None and record.turns[1].at_s <= record.turns[2].at_s


def test_user_starts_against_the_reference_pizza_bot_with_typed_outputs(make_llm):
    text = """
test_name: pizza_reference
user:
  role: You order food for tonight.
  goals:
    - "order a {{size}} margherita pizza"
    - "{{drinks}} cokes"
    - size: {function: forward(), type: string, data: [large]}
    - drinks: {function: forward(), type: int, data: [2]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - price: {type: money, description: total price of the order}
    - order_id: {type: string, description: the order number}
    - pickup: {type: date, description: the day the order can be picked up}
    - ready_at: {type: time, description: when the order will be ready}
    - minutes: {type: int, description: minutes until the order is ready}
    - drinks: {type: "list[string]", description: drinks ordered}
    - size: {type: "enum[small, medium, large]", description: pizza size}
conversation:
  number: 1
  goal_style: {steps: 2}
  interaction_style: [single question]
"""
    # What the chatbot said, as the extractor reads it (with the turn and words for two of them); and two values
    # it never said, which the chatbot's words do not support even when asked once more.
    extracted = {
        "price": {"value": {"amount": 21, "currency": "$"}, "turn": 3, "quote": "is 21$"},
        "order_id": {"value": "0ED87A", "turn": 1, "quote": "Your order number"},
        "pickup": "tomorrow",
        "ready_at": "7:30 pm",
        "minutes": 20.0,
        "drinks": ["coke"],
        "size": "large",
    }
    llm, model = make_llm(
        {
            TAG_USER_TURN: ["I'd like a large margherita pizza", "2 cokes, please"],
            TAG_EXTRACT: {"json": extracted},
            TAG_EXTRACT_QUOTES: {
                "json": {"pickup": None, "ready_at": {"value": "19:30", "quote": "7:30 pm"}}
            },
        }
    )
    bot = ReferenceBotConnector("pizza")
    record = _run(text, bot, llm)
    assert [t.role for t in record.turns] == ["user", "bot", "user", "bot"]  # the pizza bot does not greet
    assert bot.received == ["I'd like a large margherita pizza", "2 cokes, please"]
    assert "21$" in record.turns[-1].text
    assert record.outputs == {
        "price": {"amount": 21.0, "currency": "USD"},
        "order_id": "0ED87A",
        "pickup": None,
        "ready_at": None,
        "minutes": 20,
        "drinks": ["coke"],
        "size": "large",
    }
    evidence = record.evidence
    # A quote of a word or two ("is 21$") is shown as the chatbot's sentence that holds it.
    assert (
        evidence["price"].turn == 3
        and evidence["price"].quote == "The total for your large margherita and 2 coke is 21$."
    )
    # The extractor named the wrong turn and half a sentence: the turn that says it, and its sentence.
    assert evidence["order_id"].turn == 3 and evidence["order_id"].quote.startswith(
        "Your order number is 0ED87A"
    )
    assert evidence["minutes"].quote == "It will be ready for pickup at 7 Harbour Lane in about 20 minutes."
    assert {name: evidence[name].reason for name in ("pickup", "ready_at")} == {
        "pickup": "no_evidence",
        "ready_at": "no_evidence",
    }
    assert all(record.turns[e.turn].role == "bot" for e in evidence.values() if e.turn is not None)
    assert record.error_codes == [ErrorCode.GOAL_NOT_COMPLETED]
    assert "pickup (no_evidence)" in record.errors[0].message
    assert record.inputs == {"size": "large", "drinks": 2}
    assert record.outcome.llm_calls == {TAG_EXTRACT: 1, TAG_EXTRACT_QUOTES: 1, TAG_USER_TURN: 2}
    assert record.usage.calls == 4 and (record.usage.cost_usd or 0) > 0
    assert record.verdict == "failed" and record.verdict_reason.startswith("goal_not_completed")
    quote_prompt = model.calls_for(TAG_EXTRACT_QUOTES)[0].messages[-1][1]
    assert "- pickup: you gave 2026-03-11" in quote_prompt and "- ready_at: you gave 19:30:00" in quote_prompt
    assert "price" not in quote_prompt.split("Fields:")[1].split("Conversation:")[0]
    extract_prompt = model.calls_for(TAG_EXTRACT)[0].messages[-1][1]
    assert "2026-03-10 (Tuesday)" in extract_prompt
    assert "single question" not in _user_prompts(model)[0]
    assert prompts.STYLE_INSTRUCTIONS["single question"] in model.calls_for(TAG_USER_TURN)[0].messages[0][1]


def test_missing_and_untyped_outputs_are_reported(make_llm):
    text = PROFILE.replace(
        "output: []",
        "output:\n    - total: {type: float, description: total}\n"
        "    - when: {type: date, description: delivery day}",
    )
    llm, _ = make_llm({TAG_USER_TURN: "hello", TAG_EXTRACT: {"json": {"total": None, "when": "someday"}}})
    record = _run(text, FakeBot(), llm)
    assert record.outputs == {"total": None, "when": None}
    assert record.error_codes == [ErrorCode.GOAL_NOT_COMPLETED]
    assert "when: 'someday' is not a date" in record.outcome.extraction_notes


def test_fallbacks_make_the_user_rephrase_then_change_topic(make_llm):
    llm, model = make_llm({TAG_USER_TURN: ["one", "two", "three", "four", "five"]})
    bot = FakeBot(lambda text, turn: FALLBACK if turn <= 3 else "Sure, here you are.")
    record = _run(PROFILE.replace("steps: 2", "steps: 5"), bot, llm)
    user_prompts = _user_prompts(model)
    assert prompts.REPHRASE.text not in user_prompts[0]
    assert prompts.REPHRASE.text in user_prompts[1] and prompts.REPHRASE.text in user_prompts[2]
    assert prompts.CHANGE_TOPIC.text in user_prompts[3]
    assert prompts.REPHRASE.text not in user_prompts[4] and prompts.CHANGE_TOPIC.text not in user_prompts[4]
    assert record.outcome.fallback_replies == 3
    assert record.errors == []


def test_fallback_loop_stops_the_conversation_in_steps_mode(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello?"})
    record = _run(
        PROFILE.replace("steps: 2", "steps: 20"), FakeBot(lambda t, n: FALLBACK.upper() + "!!"), llm
    )
    assert record.error_codes == [ErrorCode.FALLBACK_LOOP]
    assert len(record.user_phrases) == SimulatorSettings().fallback_loop_limit
    assert record.outcome.stopped_because == "fallback_loop"


def test_repeated_answers_stop_the_conversation_in_all_answered_mode(make_llm):
    text = PROFILE.replace("goal_style: {steps: 2}", "goal_style: {all_answered: {limit: 10}}")
    # Three different requests: the same answer to the same request again would be consistency, not a loop.
    questions = ["hello?", "do you sell lamps?", "is there a discount?"]
    llm, _ = make_llm({TAG_USER_TURN: questions, TAG_GOAL_CHECK: {"json": {"goals": [], "items_given": []}}})
    record = _run(text, FakeBot(lambda t, n: "We are open from noon to 11pm."), llm)
    assert record.error_codes == [ErrorCode.REPETITION_LOOP]
    assert len(record.user_phrases) == 3


def test_all_answered_stops_once_goals_are_verified(make_llm):
    text = PROFILE.replace("goal_style: {steps: 2}", "goal_style: {all_answered: {limit: 6}}").replace(
        "output: []", "output:\n    - price: {type: money, description: the price}"
    )
    llm, model = make_llm(
        {
            TAG_USER_TURN: ["When do you open?", "A lamp please", "extra"],
            TAG_GOAL_CHECK: [
                {"json": {"goals": [{"goal": 1, "answered": True, "evidence": "noon"}], "items_given": []}},
                {
                    "json": {
                        "goals": [{"goal": 1, "answered": True}, {"goal": 2, "answered": True}],
                        "items_given": ["price"],
                    }
                },
            ],
            TAG_EXTRACT: {"json": {"price": {"amount": 12.5, "currency": "EUR"}}},
        }
    )
    answers = {1: "We open at noon.", 2: "One lamp, that is 12.50 EUR."}
    record = _run(text, FakeBot(lambda t, n: answers.get(n, "ok")), llm)
    assert record.outcome.stopped_because == "all_answered"
    assert len(record.user_phrases) == 2
    assert record.outcome.llm_calls == {TAG_EXTRACT: 1, TAG_GOAL_CHECK: 2, TAG_USER_TURN: 2}
    second_check = model.calls_for(TAG_GOAL_CHECK)[1].messages[0][1]
    assert "ask for the opening hours" not in second_check  # verified goals are not asked about again
    assert record.outputs["price"] == {"amount": 12.5, "currency": "EUR"}
    assert record.errors == []


def test_all_answered_limit_records_goals_not_verified(make_llm):
    text = PROFILE.replace("goal_style: {steps: 2}", "goal_style: {all_answered: {limit: 3}}")
    llm, _ = make_llm({TAG_USER_TURN: ["a", "b", "c"], TAG_GOAL_CHECK: {"json": {"goals": []}}})
    record = _run(text, FakeBot(lambda t, n: f"answer {n} is different"), llm)
    assert record.error_codes == [ErrorCode.GOALS_NOT_VERIFIED]
    assert len(record.user_phrases) == 3


def test_timeout_and_server_error_are_recorded_and_end_the_conversation(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: ["hello", "SLOW please"]})
    record = _run(PROFILE.replace("steps: 2", "steps: 5"), FakeBot(), llm)
    assert record.error_codes == [ErrorCode.TIMEOUT]
    assert record.errors[0].turn == 3 and record.turns[-1].role == "user"
    llm, _ = make_llm({TAG_USER_TURN: ["CRASH it"]})
    record = _run(PROFILE, FakeBot(), llm)
    assert record.error_codes == [ErrorCode.CHATBOT_CRASH]
    assert "500" in record.errors[0].message


def test_conversation_budget_stops_before_the_next_call(make_llm):
    text = PROFILE.replace("goal_style: {steps: 2}", "goal_style: {steps: 5, max_cost: 0.001}")
    expensive = {"content": "hello", "usage": {"prompt_tokens": 100_000, "completion_tokens": 10}}
    llm, model = make_llm({TAG_USER_TURN: expensive})
    record = _run(text, FakeBot(), llm)
    assert record.error_codes == [ErrorCode.CONVERSATION_BUDGET_EXCEEDED]
    assert len(model.calls_for(TAG_USER_TURN)) == 1


def test_a_call_refused_by_the_run_budget_is_recorded(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello"}, budget=Budget(0.0))
    record = _run(PROFILE, FakeBot(), llm)
    assert record.error_codes == [ErrorCode.BUDGET_REFUSED]


def test_user_llm_failure_is_recorded(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: {"fault": "auth"}})
    record = _run(PROFILE, FakeBot(), llm)
    assert record.error_codes == [ErrorCode.USER_LLM_FAILED]
    llm, _ = make_llm({TAG_USER_TURN: "   "})
    assert _run(PROFILE, FakeBot(), llm).error_codes == [ErrorCode.USER_LLM_FAILED]


def test_change_language_and_short_phrases(make_llm):
    text = PROFILE.replace(
        "interaction_style: [default]", "interaction_style: [short phrases, {change language: [Spanish]}]"
    )
    llm, model = make_llm({TAG_USER_TURN: ["hola", "una lámpara"]})
    record = _run(text, FakeBot(), llm, settings=SimulatorSettings(language_switch_probability=1.0))
    assert record.outcome.languages == ["Spanish", "Spanish"]
    system_prompt = model.calls_for(TAG_USER_TURN)[0].messages[0][1]
    assert "Spanish" in system_prompt
    assert prompts.STYLE_INSTRUCTIONS["short phrases"] in system_prompt
    assert record.settings.styles == ["short phrases", {"change language": ["Spanish"]}]


def test_cancellation_is_checked_between_turns(make_llm):
    llm, _ = make_llm({TAG_USER_TURN: "hello"})
    cancel = CancelToken()
    cancel.cancel()
    record = _run(PROFILE, FakeBot(), llm, cancel=cancel)
    assert record.error_codes == [ErrorCode.CANCELLED]
    assert [t.role for t in record.turns] == []  # the greeting fetch happens first: the bot has none here


def test_every_user_turn_asks_for_the_conversations_seed_so_a_seeded_server_repeats_the_run(make_llm):
    llm, model = make_llm({TAG_USER_TURN: ["When do you open?", "A lamp, please."]})
    profile = profile_from(PROFILE.replace("number: 1", "number: 2"))
    conversations = plan(profile, seed=1, today=TODAY).conversations
    simulator = Simulator(llm, today=lambda: TODAY)
    for planned in conversations:
        simulator.run(profile, planned, FakeBot(greeting="Hello."))
    seeds = [call.options.get("seed") for call in model.calls_for(TAG_USER_TURN)]
    assert seeds == [c.seed for c in conversations for _ in range(2)]
    assert conversations[0].seed != conversations[1].seed  # repeats and conversations still differ
