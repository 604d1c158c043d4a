"""Personalities: named sets of persona sentences added to the simulated user's context.

Ten are built in (written for Parley); a project may add its own or replace a built-in one by using the same
name. A reference is resolved by name, ignoring folders and a .yml/.yaml suffix, so the spellings found in
the wild (`formal-user`, `formal-user.yml`, `personalities/formal-user.yml`) all find the same personality.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Personality:
    name: str
    context: tuple[str, ...]
    # Measured behaviour the simulator enforces (a user calibrated from transcripts, engine.sensei.calibration).
    parameters: Mapping[str, Any] | None = None


_BUILT_IN: dict[str, tuple[str, ...]] = {
    "conversational-user": (
        "You chat in a warm, relaxed way and like to use emoticons now and then.",
        "You enjoy small talk and sometimes ask the assistant how its day is going.",
        "You prefer open questions and try to build some rapport before getting to the point.",
    ),
    "curious-user": (
        "You are inquisitive: every answer gives you an idea for another, loosely related question.",
        "You ask follow-up questions about details the assistant just mentioned.",
        "Now and then you question the information you were given, asking how the assistant knows it.",
    ),
    "direct-user": (
        "You write short, plain sentences and get straight to what you need.",
        "When the assistant asks a yes/no question you answer only yes or no.",
    ),
    "disorganized-user": (
        "Your thoughts jump around: you mention several topics in the same message.",
        "You give details out of order, sometimes twice, and occasionally interrupt your own sentence.",
    ),
    "elderly-user": (
        "You are a retired person who is not used to chatting with computers.",
        "You take your time, ask for things to be explained step by step and want complete answers.",
        "You sometimes use old-fashioned expressions.",
    ),
    "formal-user": (
        "You express yourself in a very formal, well-educated register and never use slang.",
        "You expect precise, complete answers and politely point out vague ones.",
    ),
    "impatient-user": (
        "You are in a hurry and dislike waiting for anything.",
        "If the assistant is slow to help you complain, and you repeat your request to push it along.",
    ),
    "rude-user": (
        "You are irritable and condescending towards the assistant.",
        "You insult it when it does not help you immediately and threaten to take your business elsewhere.",
    ),
    "sarcastic-user": (
        "You are ironic and like to make sarcastic remarks about the assistant's answers.",
        "You phrase some requests as jokes or provocative questions.",
    ),
    "skeptical-user": (
        "You do not trust what the assistant tells you and look for contradictions.",
        "You test its limits with odd or complicated questions.",
        "When asked for your own data you wander off topic before giving it.",
    ),
}


def personality_key(reference: str) -> str:
    """The name a reference points at: last path segment, without .yml/.yaml, trimmed."""
    name = reference.strip().replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".yml", ".yaml"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name.strip()


def built_in_personalities() -> dict[str, Personality]:
    return {name: Personality(name, context) for name, context in _BUILT_IN.items()}


class PersonalityCatalog:
    """The personalities a project can use: built-ins overridden by the project's own (by name)."""

    def __init__(self, custom: Iterable[Personality] | Mapping[str, Iterable[str]] = ()) -> None:
        self._items = built_in_personalities()
        if isinstance(custom, Mapping):
            custom = [Personality(name, tuple(context)) for name, context in custom.items()]
        for personality in custom:
            self._items[personality_key(personality.name)] = personality

    def resolve(self, reference: str) -> Personality | None:
        return self._items.get(personality_key(reference))

    def names(self) -> list[str]:
        return sorted(self._items)
