"""Differential kills, the bench's scores and its false alarms.

A finding's *signature* is (kill reason, profile, conversation index, rule or output name). Every mutant runs
the profiles with the same seeds as the original, `repeats` times each; a signature's `original_count` and
`mutant_count` are the number of repeats whose conversations showed it on the original and on the mutant. A
mutant is **killed** only by a signature seen on the mutant in a majority of its repeats (`mutant_count` * 2 >
`mutant_runs`) and never on the original (`original_count` 0), in a conversation the original ran conclusively
at least `MIN_ORIGINAL_RUNS` (2) times: a finding the unmodified bot shows too, with the same profile and
conversation, says nothing about the fault, and a signature one repeat of three showed, or one the original was
seen without only once, is what a model at a temperature above 0 produces by chance (noise that would inflate
kill rates). With one repeat nothing can be killed: the bench needs `repeats` >= 2.
Live: no such signature and at least one conclusive conversation; inconclusive: no conclusive conversation;
stillborn mutants (they do not load) are kept apart and never counted.

Scores (mutation score = killed / (killed + live)), each with a Wilson 95 % interval over the scored mutants and
the score of each repeat alone:
- `automatic`: kills by automatic findings only (errors, loops, unmet goals, missing outputs, out-of-range inputs
  not refused, rules Parley wrote from TRACER's model) — what Parley tells a user without ground truth;
- `with_oracles`: automatic findings plus the ground-truth rules (the mutant's `status` and `killed`);
- `thesis_rule`: both again counted the thesis's way, where any finding on the mutant kills — for comparison
  only, since a finding the original shows too kills there.

False alarms: conversations on the *unmutated* bot with a finding, per bot, automatic and with oracles, with
the signatures behind them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.check import CheckReport
from engine.conversation import ConversationRecord
from engine.evaluation.findings import (
    KILL_REASONS,
    ConversationFindings,
    Finding,
    conversation_findings,
    error_reason,
    rule_failures,
)
from engine.intervals import wilson

__all__ = [
    "COUNTINGS",
    "KILL_REASONS",
    "MIN_ORIGINAL_RUNS",
    "ConversationVerdict",
    "Kill",
    "MutantOutcome",
    "error_reason",
    "false_alarms",
    "mutant_outcome",
    "mutation_summary",
    "scores",
    "verdicts",
]

Signature = tuple[str, str, int, str]
MIN_ORIGINAL_RUNS = 2
"""Conclusive runs of the original's same conversation a kill needs: one run is no baseline against noise."""
AUTOMATIC = frozenset({"automatic"})
WITH_ORACLES = frozenset({"automatic", "oracle"})
COUNTINGS: dict[str, tuple[frozenset[str], bool]] = {
    "automatic": (AUTOMATIC, True),
    "with_oracles": (WITH_ORACLES, True),
    "thesis_automatic": (AUTOMATIC, False),
    "thesis_with_oracles": (WITH_ORACLES, False),
}
"""counting → (finding kinds that may kill, differential)."""


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 2) if whole else None


def signature(conversation: ConversationFindings, finding: Finding) -> Signature:
    return (finding.reason, conversation.profile, conversation.index, finding.detail)


def signature_json(sig: Signature) -> list[Any]:
    return [sig[0], sig[1], sig[2], sig[3]]


def _counts(
    runs: Sequence[Sequence[ConversationFindings]],
) -> tuple[Counter[Signature], dict[Signature, Finding]]:
    """How many runs showed each signature (once per run), and the first finding behind each."""
    counts: Counter[Signature] = Counter()
    first: dict[Signature, Finding] = {}
    for run in runs:
        seen: set[Signature] = set()
        for conversation in run:
            if conversation.inconclusive:
                continue
            for finding in conversation.findings:
                sig = signature(conversation, finding)
                seen.add(sig)
                first.setdefault(sig, finding)
        counts.update(seen)
    return counts, first


def _conclusive(runs: Sequence[Sequence[ConversationFindings]]) -> Counter[tuple[str, int]]:
    """(profile, index) → the runs in which that conversation was conclusive: the baseline a kill needs."""
    return Counter((c.profile, c.index) for run in runs for c in run if not c.inconclusive)


# -- compatibility: one verdict per conversation (the SENSEI quality tests and false-findings benchmark) --------


@dataclass
class ConversationVerdict:
    conversation: str
    reasons: list[str]
    rules: list[str]
    conclusive: bool


