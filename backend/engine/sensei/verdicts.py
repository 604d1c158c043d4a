"""Verdicts: what one conversation says about the chatbot — `passed`, `failed` or `inconclusive` — why, and who
is at fault. The rule is written here once; the CLI, the platform's worker, the bench, compare and replay all read
it (README D28).

**`failed` needs a chatbot turn as proof** (`evidence_turn`, stored on the record):
- an HTTP error, a crash, an unreadable reply or a timeout (500, 502, 504, other statuses) on that turn;
- a fallback loop (1000) once the simulated user conveyed the goal's inputs;
- a repetition loop (1003) only *after* the user answered: a chatbot asking again a question the user never
  answered is doing its job (`question_not_answered`, decided by code in `engine.sensei.answers`);
- an output the profile expects that the chatbot did not give (1001) or a goal left unanswered (1002), only when
  the user conveyed its inputs and answered every question the chatbot asked on the way (or the chatbot stopped
  asking), and the extractor read what it was given: an output it could not read (`extraction_unreadable`) or may
  have missed (`extraction_doubtful`) is Parley's own model's doing.
A fault of the first kind is `failed` whatever else went wrong: inconclusive never swallows one.

**Everything else caused by the user side, Parley's own models, the infrastructure or the test set-up is
`inconclusive`**, with its reason. Every reason maps to who is at fault in one table (`REASON_FAULTS`): `chatbot`,
`simulated_user`, `parley_llm`, `infrastructure`, `test_setup` (a budget, a cut-short limit, a cancellation).

`verdict_reason` reads "<reason>: <explanation>"; `reason_code()` gives the slug back. Records carry the version of
these rules (`verdict_rules`); `current()` is the one adapter that reads a stored record, deciding again a record
of an older version (or none). Exit codes, JUnit, exports, dashboards and the bench count only `failed` as a
chatbot failure (the regression workflow's failure attribution too, decision D26).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, get_args

from pydantic import ValidationError
from rapidfuzz import fuzz

from engine.conversation import ConversationError, ConversationRecord, ErrorCode, Verdict
from engine.sensei.answers import question_of, unanswered, was_answered
from engine.sensei.detection import content_words, same_answer, same_request
from engine.sensei.errors import describe
from engine.sensei.evidence import mentions

VERDICT_RULES = 2
"""The version of these rules: 1 was the first verdicts (no fault, no evidence turn); 2 the proof rule of D28."""

Fault = Literal["chatbot", "simulated_user", "parley_llm", "infrastructure", "test_setup"]
FAULTS: tuple[Fault, ...] = get_args(Fault)

REASON_FAULTS: dict[str, Fault] = {
    # The chatbot: the only faults that make a conversation `failed`.
    "chatbot_crash": "chatbot",
    "malformed_reply": "chatbot",
    "timeout": "chatbot",
    "http_error": "chatbot",  # any other HTTP status the chatbot answered (http_404…)
    "fallback_loop": "chatbot",
    "repetition_loop": "chatbot",
    "goal_not_completed": "chatbot",
    "goals_not_verified": "chatbot",
    "rule_failed": "chatbot",  # a rule on the chatbot's words failed (the regression workflow)
    "check_failed": "chatbot",  # a check of a scripted profile did not hold on the chatbot's reply
    # The simulated user did not do its part.
    "inputs_not_conveyed": "simulated_user",
    "goal_not_asked": "simulated_user",
    "question_not_answered": "simulated_user",
    "same_request": "simulated_user",  # the user asked the same thing again; the same answer is no loop
    "user_left_role": "simulated_user",
    # Parley's own models failed or wrote something unreadable.
    "user_llm_failed": "parley_llm",
    "extraction_failed": "parley_llm",
    "extraction_doubtful": "parley_llm",
    "extraction_unreadable": "parley_llm",
    # The way to the chatbot, or Parley's own storage.
    "chatbot_unreachable": "infrastructure",
    "session_lost": "infrastructure",
    "rate_limited": "infrastructure",
    "unreadable": "infrastructure",  # a stored record that does not have a record's shape
    # The test as set up: budgets, limits, a cancellation.
    "run_budget_exceeded": "test_setup",
    "conversation_budget_exceeded": "test_setup",
    "budget_refused": "test_setup",
    "cut_short": "test_setup",
    "cancelled": "test_setup",
}
"""Every verdict reason (slug) → who is at fault. `passed` has none."""


def fault_of(reason: str | None) -> Fault | None:
    """Who is at fault for a reason (its slug or the whole "<reason>: …" text); None for passed. An unknown
    reason is the infrastructure's (a record this version cannot read), never the chatbot's."""
    code = reason_code(reason)
    if code == "passed":
        return None
    if re.fullmatch(r"http_\d{3}", code):
        return REASON_FAULTS["http_error"]
    return REASON_FAULTS.get(code, "infrastructure")


# Findings that blame the chatbot only when the user did its part (see the module docstring).
GOAL_CODES = frozenset(
    {
        int(ErrorCode.FALLBACK_LOOP),
        int(ErrorCode.REPETITION_LOOP),
        int(ErrorCode.GOAL_NOT_COMPLETED),
        int(ErrorCode.GOALS_NOT_VERIFIED),
    }
)
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
_GOAL_FILLER = frozenset(
    {"whether", "some", "any", "get", "give", "find", "out", "there", "one", "all", "them"}
)


def _why(item: ConversationError) -> str:
    where = f" (turn {item.turn + 1})" if item.turn is not None else ""
    return f"{describe(item.code).slug}: {item.message}{where}"


def _said(record: ConversationRecord) -> str:
    return "\n".join(record.user_phrases)


def _value_text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def inputs_not_conveyed(record: ConversationRecord, today: date | None = None) -> list[str]:
    """The goals whose input values the simulated user never said, each as "goal N: var=value"."""
    day = today or (record.started_at.date() if record.started_at else date.today())
    said = _said(record)
    missing: list[str] = []
    for number, goal in enumerate(record.goals, start=1):
        names = [name for name in _PLACEHOLDER.findall(goal) if name in record.inputs]
        unsaid = [name for name in dict.fromkeys(names) if not mentions(record.inputs[name], said, day)]
        if unsaid:
            values = ", ".join(f"{name}={_value_text(record.inputs[name])}" for name in unsaid)
            missing.append(f"goal {number} ({values})")
    return missing


def _same_word(wanted: str, said: str) -> bool:
    if wanted == said:
        return True
    if min(len(wanted), len(said)) < 4:
        return False
    return wanted.startswith(said) or said.startswith(wanted) or fuzz.ratio(wanted, said) >= 80


def _touches(goal: str, said: str) -> bool:
    """The user's messages share half of the goal's content words (typos and word endings aside): "How much is a
    new tire?" touches "ask how much a new tire costs", "When are you open?" touches "ask for the opening hours"."""
    wanted = {w for w in content_words(goal) if w not in _GOAL_FILLER}
    if not wanted:
        return True
    words = content_words(said)
    hits = sum(1 for w in wanted if any(_same_word(w, s) for s in words))
    return hits * 2 >= len(wanted)


