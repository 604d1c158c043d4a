"""Which part of a bot's definition a message came from (`engine.bots.sources`): every message of a real
conversation is traced, the same template with other values is one part, and two slots' refusals are two."""

from __future__ import annotations

from datetime import date

from engine.bots import bot_ids, open_bot
from engine.bots.registry import load_bot
from engine.bots.sources import Sources

# Turns that walk each bot through its menus, a task and a refused value; whatever it answers must be traced.
TURNS = {
    "pizza": ["What pizzas do you have?", "Order a pizza", "a huge one", "margherita", "large", "two", "no"],
    "veterinary": ["How much is a visit?", "Book a visit", "a dragon", "dog", "tomorrow", "10:00", "Rex"],
}


def talk(bot_id: str, conversation: str, turns: list[str]) -> list[str]:
    runtime = open_bot(bot_id, conversation_id=conversation, today=date(2026, 3, 2))
    said = list(runtime.start().messages)
    for turn in turns:
        said += runtime.reply(turn).messages
    return said


def test_every_message_of_a_conversation_is_traced_to_its_part_of_the_definition():
    for bot_id in bot_ids():
        sources = Sources(load_bot(bot_id))
        turns = TURNS.get(bot_id, ["Hello", "What can you do?", "help", "1", "yes", "tomorrow"])
        said = talk(bot_id, "trace-1", turns)
        assert said
        assert [m for m in said if sources.of(m) is None] == [], bot_id


def test_a_template_filled_with_other_values_is_one_part_and_other_parts_differ():
    sources = Sources(load_bot("veterinary"))
    rabbit = "Your visit for your rabbit is booked on 03/03/2026 at 11:30. A standard visit costs 45$. See you then!"
    dog = (
        "Your visit for your dog is booked on 04/03/2026 at 10:00. A standard visit costs 55$. See you then!"
    )
    faq = "A standard visit costs between 45$ and 55$, depending on the animal."
    assert sources.of(rabbit) == sources.of(dog) == "visit:response"
    assert sources.of(faq) not in (None, "visit:response")
    assert sources.of("The weather is lovely today, isn't it?") is None


def test_refusals_about_two_slots_are_two_parts():
    sources = Sources(load_bot("pizza"))
    size = "Sorry, we have no huge. The options for size are small, medium and large."
    pizza = "Sorry, we have no hawaiian. The options for pizza are margherita, pepperoni and four cheese."
    assert sources.of(size) == "phrase:rejected(size)"
    assert sources.of(pizza) == "phrase:rejected(pizza)"
