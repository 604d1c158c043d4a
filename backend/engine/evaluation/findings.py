"""What one conversation shows: its findings, each with a kill reason, a kind and a detail, or "inconclusive".

Kill reasons (the thesis's kill conditions, made automatic, plus what Parley checks beyond them):

    crash           the bot answered HTTP 5xx or an unreadable reply (500, 502)         automatic
    timeout         no reply in time (504)                                            automatic
    loop            fallback loop or repetition loop (1000, 1003)                     automatic
    unmet_goal      the goals could not be verified (1002)                            automatic
    missing_output  an output the profile expects was not found (1001)                automatic
    no_refusal      an out-of-range input led to an output, with no refusal or fallback  automatic
    model_rule      a rule Parley wrote from TRACER's model failed                    automatic
    wrong_output    a ground-truth output rule failed (prices, enum values, shape)    oracle
    failed_rule     another ground-truth rule failed (FAQ answers, offered options)   oracle

*automatic* findings are what Parley tells a user who has no ground truth; *oracle* findings need the reference
bots' ground truth. A finding's detail is the rule or output name (empty for the error-based reasons).

Inconclusive conversations are kept apart and show no finding: a conversation whose SENSEI verdict says
`inconclusive` (when records carry a verdict), or, for records without one, a conversation with only set-up,
budget or cancellation errors and no finding. When a record carries a verdict, SENSEI's errors count only when
the verdict is `failed`.

Out-of-range inputs (a profile value TRACER's model never saw the bot offer, see `model_rules.out_of_range`)
expect a refusal or the fallback, not an output: on such a conversation a missing output or an unverified goal is
what should happen and is no finding; a conversation where the user said the value, the bot neither refused nor
fell back, and an output came of it has the finding `no_refusal` (a conversation that ends with no output and no
recognisable refusal says nothing either way).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.check import CheckReport, Outcome
from engine.conversation import ConversationRecord
from engine.sensei.errors import ERROR_TABLE

Kind = Literal["automatic", "oracle"]
KILL_REASONS: tuple[str, ...] = (
    "crash",
    "timeout",
    "loop",
    "unmet_goal",
    "missing_output",
    "no_refusal",
    "model_rule",
    "wrong_output",
    "failed_rule",
)
REASON_KIND: dict[str, Kind] = {
    **dict.fromkeys(KILL_REASONS[:7], "automatic"),
    "wrong_output": "oracle",
    "failed_rule": "oracle",
}
RULE_REASONS = {"model": "model_rule", "output": "wrong_output", "faq": "failed_rule", "enum": "failed_rule"}
"""Rule kind → kill reason. Kind `model` is a rule Parley wrote from TRACER's model; the others are oracles."""

_CODE_REASONS = {
    500: "crash",
    502: "crash",
    504: "timeout",
    1000: "loop",
    1003: "loop",
    1002: "unmet_goal",
    1001: "missing_output",
}
EXPECTED_WHEN_OUT_OF_RANGE = frozenset({"missing_output", "unmet_goal"})


def error_reason(code: int) -> str | None:
    """The kill reason of a conversation error code; None for set-up, budget and cancellation errors."""
    if code in _CODE_REASONS:
        return _CODE_REASONS[code]
    info = ERROR_TABLE.get(code)
    if info is not None:
        return "crash" if info.kind == "finding" else None
    return "crash" if 500 <= code < 600 else None


@dataclass(frozen=True)
class Finding:
    reason: str
    detail: str = ""
    """The rule or output name; empty for crash, timeout, loop and unmet_goal."""
    evidence: str = ""
    """What showed it: the error message or the rule's failure reason (shortened)."""

    @property
    def kind(self) -> Kind:
        return REASON_KIND.get(self.reason, "oracle")


@dataclass
class ConversationFindings:
    """The findings of one conversation; `profile` and `index` pair it with the same conversation elsewhere."""

    conversation: str
    profile: str
    index: int
    findings: list[Finding] = field(default_factory=list)
    inconclusive: bool = False
    notes: list[str] = field(default_factory=list)
    """What the bench decided that a reader should know (an expected refusal, an ignored error)."""

    def of(self, kinds: frozenset[str]) -> list[Finding]:
        return [f for f in self.findings if f.kind in kinds]