def goals_not_asked(record: ConversationRecord) -> list[str]:
    """Goals without inputs that no user message even touches (goal numbers and texts)."""
    said = _said(record)
    return [
        f"goal {number} ({goal})"
        for number, goal in enumerate(record.goals, start=1)
        if not _PLACEHOLDER.search(goal) and not _touches(goal, said)
    ]


_UNMET = frozenset({int(ErrorCode.GOAL_NOT_COMPLETED), int(ErrorCode.GOALS_NOT_VERIFIED)})
_LIMITS = frozenset({"steps", "limit"})
_MENU = re.compile(r"\?\s*(?:,|\band\b|\bor\b)", re.IGNORECASE)


def still_asking(record: ConversationRecord) -> str | None:
    """The chatbot's question, when the conversation stopped at its message limit right after the chatbot asked
    the user for something (its last reply has a question and is not its fallback)."""
    if record.outcome.stopped_because not in _LIMITS or not record.turns:
        return None
    if record.outcome.ended_on_fallback:
        return None  # "Could you say that again?" is the chatbot not understanding, not asking for an input
    last = record.turns[-1]
    if last.role != "bot":
        return None
    if _MENU.search(last.text):
        return (
            None  # "You can ask me: How much is a tire?, How much is a seat? and …": a menu asks for nothing
        )
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", last.text) if s.strip()]
    return next((s for s in reversed(sentences) if s.endswith("?")), None)


@dataclass(frozen=True)
class Decision:
    """A verdict, its reason, who is at fault and — for `failed` — the chatbot turn that proves it."""

    verdict: Verdict
    reason: str
    evidence_turn: int | None = None

    @property
    def fault(self) -> Fault | None:
        return None if self.verdict == "passed" else fault_of(self.reason)

    @property
    def pair(self) -> tuple[Verdict, str]:
        return self.verdict, self.reason


def _last_bot_turn(record: ConversationRecord) -> int | None:
    return next((i for i in range(len(record.turns) - 1, -1, -1) if record.turns[i].role == "bot"), None)


