"""Mutants: ids and descriptions, load checks (stillborn apart), and every live mutant killed by a script."""

from __future__ import annotations

import re

import pytest

from engine.bots import BotCrash, StillbornMutant, bot_ids, load_bot, open_bot
from engine.bots.mutation import OPERATORS, generate_mutants
from engine.bots.registry import mutants_of
from tests.engine.bots.scripts import SCRIPTS, TODAY, run

# Mutants that no conversation can tell from the original, with the reason. None so far: the scripts kill
# every mutant that loads. Add entries as "<bot>/<mutant id>": "why it is equivalent".
EQUIVALENT: dict[str, str] = {}

EXPECTED_STILLBORN = {
    ("bike", "change-optionality-1"),
    ("veterinary", "change-optionality-1"),
    ("cafeteria-es", "change-optionality-1"),
    ("cafeteria-es", "change-optionality-2"),
    ("cafeteria-es", "change-optionality-4"),
}


@pytest.mark.parametrize("bot_id", bot_ids())
def test_mutant_ids_descriptions_and_operators(bot_id):
    mutants = mutants_of(bot_id)
    assert len({m.id for m in mutants}) == len(mutants)
    for mutant in mutants:
        assert re.fullmatch(rf"{mutant.operator}-\d+", mutant.id)
        assert mutant.description
    operators = {m.operator for m in mutants}
    assert {"delete-enum-value", "delete-qa-pair", "delete-menu-item", "delete-fallback", "delete-response-data",
            "change-response-template", "wrong-price-formula", "wrong-language", "repeat-loop",
            "crash-on-value"} <= operators  # fmt: skip


def test_all_fifteen_operators_produce_mutants_across_the_bots():
    produced = {m.operator for bot in bot_ids() for m in mutants_of(bot)}
    assert produced == set(OPERATORS)


def test_stillborn_mutants_are_reported_apart_with_the_reason():
    stillborn = {(bot, m.id) for bot in bot_ids() for m in mutants_of(bot) if m.stillborn}
    assert stillborn == EXPECTED_STILLBORN
    mutant = next(m for m in mutants_of("bike") if m.stillborn)
    assert "the formula needs slot 'service', which is optional" in (mutant.stillborn_reason or "")
    assert mutant.to_json()["stillborn"] is True
    with pytest.raises(StillbornMutant):
        open_bot("bike", mutant.id)


def test_a_sequence_emptied_by_a_mutation_is_stillborn():
    data = {
        "bot": "mini", "name": "Mini", "greeting": {"by": "user"}, "entry": "top",
        "modules": {
            "top": {"kind": "menu", "items": [{"kind": "sequence", "title": "Go", "steps": ["ask"]}]},
            "ask": {"kind": "form", "response": "Ok {x}.",
                    "slots": [{"name": "x", "type": "enum", "prompt": "X?", "values": ["a"]}]},
        },
    }  # fmt: skip
    mutants = {m.id: m for m in generate_mutants("mini", data, ("delete-sequence-step", "delete-enum-value"))}
    assert mutants["delete-sequence-step-1"].stillborn
    assert "a sequence needs at least one step" in mutants["delete-sequence-step-1"].stillborn_reason
    assert "enum slot 'x' has no values" in mutants["delete-enum-value-1"].stillborn_reason


@pytest.mark.parametrize("bot_id", bot_ids())
def test_every_live_mutant_behaves_differently_on_some_scripted_conversation(bot_id):
    original = load_bot(bot_id)
    baseline = {name: run(original, script) for name, script in SCRIPTS[bot_id].items()}
    survivors = []
    for mutant in mutants_of(bot_id):
        if mutant.stillborn or f"{bot_id}/{mutant.id}" in EQUIVALENT:
            continue
        assert mutant.definition is not None
        if all(run(mutant.definition, script) == baseline[name] for name, script in SCRIPTS[bot_id].items()):
            survivors.append(f"{mutant.id}: {mutant.description}")
    assert survivors == []


def test_the_targeted_operators_hit_what_the_checks_look_for():
    crash = open_bot("bike", "crash-on-value-1", conversation_id="c", today=TODAY)
    crash.reply("book a tune-up")
    crash.reply("tomorrow")
    with pytest.raises(BotCrash, match="table 'base_price' has no entry for 'tune-up'"):
        crash.reply("at 10am")
    loop = open_bot("bike", "repeat-loop-1", today=TODAY)
    answers = {loop.reply(text).text for text in ("hello", "book a repair", "how much is a tire?")}
    assert answers == {"We are open Monday to Friday, from 9am to 5:30pm."}
    spanish = run(
        next(m for m in mutants_of("bike") if m.id == "wrong-language-1").definition, ["book", "a paint job"]
    )
    assert spanish[-1][1][0].startswith("Lo siento, no tenemos paint job.")
    price = open_bot("photography", "wrong-price-formula-1", today=TODAY)
    said = [price.reply(t).text for t in SCRIPTS["photography"]["estimate"]]
    assert "17280$" not in said[-1]
