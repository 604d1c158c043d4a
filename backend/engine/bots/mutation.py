"""Mutation operators: each rewrites one detail of a bot definition, giving a mutant id `<operator>-<n>`.

The eleven operators of the TRACER and SENSEI evaluations, adapted to our language (with Taskyto's tool's
known defects fixed: every slot's `required` is flipped, implicit or not; the template operator writes a
valid template):

  delete-enum-value, change-optionality, delete-qa-pair, swap-qa-answers, delete-menu-item,
  delete-fallback, delete-sequence-step, swap-sequence-steps, delete-response-data,
  change-response-template, change-memory-scope

and four that aim at Parley's checks:

  wrong-price-formula (an operator flipped in a price formula, or the price doubled),
  wrong-language (the bot's own sentences in the other language, or a fallback in it),
  repeat-loop (a menu answer that captures every message, so the bot says the same thing forever),
  crash-on-value (a price table loses one entry, so that value alone crashes the bot: HTTP 500).

Every mutant is load-checked (parsed, validated and started); one that fails is *stillborn*, reported
apart with the reason and never counted as killed.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from engine.bots.definition import (
    PLACEHOLDER,
    BotDefinition,
    DefinitionError,
    parse_definition,
)
from engine.bots.phrases import STOCK
from engine.bots.runtime import BotRuntime

Data = dict[str, Any]
Change = tuple[str, Data]
"""A description of the change and the mutated definition data."""

OPERATORS: tuple[str, ...] = (
    "delete-enum-value",
    "change-optionality",
    "delete-qa-pair",
    "swap-qa-answers",
    "delete-menu-item",
    "delete-fallback",
    "delete-sequence-step",
    "swap-sequence-steps",
    "delete-response-data",
    "change-response-template",
    "change-memory-scope",
    "wrong-price-formula",
    "wrong-language",
    "repeat-loop",
    "crash-on-value",
)


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    bot: str
    description: str
    data: Data
    definition: BotDefinition | None
    stillborn_reason: str | None = None

    @property
    def stillborn(self) -> bool:
        return self.definition is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "operator": self.operator,
            "description": self.description,
            "stillborn": self.stillborn,
            "stillborn_reason": self.stillborn_reason,
        }


def _modules(data: Data, kind: str) -> Iterator[tuple[str, Data]]:
    for name, module in data.get("modules", {}).items():
        if isinstance(module, dict) and module.get("kind") == kind:
            yield name, module


def _value_name(raw: Any) -> str:
    if isinstance(raw, dict) and len(raw) == 1 and "name" not in raw:
        return str(next(iter(raw)))
    if isinstance(raw, dict):
        return str(raw.get("name"))
    return str(raw)


def _mutate(data: Data, edit: Callable[[Data], None]) -> Data:
    mutated = copy.deepcopy(data)
    edit(mutated)
    return mutated


def _sequences(data: Data) -> Iterator[tuple[str, list[str | int]]]:
    """(label, path to the mapping holding `steps`) of every sequence, inline or standalone."""
    for name, module in data.get("modules", {}).items():
        if not isinstance(module, dict):
            continue
        if module.get("kind") == "sequence":
            yield f"sequence module {name}", ["modules", name]
        if module.get("kind") == "menu":
            for i, item in enumerate(module.get("items", [])):
                if isinstance(item, dict) and item.get("kind") == "sequence":
                    yield f"sequence '{item.get('title')}' of menu {name}", ["modules", name, "items", i]


def _at(data: Any, path: list[str | int]) -> Any:
    for part in path:
        data = data[part]
    return data


def _responses(data: Data) -> Iterator[tuple[str, str]]:
    for kind in ("form", "action"):
        for name, module in _modules(data, kind):
            if isinstance(module.get("response"), str):
                yield name, module["response"]


# ------------------------------------------------------------------------------------------- operators


def delete_enum_value(data: Data) -> Iterator[Change]:
    for name, module in _modules(data, "form"):
        for i, slot in enumerate(module.get("slots", [])):
            if slot.get("type") != "enum":
                continue
            for j, raw in enumerate(slot.get("values", [])):

                def edit(d: Data, name: str = name, i: int = i, j: int = j) -> None:
                    del d["modules"][name]["slots"][i]["values"][j]

                yield f"{name}.{slot['name']}: value '{_value_name(raw)}' deleted", _mutate(data, edit)


def change_optionality(data: Data) -> Iterator[Change]:
    for name, module in _modules(data, "form"):
        for i, slot in enumerate(module.get("slots", [])):
            required = bool(slot.get("required", True))

            def edit(d: Data, name: str = name, i: int = i, required: bool = required) -> None:
                d["modules"][name]["slots"][i]["required"] = not required

            state = "optional" if required else "required"
            yield f"{name}.{slot['name']}: made {state}", _mutate(data, edit)


def delete_qa_pair(data: Data) -> Iterator[Change]:
    for name, module in _modules(data, "faq"):
        for i, question in enumerate(module.get("questions", [])):

            def edit(d: Data, name: str = name, i: int = i) -> None:
                del d["modules"][name]["questions"][i]

            yield f"{name}: question '{question.get('id')}' deleted", _mutate(data, edit)


def swap_qa_answers(data: Data) -> Iterator[Change]:
    for name, module in _modules(data, "faq"):
        questions = module.get("questions", [])
        for i in range(len(questions)):
            for j in range(i + 1, len(questions)):

                def edit(d: Data, name: str = name, i: int = i, j: int = j) -> None:
                    qs = d["modules"][name]["questions"]
                    qs[i]["answer"], qs[j]["answer"] = qs[j]["answer"], qs[i]["answer"]

                ids = f"'{questions[i].get('id')}' and '{questions[j].get('id')}'"
                yield f"{name}: answers of {ids} swapped", _mutate(data, edit)


def delete_menu_item(data: Data) -> Iterator[Change]:
    for name, module in _modules(data, "menu"):
        for i, item in enumerate(module.get("items", [])):

            def edit(d: Data, name: str = name, i: int = i) -> None:
                del d["modules"][name]["items"][i]

            yield f"{name}: item '{item.get('title')}' deleted", _mutate(data, edit)


def delete_fallback(data: Data) -> Iterator[Change]:
    for name, module in _modules(data, "menu"):
        if module.get("fallback"):

            def edit(d: Data, name: str = name) -> None:
                del d["modules"][name]["fallback"]

            yield f"{name}: fallback deleted (the stock fallback is said instead)", _mutate(data, edit)


def delete_sequence_step(data: Data) -> Iterator[Change]:
    for label, path in _sequences(data):
        steps = _at(data, path).get("steps", [])
        for j, step in enumerate(steps):

            def edit(d: Data, path: list[str | int] = path, j: int = j) -> None:
                del _at(d, path)["steps"][j]

            yield f"{label}: step '{step}' deleted", _mutate(data, edit)


def swap_sequence_steps(data: Data) -> Iterator[Change]:
    for label, path in _sequences(data):
        steps = _at(data, path).get("steps", [])
        for i in range(len(steps)):
            for j in range(i + 1, len(steps)):

                def edit(d: Data, path: list[str | int] = path, i: int = i, j: int = j) -> None:
                    s = _at(d, path)["steps"]
                    s[i], s[j] = s[j], s[i]

                yield f"{label}: steps '{steps[i]}' and '{steps[j]}' swapped", _mutate(data, edit)


def delete_response_data(data: Data) -> Iterator[Change]:
    for name, response in _responses(data):
        for match in PLACEHOLDER.finditer(response):

            def edit(d: Data, name: str = name, start: int = match.start(), end: int = match.end()) -> None:
                text = d["modules"][name]["response"]
                d["modules"][name]["response"] = text[:start] + text[end:]

            yield f"{name}: {match.group(0)} deleted from the response", _mutate(data, edit)


def change_response_template(data: Data) -> Iterator[Change]:
    noted = "Noted:" if data.get("language", "en") == "en" else "Anotado:"
    for name, response in _responses(data):
        placeholders = PLACEHOLDER.findall(response)
        replacement = f"{noted} " + ", ".join(f"{{{p}}}" for p in placeholders) + "."

        def edit(d: Data, name: str = name, replacement: str = replacement) -> None:
            d["modules"][name]["response"] = replacement

        yield f"{name}: response rewritten as '{replacement}'", _mutate(data, edit)


def change_memory_scope(data: Data) -> Iterator[Change]:
    for label, path in _sequences(data):
        memory = _at(data, path).get("memory", "full")
        flipped = "individual" if memory == "full" else "full"

        def edit(d: Data, path: list[str | int] = path, flipped: str = flipped) -> None:
            _at(d, path)["memory"] = flipped

        yield f"{label}: memory {memory} -> {flipped}", _mutate(data, edit)


_FLIP = {"+": "-", "-": "+", "*": "+", "/": "*"}


def wrong_price_formula(data: Data) -> Iterator[Change]:
    for kind in ("form", "action"):
        for name, module in _modules(data, kind):
            for key, formula in module.get("compute", {}).items():
                if "order_id" in formula:
                    continue
                match = re.search(r"(?<=[\w\])])\s*([-+*/])\s*", formula)
                if match:
                    op = match.group(1)
                    wrong = formula[: match.start(1)] + _FLIP[op] + formula[match.end(1) :]
                    change = f"'{op}' became '{_FLIP[op]}'"
                else:
                    wrong = f"({formula}) * 2"
                    change = "doubled"

                def edit(d: Data, name: str = name, key: str = key, wrong: str = wrong) -> None:
                    d["modules"][name]["compute"][key] = wrong

                yield f"{name}.compute.{key}: {change} ({wrong})", _mutate(data, edit)


def wrong_language(data: Data) -> Iterator[Change]:
    own = data.get("language", "en")
    other = "es" if own == "en" else "en"

    def speak_other(d: Data) -> None:
        d["language"] = other
        d["languages"] = [own, other]
        d.pop("phrases", None)

    yield (
        f"the bot's own sentences (prompts' companions, refusals, fallbacks) in {other!r}",
        _mutate(data, speak_other),
    )
    for name, module in _modules(data, "menu"):
        if module.get("fallback"):

            def edit(d: Data, name: str = name) -> None:
                d["modules"][name]["fallback"] = STOCK[other]["not_understood"]

            yield (
                f"{name}: fallback replaced by {other!r} '{STOCK[other]['not_understood']}'",
                _mutate(data, edit),
            )


def repeat_loop(data: Data) -> Iterator[Change]:
    for name, module in _modules(data, "menu"):
        items = module.get("items", [])
        for i, item in enumerate(items):
            if item.get("kind") != "answer":
                continue

            def edit(d: Data, name: str = name, i: int = i) -> None:
                moved = d["modules"][name]["items"].pop(i)
                moved["patterns"] = [".*"]
                d["modules"][name]["items"].insert(0, moved)

            yield f"{name}: item '{item.get('title')}' answers every message", _mutate(data, edit)
            break


def crash_on_value(data: Data) -> Iterator[Change]:
    for kind in ("form", "action"):
        for name, module in _modules(data, kind):
            for table, entries in module.get("tables", {}).items():
                if not entries:
                    continue
                last = list(entries)[-1]

                def edit(d: Data, name: str = name, table: str = table, last: str = last) -> None:
                    del d["modules"][name]["tables"][table][last]

                yield (
                    f"{name}.tables.{table}: entry '{last}' deleted (crashes on that value)",
                    _mutate(data, edit),
                )


GENERATORS: dict[str, Callable[[Data], Iterator[Change]]] = {
    "delete-enum-value": delete_enum_value,
    "change-optionality": change_optionality,
    "delete-qa-pair": delete_qa_pair,
    "swap-qa-answers": swap_qa_answers,
    "delete-menu-item": delete_menu_item,
    "delete-fallback": delete_fallback,
    "delete-sequence-step": delete_sequence_step,
    "swap-sequence-steps": swap_sequence_steps,
    "delete-response-data": delete_response_data,
    "change-response-template": change_response_template,
    "change-memory-scope": change_memory_scope,
    "wrong-price-formula": wrong_price_formula,
    "wrong-language": wrong_language,
    "repeat-loop": repeat_loop,
    "crash-on-value": crash_on_value,
}


def load_check(data: Data, *, source: str) -> tuple[BotDefinition | None, str | None]:
    """Parse, validate and start a definition; (definition, None) or (None, why it is stillborn)."""
    try:
        definition = parse_definition(data, source=source)
        BotRuntime(definition, conversation_id="load-check", today=date(2000, 1, 1)).start()
    except DefinitionError as exc:
        return None, exc.user_message
    return definition, None


def generate_mutants(bot: str, data: Data, operators: tuple[str, ...] = OPERATORS) -> list[Mutant]:
    """Every mutant of a definition's data, in operator order, numbered per operator from 1."""
    out: list[Mutant] = []
    for operator in operators:
        for n, (description, mutated) in enumerate(GENERATORS[operator](data), start=1):
            mutant_id = f"{operator}-{n}"
            definition, reason = load_check(mutated, source=f"{bot} mutant {mutant_id}")
            out.append(Mutant(mutant_id, operator, bot, description, mutated, definition, reason))
    return out
