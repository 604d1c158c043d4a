"""Bot ids and their definition files (package data under `definitions/`), and the in-process entry point.

`open_bot("pizza")` returns a fresh `BotRuntime` for one conversation; `open_bot("pizza", mutant="delete-
enum-value-3")` the same for a mutant. Definitions are read with `importlib.resources` and parsed on first
use (cached), never at import time.
"""

from __future__ import annotations

import uuid
from datetime import date
from functools import cache
from importlib import resources

from engine.bots.definition import BotDefinition, definition_data, load_definition_text
from engine.bots.groundtruth import Manifest, build_manifest
from engine.bots.mutation import Mutant, generate_mutants
from engine.bots.runtime import BotRuntime
from engine.errors import ParleyError

BOTS: dict[str, str] = {
    "pizza": "pizza.yaml",
    "bike": "bike.yaml",
    "photography": "photography.yaml",
    "veterinary": "veterinary.yaml",
    "cafeteria-es": "cafeteria-es.yaml",
}


class UnknownBot(ParleyError):
    code = "unknown_bot"


class UnknownMutant(ParleyError):
    code = "unknown_mutant"


class StillbornMutant(ParleyError):
    """The mutant's definition does not load, so the bot cannot start (Taskyto: a 500 HTML page on `new`)."""

    code = "stillborn_mutant"


def bot_ids() -> list[str]:
    return list(BOTS)


def definition_text(bot_id: str) -> str:
    if bot_id not in BOTS:
        raise UnknownBot(f"Unknown reference bot {bot_id!r}; the bots are {', '.join(BOTS)}.")
    return resources.files("engine.bots").joinpath("definitions", BOTS[bot_id]).read_text(encoding="utf-8")


@cache
def load_bot(bot_id: str) -> BotDefinition:
    """The validated definition of a reference bot."""
    return load_definition_text(definition_text(bot_id), source=f"definitions/{BOTS.get(bot_id, bot_id)}")


def manifest(bot_id: str) -> Manifest:
    return build_manifest(load_bot(bot_id))


@cache
def mutants_of(bot_id: str) -> tuple[Mutant, ...]:
    """The mutants of a reference bot (computed once per process)."""
    data = definition_data(definition_text(bot_id), source=f"definitions/{BOTS[bot_id]}")
    return tuple(generate_mutants(bot_id, data))


def bot_definition(bot_id: str, mutant: str | None = None) -> BotDefinition:
    """The bot's definition, or one of its mutants' (UnknownMutant, StillbornMutant otherwise)."""
    if mutant is None:
        return load_bot(bot_id)
    for candidate in mutants_of(bot_id):
        if candidate.id == mutant:
            if candidate.definition is None:
                raise StillbornMutant(
                    f"Mutant {mutant} of {bot_id} does not load: {candidate.stillborn_reason}"
                )
            return candidate.definition
    raise UnknownMutant(f"{bot_id} has no mutant {mutant!r}; `parley bots mutants {bot_id}` lists them.")


def open_bot(
    bot_id: str,
    mutant: str | None = None,
    *,
    conversation_id: str | None = None,
    today: date | None = None,
) -> BotRuntime:
    """A new conversation with a reference bot (or a mutant of it). `conversation_id` seeds order ids
    (default: a fresh UUID); `today` is the reference date for "tomorrow" and past-date checks."""
    return BotRuntime(
        bot_definition(bot_id, mutant),
        conversation_id=conversation_id or str(uuid.uuid4()),
        today=today or date.today(),
    )
