"""The rules generated from the ground truth: silent on the original bots, failing on the mutants they target."""

from __future__ import annotations

from datetime import date

import pytest

from engine.bots import bot_ids, load_bot
from engine.bots.definition import BotDefinition
from engine.bots.registry import mutants_of
from engine.bots.runtime import BotCrash, BotRuntime
from engine.check import Limits, check
from engine.conversation import Button, ConversationRecord, Turn
from engine.evaluation import BenchConfig, oracle_rules, select_mutants
from engine.evaluation.scoring import error_reason

CONVERSATIONS: dict[str, list[list[str]]] = {
    "pizza": [
        ["I want to order a pizza", "house pizza", "large carbonara", "2", "water"],
        ["order", "build my own", "medium with ham, olives, corn and bacon", "3 lemonade"],
        ["When are you open?", "How much does a pizza cost?", "What drinks do you have?"],
    ],
    "bike": [
        ["book an appointment", "repair", "tomorrow", "10:00"],
        ["How much is a new tire?", "How much is a new seat?", "tune-up cost?"],
    ],
    "photography": [
        ["I need a quote", "video", "12 sculptures"],
        ["estimate please", "photography", "3", "paintings"],
        ["call me", "Ana", "600123123", "ana@example.com", "tomorrow"],
    ],
    "veterinary": [
        ["I want an appointment", "dog", "tomorrow", "10:00"],
        ["When is the clinic open?", "Are you open at weekends?", "How much does a visit cost?"],
    ],
}


def replay(definition: BotDefinition, messages: list[str], index: int) -> ConversationRecord:
    runtime = BotRuntime(definition, conversation_id=f"c{index}", today=date(2026, 3, 2))
    turns: list[Turn] = []
    opening = runtime.start()
    if opening.messages:
        turns.append(Turn(role="bot", text="\n".join(opening.messages)))
    for message in messages:
        turns.append(Turn(role="user", text=message))
        try:
            reply = runtime.reply(message)
        except BotCrash:
            break
        buttons = [Button(label=b, value=b) for b in reply.buttons]
        turns.append(Turn(role="bot", text="\n".join(reply.messages), buttons=buttons))
    return ConversationRecord(id=f"c{index}", profile="replay", turns=turns)


def failures(bot: str, definition: BotDefinition) -> set[str]:
    rules = [o.rule for o in oracle_rules(load_bot(bot))]
    records = [replay(definition, messages, i) for i, messages in enumerate(CONVERSATIONS[bot])]
    report = check(rules, records, limits=Limits(isolate=False))
    assert all(rule.errors == 0 for rule in report.rules), [r.results for r in report.rules if r.errors]
    return {rule.name for rule in report.rules if rule.failed}


@pytest.mark.parametrize("bot", list(CONVERSATIONS))
def test_rules_pass_on_the_original(bot: str) -> None:
    assert failures(bot, load_bot(bot)) == set()


@pytest.mark.parametrize(
    ("bot", "mutant", "rule"),
    [
        ("pizza", "wrong-price-formula-1", "outputs_price_house"),
        ("pizza", "wrong-price-formula-2", "outputs_price_custom"),
        ("photography", "wrong-price-formula-1", "outputs_estimate"),  # inputs from an earlier line
        ("bike", "delete-response-data-4", "outputs_book_service"),
        ("bike", "swap-qa-answers-1", "faq_answers"),
        ("veterinary", "delete-qa-pair-1", "faq_answers"),
        ("bike", "delete-enum-value-1", "enum_options"),
    ],
)
def test_rules_fail_on_the_mutants_they_target(bot: str, mutant: str, rule: str) -> None:
    definition = next(m.definition for m in mutants_of(bot) if m.id == mutant)
    assert definition is not None
    assert rule in failures(bot, definition)


def test_every_bot_gets_rules() -> None:
    for bot in bot_ids():
        kinds = {o.kind for o in oracle_rules(load_bot(bot))}
        assert "output" in kinds, bot
        assert "enum" in kinds, bot


def test_selection_is_seeded_and_keeps_stillborn_apart() -> None:
    config = BenchConfig(bots=("pizza",), mutants_per_operator=1, seed=3)
    first = select_mutants("pizza", config)
    assert [m.id for m in first] == [m.id for m in select_mutants("pizza", config)]
    loadable = [m for m in first if not m.stillborn]
    operators = [m.operator for m in loadable]
    assert len(operators) == len(set(operators))
    assert all(m.stillborn for m in first[len(loadable) :])


def test_error_reasons() -> None:
    assert error_reason(500) == "crash"
    assert error_reason(504) == "timeout"
    assert error_reason(1003) == "loop"
    assert error_reason(1002) == "unmet_goal"
    assert error_reason(1001) == "missing_output"
    assert error_reason(3000) is None  # the user LLM failed: no finding about the bot
    assert error_reason(4000) is None
