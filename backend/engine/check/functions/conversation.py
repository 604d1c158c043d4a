"""SENSEI's local functions over one conversation (kind "local"): its length, chatbot replies, outputs.

Each reads the rule's current conversation, or the one named with `conv=`, which is how a k-conversation rule
uses them: `conversation_length(conv=conv[0])`.
"""

from __future__ import annotations

from typing import Any

from engine.check.errors import EvaluationError, SandboxLimitError
from engine.check.functions.registry import LIBRARY, call_context
from engine.check.functions.text import repeated
from engine.check.namespace import bot_text
from engine.check.sandbox import Interpreter

_WHO = {"both": None, "all": None, "user": "user", "assistant": "bot", "chatbot": "bot", "bot": "bot"}


@LIBRARY.function(
    "conversation_length",
    summary="number of transcript entries (who='both'|'user'|'assistant')",
    signature="(who='both', conv=None)",
)
def conversation_length(interpreter: Interpreter, who: str = "both", conv: Any = None) -> int:
    if who not in _WHO:
        raise EvaluationError("conversation_length() who must be 'both', 'user' or 'assistant'")
    role = _WHO[who]
    turns = call_context(interpreter).view("conversation_length", conv).record.turns
    return sum(1 for turn in turns if role is None or turn.role == role)


@LIBRARY.function(
    "chatbot_returns",
    summary="0-based transcript positions of chatbot messages containing pattern (not followed by and_not)",
    signature="(pattern, and_not=None, conv=None)",
)
def chatbot_returns(
    interpreter: Interpreter, pattern: str, and_not: str | None = None, conv: Any = None
) -> list[int]:
    if not isinstance(pattern, str) or not pattern:
        raise EvaluationError("chatbot_returns() needs a non-empty text pattern")
    if and_not is not None and not isinstance(and_not, str):
        raise EvaluationError("chatbot_returns() and_not must be text")
    record = call_context(interpreter).view("chatbot_returns", conv).record
    positions: list[int] = []
    for index, turn in enumerate(record.turns):
        if turn.role != "bot":
            continue
        text = bot_text(turn)
        start = text.find(pattern)
        while start >= 0:
            rest = text[start + len(pattern) :].lstrip()
            if not and_not or not rest.startswith(and_not):
                positions.append(index)
                break
            start = text.find(pattern, start + 1)
    return positions


@LIBRARY.function(
    "repeated_answers",
    summary="chatbot replies that repeat an earlier one: {first reply: [similar later replies]}",
    signature="(method='exact', threshold=0.4, conv=None)  # method: exact | tf-idf | jaccard | sequence",
)
def repeated_answers(
    interpreter: Interpreter, method: str = "exact", threshold: float = 0.4, conv: Any = None
) -> dict[str, list[str]]:
    if not isinstance(method, str):
        raise EvaluationError("repeated_answers() method must be text")
    if not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
        raise EvaluationError("repeated_answers() threshold must be between 0 and 1")
    phrases = [
        p
        for p in call_context(interpreter).view("repeated_answers", conv).record.chatbot_phrases
        if p.strip()
    ]
    if len(phrases) > 2000:
        raise SandboxLimitError("repeated_answers() compares at most 2,000 replies")
    return repeated(phrases, method.lower(), float(threshold))


@LIBRARY.function("data_collected", summary="True when every output has a value", signature="(conv=None)")
def data_collected(interpreter: Interpreter, conv: Any = None) -> bool:
    outputs = call_context(interpreter).view("data_collected", conv).record.outputs
    return all(value is not None for value in outputs.values())


def _missing(interpreter: Interpreter, conv: Any = None) -> list[str]:
    outputs = call_context(interpreter).view("missing_outputs", conv).record.outputs
    return [name for name, value in outputs.items() if value is None]


LIBRARY.function("missing_outputs", summary="names of the outputs without a value", signature="(conv=None)")(
    _missing
)
LIBRARY.function("missing_slots", summary="alias of missing_outputs()", signature="(conv=None)")(_missing)
