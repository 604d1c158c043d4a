"""The runtime's stock sentences per language; a definition's `phrases` may override any of them."""

from __future__ import annotations

STOCK: dict[str, dict[str, str]] = {
    "en": {
        "not_understood": "Sorry, I did not understand that.",
        "rejected": "Sorry, we have no {given}. The options for {label} are {accepted}.",
        "rejected_plain": "Sorry, that is not one of the options. The options for {label} are {accepted}.",
        "invalid": "Sorry, I need the {label} as {kind}.",
        "range": "Sorry, {given} is not possible for the {label}: it must be {bounds}.",
        "past": "Sorry, {given} is in the past. Please give a date from today on.",
        "hours": "Sorry, {given} is outside our hours ({earliest} to {latest}).",
        "optional": "If you like, you can also tell me your {labels} (optional).",
        "corrected": "OK, I changed the {label} to {value}.",
        "cancelled": "OK, I have cancelled that. What else can I do for you?",
        "language": "Sorry, I can only talk in English.",
        "fallback": "Sorry, I cannot help with that.",
        "faq_list": "You can ask me: {questions}",
        "and": "and",
        "or": "or",
        "cancel_words": "cancel|never mind|start over|forget it",
        "kind_int": "a whole number",
        "kind_float": "a number",
        "kind_date": "a date, like 15/03/2027 or tomorrow",
        "kind_time": "a time, like 10:30",
        "kind_email": "an e-mail address",
        "kind_phone": "a phone number",
        "kind_string": "text",
        "bounds_both": "between {min} and {max}",
        "bounds_min": "at least {min}",
        "bounds_max": "at most {max}",
    },
    "es": {
        "not_understood": "Perdona, no te he entendido.",
        "rejected": "Lo siento, no tenemos {given}. Las opciones de {label} son {accepted}.",
        "rejected_plain": "Lo siento, esa no es una de las opciones. Las opciones de {label} son {accepted}.",
        "invalid": "Perdona, necesito {label} como {kind}.",
        "range": "Lo siento, {given} no es posible para {label}: tiene que ser {bounds}.",
        "past": "Lo siento, {given} ya ha pasado. Dime una fecha a partir de hoy.",
        "hours": "Lo siento, {given} está fuera de nuestro horario ({earliest} a {latest}).",
        "optional": "Si quieres, también puedes darme tu {labels} (es opcional).",
        "corrected": "De acuerdo, he cambiado {label} a {value}.",
        "cancelled": "Vale, lo he cancelado. ¿En qué más te puedo ayudar?",
        "language": "Lo siento, solo puedo hablar en español.",
        "fallback": "Lo siento, no puedo ayudarte con eso.",
        "faq_list": "Puedes preguntarme: {questions}",
        "and": "y",
        "or": "o",
        "cancel_words": "cancelar|cancela|olvidalo|empezar de nuevo",
        "kind_int": "un número entero",
        "kind_float": "un número",
        "kind_date": "una fecha, como 15/03/2027 o mañana",
        "kind_time": "una hora, como 10:30",
        "kind_email": "un correo electrónico",
        "kind_phone": "un número de teléfono",
        "kind_string": "texto",
        "bounds_both": "entre {min} y {max}",
        "bounds_min": "al menos {min}",
        "bounds_max": "como mucho {max}",
    },
}

KEYS = frozenset(STOCK["en"])


def phrasebook(language: str, overrides: dict[str, str]) -> dict[str, str]:
    return {**STOCK[language], **overrides}