def verdicts(
    records: Sequence[ConversationRecord], report: CheckReport | None, rule_kinds: dict[str, str]
) -> list[ConversationVerdict]:
    """Every finding of each conversation, the way the bench flags a false alarm on an original."""
    failures = rule_failures(report)
    out: list[ConversationVerdict] = []
    for record in records:
        found = conversation_findings(record, failures.get(record.id, []), rule_kinds)
        reasons = list(dict.fromkeys(f.reason for f in found.findings))
        rules = sorted(
            {f.detail for f in found.findings if f.reason in ("model_rule", "wrong_output", "failed_rule")}
        )
        out.append(ConversationVerdict(record.id, reasons, rules, conclusive=not found.inconclusive))
    return out


# -- one mutant ---------------------------------------------------------------------------------------------------


@dataclass
class Kill:
    """A signature the mutant showed, with how often the mutant and the original showed it over the repeats."""

    signature: Signature
    kind: str
    mutant_count: int
    original_count: int
    evidence: str = ""
    original_runs: int = 0
    """Runs in which the original's same conversation was conclusive: fewer than two is no baseline."""
    mutant_runs: int = 1
    """The mutant's repeats: a kill needs the signature in a majority of them."""

    @property
    def reason(self) -> str:
        return self.signature[0]

    @property
    def differential(self) -> bool:
        return (
            self.original_count == 0
            and 2 * self.mutant_count > self.mutant_runs
            and self.original_runs >= MIN_ORIGINAL_RUNS
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "signature": signature_json(self.signature),
            "reason": self.reason,
            "kind": self.kind,
            "mutant_count": self.mutant_count,
            "original_count": self.original_count,
            "original_runs": self.original_runs,
            "mutant_runs": self.mutant_runs,
            "kills": self.differential,
            "evidence": self.evidence,
        }


@dataclass
class MutantOutcome:
    id: str
    operator: str
    description: str
    status: str  # killed | live | stillborn | inconclusive (differential, with oracles)
    repeats: int = 0
    conversations: int = 0
    inconclusive_conversations: int = 0
    killing_conversations: int = 0
    """Conversations (profile, index) with a differential kill."""
    reasons: dict[str, int] = field(default_factory=dict)
    """Differential kill reason → conversations showing it."""
    rules: dict[str, int] = field(default_factory=dict)
    """Failed rule of a differential kill → conversations."""
    kills: list[Kill] = field(default_factory=list)
    statuses: dict[str, str] = field(default_factory=dict)
    """counting (see COUNTINGS) → status."""
    repeat_kills: dict[str, list[bool]] = field(default_factory=dict)
    """Differential counting → per repeat, whether that repeat alone showed a killing signature."""
    stillborn_reason: str | None = None
    error: str | None = None

    @property
    def killed(self) -> bool:
        return self.status == "killed"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "operator": self.operator,
            "description": self.description,
            "status": self.status,
            "killed": self.killed,
            "killed_automatic": self.statuses.get("automatic") == "killed",
            "thesis_rule": {
                "automatic": self.statuses.get("thesis_automatic") == "killed",
                "with_oracles": self.statuses.get("thesis_with_oracles") == "killed",
            },
            "statuses": self.statuses,
            "repeats": self.repeats,
            "kill_repeats": {name: sum(flags) for name, flags in self.repeat_kills.items()},
            "conversations": self.conversations,
            "inconclusive_conversations": self.inconclusive_conversations,
            "killing_conversations": self.killing_conversations,
            "reasons": self.reasons,
            "rules": self.rules,
            "kills": [k.to_json() for k in self.kills],
            "stillborn_reason": self.stillborn_reason,
            "error": self.error,
        }


def not_run(mutant_id: str, operator: str, description: str, status: str) -> MutantOutcome:
    """A stillborn mutant, or one no conversation could run on (inconclusive), under every counting."""
    return MutantOutcome(mutant_id, operator, description, status, statuses=dict.fromkeys(COUNTINGS, status))


