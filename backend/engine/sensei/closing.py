"""Recognising the end of a conversation, from either side, and matching the items a judge says were given.

- `chatbot_farewell(text)`: the chatbot said goodbye (or that the chat is over): the conversation has ended.
- `offers_more_help(text)`: the chatbot asks whether the user needs anything else — an end only once the
  user's goals are met.
- `user_closing(text)`: the simulated user ends the conversation: the end marker the user prompt asks for
  (`END_MARK`, removed before the message is sent) or an unmistakable closing phrase ("that's all", "bye").
  A polite "no thanks" or "nothing else" is not one: it also answers "would you like a drink?".

How the simulator uses them: the chatbot ends the conversation with a goodbye or its protocol's end flag
(`BotReply.ended`) at any time, and by offering more help once the goals are met (all verified by the judge,
in `all_answered`); the simulated user ends it by closing once its goals are met (in `steps` modes its own
judgement, in `all_answered` the judge's). A chatbot that ends an `all_answered` conversation before its goals
are verified leaves error 1002.

Phrases are matched as whole words on normalised text (lower case, no accents, no punctuation), in English,
Spanish and a few other common languages. The lists are short on purpose: a false end cuts a conversation,
so only phrases that leave no doubt are here.

`match_item(given, outputs)` reads an item name as the judge wrote it ("Order IDs", "precio") and finds the
declared output it means, ignoring case, accents, separators and plurals (README D15).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

END_MARK = "[END]"
_END_MARK = re.compile(r"[\[\(<{]\s*end\s*[\]\)>}]\s*[.!]?\s*$", re.IGNORECASE)
# Quoted words ("type 'bye' to leave"): opening and closing quote marks not inside a word (so "don't" is none).
_QUOTED = re.compile('(?<!\\w)["\'\u2018\u201c\u00ab][^"\u201d\u00bb\n]{1,80}?["\'\u2019\u201d\u00bb](?!\\w)')

_FAREWELLS = (
    # English
    "goodbye",
    "good bye",
    "bye",
    "bye bye",
    "farewell",
    "see you soon",
    "see you later",
    "see you next time",
    "talk to you later",
    "have a nice day",
    "have a good day",
    "have a great day",
    "have a nice evening",
    "have a good evening",
    "have a great evening",
    "have a nice weekend",
    "have a great weekend",
    "thanks for chatting",
    "thank you for chatting",
    "thanks for contacting us",
    "thank you for contacting us",
    "thanks for visiting",
    "thank you for visiting",
    "this conversation has ended",
    "the conversation has ended",
    "this conversation is now closed",
    "this chat has ended",
    "the chat has ended",
    "the session has ended",
    "your session has ended",
    # Spanish
    "adios",
    "hasta luego",
    "hasta pronto",
    "hasta la proxima",
    "nos vemos",
    "que tengas un buen dia",
    "que tenga un buen dia",
    "que tengas un feliz dia",
    "gracias por contactar",
    "gracias por contactarnos",
    "la conversacion ha terminado",
    # French, Italian, German, Portuguese, Catalan
    "au revoir",
    "a bientot",
    "bonne journee",
    "arrivederci",
    "buona giornata",
    "auf wiedersehen",
    "tschuss",
    "schonen tag noch",
    "tchau",
    "ate logo",
    "tenha um bom dia",
    "adeu",
    "fins aviat",
)

_OFFERS = (
    "anything else",
    "something else",
    "what else can i do",
    "what else can i help",
    "can i help you with anything",
    "can i help with anything",
    "is there anything more",
    "anything more i can",
    "any other questions",
    "any other question",
    "any more questions",
    "algo mas",
    "alguna cosa mas",
    "en que mas",
    "otra cosa",
    "alguna otra pregunta",
    "autre chose",
    "quelque chose d autre",
    "qualcos altro",
    "noch etwas",
    "sonst noch",
    "mais alguma coisa",
    "alguma outra coisa",
)

_USER_CLOSINGS = (
    "that s all",
    "that is all",
    "thats all",
    "that s everything",
    "that is everything",
    "that will be all",
    "that s it for today",
    "i m done",
    "i am done",
    "i m all set",
    "i am all set",
    "goodbye",
    "good bye",
    "bye",
    "bye bye",
    "see you soon",
    "see you later",
    "have a nice day",
    "have a good day",
    "have a great day",
    "thanks for your help",
    "thank you for your help",
    "thanks for the help",
    "thank you for the help",
    "eso es todo",
    "adios",
    "hasta luego",
    "gracias por tu ayuda",
    "gracias por su ayuda",
    "c est tout",
    "au revoir",
    "das ist alles",
    "auf wiedersehen",
    "e tutto",
    "arrivederci",
)


def normalise(text: str) -> str:
    """Lower case, accents removed, every run of non-alphanumerics one space."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(re.findall(r"[a-z0-9ß]+", plain)).replace("ß", "ss")


def _contains(text: str, phrases: Iterable[str]) -> str | None:
    padded = f" {text} "
    for phrase in phrases:
        if f" {phrase} " in padded:
            return phrase
    return None


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?¡¿\n])\s+", text.strip()) if s.strip()]


def chatbot_farewell(text: str) -> str | None:
    """The farewell phrase the chatbot ended with, if its reply says goodbye.

    Only the reply's first and last sentences count (a goodbye opens or closes a message), and quoted words
    do not ("type 'bye' to leave" is an instruction, not a goodbye)."""
    sentences = _sentences(_QUOTED.sub(" ", text))
    if not sentences:
        return None
    edges = {sentences[0], sentences[-1]}
    for sentence in edges:
        found = _contains(normalise(sentence), _FAREWELLS)
        if found is not None:
            return found
    return None


def offers_more_help(text: str) -> str | None:
    """The phrase with which the chatbot asks whether the user needs anything else, in its last sentence."""
    sentences = _sentences(_QUOTED.sub(" ", text))
    return _contains(normalise(sentences[-1]), _OFFERS) if sentences else None


def split_end_mark(message: str) -> tuple[str, bool]:
    """(the message without the end marker, whether it carried one)."""
    found = _END_MARK.search(message)
    if found is None:
        return message, False
    return message[: found.start()].rstrip(), True


def user_closing(text: str) -> str | None:
    """The closing phrase in the user's message, if it unmistakably ends the conversation."""
    return _contains(normalise(text), _USER_CLOSINGS)


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) >= 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def item_key(name: str) -> tuple[str, ...]:
    """An item name as comparable words: normalised, separators ignored, each word singular."""
    return tuple(_singular(word) for word in normalise(name.replace("_", " ").replace("-", " ")).split())


def match_item(given: str, outputs: Sequence[str]) -> str | None:
    """The declared output `given` names: the same words (case, accents, separators and plurals aside), or,
    failing that, the only output whose every word `given` contains ("the order id" → `order_id`)."""
    wanted = item_key(given)
    if not wanted:
        return None
    keys = {name: item_key(name) for name in outputs}
    for name, key in keys.items():
        if key == wanted:
            return name
    words = set(wanted)
    inside = [name for name, key in keys.items() if key and set(key) <= words]
    return inside[0] if len(inside) == 1 else None
