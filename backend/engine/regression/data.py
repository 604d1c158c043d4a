"""One side of a comparison: a run's conversations with their outcomes, its rule tallies, cost and timings.

A run reaches the comparison from a folder written by `parley sensei run --out` (`load_folder`) or from the
platform's rows (`run_data`, given the stored records and the rule reports of the run's check run). Either way
each conversation is identified by what it was asked to do — its profile (run key), its planned index and its
inputs — so the same planned conversation is found in the other run even when the runs numbered repeats
differently. A repeat (`--repeats k`) keeps its planned index in `settings.planned_index` and its number in
`settings.repeat` (`engine.regression.repeats`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.conversation import ConversationRecord
from engine.errors import ParleyError
from engine.regression.outcomes import Outcome, outcome_of

MAX_FILE_BYTES = 20 * 1024 * 1024
# Files `parley sensei run --out` (and `parley check --json`) leave beside the records.
SUMMARY, PLAN, CHECK = "summary.json", "plan.json", "check.json"

Key = tuple[str, int, str]  # (profile, planned index, inputs as canonical JSON)


class RegressionInputError(ParleyError):
    """A run to compare cannot be read: no such folder, a file that is not a record, unreadable JSON."""

    code = "regression_input"


def inputs_key(inputs: Mapping[str, Any]) -> str:
    """The inputs as canonical JSON: the same values give the same text whatever their order."""
    return json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str)


def _whole(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


@dataclass(frozen=True)
class Conversation:
    """A conversation of a run, with its outcome and its identity across runs."""

    record: ConversationRecord
    outcome: Outcome
    raw: Mapping[str, Any] | None = None  # the JSON it was read from, with fields this schema may not know

    @property
    def planned_index(self) -> int:
        return _whole(self.record.settings.planned_index, self.record.index)

    @property
    def repeat(self) -> int:
        return _whole(self.record.settings.repeat, 0)

    @property
    def key(self) -> Key:
        return (self.record.profile, self.planned_index, inputs_key(self.record.inputs))

    def brief(self) -> dict[str, Any]:
        """What a comparison shows of this conversation: enough to find it and see why it ended as it did."""
        return {
            "id": self.record.id,
            "index": self.record.index,
            "repeat": self.repeat,
            **self.outcome.to_json(),
            "errors": [
                {"code": e.code, "name": e.name, "message": e.message, "turn": e.turn}
                for e in self.record.errors
            ],
            "turns": len(self.record.turns),
        }


@dataclass
class RuleTally:
    """How one rule fared on a run (from the rule report of a check run over it)."""

    name: str
    passed: int = 0
    failed: int = 0
    errors: int = 0
    not_applicable: int = 0
    failing: set[str] = field(default_factory=set)  # conversation record ids it failed on


@dataclass
class RunData:
    label: str
    conversations: list[Conversation]
    rules: dict[str, RuleTally] = field(default_factory=dict)
    cost_usd: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def response_times(self) -> list[float]:
        return [t for c in self.conversations for t in c.record.response_times]


def rule_tallies(reports: Iterable[Mapping[str, Any]]) -> dict[str, RuleTally]:
    """Rule tallies from rule reports as `engine.check` writes them (`RuleReport.to_json()`: counts and the
    listed failures with their conversation ids)."""
    tallies: dict[str, RuleTally] = {}
    for report in reports:
        name = str(report.get("name") or "")
        if not name:
            continue
        tally = tallies.setdefault(name, RuleTally(name))
        tally.passed += _whole(report.get("passed"), 0)
        tally.failed += _whole(report.get("failed"), 0)
        tally.errors += _whole(report.get("errors"), 0)
        tally.not_applicable += _whole(report.get("not_applicable"), 0)
        for result in report.get("results") or []:
            if isinstance(result, Mapping) and result.get("outcome") == "fail":
                tally.failing.update(str(c) for c in result.get("conversations") or [])
    return tallies


def run_data(
    label: str,
    records: Iterable[ConversationRecord | Mapping[str, Any]],
    *,
    rule_reports: Iterable[Mapping[str, Any]] = (),
    cost_usd: float | None = None,
    notes: Iterable[str] = (),
) -> RunData:
    """A run from its conversation records (models, or the JSON they were stored as) and rule reports.
    `cost_usd` is the run's whole cost when known; else the records' costs are added up."""
    rules = rule_tallies(rule_reports)
    failing: dict[str, list[str]] = {}
    for tally in rules.values():
        for conversation in tally.failing:
            failing.setdefault(conversation, []).append(tally.name)
    conversations = []
    for item in records:
        if isinstance(item, ConversationRecord):
            record, raw = item, None
        else:
            try:
                record = ConversationRecord.model_validate(item)
            except ValidationError as exc:
                raise RegressionInputError(
                    f"{label}: a conversation record is not valid ({exc.errors()[0]['msg']})"
                ) from None
            raw = item
        outcome = outcome_of(record, raw, sorted(failing.get(record.id, ())))
        conversations.append(Conversation(record, outcome, raw))
    conversations.sort(key=lambda c: (c.record.profile, c.planned_index, c.repeat, c.record.index))
    if cost_usd is None:
        costs = [c.record.usage.cost_usd for c in conversations if c.record.usage.cost_usd is not None]
        cost_usd = round(sum(costs), 8) if costs else None
    return RunData(label, conversations, rules, cost_usd, list(notes))


def _read_json(path: Path) -> Any:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RegressionInputError(f"{path}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RegressionInputError(f"{path}: cannot be read as JSON ({exc})") from None


def load_folder(path: str | Path, *, label: str | None = None) -> RunData:
    """A run from a folder written by `parley sensei run --out`: `<profile>/<index>.json` records, with the
    run's cost from `summary.json` and rule reports from `check.json` (`parley check --json DIR/check.json`)
    when they are there."""
    root = Path(path)
    if not root.is_dir():
        raise RegressionInputError(
            f"{root}: no such folder (give a folder written by `parley sensei run --out`)"
        )
    records: list[Mapping[str, Any]] = []
    for file in sorted(root.rglob("*.json")):
        relative = file.relative_to(root)
        if len(relative.parts) == 1:
            continue  # the run's own files (summary, plan, check report) sit at the top
        data = _read_json(file)
        if not isinstance(data, Mapping) or "profile" not in data or "id" not in data:
            raise RegressionInputError(f"{file}: not a conversation record")
        records.append(data)
    if not records:
        raise RegressionInputError(f"{root}: no conversation records (<profile>/<index>.json) in this folder")
    cost = None

    summary_file = root / SUMMARY
    if summary_file.is_file():
        summary = _read_json(summary_file)
        usage = summary.get("usage") if isinstance(summary, Mapping) else None
        cost = _usage_cost(usage)
    reports: list[Mapping[str, Any]] = []
    check_file = root / CHECK
    if check_file.is_file():
        report = _read_json(check_file)
        rules = report.get("rules") if isinstance(report, Mapping) else None
        if not isinstance(rules, list):
            raise RegressionInputError(f"{check_file}: not a check report (`parley check --json`)")
        reports = [r for r in rules if isinstance(r, Mapping)]
    return run_data(label or str(root), records, rule_reports=reports, cost_usd=cost)


def _usage_cost(usage: Any) -> float | None:
    """The cost in a run summary's usage: one ledger, or one per role ({"user": …, "judge": …})."""
    if not isinstance(usage, Mapping):
        return None
    if isinstance(usage.get("cost_usd"), int | float):
        return float(usage["cost_usd"])
    parts = [_usage_cost(part) for part in usage.values() if isinstance(part, Mapping)]
    known = [p for p in parts if p is not None]
    return round(sum(known), 8) if known else None
