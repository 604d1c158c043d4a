"""Loose JSON is read, not punished (README D29): with the imperfect double in its loose-JSON mode — the
extraction answered as models in `json_object` mode and small local models answer it (a bare number or "13.75$"
for money, `{"value": 13.75, "turn": "13.75", "quote": "13.75"}`, the turn as text, keys in other words, the
value at the top level, prose around, now and then `{}`) — the unmodified pizza and bike bots get no `failed`
conversation, and every price the chatbot stated is extracted.

The double is given no ground truth: it reads the prompts. The price check below is written apart from the
engine's evidence code (its own amount pattern over the chatbot's turns)."""

from __future__ import annotations

import re

import pytest

from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig
from engine.llm.offline.sensei import SenseiDouble, SenseiImperfection
from engine.sensei.extraction import extract_outputs

from .conftest import FAST_RETRY, TODAY, profile_from, run_on_bot
from .test_quality import BOOKING, ORDER, _client

LOOSE = SenseiImperfection(loose_json=1.0)
# "21$", "$21", "21.50 $", "21 dollars": an amount the chatbot said (independent of engine.sensei.evidence).
AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s?(?:\$|dollars?\b)|\$\s?(\d+(?:\.\d+)?)", re.IGNORECASE)


def _run(text: str, bot: str, seed: int) -> list:
    # JSON mode, as the small local models and json_object servers the loose answers come from.
    with _client(SenseiDouble(seed=seed, imperfection=LOOSE), structured_method="json_object") as llm:
        return run_on_bot([profile_from(text)], bot, llm, seed)


@pytest.mark.parametrize(("bot", "text"), [("pizza", ORDER), ("bike", BOOKING)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_loose_json_on_the_unmodified_bots_fails_nothing_and_extracts_every_stated_price(bot, text, seed):
    records = _run(text.replace("{GOAL_STYLE}", "{steps: 10}"), bot, seed)
    assert len(records) == 6
    assert [(r.verdict, r.verdict_reason) for r in records if r.verdict == "failed"] == []
    for record in records:
        said = [float(a or b) for t in record.turns if t.role == "bot" for a, b in AMOUNT.findall(t.text)]
        if not said:
            continue
        price = record.outputs["price"]
        assert price is not None, (record.evidence["price"], record.outcome.extraction_notes)
        assert price["amount"] in said, (price, said)
        proof = record.evidence["price"]
        assert record.turns[proof.turn].role == "bot" and str(price["amount"]).rstrip("0").rstrip(".") in (
            record.turns[proof.turn].text
        )


def _extract(answer: dict | str, transcript: list[tuple[str, str]]) -> tuple:
    """One extraction answered with `answer` (as the model wrote it), on a conversation of (role, text) turns."""
    from engine.conversation import Turn
    from engine.llm.offline.scripted import ScriptedChatModel

    profile = profile_from(ORDER.replace("{GOAL_STYLE}", "{steps: 4}"))
    turns = [Turn(role=role, text=said) for role, said in transcript]  # type: ignore[arg-type]
    reply = {"content": answer} if isinstance(answer, str) else {"json": answer}
    config = ProviderConfig(
        "openai-compatible", base_url="http://127.0.0.1:9/v1", model="m", structured_method="json_object"
    )
    chat = ScriptedChatModel({"sensei.extract": reply, "sensei.extract_quotes": {"json": {}}})
    guard = EgressGuard(EgressPolicy.parse("127.0.0.1"))
    with LLMClient(config, guard=guard, retry=FAST_RETRY, chat_model=chat) as llm:
        return extract_outputs(llm, profile, turns, TODAY), chat


TRANSCRIPT = [
    ("user", "a large hawaiian pizza and 2 coke"),
    (
        "bot",
        "Got it, 2 coke. The total for your large hawaiian and 2 coke is 13.75$. Your order number is FDDFDA.",
    ),
]


@pytest.mark.parametrize(
    "price",
    [
        {"value": 13.75, "turn": "13.75", "quote": "13.75"},  # the answer
        13.75,  # a bare number where an object was asked
        "13.75$",
        {"Value": "$13.75", "Turn": "turn 1", "Quote": "is 13.75$"},
        {
            "answer": {"value": 13.75, "currency": "$"},
            "turn_number": "1",
            "evidence": "The total … is 13.75$",
        },
    ],
)
def test_an_unambiguous_loose_money_answer_is_read_with_the_chatbot_s_sentence(price):
    found, _ = _extract({"price": price, "order_id": None}, TRANSCRIPT)
    assert found.values["price"]["amount"] == 13.75
    assert found.evidence["price"].turn == 1
    assert "13.75$" in found.evidence["price"].quote


def test_a_value_at_the_top_level_is_the_one_asked_output_s():
    # Asked again for the price alone, the model answers with the value at the top level, in prose.
    from engine.llm.structured import parse
    from engine.sensei.extraction import answer_schema

    profile = profile_from(ORDER.replace("{GOAL_STYLE}", "{steps: 4}"))
    schema = answer_schema(profile, ["price"])
    answer = parse(
        schema, 'Sure! Here it is: {"value": "13.75", "turn": "1", "quote": "is 13.75$"} Hope it helps.'
    )
    assert answer.model_dump(by_alias=True)["price"]["value"] == "13.75"


def test_an_answer_that_stays_unreadable_is_parley_s_model_not_the_chatbot():
    found, chat = _extract({"price": "a fair price", "order_id": "FDDFDA"}, TRANSCRIPT)
    assert found.values["price"] is None and found.evidence["price"].reason == "unreadable"
    assert found.quote_retry == ["price"]  # asked once more, with the reason
    asked_again = chat.calls_for("sensei.extract_quotes")
    assert asked_again and "could not be read" in asked_again[0].messages[-1][1]