def record_field(record: ConversationRecord | Mapping[str, Any], name: str) -> Any:
    """A record's field that may not exist yet in this version of the schema (e.g. `verdict`)."""
    if isinstance(record, Mapping):
        return record.get(name)
    value = getattr(record, name, None)
    if value is None:
        extra = getattr(record, "model_extra", None) or {}
        value = extra.get(name)
    return value


def rule_failures(report: CheckReport | None) -> dict[str, list[tuple[str, str]]]:
    """conversation id → (rule name, failure reason) of every rule that failed on it."""
    out: dict[str, list[tuple[str, str]]] = {}
    if report is None:
        return out
    for rule in report.rules:
        for result in rule.results:
            if result.outcome == Outcome.FAIL:
                for conversation in result.conversations:
                    out.setdefault(conversation, []).append((rule.name, result.reason or ""))
    return out


def _short(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _missing_outputs(record: ConversationRecord) -> list[str]:
    return sorted(name for name, value in record.outputs.items() if value in (None, "", [], {}))


@dataclass(frozen=True)
class OutOfRangeUse:
    """An out-of-range value a conversation was given, and what the bot did with it."""

    variable: str
    value: str
    said: bool
    """The simulated user actually wrote the value."""
    refused: bool
    """A bot turn after it was a refusal, a re-ask or the fallback."""
    output: bool = False
    """The conversation ended with an output extracted (the value was taken)."""
    evidence: str = ""

    @property
    def accepted(self) -> bool:
        """Said, never refused, and an output came of it: what an out-of-range value must not get."""
        return self.said and not self.refused and self.output


def conversation_findings(
    record: ConversationRecord,
    failures: Sequence[tuple[str, str]],
    rule_kinds: Mapping[str, str],
    out_of_range: Sequence[OutOfRangeUse] = (),
) -> ConversationFindings:
    """The findings of `record`, given the rules that failed on it and the out-of-range values it used."""
    result = ConversationFindings(record.id, record.profile, record.index)
    verdict = record_field(record, "verdict")
    if verdict == "inconclusive":
        reason = record_field(record, "verdict_reason")
        result.inconclusive = True
        result.notes.append(f"SENSEI's verdict: inconclusive{f' ({reason})' if reason else ''}")
        return result
    findings: list[Finding] = []
    # Without a verdict, a conversation with only set-up errors and no finding is inconclusive.
    setup_only = bool(record.errors) and verdict not in ("passed", "failed")
    for item in record.errors:
        reason = error_reason(item.code)
        if reason is None:
            continue
        setup_only = False
        if verdict == "passed":
            result.notes.append(f"error {item.code} ignored: SENSEI's verdict is passed")
            continue
        if reason == "missing_output":
            names = _missing_outputs(record) or [""]
            findings += [Finding(reason, name, _short(item.message)) for name in names]
        else:
            findings.append(Finding(reason, "", _short(item.message)))
    for rule, why in failures:
        findings.append(Finding(RULE_REASONS.get(rule_kinds.get(rule, ""), "failed_rule"), rule, _short(why)))
    if out_of_range:
        given = ", ".join(f"{u.variable}={u.value!r}" for u in out_of_range)
        kept = [f for f in findings if f.reason not in EXPECTED_WHEN_OUT_OF_RANGE]
        if len(kept) < len(findings):
            result.notes.append(f"out-of-range input ({given}): a missing output or unmet goal is expected")
        findings = kept
        for use in out_of_range:
            if use.accepted:
                findings.append(Finding("no_refusal", use.variable, use.evidence))
    unique: dict[tuple[str, str], Finding] = {}
    for finding in findings:
        unique.setdefault((finding.reason, finding.detail), finding)
    order = {reason: i for i, reason in enumerate(KILL_REASONS)}
    result.findings = sorted(unique.values(), key=lambda f: (order.get(f.reason, 99), f.detail))
    result.inconclusive = setup_only and not result.findings
    return result
