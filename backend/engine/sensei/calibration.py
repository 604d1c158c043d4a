"""A simulated user calibrated to real users, enforced by the simulator rather than asked for in a prompt.

Small models ignore "be impatient" in a prompt, so the measured behaviour of real users (`engine.transcripts.
measures`) is applied to what the user LLM writes, by code, through a small hook in `simulator.py`:
- each message is cut to a length drawn from the real users' message lengths;
- each conversation stops after a number of user turns drawn from the real conversations;
- a question from the chatbot is ignored (the user asks one of the real users' questions instead) at the real rate;
- a message becomes a correction ("sorry, I meant …") or a change of mind ("actually, …") at the real rates;
- the user leaves after as many fallbacks in a row as real users tolerated.
The parameters travel as a personality (`calibrated_personality`): its context describes the user for the LLM, its
`parameters` are what the simulator enforces. Draws are seeded per conversation, so a run is reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.sensei.personalities import Personality, personality_key
from engine.transcripts.measures import Measures

CALIBRATED = "calibrated-user"
# The keys a calibrated personality document adds to `name` and `context`.
CALIBRATED_KEYS = ("parameters", "measures", "source")
_RATES = ("ignored_question", "correction", "change_of_mind")
_COUNTS = ("word_counts", "turn_counts")


@dataclass(frozen=True)
class Calibration:
    """What the simulator enforces; built from `Measures` or read back from a personality's parameters."""

    word_counts: tuple[int, ...] = ()
    turn_counts: tuple[int, ...] = ()
    ignored_question: float = 0.0
    correction: float = 0.0
    change_of_mind: float = 0.0
    leave_after: int = 0  # 0: never leaves on fallbacks
    questions: tuple[str, ...] = ()
    fillers: tuple[str, ...] = ()

    @classmethod
    def from_measures(cls, measures: Measures) -> Calibration:
        # The rates are per message; a first message is never a correction or a change of mind, so the
        # rate applied to the later ones is higher by the share of messages that are not first.
        later = max(0.1, 1 - 1 / measures.user_turns) if measures.user_turns else 1.0
        return cls(
            word_counts=tuple(measures.word_counts[:1000]),
            turn_counts=tuple(measures.turn_counts[:1000]),
            ignored_question=measures.ignored_question,
            correction=min(1.0, measures.correction / later),
            change_of_mind=min(1.0, measures.change_of_mind / later),
            leave_after=round(measures.leave_after) if measures.left_on_fallback else 0,
            questions=tuple(measures.questions[:200]),
            fillers=tuple(measures.fillers),
        )

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any]) -> Calibration:
        return cls(
            word_counts=tuple(int(n) for n in parameters.get("word_counts", ())),
            turn_counts=tuple(int(n) for n in parameters.get("turn_counts", ())),
            ignored_question=float(parameters.get("ignored_question", 0.0)),
            correction=float(parameters.get("correction", 0.0)),
            change_of_mind=float(parameters.get("change_of_mind", 0.0)),
            leave_after=int(parameters.get("leave_after", 0)),
            questions=tuple(str(q) for q in parameters.get("questions", ())),
            fillers=tuple(str(w) for w in parameters.get("fillers", ())),
        )

    def parameters(self) -> dict[str, Any]:
        return {
            "word_counts": list(self.word_counts),
            "turn_counts": list(self.turn_counts),
            "ignored_question": round(self.ignored_question, 4),
            "correction": round(self.correction, 4),
            "change_of_mind": round(self.change_of_mind, 4),
            "leave_after": self.leave_after,
            "questions": list(self.questions),
            "fillers": list(self.fillers),
        }


