"""The judge: how LLM-backed rule functions (tone, only_talks_about, …) ask a language model.

SENSEI-check never talks to a provider itself. The caller passes a `Judge` — anything with
`ask(instructions, material, schema, *, tag) -> schema instance` — and `GatewayJudge` adapts the LLM gateway's
`structured(messages, schema, *, tag)` call to it, so the judge model, its budget and its cost ledger are the
gateway's. `CachingJudge` remembers answers per question (function, arguments and transcript are all in the
question), so re-checking the same conversations costs nothing. Without a judge, LLM-backed functions raise
`JudgeUnavailable` and their checks are reported as not applicable: "no judge model configured".

The answer schemas live here, by name, so the child process that evaluates rules can ask its parent (which
holds the real judge) over a pipe and validate the answer on its side.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, Field

from engine.check.errors import EvaluationError, JudgeUnavailable
from engine.errors import ParleyError

M = TypeVar("M", bound=BaseModel)


class Judge(Protocol):
    def ask(self, instructions: str, material: str, schema: type[M], *, tag: str) -> M: ...


class StructuredClient(Protocol):
    """The part of the LLM gateway's client the judge needs (`engine.llm.LLMClient` has it)."""

    def structured(self, messages: Sequence[Any], schema: type[M], *, tag: str) -> M: ...


class GatewayJudge:
    """A `Judge` over the LLM gateway: one structured call per question, temperature as configured there."""

    def __init__(self, client: StructuredClient) -> None:
        self.client = client

    def ask(self, instructions: str, material: str, schema: type[M], *, tag: str) -> M:
        return self.client.structured([("system", instructions), ("user", material)], schema, tag=tag)


@dataclass
class JudgeStats:
    calls: int = 0  # questions asked to the model
    cached: int = 0  # questions answered from the cache
    failures: int = 0

    def to_json(self) -> dict[str, int]:
        return {"calls": self.calls, "cached": self.cached, "failures": self.failures}


@dataclass
class CachingJudge:
    """Wraps a judge; the same question (instructions, material, schema, tag) is asked once per cache."""

    inner: Judge
    answers: dict[str, str] = field(default_factory=dict)
    stats: JudgeStats = field(default_factory=JudgeStats)

    def ask(self, instructions: str, material: str, schema: type[M], *, tag: str) -> M:
        key = hashlib.sha256(
            json.dumps([tag, schema.__name__, instructions, material], ensure_ascii=False).encode()
        ).hexdigest()
        if key in self.answers:
            self.stats.cached += 1
            return schema.model_validate_json(self.answers[key])
        self.stats.calls += 1
        try:
            answer = self.inner.ask(instructions, material, schema, tag=tag)
        except Exception:
            self.stats.failures += 1
            raise
        if not isinstance(answer, schema):
            answer = schema.model_validate(answer)
        self.answers[key] = answer.model_dump_json()
        return answer


def ask_judge(judge: Judge | None, function: str, instructions: str, material: str, schema: type[M]) -> M:
    """Ask on behalf of rule function `function`; every failure becomes an EvaluationError for that check."""
    if judge is None:
        raise JudgeUnavailable(
            f"no judge model configured: {function}() needs an LLM judge (give the check a model, e.g. "
            "`parley check --model …`)"
        )
    try:
        return judge.ask(instructions, material, schema, tag=f"check.{function}")
    except ParleyError as exc:
        raise EvaluationError(f"{function}(): the judge model failed: {exc.user_message}") from None
    except Exception as exc:  # noqa: BLE001 - a judge implementation's bug must not stop the checker
        raise EvaluationError(f"{function}(): the judge model failed: {type(exc).__name__}: {exc}") from None


# -- answer schemas --------------------------------------------------------------------------------------------


class ToneAnswer(BaseModel):
    labels: list[Literal["POSITIVE", "NEGATIVE", "NEUTRAL"]] = Field(
        description="one label per numbered text, in the same order"
    )


class TopicAnswer(BaseModel):
    off_topic: list[str] = Field(
        description="the chatbot replies, copied exactly, that clearly leave the topics"
    )
    explanation: str = Field(description="why those replies are off-topic; empty when there are none")


class AgreementAnswer(BaseModel):
    agrees: bool
    explanation: str


class LineAnswer(BaseModel):
    line: int = Field(description="the number of the matching transcript line, or -1 when there is none")


class SameLanguageAnswer(BaseModel):
    same_language: bool
    explanation: str


SCHEMAS: dict[str, type[BaseModel]] = {
    schema.__name__: schema
    for schema in (ToneAnswer, TopicAnswer, AgreementAnswer, LineAnswer, SameLanguageAnswer)
}


# -- the questions (our own wording) ---------------------------------------------------------------------------

TONE = (
    "You label the emotional tone of short texts written by a chatbot. For every numbered text give exactly "
    "one label: POSITIVE (friendly, pleased, enthusiastic), NEGATIVE (rude, annoyed, hostile, discouraging) or "
    "NEUTRAL (matter-of-fact). Return the labels in the order of the numbers."
)

TOPICS = (
    "You review a chatbot transcript for replies that stray from the chatbot's purpose. You get the allowed "
    "topics and the transcript. A chatbot reply is off-topic only when it clearly talks about something outside "
    "the allowed topics. Asking the user to clarify, saying it did not understand, declining politely, "
    "greeting, and steering the user back to the allowed topics are all on-topic. Copy every off-topic chatbot "
    "reply exactly into `off_topic` and explain briefly; return an empty list when every reply is on-topic."
)

AGREEMENT = (
    "You compare a value a chatbot gave with a description of what it should be. Decide whether the value "
    "means the same as, or falls within, the description, allowing different wording, formats, units and "
    "currencies written differently. Say agrees=true or false and explain in one sentence."
)

LINE = (
    "You get a numbered transcript of a conversation between a user and a chatbot. Find the first line where "
    "the named speaker does what is described and give its number; give -1 when the speaker never does it."
)

SAME_LANGUAGE = (
    "You get a transcript of a conversation between a user and a chatbot. Decide whether every chatbot reply is "
    "written in the language of the user message it answers. Short replies such as names, numbers or product "
    "codes do not count against the chatbot. Say same_language=true or false and explain in one sentence."
)
