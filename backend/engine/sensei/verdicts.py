"""Verdicts: what one conversation says about the chatbot — `passed`, `failed` or `inconclusive` — and why.

A testing tool must not turn its own simulator's mistakes into verdicts about the chatbot. So:

- **failed** — a chatbot fault: an HTTP error, a crash, an unreadable reply or a timeout (500, 502, 504, other
  statuses); or, once the simulated user did convey the goal's inputs, a fallback or repetition loop (1000,
  1003), an output it asked for that the chatbot did not give (1001) or a goal left unanswered (1002). These
  depend on the user: a chatbot that answers its fallback to a user who talks about something else entirely,
  or asks "Which size?" again of a user who never says one, is doing its job. A fault of the first kind is
  `failed` whatever else went wrong: inconclusive never swallows one.
- **inconclusive** — nothing can be said about the chatbot: the simulated user never conveyed a goal's inputs
  (a variable's value appears in none of its messages: `inputs_not_conveyed`), never brought up a goal without
  inputs that the judge found unanswered (`goal_not_asked`), or left its role (3002); the conversation reached
  its message limit while the chatbot was still asking the user for something, so the missing output was not
  due yet (`cut_short`); the extractor found no value for an output although a chatbot sentence states one of
  its type (`extraction_doubtful`, `engine.sensei.extraction`); an LLM or infrastructure
  failure (3000, 3001, 503 unreachable, 410 session lost); a rate limit (429); a budget (2000 to 2002); a
  cancellation (4000).
- **passed** — none of the above.

`verdict_reason` reads "<reason>: <explanation>", the reason an error's slug (`chatbot_crash`,
`goal_not_completed`, `rate_limited`...) or `inputs_not_conveyed`, `goal_not_asked`, `passed`;
`reason_code()` gives the slug back. Exit codes, JUnit, exports, dashboards and the bench count only `failed`
as a chatbot failure (the regression workflow's failure attribution too, decision D26).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from pydantic import ValidationError
from rapidfuzz import fuzz

from engine.conversation import ConversationError, ConversationRecord, ErrorCode, Verdict
from engine.sensei.detection import content_words
from engine.sensei.errors import describe
from engine.sensei.evidence import mentions

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
    if record.settings.get("stopped_because") not in _LIMITS or not record.turns:
        return None
    if record.settings.get("ended_on_fallback"):
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


def _doubtful(record: ConversationRecord) -> list[str]:
    """The missing outputs, when every one of them is `doubtful` (a chatbot sentence may state it), as
    "name, though turn N says '…'"; else nothing."""
    missing = [name for name, value in record.outputs.items() if value is None]
    proofs = [record.evidence.get(name) for name in missing]
    if not missing or any(p is None or p.reason != "doubtful" for p in proofs):
        return []
    return [
        f"{name}, though turn {p.turn} says {p.quote!r}" for name, p in zip(missing, proofs, strict=True) if p
    ]


def decide(record: ConversationRecord, today: date | None = None) -> tuple[Verdict, str]:
    """The verdict of a finished conversation and its reason (see the module docstring)."""
    faults = [e for e in record.errors if describe(e.code).kind == "finding" and e.code not in GOAL_CODES]
    if faults:
        return "failed", _why(faults[0])
    problems = [e for e in record.errors if describe(e.code).kind != "finding"]
    if problems:
        return "inconclusive", _why(problems[0])
    missing = inputs_not_conveyed(record, today)
    if missing:
        return "inconclusive", (
            "inputs_not_conveyed: the simulated user never said the inputs of " + "; ".join(missing)
        )
    unmet = [e for e in record.errors if e.code in GOAL_CODES]
    if unmet:
        unasked = goals_not_asked(record)
        if unasked:
            return "inconclusive", "goal_not_asked: the simulated user never brought up " + "; ".join(unasked)
        doubtful = _doubtful(record)
        if doubtful and all(e.code == ErrorCode.GOAL_NOT_COMPLETED for e in unmet):
            reason = "extraction_doubtful: the extractor found no value for " + "; ".join(doubtful)
            return "inconclusive", reason
        asking = still_asking(record)
        if asking is not None and all(e.code in _UNMET for e in unmet):
            return "inconclusive", (
                f"cut_short: the conversation reached its limit of {record.settings.get('max_user_turns')} user "
                f"messages while the chatbot was still asking: {asking!r}"
            )
        return "failed", _why(unmet[0])
    return "passed", "passed: no chatbot fault; the user conveyed every goal's inputs"


def judge(record: ConversationRecord, today: date | None = None) -> ConversationRecord:
    """`record` with its verdict and reason set (returned for convenience)."""
    record.verdict, record.verdict_reason = decide(record, today)
    return record


def verdict_of(data: Mapping[str, Any]) -> tuple[Verdict, str]:
    """The verdict of a stored record (JSON); decided now for records written before verdicts existed."""
    verdict = data.get("verdict")
    if verdict in ("passed", "failed", "inconclusive"):
        return verdict, str(data.get("verdict_reason") or verdict)
    try:
        record = ConversationRecord.model_validate({"id": "", "profile": "", **data})
    except ValidationError:
        return "inconclusive", "unreadable: the stored record does not have the conversation record's shape"
    return decide(record)


def reason_code(reason: str | None) -> str:
    """The slug of a verdict reason ("rate_limited: …" → "rate_limited")."""
    return (reason or "").split(":", 1)[0].strip() or "unknown"


def tally(verdicts: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Counts of (verdict, reason) pairs: passed / failed / inconclusive, and the reasons of the last two."""
    counts: Counter[str] = Counter()
    reasons: dict[str, Counter[str]] = {"failed": Counter(), "inconclusive": Counter()}
    for verdict, reason in verdicts:
        counts[verdict] += 1
        if verdict in reasons:
            reasons[verdict][reason_code(reason)] += 1
    return {
        "passed": counts["passed"],
        "failed": counts["failed"],
        "inconclusive": counts["inconclusive"],
        "failed_reasons": dict(sorted(reasons["failed"].items())),
        "inconclusive_reasons": dict(sorted(reasons["inconclusive"].items())),
    }
