"""The loose-JSON mode of the imperfect SENSEI double (`SenseiImperfection.loose_json`): an extraction answer
written the way models in `json_object` mode and small local models write it — `{"value": 13.75, "turn": "13.75",
"quote": "13.75"}` for money, a bare number or "13.75$" where an object was asked, the turn as text, keys in other
words or casing, one asked field's value at the top level, now and then an empty object. The values are the ones
the double found in the chatbot's words (no ground truth); only their shape is loose.
"""

from __future__ import annotations

import re
from random import Random
from typing import Any


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _turn_of(value: Any, bot_turns: list[tuple[int, str]]) -> tuple[int | None, str | None]:
    """The [turn N] index and sentence of the chatbot's turn that says `value` (its amount or its text)."""
    wanted = str(value.get("amount")) if isinstance(value, dict) else str(value)
    number = re.sub(r"\.0$", "", wanted)
    for index, text in reversed(bot_turns):
        for sentence in _sentences(text):
            if number and number in sentence:
                return index, sentence
    return None, None


def _loose_value(value: Any, kind: str, rng: Random) -> Any:
    if kind.lower() == "money" and isinstance(value, dict):
        amount = float(value["amount"])
        symbol = {"USD": "$", "EUR": "€"}.get(str(value.get("currency")), "$")
        return rng.choice((amount, f"{amount:g}{symbol}", str(amount), f"{symbol}{amount:g}"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return rng.choice((value, str(value)))
    return value


def loose_json(
    answer: dict[str, Any],
    fields: list[tuple[str, ...]],
    bot_turns: list[tuple[int, str]],
    rng: Random,
    *,
    empty: bool = True,
) -> Any:
    """`answer` ({name: value}) written the loose ways real models write it (see `loose_json`)."""
    kinds = {name: kind for name, kind, _ in fields}
    if empty and rng.random() < 0.05:
        return {}  # a small model's empty object: extraction asks again
    loose: dict[str, Any] = {}
    for name, value in answer.items():
        if value is None:
            loose[name] = None
            continue
        turn, sentence = _turn_of(value, bot_turns)
        bare = _loose_value(value, kinds.get(name, ""), rng)
        shape = rng.randrange(4)
        if shape == 0:
            loose[name] = bare  # a bare value where {value, turn, quote} was asked
        elif shape == 1:  # the answer: the value everywhere
            shown = str(bare)
            loose[name] = {"value": bare, "turn": shown, "quote": shown}
        elif shape == 2:  # the turn as text, keys in another casing
            loose[name] = {
                "Value": bare,
                "Turn": f"turn {turn}" if turn is not None else None,
                "Quote": sentence,
            }
        else:  # keys in other words
            loose[name] = {
                "answer": bare,
                "turn_number": str(turn) if turn is not None else None,
                "evidence": sentence,
            }
    if len(loose) == 1 and rng.random() < 0.5:
        ((_, only),) = loose.items()
        return (
            only if isinstance(only, dict) else {"value": only}
        )  # the one asked field's value at the top level
    return loose