def _fault_turn(record: ConversationRecord, item: ConversationError) -> int | None:
    """The chatbot's turn an error names: its own index when it is a chatbot turn, or the reply that never came
    (an HTTP error, a timeout: the index right after the user's message); else the last chatbot turn."""
    turn = item.turn
    if turn is not None and 0 <= turn < len(record.turns) and record.turns[turn].role == "bot":
        return turn
    if turn is not None and turn == len(record.turns) and describe(item.code).kind == "finding":
        return turn
    return _last_bot_turn(record)


_UNREADABLE = frozenset({"invalid", "unreadable"})
_OUTCOME_REASONS = frozenset({"goal_not_completed", "goals_not_verified"})


def _missing_outputs(record: ConversationRecord) -> tuple[list[str], list[str], list[str]]:
    """The missing outputs: (the chatbot did not say them, the extractor may have missed them, the extractor
    could not read its own answer), each as "name" or "name, though turn N says '…'"."""
    said_not: list[str] = []
    doubtful: list[str] = []
    unreadable: list[str] = []
    for name, value in record.outputs.items():
        if value is not None:
            continue
        proof = record.evidence.get(name)
        reason = proof.reason if proof is not None else None
        if proof is not None and reason == "doubtful":
            doubtful.append(f"{name}, though turn {proof.turn} says {proof.quote!r}")
        elif reason in _UNREADABLE:
            unreadable.append(name)
        else:
            said_not.append(name)
    return said_not, doubtful, unreadable


def _same_requests(record: ConversationRecord, turn: int) -> bool:
    """Whether the chatbot's repeated statement answered the same request each time: the user messages before its
    last repeats share most of their content words, or three of them all (looser than the simulator's check, which
    a small model's rewording of one request slips past)."""
    if question_of(turn, record.turns[turn]) is not None:
        return False  # a question asked again after an answer: the chatbot's fault
    said = record.turns[turn].text
    requests: list[str] = []
    for index in range(turn, -1, -1):
        current_turn = record.turns[index]
        if current_turn.role != "bot":
            continue
        if not same_answer(current_turn.text, said):
            break
        previous = next(
            (record.turns[i].text for i in range(index - 1, -1, -1) if record.turns[i].role == "user"), None
        )
        if previous is not None:
            requests.append(previous)
    if len(requests) < 2:
        return False
    if all(same_request(a, b, threshold=0.5) for a in requests for b in requests):
        return True
    # A rambling small model wraps one request ("a new order of pizza and drinks") in new words every time.
    common = set.intersection(*(content_words(r) for r in requests))
    return len(common) >= 3


def _unmet(record: ConversationRecord, item: ConversationError, day: date) -> Decision:
    """A goal finding (1000-1003), once the user conveyed its inputs: failed with its turn, or why not."""
    values = list(record.inputs.values())
    if item.code == ErrorCode.REPETITION_LOOP:
        turn = _fault_turn(record, item)
        if turn is not None and not was_answered(record.turns, turn, day, values):
            asked = record.turns[turn].text.strip()
            return Decision(
                "inconclusive",
                f"question_not_answered: the chatbot asked again {asked[:200]!r}, which the simulated user never "
                "answered — not a loop",
            )
        if turn is not None and _same_requests(record, turn):
            return Decision(
                "inconclusive",
                "same_request: the simulated user asked for the same thing each time; the chatbot's same answer "
                f"({record.turns[turn].text.strip()[:160]!r}) is consistency, not a loop",
            )
        return Decision("failed", _why(item), turn)
    if item.code == ErrorCode.FALLBACK_LOOP:
        return Decision("failed", _why(item), _fault_turn(record, item))
    if item.code == ErrorCode.GOAL_NOT_COMPLETED:
        said_not, doubtful, unreadable = _missing_outputs(record)
        if not said_not:
            if unreadable:
                return Decision(
                    "inconclusive",
                    "extraction_unreadable: the extractor's answer could not be read as "
                    + ", ".join(unreadable)
                    + ", even when asked again",
                )
            if doubtful:
                return Decision(
                    "inconclusive",
                    "extraction_doubtful: the extractor found no value for " + "; ".join(doubtful),
                )
    asking = still_asking(record)
    if asking is not None and item.code in _UNMET:
        return Decision(
            "inconclusive",
            f"cut_short: the conversation reached its limit of {record.settings.max_user_turns} user "
            f"messages while the chatbot was still asking: {asking!r}",
        )
    left = unanswered(record.turns, day, values)
    if left:
        return Decision(
            "inconclusive",
            "question_not_answered: the simulated user did not answer the chatbot: "
            + "; ".join(u.describe() for u in left[:3]),
        )
    return Decision("failed", _why(item), _last_bot_turn(record))


