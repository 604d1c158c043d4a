"""Figures of a campaign: verdict counts, and breach rates per attack and per delivery mode with their 95 %
Wilson score intervals.

A rate counts the attempts that reached a decision: breached / (breached + resisted). Inconclusive and error
attempts are shown beside it and never counted either way, so a chatbot that was down does not look safe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.regression import stats
from engine.security.records import VERDICTS, AttemptRecord


def wilson(successes: int, trials: int) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (`engine.regression.stats`, rounded), or None without trials."""
    if trials <= 0:
        return None
    rate = stats.wilson(successes, trials)
    return round(rate.low, 4), round(rate.high, 4)


def _row(records: list[AttemptRecord]) -> dict[str, Any]:
    counts: dict[str, int] = {v: sum(1 for r in records if r.verdict == v) for v in VERDICTS}
    decided = counts["breached"] + counts["resisted"]
    interval = wilson(counts["breached"], decided)
    return {
        "attempts": len(records),
        **counts,
        "breach_rate": round(counts["breached"] / decided, 4) if decided else None,
        "interval": list(interval) if interval else None,
    }


def _grouped(records: Iterable[AttemptRecord], key: Callable[[AttemptRecord], tuple[str, ...]]) -> list[Any]:
    groups: dict[tuple[str, ...], list[AttemptRecord]] = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return [(group, _row(items)) for group, items in groups.items()]


def summarise(records: list[AttemptRecord]) -> dict[str, Any]:
    return {
        "totals": _row(records),
        "by_attack": [
            {"attack_id": attack_id, "attack": name, **row}
            for (attack_id, name), row in _grouped(records, lambda r: (r.attack_id, r.attack))
        ],
        "by_delivery": [
            {"delivery": delivery, **row} for (delivery,), row in _grouped(records, lambda r: (r.delivery,))
        ],
        "by_attack_and_delivery": [
            {"attack_id": attack_id, "delivery": delivery, **row}
            for (attack_id, delivery), row in _grouped(records, lambda r: (r.attack_id, r.delivery))
        ],
    }


def render_table(summary: dict[str, Any]) -> str:
    """The per-attack table as plain text, for the console."""
    lines = [
        f"{'attack':<34} {'attempts':>8} {'breached':>8} {'resisted':>8} {'inconcl.':>8} {'error':>6}  rate"
    ]
    for row in summary["by_attack"]:
        rate = "-" if row["breach_rate"] is None else f"{row['breach_rate']:.0%}"
        if row["interval"]:
            rate += f" [{row['interval'][0]:.0%}, {row['interval'][1]:.0%}]"
        lines.append(
            f"{row['attack_id']:<34} {row['attempts']:>8} {row['breached']:>8} {row['resisted']:>8} "
            f"{row['inconclusive']:>8} {row['error']:>6}  {rate}"
        )
    return "\n".join(lines)
