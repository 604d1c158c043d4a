"""A SENSEI run's conversation list: each row's verdict read from its stored record without loading the
transcript, and the filter by verdict.

Records stored before verdicts existed have no `verdict` key; theirs is decided when read (`verdict_of`), for the
row shown and for the filter alike, so an old run lists and filters the same as a new one.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.db.models.fields.json import KT

from engine.sensei.verdicts import verdict_of
from runs.models import Conversation

VERDICTS = ("passed", "failed", "inconclusive")


def listed_conversations(rows: QuerySet[Conversation]) -> QuerySet[Conversation]:
    """The rows with their stored verdict and reason as columns, the record (the transcript) left unread."""
    return rows.annotate(
        stored_verdict=KT("record__verdict"), stored_verdict_reason=KT("record__verdict_reason")
    ).defer("record")


def row_verdict(row: Conversation) -> tuple[str, str]:
    """A listed row's verdict and reason: the stored ones, or decided now from the record of an old row."""
    stored = getattr(row, "stored_verdict", None)
    if stored in VERDICTS:
        return str(stored), str(getattr(row, "stored_verdict_reason", None) or stored)
    return verdict_of(row.record)


def with_verdict(rows: QuerySet[Conversation], verdict: str) -> QuerySet[Conversation]:
    """Only the rows whose verdict is `verdict`; old rows without a stored verdict are decided one by one."""
    matching = rows.filter(record__verdict=verdict)
    undecided = rows.exclude(record__has_key="verdict")
    if not undecided.exists():
        return matching
    decided: list[Any] = [
        pk for pk, record in undecided.values_list("pk", "record") if verdict_of(record)[0] == verdict
    ]
    return rows.filter(pk__in=[*matching.values_list("pk", flat=True), *decided])
