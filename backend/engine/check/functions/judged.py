"""LLM-backed functions (kind "llm"): tone, only_talks_about, semantic_content, utterance_index, …

Each builds the material for one question, asks the run's judge through `judge.ask_judge` (which validates the
answer against its schema) and turns the answer into a value or a `Verdict` that explains a failure.
"""

from __future__ import annotations

from typing import Any

from engine.check import judge as judges
from engine.check.errors import EvaluationError
from engine.check.functions.registry import LIBRARY, Verdict, call_context
from engine.check.functions.text import texts_of
from engine.check.namespace import ConversationView, bot_text
from engine.check.sandbox import Interpreter


def _judge(interpreter: Interpreter) -> judges.Judge | None:
    return call_context(interpreter).judge


def _transcript(view: ConversationView, *, numbered: bool = False) -> str:
    lines = []
    for number, turn in enumerate(view.record.turns, 1):
        speaker = "User" if turn.role == "user" else "Chatbot"
        text = turn.text if turn.role == "user" else bot_text(turn)
        lines.append(f"{number}. {speaker}: {text}" if numbered else f"{speaker}: {text}")
    return "\n".join(lines)


@LIBRARY.function(
    "tone",
    kind="llm",
    summary="POSITIVE / NEGATIVE / NEUTRAL per text (judge model)",
    signature="(text_or_list)",
)
def tone(interpreter: Interpreter, value: Any) -> list[str]:
    texts = texts_of(interpreter, value, "tone")
    if not texts:
        return []
    material = "\n".join(f"{number}. {text}" for number, text in enumerate(texts, 1))
    answer = judges.ask_judge(_judge(interpreter), "tone", judges.TONE, material, judges.ToneAnswer)
    if len(answer.labels) != len(texts):
        raise EvaluationError(
            f"tone(): the judge labelled {len(answer.labels)} texts instead of {len(texts)}"
        )
    return list(answer.labels)


@LIBRARY.function(
    "only_talks_about",
    kind="llm",
    summary="True, or a failing verdict listing the chatbot replies off the given topics (judge model)",
    signature="(topics, fallback=None, conv=None)",
)
def only_talks_about(
    interpreter: Interpreter, topics: Any, fallback: Any = None, conv: Any = None
) -> Verdict:
    if isinstance(topics, list | tuple):
        topics = ", ".join(str(topic) for topic in topics)
    if not isinstance(topics, str) or not topics.strip():
        raise EvaluationError("only_talks_about() needs the allowed topics as text")
    view = call_context(interpreter).view("only_talks_about", conv)
    material = f"Allowed topics: {topics}\n"
    if fallback:
        material += f"The chatbot's fallback reply (always acceptable): {fallback}\n"
    material += f"\nTranscript:\n{_transcript(view)}"
    answer = judges.ask_judge(
        _judge(interpreter), "only_talks_about", judges.TOPICS, material, judges.TopicAnswer
    )
    if not answer.off_topic:
        return Verdict.yes()
    replies = "\n".join(f"- {reply}" for reply in answer.off_topic)
    return Verdict.no(f"off-topic chatbot replies:\n{replies}\nwhy: {answer.explanation}")


@LIBRARY.function(
    "semantic_content",
    kind="llm",
    summary="whether a value means what the description says (judge model)",
    signature="(value, description)",
)
def semantic_content(interpreter: Interpreter, value: Any, description: Any) -> Verdict:
    if value is None:
        return Verdict.no("the value is None (nothing was extracted)")
    if not isinstance(description, str):
        raise EvaluationError("semantic_content() needs the description as text")
    material = f"Value given by the chatbot: {interpreter.to_text(value)}\nDescription it should match: {description}"
    answer = judges.ask_judge(
        _judge(interpreter), "semantic_content", judges.AGREEMENT, material, judges.AgreementAnswer
    )
    return Verdict(
        ok=answer.agrees,
        reason="" if answer.agrees else f"{value!r} does not match {description!r}: {answer.explanation}",
    )


@LIBRARY.function(
    "utterance_index",
    kind="llm",
    summary="1-based transcript line where who ('user'|'assistant') does what; -1 if never (judge model)",
    signature="(who, what, conv=None)",
)
def utterance_index(interpreter: Interpreter, who: Any, what: Any, conv: Any = None) -> int:
    if who not in ("user", "assistant", "chatbot", "bot"):
        raise EvaluationError("utterance_index() who must be 'user' or 'assistant'")
    if not isinstance(what, str):
        raise EvaluationError("utterance_index() needs a description as text")
    view = call_context(interpreter).view("utterance_index", conv)
    speaker = "User" if who == "user" else "Chatbot"
    material = f"Speaker: {speaker}\nWhat they do: {what}\n\nTranscript:\n{_transcript(view, numbered=True)}"
    answer = judges.ask_judge(
        _judge(interpreter), "utterance_index", judges.LINE, material, judges.LineAnswer
    )
    line = answer.line
    if line != -1 and not 1 <= line <= len(view.record.turns):
        raise EvaluationError(f"utterance_index(): the judge answered line {line}, which does not exist")
    return line


@LIBRARY.function(
    "responds_in_same_language",
    kind="llm",
    summary="whether every chatbot reply is in the language of the user's message (judge model)",
    signature="(conv=None)",
)
def responds_in_same_language(interpreter: Interpreter, conv: Any = None) -> Verdict:
    view = call_context(interpreter).view("responds_in_same_language", conv)
    material = _transcript(view)
    if not material:
        return Verdict.yes()
    answer = judges.ask_judge(
        _judge(interpreter),
        "responds_in_same_language",
        judges.SAME_LANGUAGE,
        material,
        judges.SameLanguageAnswer,
    )
    return Verdict(ok=answer.same_language, reason="" if answer.same_language else answer.explanation)
