"""The masking rules, as `parley transcripts rules` shows them: every example it says is masked is masked, every
example it says is kept is kept; and the placeholders a conversation gets."""

from __future__ import annotations

import pytest

from engine.personal_data import RULES, Masker, asks_name, find_pii, mask_text, names_given


@pytest.mark.parametrize(("kind", "example"), [(r.kind, e) for r in RULES for e in r.masked])
def test_every_example_the_rules_call_masked_is_masked(kind, example):
    masked = mask_text(example)
    assert f"[{kind.upper()}_1]" in masked
    assert masked != example


@pytest.mark.parametrize(("kind", "example"), [(r.kind, e) for r in RULES for e in r.kept])
def test_every_example_the_rules_call_kept_is_kept(kind, example):
    assert mask_text(example) == example


@pytest.mark.parametrize(
    "text",
    [
        "Order 3FA9C1 is on its way",
        "That's 13.75 euros, or 1,299.00 for the big one",
        "Delivery on 2024-03-15 10:30 or 15/03/2024 at 18:45",
        "I'm looking for a pizza",
        "I'm Sorry, I am not sure. This is great! Soy vegetariano.",
        "I'M ANGRY, I'm Italian and THIS IS URGENT",
        "call me tomorrow please",
        "Table for 4 at 8, reservation 12345",
        "Ticket #A-7781-ZQ",
    ],
)
def test_look_alikes_are_not_personal_data(text):
    assert mask_text(text) == text


def test_names_come_from_the_cue_phrases_only():
    assert names_given("Hi, my name is ana") == ["ana"]
    assert names_given("My name is Ana María López and I want pizza") == ["Ana María López"]
    assert names_given("me llamo Lucía") == ["Lucía"]
    assert names_given("Mi nombre es José Luis") == ["José Luis"]
    assert names_given("I'm Bob. This is Carla's order") == ["Bob", "Carla"]
    assert names_given("I'm looking for a pizza, this is urgent, soy de Madrid") == []


def test_a_reply_to_the_chatbot_asking_for_the_name_is_a_name():
    assert asks_name("Great choice! What's your name?") and asks_name("¿Cómo te llamas?")
    assert not asks_name("What size would you like?")
    assert names_given("Ana López.", asked=True) == ["Ana López"]
    assert names_given("It's Bob", asked=True) == ["Bob"]
    assert names_given("Ana López.", asked=False) == []
    # not a name, even when asked: lower case, a sentence, a common word, shouting
    for reply in ("ana", "I want a large pizza", "Why?", "No", "PIZZA"):
        assert names_given(reply, asked=True) == [], reply


def test_a_conversation_keeps_its_placeholders_and_masks_a_learned_name_everywhere():
    masker = Masker()
    turns = ["Hello, who am I talking to?", "I'm Bob, bob@example.com", "Is bob@EXAMPLE.com right, Bob?"]
    masker.learn_names(turns[1])
    masked = [masker.mask(t) for t in turns]
    assert masked == [
        "Hello, who am I talking to?",
        "I'm [NAME_1], [EMAIL_1]",
        "Is [EMAIL_1] right, [NAME_1]?",
    ]
    assert masker.counts == {"name": 2, "email": 2}
    other = Masker()
    assert other.mask("alice@example.com") == "[EMAIL_1]"  # numbering is per conversation


def test_a_full_name_and_its_parts_share_one_placeholder():
    masker = Masker()
    masker.learn_names("my name is Ana López")
    assert masker.mask("Ana López, or Ana, or López; not Li") == "[NAME_1], or [NAME_1], or [NAME_1]; not Li"


def test_the_security_oracle_sees_the_same_detectors():
    from engine.security import detectors

    assert detectors.find_pii is find_pii
    found = find_pii("mail a@b.co, card 4111 1111 1111 1111", ["email", "card"])
    assert [(m.kind, m.text) for m in found] == [("email", "a@b.co"), ("card", "4111 1111 1111 1111")]


def test_a_turn_full_of_names_cannot_make_masking_slow():
    import time

    masker = Masker()
    flood = " ".join(
        f"I'm Name{chr(65 + i % 26)}{chr(65 + i // 26 % 26)}{chr(65 + i // 676)}x." for i in range(5000)
    )
    started = time.perf_counter()
    masker.learn_names(flood)
    masked = masker.mask(flood * 4)
    assert time.perf_counter() - started < 60  # linear: seconds on a busy machine; backtracking: hours
    assert masked.count("[NAME_") == 4 * 50  # the first fifty names, wherever they appear


@pytest.mark.parametrize(
    "flood",
    [
        "%" * 400_000 + "@",
        "a." * 200_000 + "@x",
        "1 " * 200_000,
        "+(" * 200_000,
        "I'm " * 100_000,
        "ana@b.co " * 40_000,
    ],
)
def test_no_line_makes_a_detector_slow(flood):
    """A 2 Mi-character line is allowed in; the detectors stay linear on it (no catastrophic backtracking)."""
    import time

    started = time.perf_counter()
    masker = Masker()
    masker.learn_names(flood)
    masker.mask(flood)
    assert time.perf_counter() - started < 60  # linear: seconds on a busy machine; backtracking: hours
