"""A SENSEI run's verdict counts — passed, failed, inconclusive, their reasons, who is at fault (`faults`) and the
simulator's slips — counted from its stored records, each read through the verdict rules' one adapter
(`engine.sensei.verdicts.current`): a record decided by older rules is decided again, and a run counted by older
rules is counted again when read (README D31).
"""

from __future__ import annotations

from typing import Any

from engine.sensei.verdicts import VERDICT_RULES, tally, verdict_of
from runs.models import Conversation, Run

__all__ = ["refreshed_result", "sensei_verdicts"]


def sensei_verdicts(run: Run) -> dict[str, Any]:
    """Verdict counts of a SENSEI run, the reasons of failed and inconclusive conversations, simulator slips.
    Reads two keys of each record, not the transcripts (a record without a verdict is read whole)."""
    rows = Conversation.objects.filter(run=run).values_list(
        "pk",
        "record__verdict",
        "record__verdict_reason",
        "record__verdict_rules",
        "record__outcome__simulator_slips",
    )
    pairs: list[tuple[str, str]] = []
    slips = 0
    for pk, verdict, reason, rules, row_slips in rows:
        if verdict not in ("passed", "failed", "inconclusive") or rules != VERDICT_RULES:
            # Decided before verdicts existed, or by older rules: decided again (the one adapter).
            verdict, reason = verdict_of(Conversation.objects.get(pk=pk).record)
        pairs.append((str(verdict), str(reason or "")))
        slips += len(row_slips) if isinstance(row_slips, list) else 0
    return {**tally(pairs), "simulator_slips": slips}


def refreshed_result(run: Run) -> dict[str, Any]:
    """A SENSEI run's stored result, its verdict counts recomputed from its records (and stored again) when an older
    version of the verdict rules counted them — so the runs table's counts and the records never disagree (D31).
    Done once per run: the stored result then carries the current `verdict_rules`."""
    result = run.result or {}
    if run.kind != Run.Kind.SENSEI or "failed" not in result or result.get("verdict_rules") == VERDICT_RULES:
        return result
    fresh = {**result, **sensei_verdicts(run)}
    fresh["ok"] = fresh["failed"] == 0
    Run.objects.filter(pk=run.pk).update(result=fresh)
    run.result = fresh
    return fresh