@dataclass
class CalibratedUser:
    """The enforcement for one conversation (the simulator makes one per conversation, seeded)."""

    calibration: Calibration
    rng: random.Random
    turns: int | None = None
    said: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.calibration.turn_counts:
            self.turns = max(1, self.rng.choice(self.calibration.turn_counts))

    def stop_before_turn(self, user_turns: int) -> bool:
        """True when this user has written as many messages as the drawn conversation length."""
        return self.turns is not None and user_turns >= self.turns

    def leaves(self, fallbacks_in_row: int) -> bool:
        return self.calibration.leave_after > 0 and fallbacks_in_row >= self.calibration.leave_after

    def shape(self, message: str, last_reply: str | None) -> str:
        """The user LLM's message as this user would send it."""
        calibration, rng = self.calibration, self.rng
        if (
            last_reply
            and "?" in last_reply
            and calibration.questions
            and rng.random() < calibration.ignored_question
        ):
            message = rng.choice(calibration.questions)  # answers a different question
        elif self.said and rng.random() < calibration.correction:
            message = f"sorry, I meant {message}"
        elif self.said and rng.random() < calibration.change_of_mind:
            message = f"actually, {message}"
        if calibration.word_counts:
            limit = max(1, rng.choice(calibration.word_counts))
            words = message.split()
            if len(words) > limit:
                message = " ".join(words[:limit])
            elif len(words) < limit and calibration.fillers:
                # Real users wrap a request in words of their own; a model writes the bare request.
                extra = [rng.choice(calibration.fillers) for _ in range(limit - len(words))]
                cut = rng.randint(0, len(extra))
                message = " ".join([*extra[:cut], *words, *extra[cut:]])
        self.said.append(message)
        return message


def calibration_for(
    given: Calibration | None, by_personality: Mapping[str, Calibration], personality: str | None
) -> Calibration | None:
    """The run's calibration if one was given, else the one the profile's personality carries, else None."""
    if given is not None:
        return given
    return by_personality.get(personality_key(personality)) if personality else None


def for_conversation(calibration: Calibration | None, seed: int | None, index: int) -> CalibratedUser | None:
    if calibration is None:
        return None
    return CalibratedUser(calibration, random.Random(f"{seed}:{index}"))  # noqa: S311 - simulation, not security


def calibrated_personality(measures: Measures, name: str = CALIBRATED) -> Personality:
    """A project personality carrying the measured parameters; its context tells the LLM the same in words."""
    calibration = Calibration.from_measures(measures)
    context = [
        f"You write short chat messages of about {round(measures.words_per_message)} words.",
        f"You usually finish within {round(measures.user_turns)} messages.",
    ]
    if calibration.leave_after:
        context.append(
            f"If the assistant fails to understand you {calibration.leave_after} times, you leave."
        )
    return Personality(name, tuple(context), parameters=calibration.parameters())


def calibration_problem(parameters: object) -> str | None:
    """Why `parameters` cannot be a calibrated user's (None when they can): the simulator trusts them."""
    if not isinstance(parameters, Mapping):
        return "a mapping of measured parameters is expected."
    for name in _RATES:
        value = parameters.get(name, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            return f"`{name}` must be a share between 0 and 1."
    leave = parameters.get("leave_after", 0)
    if isinstance(leave, bool) or not isinstance(leave, int) or not 0 <= leave <= 100:
        return "`leave_after` must be a whole number of fallbacks from 0 (never leaves) to 100."
    for name in _COUNTS:
        values = parameters.get(name, [])
        if not isinstance(values, list) or len(values) > 1000:
            return f"`{name}` must be a list of at most 1000 counts."
        if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 10_000 for n in values):
            return f"`{name}` must hold whole numbers from 0 to 10000."
    for name in ("questions", "fillers"):
        values = parameters.get(name, [])
        if not isinstance(values, list) or len(values) > 1000 or not all(isinstance(v, str) for v in values):
            return f"`{name}` must be a list of at most 1000 texts."
    return None


def calibrations_of(personalities: Iterable[Personality]) -> dict[str, Calibration]:
    """Per personality name, the calibrated users among `personalities` (those carrying parameters)."""
    found = {}
    for personality in personalities:
        calibration = calibration_of(personality)
        if calibration is not None:
            found[personality_key(personality.name)] = calibration
    return found


def calibration_of(personality: Personality | None) -> Calibration | None:
    if personality is None or not personality.parameters:
        return None
    return Calibration.from_parameters(personality.parameters)


def summary(calibration: Calibration) -> dict[str, float]:
    def average(values: Sequence[int]) -> float:
        return round(sum(values) / len(values), 2) if values else 0.0

    return {
        "words_per_message": average(calibration.word_counts),
        "user_turns": average(calibration.turn_counts),
        "ignored_question": calibration.ignored_question,
        "correction": calibration.correction,
        "change_of_mind": calibration.change_of_mind,
        "leave_after": calibration.leave_after,
    }
