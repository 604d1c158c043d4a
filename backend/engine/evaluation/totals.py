"""The bench's totals: LLM usage per phase, the control runs, false alarms and figures over all bots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.evaluation.scoring import MutantOutcome, mutation_summary
from engine.intervals import wilson
from engine.llm import UsageLedger

USAGE_KEYS = ("calls", "prompt_tokens", "completion_tokens", "cost_usd", "unpriced_calls")


class Usage:
    """Ledger totals per phase, added up."""

    def __init__(self) -> None:
        self.phases: dict[str, dict[str, float]] = {}

    def add(self, phase: str, ledger: UsageLedger, seconds: float) -> None:
        total = ledger.total()
        row = self.phases.setdefault(phase, {key: 0 for key in (*USAGE_KEYS, "wall_s")})
        row["calls"] += total.calls
        row["prompt_tokens"] += total.prompt_tokens
        row["completion_tokens"] += total.completion_tokens
        row["cost_usd"] += total.cost_usd
        row["unpriced_calls"] += total.unpriced_calls
        row["wall_s"] += seconds

    def to_json(self) -> dict[str, Any]:
        phases = {
            name: {k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()}
            for name, row in self.phases.items()
        }
        total = {key: 0.0 for key in (*USAGE_KEYS, "wall_s")}
        for row in self.phases.values():
            for key, value in row.items():
                total[key] += value
        return {
            **{k: (round(v, 6) if k in ("cost_usd", "wall_s") else int(v)) for k, v in total.items()},
            "phases": phases,
        }


def controls_json(controls: Sequence[MutantOutcome]) -> dict[str, Any]:
    """How often the unmodified bot, run as a mutant, was 'killed': the bench's spurious kills."""
    out: dict[str, Any] = {"runs": len(controls)}
    for name in ("automatic", "with_oracles"):
        scored = [c for c in controls if c.statuses.get(name) in ("killed", "live")]
        killed = sum(1 for c in scored if c.statuses[name] == "killed")
        out[name] = {
            "killed": killed,
            "scored": len(scored),
            "rate": round(100.0 * killed / len(scored), 2) if scored else None,
            "ci95": wilson(killed, len(scored)).percent_bounds(),
        }
    out["outcomes"] = [c.to_json() for c in controls]
    return out


def overlaps(a: list[float] | None, b: list[float] | None) -> bool | None:
    """Whether two intervals share a point; None when either is unknown."""
    if a is None or b is None:
        return None
    return a[0] <= b[1] and b[0] <= a[1]


OVERLAP_NOTE = (
    "the kill rate's 95 % interval overlaps the controls': with these few runs the score cannot be told apart "
    "from the rate at which noise kills the unmodified bot"
)


def beside_controls(block: dict[str, Any], controls: dict[str, Any] | None) -> dict[str, Any]:
    """Put the control kill rate (same counting) beside a kill-rate block, with a note when the intervals
    overlap: a kill rate means something only as far as it stands above the rate of spurious kills."""
    if not controls:
        block["controls"] = None
        block["overlaps_controls"] = None
        block["note"] = "no control run: the rate of spurious kills is not measured"
        return block
    block["controls"] = {k: controls[k] for k in ("killed", "scored", "rate", "ci95")}
    overlap = overlaps(block.get("ci95"), controls.get("ci95"))
    block["overlaps_controls"] = overlap
    block["note"] = OVERLAP_NOTE if overlap else None
    return block


def median_coverage(runs: list[dict[str, Any]]) -> dict[str, float] | None:
    if not runs:
        return None
    out: dict[str, float] = {}
    for key in ("module", "input", "value", "question"):
        values = sorted(float(run[key]) for run in runs)
        middle = len(values) // 2
        out[key] = values[middle] if len(values) % 2 else round((values[middle - 1] + values[middle]) / 2, 2)
    return out


def _false_alarm_totals(bots: dict[str, Any]) -> dict[str, Any]:
    rows = [b["sensei"]["false_alarms"] for b in bots.values()]
    conversations = sum(r["conversations"] for r in rows)
    out: dict[str, Any] = {
        "conversations": conversations,
        "inconclusive": sum(r.get("inconclusive", 0) for r in rows),
    }
    for name in ("automatic", "with_oracles"):
        flagged = sum(r[name]["flagged"] for r in rows)
        out[name] = {
            "flagged": flagged,
            "rate": round(100.0 * flagged / conversations, 2) if conversations else None,
            "ci95": wilson(flagged, conversations).percent_bounds(),
        }
    out["false_alarms"] = out["with_oracles"]["flagged"]
    out["rate"] = out["with_oracles"]["rate"]
    return out


def _control_totals(bots: dict[str, Any]) -> dict[str, Any]:
    rows = [b["controls"] for b in bots.values()]
    out: dict[str, Any] = {"runs": sum(r["runs"] for r in rows)}
    for name in ("automatic", "with_oracles"):
        killed = sum(r[name]["killed"] for r in rows)
        scored = sum(r[name]["scored"] for r in rows)
        out[name] = {
            "killed": killed,
            "scored": scored,
            "rate": round(100.0 * killed / scored, 2) if scored else None,
            "ci95": wilson(killed, scored).percent_bounds(),
        }
    return out


def overall_figures(bots: dict[str, Any], outcomes: dict[str, list[MutantOutcome]]) -> dict[str, Any]:
    every = [o for items in outcomes.values() for o in items]
    functionalities = sum(b["tracer"]["functionalities"] for b in bots.values())
    true_positives = sum(b["tracer"]["true_positives"] for b in bots.values())
    found = sum(b["tracer"]["recall_modules"][0] + b["tracer"]["recall_inputs"][0] for b in bots.values())
    total = sum(b["tracer"]["recall_modules"][1] + b["tracer"]["recall_inputs"][1] for b in bots.values())
    usage: dict[str, float] = {key: 0 for key in (*USAGE_KEYS, "wall_s")}
    for b in bots.values():
        for key in usage:
            usage[key] += b["usage"][key]
    mutation = mutation_summary(every)
    for key in ("live_mutants", "stillborn_mutants", "inconclusive_mutants"):
        mutation[key] = [{"bot": bot, **item} for bot, b in bots.items() for item in b["mutation"][key]]

    def mean(path: tuple[str, ...]) -> dict[str, float] | None:
        rows = []
        for b in bots.values():
            node: Any = b
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict):
                rows.append(node)
        if not rows:
            return None
        return {
            key: round(sum(float(r[key]) for r in rows) / len(rows), 2)
            for key in ("module", "input", "value", "question")
        }

    matchers = sorted({b["tracer"]["matcher"] for b in bots.values()})
    return {
        "bots": list(bots),
        "tracer_coverage_mean": mean(("tracer", "coverage")),
        "sensei_coverage_mean": mean(("sensei", "coverage", "aggregate")),
        "functionalities": functionalities,
        "precision": round(100.0 * true_positives / functionalities, 2) if functionalities else None,
        "recall": round(100.0 * found / total, 2) if total else None,
        "matcher": matchers[0] if len(matchers) == 1 else "mixed",
        "false_alarms": _false_alarm_totals(bots),
        "controls": _control_totals(bots),
        "mutation": mutation,
        "usage": {k: (round(v, 6) if k in ("cost_usd", "wall_s") else int(v)) for k, v in usage.items()},
    }