def decision(record: ConversationRecord, today: date | None = None) -> Decision:
    """The verdict of a finished conversation, its reason and its proof (see the module docstring)."""
    day = today or (record.started_at.date() if record.started_at else date.today())
    faults = [e for e in record.errors if describe(e.code).kind == "finding" and e.code not in GOAL_CODES]
    if faults:
        return Decision("failed", _why(faults[0]), _fault_turn(record, faults[0]))
    problems = [e for e in record.errors if describe(e.code).kind != "finding"]
    if problems:
        return Decision("inconclusive", _why(problems[0]))
    missing = inputs_not_conveyed(record, day)
    if missing:
        return Decision(
            "inconclusive",
            "inputs_not_conveyed: the simulated user never said the inputs of " + "; ".join(missing),
        )
    unmet = [e for e in record.errors if e.code in GOAL_CODES]
    if unmet:
        unasked = goals_not_asked(record)
        if unasked:
            return Decision(
                "inconclusive", "goal_not_asked: the simulated user never brought up " + "; ".join(unasked)
            )
        decided = [_unmet(record, item, day) for item in unmet]
        proven = [d for d in decided if d.verdict == "failed" and d.evidence_turn is not None]
        if any(reason_code(d.reason) == "same_request" for d in decided):
            # The conversation ended stuck on one request the user kept making: what it never reached (an output,
            # a goal) proves nothing about the chatbot either.
            proven = [d for d in proven if reason_code(d.reason) not in _OUTCOME_REASONS]
        if proven:
            return proven[0]
        doubts = [d for d in decided if d.verdict == "inconclusive"]
        if doubts:
            return doubts[0]
        return Decision("inconclusive", "unreadable: no chatbot turn shows the fault " + _why(unmet[0]))
    return Decision("passed", "passed: no chatbot fault; the user conveyed every goal's inputs")


def decide(record: ConversationRecord, today: date | None = None) -> tuple[Verdict, str]:
    """The verdict of a finished conversation and its reason (see `decision`)."""
    return decision(record, today).pair


def judge(record: ConversationRecord, today: date | None = None) -> ConversationRecord:
    """`record` with its verdict, reason, fault, evidence turn and rule version set (returned for convenience)."""
    found = decision(record, today)
    record.verdict, record.verdict_reason = found.verdict, found.reason
    record.fault, record.evidence_turn = found.fault, found.evidence_turn
    record.verdict_rules = VERDICT_RULES
    return record


def current(data: Mapping[str, Any]) -> Decision:
    """The one adapter for a stored record (JSON): its own verdict when the current rules decided it, else decided
    again now — a record written before verdicts existed, or under an older version of these rules."""
    verdict = data.get("verdict")
    if data.get("verdict_rules") == VERDICT_RULES and verdict in ("passed", "failed", "inconclusive"):
        turn = data.get("evidence_turn")
        return Decision(
            verdict, str(data.get("verdict_reason") or verdict), turn if isinstance(turn, int) else None
        )
    try:
        record = ConversationRecord.model_validate({"id": "", "profile": "", **data})
    except ValidationError:
        return Decision(
            "inconclusive", "unreadable: the stored record does not have the conversation record's shape"
        )
    return decision(record)


def verdict_of(data: Mapping[str, Any]) -> tuple[Verdict, str]:
    """The verdict and reason of a stored record (through `current`)."""
    return current(data).pair


def reason_code(reason: str | None) -> str:
    """The slug of a verdict reason ("rate_limited: …" → "rate_limited")."""
    return (reason or "").split(":", 1)[0].strip() or "unknown"


def tally(verdicts: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Counts of (verdict, reason) pairs: passed / failed / inconclusive, the reasons of the last two, and the
    conversations per fault (`faults`: every fault named, 0 when none)."""
    counts: Counter[str] = Counter()
    reasons: dict[str, Counter[str]] = {"failed": Counter(), "inconclusive": Counter()}
    faults: Counter[str] = Counter()
    for verdict, reason in verdicts:
        counts[verdict] += 1
        if verdict in reasons:
            reasons[verdict][reason_code(reason)] += 1
            faults[fault_of(reason) or "infrastructure"] += 1
    return {
        "passed": counts["passed"],
        "failed": counts["failed"],
        "inconclusive": counts["inconclusive"],
        "failed_reasons": dict(sorted(reasons["failed"].items())),
        "inconclusive_reasons": dict(sorted(reasons["inconclusive"].items())),
        "faults": {name: faults[name] for name in FAULTS},
        "verdict_rules": VERDICT_RULES,
    }
