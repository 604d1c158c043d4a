"""What a check run reports: per rule the counts and every failure, as JSON, CSV or JUnit XML.

Per rule: checks, passed, failed, not applicable, errors, fail rate (100·failed / (passed + failed), None when
nothing was decided), a status, the failures and errors one by one (conversation ids, reason, on-error
message; the first `max_listed`), and how often each not-applicable reason occurred — so "no judge model
configured" is visible rather than silent. The run adds the conversation error codes (crashes, timeouts,
unfinished goals…) counted over the checked conversations, the judge's calls and cache hits, and timings.
Exit code: 0 when every rule passed or did not apply, 1 when one failed or errored.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from engine.spreadsheet import csv_writer

if TYPE_CHECKING:
    from engine.check.rules import Rule

DEFAULT_MAX_LISTED = 200


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "not_applicable"
    ERROR = "error"


class CheckResult(BaseModel):
    """One check: one conversation, one group of k conversations, or the filtered set of a global rule."""

    conversations: list[str]
    outcome: Outcome
    reason: str | None = None
    message: str | None = None  # the rule's on-error message, evaluated for this check


RuleStatus = Literal["passed", "failed", "error", "not_applicable"]


class RuleReport(BaseModel):
    name: str = ""  # the rule's (a stored report without it still loads)
    description: str = ""
    file: str | None = None
    conversations: int | Literal["all"] = 1
    ordered: bool = False
    checks: int = 0
    passed: int = 0
    failed: int = 0
    not_applicable: int = 0
    errors: int = 0
    results: list[CheckResult] = Field(default_factory=list)  # failures and errors, in order
    omitted: int = 0  # failures and errors beyond the listing cap
    not_applicable_reasons: dict[str, int] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    duration_s: float = 0.0

    @classmethod
    def for_rule(cls, rule: Rule) -> RuleReport:
        """An empty report of `rule`: its name, description, file, arity and warnings, nothing counted yet."""
        return cls(
            name=rule.name,
            description=rule.description,
            file=rule.file,
            conversations=rule.conversations,
            ordered=rule.ordered,
            warnings=list(rule.warnings),
        )

    @property
    def fail_rate(self) -> float | None:
        decided = self.passed + self.failed
        return round(100.0 * self.failed / decided, 2) if decided else None

    @property
    def status(self) -> RuleStatus:
        if self.errors:
            return "error"
        if self.failed:
            return "failed"
        if self.passed:
            return "passed"
        return "not_applicable"

    def add(self, result: CheckResult, max_listed: int = DEFAULT_MAX_LISTED) -> None:
        self.checks += 1
        if result.outcome is Outcome.PASS:
            self.passed += 1
            return
        if result.outcome is Outcome.NOT_APPLICABLE:
            self.not_applicable += 1
            reason = (result.reason or "not applicable")[:300]
            if reason in self.not_applicable_reasons or len(self.not_applicable_reasons) < 20:
                self.not_applicable_reasons[reason] = self.not_applicable_reasons.get(reason, 0) + 1
            return
        if result.outcome is Outcome.FAIL:
            self.failed += 1
        else:
            self.errors += 1
        if len(self.results) < max_listed:
            self.results.append(result)
        else:
            self.omitted += 1

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        data["fail_rate"] = self.fail_rate
        data["status"] = self.status
        return data


class ErrorCodeCount(BaseModel):
    code: int
    name: str
    count: int
    conversations: list[str]


class CheckRunSummary(BaseModel):
    """A check run in figures, as the platform stores and serves it (README D31): rules by status."""

    kind: Literal["check"] = "check"
    ok: bool = False  # every rule passed or did not apply
    conversations: int = 0
    rules: int = 0
    passed: int = 0
    failed: int = 0
    error: int = 0
    not_applicable: int = 0


class CheckReport(BaseModel):
    rules: list[RuleReport] = Field(default_factory=list)
    conversations: int = 0
    conversation_errors: list[ErrorCodeCount] = Field(default_factory=list)
    judge: dict[str, int] = Field(default_factory=dict)
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return all(rule.status in ("passed", "not_applicable") for rule in self.rules)

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def totals(self) -> dict[str, int]:
        statuses = [rule.status for rule in self.rules]
        return {
            "rules": len(self.rules),
            "passed": statuses.count("passed"),
            "failed": statuses.count("failed"),
            "error": statuses.count("error"),
            "not_applicable": statuses.count("not_applicable"),
        }

    def summary(self, conversations: int) -> CheckRunSummary:
        return CheckRunSummary.model_validate(
            {"ok": self.ok, "conversations": conversations, **self.totals()}
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "totals": self.totals(),
            "conversations": self.conversations,
            "rules": [rule.to_json() for rule in self.rules],
            "conversation_errors": [item.model_dump() for item in self.conversation_errors],
            "judge": self.judge,
            "duration_s": round(self.duration_s, 3),
        }

    def to_csv(self) -> str:
        """One row per rule: rule, conversations, checks, passed, failed, not_applicable, errors, fail_rate."""
        out = io.StringIO()
        writer = csv_writer(out, lineterminator="\n")
        writer.writerow(
            [
                "rule",
                "conversations",
                "checks",
                "passed",
                "failed",
                "not_applicable",
                "errors",
                "fail_rate",
                "status",
            ]
        )
        for rule in self.rules:
            rate = rule.fail_rate
            writer.writerow(
                [
                    rule.name,
                    rule.conversations,
                    rule.checks,
                    rule.passed,
                    rule.failed,
                    rule.not_applicable,
                    rule.errors,
                    "" if rate is None else f"{rate:.2f}%",
                    rule.status,
                ]
            )
        return out.getvalue()

    def failures_csv(self) -> str:
        """One row per listed failure or error: rule, outcome, conversations, reason, message."""
        out = io.StringIO()
        writer = csv_writer(out, lineterminator="\n")
        writer.writerow(["rule", "outcome", "conversations", "reason", "message"])
        for rule in self.rules:
            for result in rule.results:
                writer.writerow(
                    [
                        rule.name,
                        result.outcome.value,
                        " ".join(result.conversations),
                        result.reason or "",
                        result.message or "",
                    ]
                )
        return out.getvalue()

    def to_junit(self, suite_name: str = "parley check") -> str:
        """JUnit XML: one test case per rule; failures and errors list the conversations and reasons."""
        totals = self.totals()
        suite = ET.Element(
            "testsuite",
            name=suite_name,
            tests=str(totals["rules"]),
            failures=str(totals["failed"]),
            errors=str(totals["error"]),
            skipped=str(totals["not_applicable"]),
            time=f"{self.duration_s:.3f}",
        )
        for rule in self.rules:
            case = ET.SubElement(
                suite,
                "testcase",
                name=rule.name,
                classname=f"rules.{rule.name}",
                time=f"{rule.duration_s:.3f}",
            )
            status = rule.status
            if status in ("failed", "error"):
                tag = "failure" if status == "failed" else "error"
                summary = f"{rule.failed} failed, {rule.errors} errors, {rule.passed} passed of {rule.checks} checks"
                lines = [summary, *(_result_line(result) for result in rule.results)]
                if rule.omitted:
                    lines.append(f"… and {rule.omitted} more")
                ET.SubElement(case, tag, message=summary).text = "\n".join(lines)
            elif status == "not_applicable":
                reasons = "; ".join(
                    f"{reason} ({count})" for reason, count in rule.not_applicable_reasons.items()
                )
                ET.SubElement(case, "skipped", message=reasons or "no check applied")
            if rule.description:
                ET.SubElement(case, "system-out").text = rule.description
        suites = ET.Element("testsuites")
        suites.append(suite)
        return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"

    def to_text(self, *, verbose: bool = False) -> str:
        """The console summary."""
        lines = []
        for rule in self.rules:
            rate = rule.fail_rate
            rate_text = "" if rate is None else f", fail rate {rate:.2f}%"
            lines.append(
                f"{rule.status.upper():>14}  {rule.name} [conversations: {rule.conversations}] — "
                f"{rule.checks} checks: {rule.passed} passed, {rule.failed} failed, "
                f"{rule.not_applicable} not applicable, {rule.errors} errors{rate_text}"
            )
            shown = rule.results if verbose else rule.results[:5]
            lines.extend(f"{'':16}{_result_line(result)}" for result in shown)
            if len(rule.results) > len(shown) or rule.omitted:
                lines.append(f"{'':16}… {len(rule.results) - len(shown) + rule.omitted} more")
            if rule.status == "not_applicable":
                for reason, count in list(rule.not_applicable_reasons.items())[:3]:
                    lines.append(f"{'':16}not applicable ({count}): {reason}")
            lines.extend(f"{'':16}warning: {warning}" for warning in rule.warnings)
        for item in self.conversation_errors:
            lines.append(f"conversation error {item.code} {item.name}: {item.count} conversation(s)")
        totals = self.totals()
        lines.append(
            f"{totals['rules']} rules on {self.conversations} conversations: {totals['passed']} passed, "
            f"{totals['failed']} failed, {totals['error']} errors, {totals['not_applicable']} not applicable "
            f"({self.duration_s:.2f} s)"
        )
        return "\n".join(lines) + "\n"


def _result_line(result: CheckResult) -> str:
    who = ", ".join(result.conversations[:5]) + ("…" if len(result.conversations) > 5 else "")
    text = f"{result.outcome.value.upper()} {who or '(all)'}: {result.reason or ''}"
    if result.message:
        text += f" — {result.message}"
    return text
