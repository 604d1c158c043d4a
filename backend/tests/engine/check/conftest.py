"""Shared builders for the SENSEI-check tests: conversations, rules from YAML text, a scripted judge."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.check import Limits, check, parse_rule
from engine.conversation import Button, ConversationError, ConversationRecord, Turn


def conversation(
    conv_id: str,
    *,
    inputs: dict[str, Any] | None = None,
    outputs: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    turns: list[tuple[str, str]] | None = None,
    buttons: dict[int, list[Button]] | None = None,
    errors: list[int] | None = None,
    latencies: list[float] | None = None,
) -> ConversationRecord:
    built: list[Turn] = []
    bot_number = 0
    for index, (role, text) in enumerate(turns or [("user", "hi"), ("bot", "hello")]):
        latency = None
        if role == "bot":
            latency = (latencies or [])[bot_number] if latencies and bot_number < len(latencies) else 1.0
            bot_number += 1
        built.append(Turn(role=role, text=text, buttons=(buttons or {}).get(index, []), latency_s=latency))
    return ConversationRecord(
        id=conv_id,
        profile="pizza",
        inputs=inputs or {},
        outputs=outputs or {},
        settings=settings or {},
        turns=built,
        errors=[ConversationError(code=code, message="boom") for code in errors or []],
        duration_s=12.5,
    )


def rule(text: str, **kwargs: Any):
    return parse_rule(text, file="rule.yml", **kwargs)


class ScriptedJudge:
    """Answers by schema name with a value or a callable(material) → dict; records every question."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.questions: list[tuple[str, str]] = []

    def ask(self, instructions: str, material: str, schema, *, tag: str):
        self.questions.append((tag, material))
        answer = self.answers[schema.__name__]
        if isinstance(answer, Callable):
            answer = answer(material)
        return schema.model_validate(answer)


IN_PROCESS = Limits(isolate=False)


def run(rules, conversations, judge=None, limits=IN_PROCESS):
    rules = [rules] if not isinstance(rules, list) else rules
    return check(rules, conversations, judge=judge, limits=limits)


@pytest.fixture
def pizza_conversations() -> list[ConversationRecord]:
    return [
        conversation(
            "c1",
            inputs={"size": "small", "toppings": ["ham", "olives"], "drink": "cola", "number": 1},
            outputs={"price": "$13.00", "order_id": "a1"},
        ),
        conversation(
            "c2",
            inputs={"size": "small", "toppings": ["ham"], "drink": "cola", "number": 1},
            outputs={"price": "$10", "order_id": "b2"},
        ),
        conversation(
            "c3",
            inputs={"size": "small", "toppings": ["ham", "olives", "corn"], "drink": "cola", "number": 1},
            outputs={"price": "$9.50", "order_id": "c3"},
        ),
        conversation(
            "c4",
            inputs={"size": "large", "toppings": [], "drink": "water", "number": 2},
            outputs={"price": "$20", "order_id": "d4"},
        ),
    ]
