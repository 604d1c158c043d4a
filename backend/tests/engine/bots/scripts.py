"""Scripted user conversations per reference bot, and a runner that records the transcripts.

The same scripts drive the behaviour tests and the mutant tests (a mutant is killed when some script's
transcript differs from the original's). TODAY is a Wednesday; every conversation id is fixed, so order ids
are reproducible.
"""

from __future__ import annotations

from datetime import date

from engine.bots.definition import BotDefinition
from engine.bots.runtime import BotCrash, BotRuntime

TODAY = date(2027, 3, 10)

SCRIPTS: dict[str, dict[str, list[str]]] = {
    "bike": {
        "repair": ["hello", "when are you open?", "I need a repair", "tomorrow", "at 10am"],
        "all_in_one": ["I'd like to book a tune-up for friday at 2pm"],
        "errors": ["book an appointment", "a paint job", "tune up", "yesterday", "next monday", "8am",
                   "actually a repair", "11:15"],
        "faq": ["How much is a new tire?", "what does a tune-up cost?", "price of a new seat?",
                "any tips for bike maintenance?", "blah blah"],
        "faq_midway": ["book a repair", "how much is a new tire?", "the day after tomorrow", "noon"],
        "other": ["questions", "¿Cuándo abren la tienda por favor?", "cancel"],
    },
    "veterinary": {
        "dog": ["hello", "Opening hours", "I'd like to book a visit for my puppy", "tomorrow", "at 10am"],
        "errors": ["book a visit", "my snake", "a parrot", "2027-03-01", "next friday", "7pm",
                   "actually it's for my cat", "9:30"],
        "all_in_one": ["Book a visit for my bunny on 15/03/2027 at 11:00"],
        "faq": ["When is the clinic open?", "Are you open at weekends?", "How much does a visit cost?",
                "Which animals do you treat?", "How do I keep my pet healthy?", "qwerty uiop"],
        "faq_midway": ["book a visit", "a kitten", "how much does a visit cost?", "tomorrow", "at noon"],
        "other": ["questions", "Hola, ¿cuánto cuesta una visita para mi perro?", "book a visit", "cancel"],
    },
    "photography": {
        "contact": ["hi", "I'd like you to call me", "My name is Ada Lovelace", "+44 20 7946 0958", "next tuesday"],
        "contact_at_once": ["Arrange a call",
                            "I'm Grace Hopper, my phone is 555-123456 and my email is grace@example.org",
                            "tomorrow"],
        "estimate": ["Can you give me a quote?", "video", "12", "sculptures"],
        "estimate_at_once": ["I need an estimate for 3 ceramics to be photographed"],
        "estimate_errors": ["estimate please", "a hologram", "3D", "0", "actually make it video", "two",
                            "tapestries", "paintings"],
        "estimate_3d": ["estimate", "3d rendering of 1 painting"],
        "faq": ["When are you open?", "Where is the studio?", "Can I see your portfolio?",
                "How much do you charge?", "What media do you offer?", "zzz"],
        "faq_midway": ["Price estimate", "photography", "how much do you charge?", "5", "ceramic"],
    },
    "pizza": {
        "house": ["hi", "I want a large margherita", "what drinks do you have?", "2 cokes"],
        "custom": ["I'd like to order", "custom please", "extra large", "medium",
                   "ham, pepperoni, olives and mushrooms", "3", "actually make it large", "lemonade"],
        "step_by_step": ["Order pizza and drinks", "House pizza", "small", "carbonara", "one", "water"],
        "at_once": ["order a medium marinara please", "4 sparkling water"],
        "hawaiian": ["I'd like a hawaiian", "big", "1", "coke"],
        "four_cheese": ["four cheese pizza please", "small", "2", "water"],
        "veggie": ["veggie pizza", "medium", "a beer", "lemonade", "two"],
        "custom_coke": ["build my own pizza", "medium with corn", "1 coke"],
        "custom_rest": ["Build your own", "small", "cheese, peppers, bacon, corn and chicken", "2", "water"],
        "faq": ["When are you open?", "Which pizzas do you have?", "How much does a pizza cost?",
                "What drinks do you have?", "Do you deliver?", "How long does an order take?",
                "sing me a song", "order", "sing me a song"],
        "other": ["order", "house", "cancel", "Hola, quiero una pizza grande por favor"],
    },
    "cafeteria-es": {
        "horario": ["hola", "¿a qué hora abrís?"],
        "de_golpe": ["quiero dos cafés grandes con leche de avena"],
        "errores": ["Hacer un pedido", "cerveza", "un te verde", "mediano", "pequeño", "desnatada", "tres"],
        "chocolate": ["quiero un chocolate", "grande", "sin leche", "1"],
        "paso_a_paso": ["Hacer un pedido", "café", "pequeño", "entera", "2"],
        "preguntas": ["¿Cuánto cuesta un café?", "¿Tenéis wifi?", "¿Tenéis terraza?", "blablabla", "Preguntas"],
        "idioma": ["What time do you open?"],
    },
}  # fmt: skip

Transcript = list[tuple[str, list[str], list[str]]]


def run(definition: BotDefinition, messages: list[str], conversation_id: str = "conv-1") -> Transcript:
    """(user text, bot messages, buttons) per turn, the opening first; a crash is recorded as 'CRASH'."""
    bot = BotRuntime(definition, conversation_id=conversation_id, today=TODAY)
    opening = bot.start()
    out: Transcript = [("", opening.messages, opening.buttons)]
    for text in messages:
        try:
            reply = bot.reply(text)
        except BotCrash as exc:
            out.append((text, [f"CRASH {exc.user_message}"], []))
            continue
        out.append((text, reply.messages, reply.buttons))
    return out


def talk(definition: BotDefinition, messages: list[str]) -> tuple[list[str], BotRuntime]:
    """Every bot message of the conversation (opening included) as one list, and the runtime."""
    bot = BotRuntime(definition, conversation_id="conv-1", today=TODAY)
    said = list(bot.start().messages)
    for text in messages:
        said += bot.reply(text).messages
    return said, bot
