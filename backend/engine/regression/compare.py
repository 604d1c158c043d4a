"""Comparing a run with its baseline: did the change break something, for sure, and where?

Pass rates are counted over decided conversations (passed + failed; inconclusive ones are listed apart), per
profile, per rule and overall, each with its Wilson 95 % interval; the change of each rate has Newcombe's
interval (`engine.intervals`). A group *regressed* when its pass rate fell by at least the threshold
(default 10 points) and the interval of the change lies below zero even with the flaky conversations left out;
it *improved* when the mirror holds. A drop past the threshold that the interval cannot confirm is
*inconclusive* — too few conversations, or a drop that only flaky conversations make.

Conversations are matched across the runs by profile, planned index and inputs. A conversation whose verdicts
differ across the repeats of one run is *flaky*: listed, never a regression by itself. Matched conversations
that passed in the baseline and fail now are *newly failing* — the evidence a reader opens first — and the
reverse *newly passing*.

The verdict of the comparison: `regressed` when any group regressed; else `inconclusive` when any group is
inconclusive, a profile of the baseline is missing, or the run decided nothing; else `improved` when a group
improved; else `unchanged`. Error codes new in the run, and the cost and response-time changes, are reported
beside it; they do not decide it.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.intervals import Rate, difference, percent, wilson
from engine.json_value import JsonValue
from engine.regression.data import Conversation, Key, RunData
from engine.sensei.errors import describe

# Named choice sets (the API schema names its enums after them: parley.settings ENUM_NAME_OVERRIDES).
GROUP_KINDS = ("overall", "profile", "rule")
GROUP_STATUSES = ("regressed", "improved", "unchanged", "inconclusive", "new", "missing")
STABILITIES = ("passed", "failed", "flaky", "inconclusive")
COMPARE_VERDICTS = ("regressed", "improved", "unchanged", "inconclusive")
CompareVerdict = Literal["regressed", "improved", "unchanged", "inconclusive"]
GroupStatus = Literal["regressed", "improved", "unchanged", "inconclusive", "new", "missing"]
Stability = Literal["passed", "failed", "flaky", "inconclusive"]
DEFAULT_THRESHOLD = 0.10
MAX_LISTED = 200


@dataclass(frozen=True)
class CompareSettings:
    """`threshold`: the smallest fall (or rise) of a pass rate, as a fraction (0.1 = 10 points), that counts."""

    threshold: float = DEFAULT_THRESHOLD

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise ValueError("the threshold is a fraction of conversations, above 0 and at most 1")


class Document(BaseModel):
    """Every field is always written, so the published schema marks them all required."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)


class ComparedSide(Document):
    passed: int = 0
    failed: int = 0
    decided: int = 0
    inconclusive: int = 0
    rate: float | None = None
    low: float = 0.0
    high: float = 1.0


class ComparedChange(Document):
    """The run's rate minus the baseline's, with Newcombe's 95 % interval (a SENSEI or a campaign comparison)."""

    delta: float | None = None
    low: float | None = None
    high: float | None = None


class ComparedGroup(Document):
    """A pass rate on both sides (overall, one profile or one rule) and what its change means."""

    kind: Literal["overall", "profile", "rule"]
    name: str
    baseline: ComparedSide
    run: ComparedSide
    change: ComparedChange
    status: GroupStatus
    why: str = ""


class ComparedError(Document):
    code: int
    name: str
    message: str
    turn: int | None = None


class ComparedBrief(Document):
    """One conversation as a comparison shows it (`Conversation.brief`)."""

    id: str
    index: int
    repeat: int = 0
    verdict: str
    reason: str = ""
    source: str = ""
    fault_turn: int | None = None
    rules_failed: list[str] = Field(default_factory=list)
    errors: list[ComparedError] = Field(default_factory=list)
    turns: int = 0


class ComparedMatch(Document):
    """A planned conversation found in both runs: each side's repeats and what they add up to."""

    profile: str
    planned_index: int
    inputs: dict[str, JsonValue]
    baseline_verdict: Stability
    run_verdict: Stability
    baseline: list[ComparedBrief]
    run: list[ComparedBrief]


