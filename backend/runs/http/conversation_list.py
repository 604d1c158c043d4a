"""A SENSEI run's conversation list: each row's verdict, fault and evidence turn read from its stored record
without loading the transcript, and the filters by verdict and by fault.

A record decided by the current verdict rules (`verdict_rules`, `engine.sensei.verdicts.VERDICT_RULES`) is read as
stored; one stored before verdicts existed, or decided by an older version of the rules, is decided again when read
(`engine.sensei.verdicts.current`, the one adapter), for the row shown and for the filters alike, so an old run
lists and filters the same as a new one.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.db.models.fields.json import KT

from engine.sensei.verdicts import FAULTS, VERDICT_RULES, Decision, current
from runs.models import Conversation

VERDICTS = ("passed", "failed", "inconclusive")
__all__ = [
    "FAULTS",
    "VERDICTS",
    "listed_conversations",
    "row_decision",
    "row_verdict",
    "with_fault",
    "with_verdict",
]


def listed_conversations(rows: QuerySet[Conversation]) -> QuerySet[Conversation]:
    """The rows with their stored verdict, reason, evidence turn and rule version as columns, the record (the
    transcript) left unread."""
    return rows.annotate(
        stored_verdict=KT("record__verdict"),
        stored_verdict_reason=KT("record__verdict_reason"),
        stored_evidence_turn=KT("record__evidence_turn"),
        stored_verdict_rules=KT("record__verdict_rules"),
    ).defer("record")


def row_decision(row: Conversation) -> Decision:
    """A listed row's verdict, reason, fault and evidence turn: the stored ones when the current rules decided
    them, else decided now from the record (`current`)."""
    cached = getattr(row, "_decision", None)
    if cached is not None:
        return cached
    stored = getattr(row, "stored_verdict", None)
    rules = getattr(row, "stored_verdict_rules", None)
    if stored in VERDICTS and str(rules) == str(VERDICT_RULES):
        turn = getattr(row, "stored_evidence_turn", None)
        found = current(
            {
                "verdict": stored,
                "verdict_reason": getattr(row, "stored_verdict_reason", None) or stored,
                "evidence_turn": int(turn) if turn not in (None, "") else None,
                "verdict_rules": VERDICT_RULES,
            }
        )
    else:
        found = current(row.record)
    row._decision = found  # type: ignore[attr-defined]  # one decision per row and request
    return found


def row_verdict(row: Conversation) -> tuple[str, str]:
    """A listed row's verdict and reason (see `row_decision`)."""
    return row_decision(row).pair


def _stale(rows: QuerySet[Conversation]) -> QuerySet[Conversation]:
    # A missing key compares as NULL, which NOT(…) would drop: ask for it by name.
    return rows.filter(
        ~Q(record__has_key="verdict_rules")
        | ~Q(record__has_key="verdict")
        | ~Q(record__verdict_rules=VERDICT_RULES)
    )


def _where(rows: QuerySet[Conversation], fresh: Q, keep: Any) -> QuerySet[Conversation]:
    """The rows matching `fresh` among those the current rules decided, and those of the others for which
    `keep(decision)` holds once decided again."""
    matching = rows.filter(record__verdict_rules=VERDICT_RULES, record__has_key="verdict").filter(fresh)
    stale = _stale(rows)
    if not stale.exists():
        return matching
    decided = [pk for pk, record in stale.values_list("pk", "record") if keep(current(record))]
    return rows.filter(pk__in=[*matching.values_list("pk", flat=True), *decided])


def with_verdict(rows: QuerySet[Conversation], verdict: str) -> QuerySet[Conversation]:
    """Only the rows whose verdict is `verdict`."""
    return _where(rows, Q(record__verdict=verdict), lambda d: d.verdict == verdict)


def with_fault(rows: QuerySet[Conversation], fault: str) -> QuerySet[Conversation]:
    """Only the rows whose fault is `fault` (one of `FAULTS`; passed conversations have none)."""
    return _where(rows, Q(record__fault=fault), lambda d: d.fault == fault)