def mutant_outcome(
    mutant_id: str,
    operator: str,
    description: str,
    original: Sequence[Sequence[ConversationFindings]],
    mutant: Sequence[Sequence[ConversationFindings]],
) -> MutantOutcome:
    """Compare the mutant's runs with the original's: which signatures kill, under each counting."""
    original_counts, _ = _counts(original)
    baseline = _conclusive(original)
    mutant_counts, first = _counts(mutant)
    kills = [
        Kill(
            sig,
            first[sig].kind,
            count,
            original_counts.get(sig, 0),
            first[sig].evidence,
            baseline.get((sig[1], sig[2]), 0),
            len(mutant),
        )
        for sig, count in mutant_counts.items()
    ]
    order = {reason: i for i, reason in enumerate(KILL_REASONS)}
    kills.sort(key=lambda k: (not k.differential, order.get(k.reason, 99), k.signature[1:]))
    conclusive = any(not c.inconclusive for run in mutant for c in run)
    statuses: dict[str, str] = {}
    for name, (kinds, differential) in COUNTINGS.items():
        killing = any(k.kind in kinds and (k.differential or not differential) for k in kills)
        statuses[name] = "killed" if killing else ("live" if conclusive else "inconclusive")
    repeat_kills: dict[str, list[bool]] = {}
    for name, (kinds, differential) in COUNTINGS.items():
        if not differential:
            continue
        flags = []
        for run in mutant:
            flags.append(
                any(
                    f.kind in kinds
                    and original_counts.get(signature(c, f), 0) == 0
                    and baseline.get((c.profile, c.index), 0) >= MIN_ORIGINAL_RUNS
                    for c in run
                    if not c.inconclusive
                    for f in c.findings
                )
            )
        repeat_kills[name] = flags
    differential_kills = [k for k in kills if k.differential]
    by_reason: dict[str, set[tuple[str, int]]] = {}
    by_rule: dict[str, set[tuple[str, int]]] = {}
    for kill in differential_kills:
        where = (kill.signature[1], kill.signature[2])
        by_reason.setdefault(kill.reason, set()).add(where)
        if kill.reason in ("model_rule", "wrong_output", "failed_rule"):
            by_rule.setdefault(kill.signature[3], set()).add(where)
    return MutantOutcome(
        mutant_id,
        operator,
        description,
        statuses["with_oracles"],
        repeats=len(mutant),
        conversations=sum(len(run) for run in mutant),
        inconclusive_conversations=sum(1 for run in mutant for c in run if c.inconclusive),
        killing_conversations=len({(k.signature[1], k.signature[2]) for k in differential_kills}),
        reasons={r: len(by_reason[r]) for r in KILL_REASONS if r in by_reason},
        rules={rule: len(where) for rule, where in sorted(by_rule.items())},
        kills=kills,
        statuses=statuses,
        repeat_kills=repeat_kills,
    )


# -- scores -------------------------------------------------------------------------------------------------------


def _block(outcomes: Sequence[MutantOutcome], counting: str) -> dict[str, Any]:
    statuses = [o.statuses.get(counting, o.status) for o in outcomes]
    killed = statuses.count("killed")
    live = statuses.count("live")
    scored = killed + live
    block: dict[str, Any] = {
        "selected": len(outcomes),
        "killed": killed,
        "live": live,
        "inconclusive": statuses.count("inconclusive"),
        "stillborn": statuses.count("stillborn"),
        "scored": scored,
        "score": _pct(killed, scored),
        "ci95": wilson(killed, scored).percent_bounds(),
    }
    if COUNTINGS[counting][1]:
        scored_outcomes = [o for o in outcomes if o.statuses.get(counting) in ("killed", "live")]
        repeats = max((len(o.repeat_kills.get(counting, [])) for o in scored_outcomes), default=0)
        block["per_repeat"] = [
            _pct(
                sum(
                    1
                    for o in scored_outcomes
                    if i < len(o.repeat_kills[counting]) and o.repeat_kills[counting][i]
                ),
                len(scored_outcomes),
            )
            for i in range(repeats)
        ]
    return block


def _with_breakdowns(
    outcomes: Mapping[str, Sequence[MutantOutcome]], counting: str, per_bot: bool
) -> dict[str, Any]:
    every = [o for items in outcomes.values() for o in items]
    block = _block(every, counting)
    if per_bot:
        block["per_bot"] = {bot: _block(items, counting) for bot, items in outcomes.items()}
    operators = sorted({o.operator for o in every})
    block["per_operator"] = {op: _block([o for o in every if o.operator == op], counting) for op in operators}
    return block


