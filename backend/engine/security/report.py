"""Figures of a campaign: verdict counts, and breach rates per attack and per delivery mode with their 95 %
Wilson score intervals; from TRACER's states, per state and per attack x state as well.

A rate counts the attempts that reached a decision: breached / (breached + resisted). Inconclusive and error
attempts are shown beside it and never counted either way, so a chatbot that was down does not look safe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.intervals import wilson
from engine.security.records import VERDICTS, AttemptRecord


def _row(records: list[AttemptRecord]) -> dict[str, Any]:
    counts: dict[str, int] = {v: sum(1 for r in records if r.verdict == v) for v in VERDICTS}
    decided = counts["breached"] + counts["resisted"]
    return {
        "attempts": len(records),
        **counts,
        "breach_rate": round(counts["breached"] / decided, 4) if decided else None,
        "interval": wilson(counts["breached"], decided).bounds(),
    }


def _grouped(records: Iterable[AttemptRecord], key: Callable[[AttemptRecord], tuple[str, ...]]) -> list[Any]:
    groups: dict[tuple[str, ...], list[AttemptRecord]] = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return [(group, _row(items)) for group, items in groups.items()]


def summarise(records: list[AttemptRecord]) -> dict[str, Any]:
    by_state: dict[str, Any] = {}
    if any(r.state is not None for r in records):
        by_state = {
            "by_state": [
                {"state": state, **row} for (state,), row in _grouped(records, lambda r: (r.state or "",))
            ],
            "by_attack_and_state": [
                {"attack_id": attack_id, "state": state, **row}
                for (attack_id, state), row in _grouped(records, lambda r: (r.attack_id, r.state or ""))
            ],
        }
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
        **by_state,
    }


def _rate(row: dict[str, Any]) -> str:
    rate = "-" if row["breach_rate"] is None else f"{row['breach_rate']:.0%}"
    if row["interval"]:
        rate += f" [{row['interval'][0]:.0%}, {row['interval'][1]:.0%}]"
    return rate


def _table(
    rows: list[dict[str, Any]], label: Callable[[dict[str, Any]], str], head: str, width: int
) -> list[str]:
    lines = [
        f"{head:<{width}} {'attempts':>8} {'breached':>8} {'resisted':>8} {'inconcl.':>8} {'error':>6}  rate"
    ]
    for row in rows:
        lines.append(
            f"{label(row):<{width}} {row['attempts']:>8} {row['breached']:>8} {row['resisted']:>8} "
            f"{row['inconclusive']:>8} {row['error']:>6}  {_rate(row)}"
        )
    return lines


def render_table(summary: dict[str, Any]) -> str:
    """The per-attack table as plain text, for the console; from states, the per-state and attack x state
    tables after it."""
    lines = _table(summary["by_attack"], lambda row: row["attack_id"], "attack", 34)
    if summary.get("by_state"):
        lines += ["", *_table(summary["by_state"], lambda row: row["state"], "state", 34)]
        lines += [
            "",
            *_table(
                summary["by_attack_and_state"],
                lambda row: f"{row['attack_id']} @ {row['state']}",
                "attack @ state",
                60,
            ),
        ]
    return "\n".join(lines)


def render_markdown(summary: dict[str, Any]) -> str:
    """The figures as Markdown: per attack, and from states per state and per attack x state."""
    head = "| {} | attempts | breached | resisted | inconclusive | error | breach rate [95 % CI] |"
    rule = "|---|---:|---:|---:|---:|---:|---|"

    def rows(items: list[dict[str, Any]], label: Callable[[dict[str, Any]], str]) -> list[str]:
        return [
            f"| {label(r)} | {r['attempts']} | {r['breached']} | {r['resisted']} | {r['inconclusive']} | "
            f"{r['error']} | {_rate(r)} |"
            for r in items
        ]

    lines = ["## Per attack", "", head.format("attack"), rule]
    lines += rows(summary["by_attack"], lambda r: f"`{r['attack_id']}`")
    if summary.get("by_state"):
        lines += ["", "## Per state", "", head.format("state"), rule]
        lines += rows(summary["by_state"], lambda r: f"`{r['state']}`")
        lines += ["", "## Per attack x state", "", head.format("attack @ state"), rule]
        lines += rows(summary["by_attack_and_state"], lambda r: f"`{r['attack_id']}` @ `{r['state']}`")
    return "\n".join(lines) + "\n"