class ComparedErrorCount(Document):
    code: int
    name: str
    count: int
    conversations: list[str]


class ComparedRegression(Document):
    """A regressed group with its evidence: the rates, and the conversations that now fail."""

    kind: Literal["overall", "profile", "rule"]
    name: str
    baseline: ComparedSide
    run: ComparedSide
    change: ComparedChange
    newly_failing: list[ComparedMatch] = Field(default_factory=list)
    failing_conversations: list[str] = Field(default_factory=list)  # rules: record ids it newly fails on
    new_error_codes: list[int] = Field(default_factory=list)


class ComparedInconclusive(Document):
    profile: str
    index: int
    id: str
    reason: str


class ComparedInconclusiveLists(Document):
    """The inconclusive conversations of each side, with their reasons (the first 200)."""

    baseline: list[ComparedInconclusive] = Field(default_factory=list)
    run: list[ComparedInconclusive] = Field(default_factory=list)


class ComparedReasonCounts(Document):
    """Inconclusive conversations of each side by reason."""

    baseline: dict[str, int] = Field(default_factory=dict)
    run: dict[str, int] = Field(default_factory=dict)


class ComparedCost(Document):
    """USD on each side (None when unpriced) and the change, in all and per conversation."""

    baseline_usd: float | None = None
    run_usd: float | None = None
    delta_usd: float | None = None
    baseline_per_conversation_usd: float | None = None
    run_per_conversation_usd: float | None = None
    delta_per_conversation_usd: float | None = None


class ComparedTimes(Document):
    """The chatbot's response times on one side (seconds)."""

    count: int = 0
    mean_s: float | None = None
    p50_s: float | None = None
    p95_s: float | None = None


class ComparedTiming(Document):
    baseline: ComparedTimes
    run: ComparedTimes
    delta_mean_s: float | None = None
    delta_p95_s: float | None = None


class Comparison(Document):
    verdict: CompareVerdict
    reasons: list[str]
    threshold: float
    baseline_label: str
    run_label: str
    overall: ComparedGroup
    profiles: list[ComparedGroup]
    rules: list[ComparedGroup]
    regressions: list[ComparedRegression]
    newly_failing: list[ComparedMatch]
    newly_passing: list[ComparedMatch]
    flaky: list[ComparedMatch]
    new_error_codes: list[ComparedErrorCount]
    gone_error_codes: list[ComparedErrorCount]
    inconclusive: ComparedInconclusiveLists
    inconclusive_reasons: ComparedReasonCounts
    matched: int
    baseline_only: int
    run_only: int
    cost: ComparedCost
    response_time: ComparedTiming
    notes: list[str] = Field(default_factory=list)


# -- grouping --------------------------------------------------------------------------------------------------


def _side(conversations: Iterable[Conversation]) -> ComparedSide:
    verdicts = Counter(c.outcome.verdict for c in conversations)
    return _side_of(verdicts["passed"], verdicts["failed"], verdicts["inconclusive"])


def _side_of(passed: int, failed: int, inconclusive: int = 0) -> ComparedSide:
    rate = wilson(passed, passed + failed)
    return ComparedSide(
        passed=passed,
        failed=failed,
        decided=rate.decided,
        inconclusive=inconclusive,
        rate=None if rate.rate is None else round(rate.rate, 4),
        low=round(rate.low, 4),
        high=round(rate.high, 4),
    )


def _rate(side: ComparedSide) -> Rate:
    return wilson(side.passed, side.decided)


