"""How users behave in a set of conversations: the measures a calibrated simulated user copies (issue 38, item 5).

Computed the same way on imported transcripts and on simulated conversations, so the two can be compared (the
fidelity report): message length in words, user turns per conversation, how often a user ignores the chatbot's
question (answers it with a question of their own), corrects themselves, changes their mind, and after how many
fallbacks in a row users leave. Pure functions over (role, text) turns; the chatbot's "not understood" sentence
is inferred from the conversations (`infer_fallback`) when not given.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from statistics import mean

TurnPair = tuple[str, str]  # (role: "user" | "bot", text)
_SPACE = re.compile(r"\s+")
_CORRECTION = re.compile(
    r"\b(sorry,? i meant|i mean|correction|no,? wait|quise decir|perd[oó]n,? era)\b", re.IGNORECASE
)
_CHANGE = re.compile(
    r"\b(actually|instead|changed? my mind|never mind|on second thought|mejor|en realidad)\b", re.IGNORECASE
)
_QUESTION_START = re.compile(
    r"^\W*(what|when|where|which|who|how|do|does|are|is|can|qu[eé]|cu[aá]nt|d[oó]nde|ten[eé]is)\b",
    re.IGNORECASE,
)
MEASURES = (
    "words_per_message",
    "user_turns",
    "ignored_question",
    "correction",
    "change_of_mind",
    "leave_after",
)


def _key(text: str) -> str:
    return _SPACE.sub(" ", text.strip().lower())[:80]


def infer_fallback(conversations: Iterable[Sequence[TurnPair]]) -> str | None:
    """The chatbot's "not understood" sentence: the reply it most often gives twice in a row (a user rephrasing
    a message it did not understand gets the same sentence again; an answer is seldom repeated)."""
    repeated: Counter[str] = Counter()
    texts: dict[str, str] = {}
    for turns in conversations:
        replies = [text for role, text in turns if role == "bot"]
        for previous, current in itertools.pairwise(replies):
            if current.strip() and _key(previous) == _key(current):
                repeated[_key(current)] += 1
                texts.setdefault(_key(current), current.strip())
    if not repeated:
        return None
    key, count = repeated.most_common(1)[0]
    return texts[key] if count >= 2 else None


def is_question(text: str) -> bool:
    return "?" in text or bool(_QUESTION_START.match(text))


@dataclass
class Measures:
    conversations: int = 0
    words_per_message: float = 0.0
    user_turns: float = 0.0
    ignored_question: float = 0.0  # share of the chatbot's questions answered with another question
    correction: float = 0.0  # share of user messages that correct the previous one
    change_of_mind: float = 0.0  # share of user messages that change the request
    leave_after: float = 0.0  # mean fallbacks in a row before a user left on a fallback (0: none did)
    left_on_fallback: float = 0.0  # share of conversations that end on a fallback
    word_counts: list[int] = field(default_factory=list)  # each user message's length, for drawing lengths
    turn_counts: list[int] = field(default_factory=list)  # each conversation's user turns
    questions: list[str] = field(default_factory=list)  # questions users asked (already masked), for drawing
    fillers: list[str] = field(default_factory=list)  # words users add around any request ("please", "ok")

    def summary(self) -> dict[str, float]:
        return {name: round(float(getattr(self, name)), 4) for name in MEASURES}

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def measure(conversations: Iterable[Sequence[TurnPair]], fallback: str | None = None) -> Measures:
    """The measures of `conversations` (each a sequence of (role, text)); `fallback` inferred when None."""
    listed = [list(c) for c in conversations]
    fallback = fallback if fallback is not None else infer_fallback(listed)
    marker = _key(fallback)[:40] if fallback else None

    def fell_back(text: str) -> bool:
        return marker is not None and _key(text).startswith(marker)

    words: list[int] = []
    turns: list[int] = []
    questions_asked = ignored = corrections = changes = 0
    leave_runs: list[int] = []
    left = 0
    asked: list[str] = []
    for conversation in listed:
        users = [text for role, text in conversation if role == "user"]
        if not users:
            continue
        turns.append(len(users))
        words.extend(len(text.split()) for text in users)
        corrections += sum(1 for text in users if _CORRECTION.search(text))
        changes += sum(1 for text in users if _CHANGE.search(text))
        for (role, text), (next_role, reply) in itertools.pairwise(conversation):
            if role == "bot" and next_role == "user" and "?" in text and not fell_back(text):
                questions_asked += 1
                if is_question(reply):
                    ignored += 1
            if role == "user" and is_question(text) and len(asked) < 200:
                asked.append(text)
        bots = [text for role, text in conversation if role == "bot"]
        if conversation[-1][0] == "bot" and bots and fell_back(bots[-1]):
            left += 1
            run = 0
            for text in reversed(bots):
                if not fell_back(text):
                    break
                run += 1
            leave_runs.append(run)
    messages = max(1, len(words))
    return Measures(
        fillers=_fillers([text for c in listed for role, text in c if role == "user"]),
        conversations=len(turns),
        words_per_message=mean(words) if words else 0.0,
        user_turns=mean(turns) if turns else 0.0,
        ignored_question=ignored / questions_asked if questions_asked else 0.0,
        correction=corrections / messages,
        change_of_mind=changes / messages,
        leave_after=mean(leave_runs) if leave_runs else 0.0,
        left_on_fallback=left / len(turns) if turns else 0.0,
        word_counts=words,
        turn_counts=turns,
        questions=list(dict.fromkeys(asked)),
    )


def _fillers(messages: list[str], limit: int = 15) -> list[str]:
    """Words users write around whatever they ask: short, frequent, and seen beside many different requests
    (a word that only ever comes with one request is content, not filler)."""
    seen: Counter[str] = Counter()
    beside: dict[str, set[str]] = {}
    for text in messages:
        words = [w.strip(".,!?¿¡").lower() for w in text.split()]
        for word in set(words):
            if word and len(word) <= 8 and word.isalpha():
                seen[word] += 1
                beside.setdefault(word, set()).add(" ".join(sorted(set(words) - {word}))[:60])
    floor = max(3, len(messages) // 50)
    varied = [w for w, n in seen.most_common() if n >= floor and len(beside[w]) * 2 >= n]
    return varied[:limit]


def distance(simulated: Measures, real: Measures) -> dict[str, float]:
    """Per measure, |simulated - real| relative to the real value (absolute when the real one is 0), and the
    mean of them as `overall`: 0 is a perfect match."""
    gaps = {}
    for name in MEASURES:
        ours, theirs = float(getattr(simulated, name)), float(getattr(real, name))
        gaps[name] = round(abs(ours - theirs) / abs(theirs) if theirs else abs(ours), 4)
    gaps["overall"] = round(mean(gaps[name] for name in MEASURES), 4)
    return gaps
