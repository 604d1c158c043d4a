"""What `parley sensei run` prints and reports besides the records: the verdict lines, each profile's reliability
(pass^k and pass@1, D33) and its JUnit case."""

from __future__ import annotations

from typing import Any

from commands.common import JUnitCase


def reliability_of(records: list[Any]) -> list[Any]:
    from engine.regression import reliability, run_data

    return reliability(run_data("run", records).conversations) if records else []


def reliability_cases(profiles: list[Any]) -> list[JUnitCase]:
    """One case per profile carrying pass^k and pass@1 (as properties and as its output); it never fails by
    itself — `parley sensei compare --gate pass-k` and `min_pass_rate` are the gates."""
    cases = []
    for profile in profiles:

        def rate(value: float | None) -> str:
            return "" if value is None else f"{value:.4f}"

        cases.append(
            JUnitCase(
                name=f"{profile.profile} reliability",
                classname=f"sensei.{profile.profile}",
                output=profile.line(),
                properties={
                    "k": str(profile.k),
                    "pass_k": rate(profile.pass_k.rate),
                    "pass_k_low": rate(profile.pass_k.low),
                    "pass_k_high": rate(profile.pass_k.high),
                    "pass_k_counted": str(profile.pass_k.decided),
                    "planned": str(profile.planned),
                    "pass_at_1": rate(profile.pass_at_1.rate),
                    "pass_at_1_low": rate(profile.pass_at_1.low),
                    "pass_at_1_high": rate(profile.pass_at_1.high),
                    "decided_repeats": str(profile.pass_at_1.decided),
                    "repeats": str(profile.repeats),
                },
            )
        )
    return cases


def verdict_lines(summary: Any) -> str:
    """Verdicts, the reasons of failed and inconclusive ones, and the simulator's slips."""

    def reasons(counts: dict[str, int]) -> str:
        return ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))

    lines = [f"{summary.passed} passed, {summary.failed} failed, {summary.inconclusive} inconclusive"]
    if summary.failed:
        lines.append(f"  failed (chatbot faults): {reasons(summary.failed_reasons)}")
    if summary.inconclusive:
        lines.append(
            f"  inconclusive (not counted as chatbot failures): {reasons(summary.inconclusive_reasons)}"
        )
        blamed = {name: n for name, n in summary.faults.items() if n and name != "chatbot"}
        lines.append(f"  at fault, when not the chatbot: {reasons(blamed)}")
    slips = f"simulator slips: {summary.simulator_slips}"
    if summary.simulator_slips:
        slips += f" ({reasons(summary.slips_by_kind)})"
    lines.append(slips)
    return "".join(f"{line}\n" for line in lines)