def scores(outcomes: Mapping[str, Sequence[MutantOutcome]], *, per_bot: bool = True) -> dict[str, Any]:
    """`automatic` and `with_oracles` (differential, the headline) and `thesis_rule` (any finding kills)."""
    return {
        "automatic": _with_breakdowns(outcomes, "automatic", per_bot),
        "with_oracles": _with_breakdowns(outcomes, "with_oracles", per_bot),
        "thesis_rule": {
            "automatic": _with_breakdowns(outcomes, "thesis_automatic", per_bot),
            "with_oracles": _with_breakdowns(outcomes, "thesis_with_oracles", per_bot),
        },
    }


def mutation_summary(outcomes: Iterable[MutantOutcome]) -> dict[str, Any]:
    """The differential score with oracles, kills per operator and per reason, live and stillborn mutants."""
    items = list(outcomes)
    by_status = {
        s: [o for o in items if o.status == s] for s in ("killed", "live", "stillborn", "inconclusive")
    }
    per_operator: dict[str, dict[str, int]] = {}
    for o in items:
        row = per_operator.setdefault(
            o.operator, {"selected": 0, "killed": 0, "live": 0, "stillborn": 0, "inconclusive": 0}
        )
        row["selected"] += 1
        row[o.status] += 1
    per_reason = {r: sum(1 for o in by_status["killed"] if r in o.reasons) for r in KILL_REASONS}
    scored = len(by_status["killed"]) + len(by_status["live"])
    return {
        "selected": len(items),
        "killed": len(by_status["killed"]),
        "live": len(by_status["live"]),
        "stillborn": len(by_status["stillborn"]),
        "inconclusive": len(by_status["inconclusive"]),
        "mutation_score": _pct(len(by_status["killed"]), scored),
        "ci95": wilson(len(by_status["killed"]), scored).percent_bounds(),
        "kills_per_operator": dict(sorted(per_operator.items())),
        "kills_per_reason": {r: n for r, n in per_reason.items() if n},
        "live_mutants": [{"id": o.id, "description": o.description} for o in by_status["live"]],
        "stillborn_mutants": [{"id": o.id, "reason": o.stillborn_reason} for o in by_status["stillborn"]],
        "inconclusive_mutants": [{"id": o.id, "error": o.error} for o in by_status["inconclusive"]],
    }


# -- false alarms -------------------------------------------------------------------------------------------------


def false_alarms(runs: Sequence[Sequence[ConversationFindings]]) -> dict[str, Any]:
    """Findings on the unmutated bot: per counting the conversations flagged, and every signature behind them."""
    conversations = [c for run in runs for c in run]
    conclusive = [c for c in conversations if not c.inconclusive]
    counts, first = _counts(runs)
    out: dict[str, Any] = {
        "runs": len(runs),
        "conversations": len(conclusive),
        "inconclusive": len(conversations) - len(conclusive),
        # Conversations given an out-of-range value whose missing output or unmet goal was expected, not counted.
        "out_of_range_excused": sum(
            1 for c in conclusive if any(n.startswith("out-of-range") for n in c.notes)
        ),
    }
    for name, kinds in (("automatic", AUTOMATIC), ("with_oracles", WITH_ORACLES)):
        flagged = sum(1 for c in conclusive if c.of(kinds))
        out[name] = {
            "flagged": flagged,
            "rate": _pct(flagged, len(conclusive)),
            "ci95": wilson(flagged, len(conclusive)).percent_bounds(),
        }
    with_findings = [c for c in conclusive if c.findings]
    reasons: Counter[str] = Counter(r for c in with_findings for r in {f.reason for f in c.findings})
    rules: Counter[str] = Counter(
        rule
        for c in with_findings
        for rule in {
            f.detail for f in c.findings if f.reason in ("model_rule", "wrong_output", "failed_rule")
        }
    )
    order = {reason: i for i, reason in enumerate(KILL_REASONS)}
    out.update(
        {
            # With oracles: the figures the earlier bench.json had under these names.
            "false_alarms": out["with_oracles"]["flagged"],
            "rate": out["with_oracles"]["rate"],
            "reasons": {r: reasons[r] for r in KILL_REASONS if reasons[r]},
            "rules": dict(sorted(rules.items())),
            "signatures": [
                {
                    "signature": signature_json(sig),
                    "reason": sig[0],
                    "kind": first[sig].kind,
                    "count": count,
                    "evidence": first[sig].evidence,
                }
                for sig, count in sorted(
                    counts.items(), key=lambda item: (order.get(item[0][0], 99), item[0][1:])
                )
            ],
        }
    )
    return out