def _status(
    kind: Literal["overall", "profile", "rule"],
    name: str,
    before: ComparedSide,
    after: ComparedSide,
    stable: tuple[ComparedSide, ComparedSide] | None,
    threshold: float,
) -> ComparedGroup:
    change = difference(_rate(before), _rate(after))
    as_change = ComparedChange(**change.to_json())

    def group(status: GroupStatus, why: str) -> ComparedGroup:
        return ComparedGroup(
            kind=kind, name=name, baseline=before, run=after, change=as_change, status=status, why=why
        )

    if change.delta is None:
        side = "the run" if after.decided == 0 else "the baseline"
        if (before.decided or before.inconclusive) and (after.decided or after.inconclusive):
            return group("inconclusive", f"no decided conversation in {side}")
        return group("unchanged", "nothing to compare")
    rates = f"{percent(before.rate)} → {percent(after.rate)}"
    interval = change.interval_text()
    confirmed = change
    if stable is not None:
        confirmed = difference(_rate(stable[0]), _rate(stable[1]))
    if change.delta <= -threshold:
        if confirmed.significant_drop and (confirmed.delta or 0) <= -threshold:
            return group("regressed", f"pass rate {rates} ({interval})")
        if change.significant_drop:
            return group("inconclusive", f"pass rate {rates}, but only flaky conversations make the drop")
        return group("inconclusive", f"pass rate {rates}: too few conversations to tell ({interval})")
    if change.delta >= threshold and confirmed.significant_rise and (confirmed.delta or 0) >= threshold:
        return group("improved", f"pass rate {rates} ({interval})")
    return group("unchanged", f"pass rate {rates}")


def stability(conversations: Sequence[Conversation]) -> Stability:
    """What the repeats of one planned conversation add up to."""
    decided = {c.outcome.verdict for c in conversations if c.outcome.verdict != "inconclusive"}
    if not decided:
        return "inconclusive"
    if len(decided) > 1:
        return "flaky"
    return "passed" if decided == {"passed"} else "failed"


def _by_key(run: RunData) -> dict[Key, list[Conversation]]:
    keyed: dict[Key, list[Conversation]] = {}
    for conversation in run.conversations:
        keyed.setdefault(conversation.key, []).append(conversation)
    return keyed


def _match(key: Key, before: list[Conversation], after: list[Conversation]) -> ComparedMatch:
    profile, planned_index, _ = key
    record = (after or before)[0].record
    return ComparedMatch(
        profile=profile,
        planned_index=planned_index,
        inputs=dict(record.inputs),
        baseline_verdict=stability(before),
        run_verdict=stability(after),
        baseline=[ComparedBrief(**c.brief()) for c in before],
        run=[ComparedBrief(**c.brief()) for c in after],
    )


def _error_counts(run: RunData) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for conversation in run.conversations:
        for code in dict.fromkeys(conversation.record.error_codes):
            found.setdefault(code, []).append(conversation.record.id)
    return found


def _error_list(codes: dict[int, list[str]], wanted: Iterable[int]) -> list[ComparedErrorCount]:
    return [
        ComparedErrorCount(
            code=code, name=describe(code).slug, count=len(codes[code]), conversations=codes[code][:20]
        )
        for code in sorted(wanted)
    ]


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(after - before, 6)


# -- the comparison --------------------------------------------------------------------------------------------


