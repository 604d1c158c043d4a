"""What one conversation came to: passed, failed (a chatbot fault) or inconclusive — the failure attribution.

README D26: the attribution is the record's own `verdict` (`passed` | `failed` | `inconclusive`) and
`verdict_reason`, written by SENSEI (read defensively: a field this schema may not know). A record written
before SENSEI had that field, under an older version of the verdict rules, or by another tool, is decided now by the
same rules, through their one adapter (`engine.sensei.verdicts.current`):
a fault of the chatbot (crash, timeout, loop…) fails it; set-up, budget, LLM and cancellation errors, or a
simulated user that never conveyed a goal's inputs, make it inconclusive; otherwise it passed. A rule that failed on a conversation is a
chatbot fault too: it fails a conversation that had passed, and it is noted on a failed one. An inconclusive
conversation stays inconclusive — rules checked on a conversation that never tested anything prove nothing.

Only `failed` counts against the chatbot; inconclusive conversations are left out of pass rates and listed
apart with their reasons.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from engine.conversation import ConversationRecord
from engine.sensei.verdicts import VERDICT_RULES, current

Verdict = Literal["passed", "failed", "inconclusive"]
VERDICTS: tuple[Verdict, ...] = ("passed", "failed", "inconclusive")


def record_field(record: ConversationRecord | Mapping[str, Any], name: str) -> Any:
    """A record's field that this version of the schema may not know (`verdict`, `verdict_reason`)."""
    if isinstance(record, Mapping):
        return record.get(name)
    value = getattr(record, name, None)
    if value is None:
        value = (getattr(record, "model_extra", None) or {}).get(name)
    return value


@dataclass(frozen=True)
class Outcome:
    """A conversation's verdict, why, and where the verdict came from (`record`: SENSEI's, written with the
    record; `decided`: decided now by SENSEI's rules, for a record written before verdicts existed)."""

    verdict: Verdict
    reason: str
    source: Literal["record", "decided"]
    fault_turn: int | None = None  # the turn that shows the chatbot's fault, when known
    rules_failed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "reason": self.reason,
            "source": self.source,
            "fault_turn": self.fault_turn,
            "rules_failed": list(self.rules_failed),
        }


def _reason_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def outcome_of(
    record: ConversationRecord, raw: Mapping[str, Any] | None = None, rules_failed: Sequence[str] = ()
) -> Outcome:
    """The outcome of `record` (`raw`: the JSON it was read from, which keeps fields the model drops)."""
    rules = tuple(dict.fromkeys(rules_failed))
    # One classification (D26), through the one adapter: a record decided by the current verdict rules keeps its
    # verdict; one written before verdicts existed, or under older rules, is decided again now.
    data = {**record.model_dump(mode="json"), **(dict(raw) if raw is not None else {})}
    found = current(data)
    fresh = data.get("verdict_rules") == VERDICT_RULES and data.get("verdict") in VERDICTS
    reason = _reason_text(found.reason)
    outcome = Outcome(found.verdict, reason, "record" if fresh else "decided", found.evidence_turn)
    if not rules:
        return outcome
    if outcome.verdict == "inconclusive":
        return replace(outcome, rules_failed=rules)
    if outcome.verdict == "passed":
        # A rule checks the chatbot's words: its last turn stands as the proof the check report does not name.
        last = next((i for i in range(len(record.turns) - 1, -1, -1) if record.turns[i].role == "bot"), None)
        return Outcome("failed", f"rule_failed: {', '.join(rules)}", outcome.source, last, rules)
    return Outcome(outcome.verdict, outcome.reason, outcome.source, outcome.fault_turn, rules)
