"""Did the simulated user do its part? The chatbot's questions and whether the user answered them — decided by
code, never by an LLM (README D28).

A chatbot turn *asks* when one of its sentences ends with "?"; its buttons are then the options offered. A menu
of example questions ("You can ask me: How much is a tire?, How much is a seat? …") or buttons under a statement
("I can book a repair or a tune-up.") ask for nothing. What it asks for is read from
its words:

- `options`: the buttons, or a list in the question or the sentence after it ("Which size would you like? We
  have small, medium and large.", "Coke, lemonade or water?", "…house pizzas, or would you rather build your
  own?");
- `number` ("how many"), `time` ("what time", "at what time"), `date` ("which day", "what date");
- `yes_no` ("Would you like…?", "Do you…?", "Shall I…?");
- `open`: anything else ("What can I do for you?", "What is your name?").

The next user turn *answers* when the chatbot took it as an answer (it asks nothing back, and the chatbot goes
on to another question), or when it names an offered option (its words, plurals and a typo aside; for a long
option, one of its content words), gives a value of the asked type (a number, a time, a date, yes or no), or
states one of the conversation's own input values (a user asked "Which size?" who says "medium" where the
chatbot offered only small and large did its part: the chatbot is the one to refuse it). An open question is
answered by any message. A question asked again is answered when any of its askings was.

The verdicts read this: a chatbot repeating a question the user did not answer is not in a loop, and an output
is missing through the chatbot's fault only when the user answered every question on the way to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from engine.conversation import Turn
from engine.sensei.detection import content_words, same_answer
from engine.sensei.evidence import dates_in, mentions, numbers_in, says_words, times_in

Kind = Literal["options", "number", "time", "date", "yes_no", "open"]

_MENU = re.compile(r"\?\s*(?:,|\band\b|\bor\b)", re.IGNORECASE)
# "Sorry? Could you say that again?": the chatbot not understanding asks for no input; any message answers it.
_NOT_UNDERSTOOD = re.compile(
    r"say (?:that|it) again|repeat (?:that|it)|rephrase|(?:didn't|did not|don't|do not) (?:catch|understand)|"
    r"\bpardon\b|no (?:te )?entiendo|no he entendido|rep[ií]telo",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_YES_NO = re.compile(
    r"^(?:would|do|does|did|shall|should|can|could|is|are|will|may|want|quieres|te gustar|desea)\b",
    re.IGNORECASE,
)
_YES_NO_WORDS = re.compile(
    r"\b(?:yes|yeah|yep|yup|sure|ok|okay|please|no|nope|nah|of course|correct|right|fine|si|sí|claro|vale|"
    r"go ahead|that's it|that is it|nothing else|that's all|thats all)\b",
    re.IGNORECASE,
)
# "May I have your name?", "Could you give me your phone number?": a request for a value, not a yes or no.
_ASKS_FOR = re.compile(
    r"^(?:may|can|could|would)\s+(?:i|you|we)\s+(?:have|get|give|tell|know|send|share|provide)\b",
    re.IGNORECASE,
)
_OPTION_LEAD = re.compile(
    r"^(?:we have|we offer|we've got|there are|there is|you can choose|choose from|either|tenemos|hay|o|or|and)\s+",
    re.IGNORECASE,
)
_KINDS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("number", re.compile(r"\bhow many\b|\bcu[aá]nt[oa]s\b|\bnumber of\b", re.IGNORECASE)),
    ("time", re.compile(r"\b(?:what|which|at what) time\b|\bqu[eé] hora\b|\ba qu[eé] hora\b", re.IGNORECASE)),
    ("date", re.compile(r"\b(?:which|what) (?:day|date)\b|\bqu[eé] d[ií]a\b|\bwhen would\b", re.IGNORECASE)),
)


@dataclass(frozen=True)
class Question:
    """A chatbot turn that asks the user for something."""

    turn: int  # index of the chatbot's turn in the record
    text: str  # the question sentence
    kind: Kind
    options: tuple[str, ...] = ()


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _listed(sentence: str) -> list[str]:
    """The options a sentence lists ("small, medium and large"; "…house pizzas, or would you rather build your
    own?"), or nothing when it lists none ("How can I help you and your pet?" is no list)."""
    body = re.sub(r"^[^:]*:\s*", "", sentence.strip().rstrip("?.!")) if ":" in sentence else sentence
    pieces = re.split(r",\s*|\s+(?:or|and|o|y)\s+", body.rstrip("?.!"))
    parts = [_OPTION_LEAD.sub("", p.strip(" ¿?.!")).strip() for p in pieces if p.strip()]
    parts = [p for p in parts if p]
    alternative = re.search(r",?\s+or\s+(?:would|do|shall|should|will|rather)\b", sentence, re.IGNORECASE)
    if len(parts) < 2:
        return []
    if not alternative and len(parts[0].split()) > 3 and len(parts) < 3:
        either = re.search(r"\s+or\s+", body)
        if not either:
            return []  # "How can I help you and your pet?": a long head and one more piece is no list
        # "Do you need a repair or a tune-up?": the head's last words, as many as the other option has.
        size = len(parts[1].split())
        return [" ".join(parts[0].split()[-size:]), parts[1]]
    return parts


def question_of(index: int, turn: Turn) -> Question | None:
    """What the chatbot turn at `index` asks for, or None when it asks nothing."""
    if turn.role != "bot":
        return None
    buttons = tuple(b.label for b in turn.buttons if b.label.strip())
    sentences = _sentences(turn.text)
    asked = [i for i, s in enumerate(sentences) if s.endswith("?") or "?" in s[-3:]]
    if _MENU.search(turn.text) or not asked:
        return None  # a menu, or buttons under a statement: offers, but asks the user for nothing
    where = asked[-1]
    question = sentences[where]
    if _NOT_UNDERSTOOD.search(turn.text):
        return Question(index, question, "open", buttons)
    if buttons:
        return Question(index, question, "options", buttons)
    for kind, pattern in _KINDS:
        if pattern.search(question):
            return Question(index, question, kind, tuple(_listed(question)))
    around = [question, *sentences[where + 1 : where + 2], *sentences[max(0, where - 1) : where]]
    options = next((found for s in around if (found := _listed(s))), [])
    if options:
        return Question(index, question, "options", tuple(options))
    if _YES_NO.match(question.lstrip("¿")) and not _ASKS_FOR.search(question):
        return Question(index, question, "yes_no")
    return Question(index, question, "open")


def _names_option(option: str, reply: str) -> bool:
    if says_words(option, reply):
        return True
    words = content_words(option) - {"one", "our", "own", "would", "rather"}
    said = content_words(reply)
    # A long option ("one of our house pizzas") is named by one of its content words ("a margherita pizza").
    return len(option.split()) >= 3 and any(w.rstrip("s") in {s.rstrip("s") for s in said} for w in words)


def answers(question: Question, reply: str, today: date, inputs: Iterable[Any] = ()) -> bool:
    """Whether `reply` (the user's next message) answers `question` (see the module docstring)."""
    if not reply.strip():
        return False
    if question.kind == "open":
        return True
    if any(_names_option(option, reply) for option in question.options):
        return True
    if any(_stated_input(value, reply, today) for value in inputs):
        return True
    if question.kind == "number":
        return bool(numbers_in(reply))
    if question.kind == "time":
        return bool(times_in(reply)) or bool(numbers_in(reply))
    if question.kind == "date":
        return bool(dates_in(reply, today))
    if question.kind == "yes_no":
        return bool(_YES_NO_WORDS.search(reply))
    return False


def _stated_input(value: Any, reply: str, today: date) -> bool:
    if value is None or isinstance(value, bool) or value == "" or value == []:
        return False
    return mentions(value, reply, today)


@dataclass(frozen=True)
class Unanswered:
    """A question the user was asked and never answered: the chatbot's turn and the user's reply to it."""

    question: Question
    reply_turn: int

    def describe(self) -> str:
        return f"turn {self.question.turn} asked {self.question.text!r}, turn {self.reply_turn} did not answer it"


def unanswered(turns: Sequence[Turn], today: date, inputs: Iterable[Any] = ()) -> list[Unanswered]:
    """The questions the chatbot asked that the user never answered, though it replied: each asking is checked
    against the user's next message, a question asked again counts as answered when any asking was, and a
    question the chatbot dropped is no longer owed once the user answered a later one."""
    values = list(inputs)
    asked: list[tuple[Question, int, bool]] = []
    for index, turn in enumerate(turns):
        question = question_of(index, turn)
        if question is None:
            continue
        reply = next((i for i in range(index + 1, len(turns)) if turns[i].role == "user"), None)
        if reply is None:
            continue  # asked last: the conversation ended before the user could answer (cut_short decides)
        answered = answers(question, turns[reply].text, today, values) or _taken(question, turns, reply)
        asked.append((question, reply, answered))
    left: list[Unanswered] = []
    for question, reply, answered in asked:
        if answered:
            continue
        again = [
            ok
            for other, _, ok in asked
            if other.turn != question.turn and same_answer(other.text, question.text)
        ]
        if any(again):
            continue
        if any(ok for other, _, ok in asked if other.turn > question.turn):
            # The chatbot moved on and the user answered what it asked next: this question no longer stands
            # in the way ("or the chatbot stopped asking", D28).
            continue
        if all(u.question.text != question.text for u in left):
            left.append(Unanswered(question, reply))
    return left


def _taken(question: Question, turns: Sequence[Turn], reply: int) -> bool:
    """The chatbot took the reply as its answer: the reply asks nothing back, and the chatbot's next turn goes on
    to another question ("a margherita" to "…house pizzas, or build your own?", then "Which size?")."""
    if "?" in turns[reply].text:
        return False
    following = next((i for i in range(reply + 1, len(turns)) if turns[i].role == "bot"), None)
    if following is None:
        return False
    nxt = question_of(following, turns[following])
    return nxt is not None and not same_answer(nxt.text, question.text)


def was_answered(turns: Sequence[Turn], turn: int, today: date, inputs: Iterable[Any] = ()) -> bool:
    """Whether the question of the chatbot's turn `turn` was answered by the user at one of its askings — a
    chatbot asking again what the user answered is the chatbot's fault; asking again what the user never
    answered is not. A turn that asks nothing (a statement repeated) is no question the user owed an answer to."""
    target = question_of(turn, turns[turn]) if 0 <= turn < len(turns) else None
    if target is None:
        return True
    values = list(inputs)
    for index, said in enumerate(turns):
        question = question_of(index, said)
        if question is None or not same_answer(question.text, target.text):
            continue
        reply = next((i for i in range(index + 1, len(turns)) if turns[i].role == "user"), None)
        if reply is not None and answers(question, turns[reply].text, today, values):
            return True
    return False