def compare(baseline: RunData, run: RunData, settings: CompareSettings | None = None) -> Comparison:
    """Compare `run` with `baseline` (see the module docstring for what each verdict means)."""
    settings = settings or CompareSettings()
    threshold = settings.threshold
    before_keys, after_keys = _by_key(baseline), _by_key(run)
    flaky_keys = {
        key
        for keyed in (before_keys, after_keys)
        for key, conversations in keyed.items()
        if stability(conversations) == "flaky"
    }

    def stable_side(conversations: Iterable[Conversation]) -> ComparedSide:
        return _side(c for c in conversations if c.key not in flaky_keys)

    overall = _status(
        "overall",
        "all conversations",
        _side(baseline.conversations),
        _side(run.conversations),
        (stable_side(baseline.conversations), stable_side(run.conversations)),
        threshold,
    )
    profiles: list[ComparedGroup] = []
    names = sorted(
        {c.record.profile for c in baseline.conversations} | {c.record.profile for c in run.conversations}
    )
    for name in names:
        before = [c for c in baseline.conversations if c.record.profile == name]
        after = [c for c in run.conversations if c.record.profile == name]
        if not after:
            profiles.append(_absent("profile", name, _side(before), "missing", "not in the run"))
        elif not before:
            profiles.append(
                _absent("profile", name, _side(after), "new", "not in the baseline", run_side=True)
            )
        else:
            profiles.append(
                _status(
                    "profile",
                    name,
                    _side(before),
                    _side(after),
                    (stable_side(before), stable_side(after)),
                    threshold,
                )
            )
    rules: list[ComparedGroup] = []
    for name in sorted(baseline.rules.keys() | run.rules.keys()):
        old, new = baseline.rules.get(name), run.rules.get(name)
        if new is None and old is not None:
            rules.append(
                _absent("rule", name, _side_of(old.passed, old.failed), "missing", "not checked on the run")
            )
        elif old is None and new is not None:
            rules.append(
                _absent(
                    "rule",
                    name,
                    _side_of(new.passed, new.failed),
                    "new",
                    "not checked on the baseline",
                    run_side=True,
                )
            )
        elif old is not None and new is not None:
            rules.append(
                _status(
                    "rule",
                    name,
                    _side_of(old.passed, old.failed),
                    _side_of(new.passed, new.failed),
                    None,
                    threshold,
                )
            )

    matches = [
        _match(key, before_keys[key], after_keys[key])
        for key in sorted(before_keys.keys() & after_keys.keys())
    ]
    newly_failing = [m for m in matches if m.baseline_verdict == "passed" and m.run_verdict == "failed"]
    newly_passing = [m for m in matches if m.baseline_verdict == "failed" and m.run_verdict == "passed"]
    flaky = [m for m in matches if "flaky" in (m.baseline_verdict, m.run_verdict)]
    flaky += [
        _match(key, before_keys.get(key, []), after_keys.get(key, []))
        for key in sorted(flaky_keys - (before_keys.keys() & after_keys.keys()))
    ]

    before_codes, after_codes = _error_counts(baseline), _error_counts(run)
    new_codes = set(after_codes) - set(before_codes)
    regressions = [
        _evidence(group, newly_failing, baseline, run, new_codes)
        for group in (overall, *profiles, *rules)
        if group.status == "regressed"
    ]

    reasons: list[str] = []
    notes = [*baseline.notes, *run.notes]
    for group in (*profiles, *rules, overall):
        if group.status in ("regressed", "inconclusive", "improved", "missing"):
            reasons.append(f"{group.kind} {group.name}: {group.status} — {group.why}")
    if any(g.status == "regressed" for g in (overall, *profiles, *rules)):
        verdict: CompareVerdict = "regressed"
    elif run.conversations and overall.run.decided == 0:
        verdict = "inconclusive"
        reasons.append("the run decided no conversation: every one is inconclusive")
    elif not run.conversations:
        verdict = "inconclusive"
        reasons.append("the run has no conversation")
    elif any(g.status in ("inconclusive", "missing") for g in (overall, *profiles, *rules)):
        verdict = "inconclusive"
    elif any(g.status == "improved" for g in (overall, *profiles, *rules)):
        verdict = "improved"
    else:
        verdict = "unchanged"
    matched = len(matches)
    if bool(baseline.rules) != bool(run.rules):
        which = "the baseline" if baseline.rules else "the run"
        notes.append(f"only {which} has rule results: rules are not compared (check both, or give --rules)")
    if run.conversations and baseline.conversations and not matched:
        notes.append(
            "no conversation of the run matches one of the baseline (profile, index and inputs): were they "
            "run with different seeds or profiles? Only pass rates are compared."
        )
    if newly_failing and verdict != "regressed":
        notes.append(
            f"{len(newly_failing)} conversation(s) newly failing, below the threshold of {100 * threshold:.0f} points"
        )
    return Comparison(
        verdict=verdict,
        reasons=reasons,
        threshold=threshold,
        baseline_label=baseline.label,
        run_label=run.label,
        overall=overall,
        profiles=profiles,
        rules=rules,
        regressions=regressions,
        newly_failing=newly_failing[:MAX_LISTED],
        newly_passing=newly_passing[:MAX_LISTED],
        flaky=flaky[:MAX_LISTED],
        new_error_codes=_error_list(after_codes, new_codes),
        gone_error_codes=_error_list(before_codes, set(before_codes) - set(after_codes)),
        inconclusive=ComparedInconclusiveLists(baseline=_inconclusive(baseline), run=_inconclusive(run)),
        inconclusive_reasons=ComparedReasonCounts(baseline=_reason_counts(baseline), run=_reason_counts(run)),
        matched=matched,
        baseline_only=len(before_keys.keys() - after_keys.keys()),
        run_only=len(after_keys.keys() - before_keys.keys()),
        cost=_cost(baseline, run),
        response_time=_timing(baseline, run),
        notes=notes,
    )


