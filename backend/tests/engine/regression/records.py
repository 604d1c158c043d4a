"""Conversation records for the regression tests, written as SENSEI writes them (JSON), and run folders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.sensei.verdicts import VERDICT_RULES


def record(
    profile: str,
    index: int,
    *,
    inputs: dict[str, Any] | None = None,
    errors: list[int] | None = None,
    verdict: str | None = None,
    reason: str | None = None,
    repeat: int | None = None,
    planned: int | None = None,
    latency: float = 0.2,
    cost: float | None = 0.001,
    outputs: dict[str, Any] | None = None,
    run: str = "r",
) -> dict[str, Any]:
    settings: dict[str, Any] = {"seed": 7}
    if repeat is not None:
        settings.update(repeat=repeat, planned_index=planned if planned is not None else index)
    data: dict[str, Any] = {
        "id": f"{run}-{profile}-{index}",
        "profile": profile,
        "index": index,
        "inputs": inputs if inputs is not None else {"size": ["small", "large"][index % 2]},
        "outputs": outputs or {},
        "settings": settings,
        "turns": [
            {"role": "user", "text": "A pizza, please."},
            {"role": "bot", "text": "Which size?", "latency_s": latency},
            {"role": "user", "text": "Small."},
        ],
        "errors": [{"code": code, "message": f"error {code}", "turn": 2} for code in errors or []],
        "usage": {"calls": 3, "cost_usd": cost},
    }
    if verdict is not None:  # as SENSEI writes it today: decided by the current verdict rules
        data["verdict"] = verdict
        data["verdict_reason"] = reason
        data["verdict_rules"] = VERDICT_RULES
    return data


def write_run(
    folder: Path, records: list[dict[str, Any]], *, cost: float | None = None, check: Any = None
) -> Path:
    """A folder as `parley sensei run --out` writes it (and `check.json` as `parley check --json` writes it)."""
    for item in records:
        target = folder / item["profile"]
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{item['index']:04d}.json").write_text(json.dumps(item), encoding="utf-8")
    summary = {"conversations": len(records), "usage": {"cost_usd": cost} if cost is not None else {}}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (folder / "plan.json").write_text(json.dumps({"seed": 7, "profiles": []}), encoding="utf-8")
    if check is not None:
        (folder / "check.json").write_text(json.dumps(check), encoding="utf-8")
    return folder