def _absent(
    kind: Literal["profile", "rule"],
    name: str,
    side: ComparedSide,
    status: GroupStatus,
    why: str,
    *,
    run_side: bool = False,
) -> ComparedGroup:
    empty = ComparedSide()
    return ComparedGroup(
        kind=kind,
        name=name,
        baseline=empty if run_side else side,
        run=side if run_side else empty,
        change=ComparedChange(),
        status=status,
        why=why,
    )


def _evidence(
    group: ComparedGroup,
    newly_failing: list[ComparedMatch],
    baseline: RunData,
    run: RunData,
    new_codes: set[int],
) -> ComparedRegression:
    matches = (
        newly_failing if group.kind == "overall" else [m for m in newly_failing if m.profile == group.name]
    )
    failing: list[str] = []
    if group.kind == "rule":
        before = baseline.rules[group.name].failing
        failing = sorted(run.rules[group.name].failing - before)[:MAX_LISTED]
        matches = [m for m in newly_failing if any(group.name in b.rules_failed for b in m.run)]
    scope = [c for c in run.conversations if group.kind != "profile" or c.record.profile == group.name]
    codes = sorted({code for c in scope for code in c.record.error_codes if code in new_codes})
    return ComparedRegression(
        kind=group.kind,
        name=group.name,
        baseline=group.baseline,
        run=group.run,
        change=group.change,
        newly_failing=matches[:MAX_LISTED],
        failing_conversations=failing,
        new_error_codes=codes,
    )


def _inconclusive(run: RunData) -> list[ComparedInconclusive]:
    return [
        ComparedInconclusive(
            profile=c.record.profile, index=c.record.index, id=c.record.id, reason=c.outcome.reason
        )
        for c in run.conversations
        if c.outcome.verdict == "inconclusive"
    ][:MAX_LISTED]


def _reason_counts(run: RunData) -> dict[str, int]:
    """Inconclusive conversations by reason (its first words: the code and name, or SENSEI's reason)."""
    counts: Counter[str] = Counter(
        (c.outcome.reason.split(":", 1)[0] or "no reason given")
        for c in run.conversations
        if c.outcome.verdict == "inconclusive"
    )
    return dict(counts.most_common())


def _cost(baseline: RunData, run: RunData) -> ComparedCost:
    def per_conversation(data: RunData) -> float | None:
        if data.cost_usd is None or not data.conversations:
            return None
        return round(data.cost_usd / len(data.conversations), 8)

    before, after = per_conversation(baseline), per_conversation(run)
    return ComparedCost(
        baseline_usd=baseline.cost_usd,
        run_usd=run.cost_usd,
        delta_usd=_delta(baseline.cost_usd, run.cost_usd),
        baseline_per_conversation_usd=before,
        run_per_conversation_usd=after,
        delta_per_conversation_usd=_delta(before, after),
    )


def _times(run: RunData) -> ComparedTimes:
    values = sorted(run.response_times)
    if not values:
        return ComparedTimes()
    return ComparedTimes(
        count=len(values),
        mean_s=round(statistics.fmean(values), 4),
        p50_s=round(statistics.median(values), 4),
        p95_s=round(values[min(len(values) - 1, int(0.95 * len(values)))], 4),
    )


def _timing(baseline: RunData, run: RunData) -> ComparedTiming:
    before, after = _times(baseline), _times(run)
    return ComparedTiming(
        baseline=before,
        run=after,
        delta_mean_s=_delta(before.mean_s, after.mean_s),
        delta_p95_s=_delta(before.p95_s, after.p95_s),
    )
