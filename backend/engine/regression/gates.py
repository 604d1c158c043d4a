"""Gates beyond the pass rate: pass^k against the baseline, and each profile's minimum pass@1.

`parley sensei compare` always gates on the pass rates (`engine.regression.compare`); these add:

- **pass-k** (`--gate pass-k`): a profile *regressed* when its pass^k (`engine.regression.reliability`) fell by at
  least the threshold and Newcombe's interval of the change lies below zero — the pass-rate gate's rule, on
  planned conversations instead of repeats. A fall the interval cannot confirm is *inconclusive*.
- **min-pass-rate**: a profile whose pass@1 in the run is below its `min_pass_rate` (written in the profile, so
  carried by its records' `settings.min_pass_rate`), else below the command's default `--min-pass-rate`,
  *failed* the gate. The point rate decides, as a threshold a team writes down; the interval is shown beside it.

`apply_gates` folds the results into a comparison: a regressed or failed gate makes the verdict `regressed`; an
inconclusive one makes an `unchanged` or `improved` verdict `inconclusive` (README D25 then decides the exit code).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.intervals import Rate, difference, percent
from engine.regression.compare import CompareVerdict, Comparison
from engine.regression.data import RunData
from engine.regression.reliability import reliability

GATES = ("pass-rate", "pass-k")  # what `--gate` may name; min-pass-rate applies whenever a minimum is set
GateName = Literal["pass-k", "min-pass-rate"]
GateStatus = Literal["passed", "regressed", "failed", "inconclusive"]


@dataclass(frozen=True)
class GateResult:
    gate: GateName
    profile: str
    status: GateStatus
    why: str
    run: Rate
    baseline: Rate | None = None
    minimum: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "gate": self.gate,
            "profile": self.profile,
            "status": self.status,
            "why": self.why,
            "baseline": None if self.baseline is None else self.baseline.to_json(),
            "run": self.run.to_json(),
            "minimum": self.minimum,
        }


def _shown(rate: Rate) -> str:
    if rate.decided == 0:
        return "—"
    return f"{percent(rate.rate)} ({rate.passed}/{rate.decided}, CI {100 * rate.low:.0f}-{100 * rate.high:.0f} %)"


def pass_k_gate(baseline: RunData, run: RunData, threshold: float) -> list[GateResult]:
    """Per profile found on both sides: did pass^k fall beyond the threshold, for sure?"""
    before = {p.profile: p for p in reliability(baseline.conversations)}
    results: list[GateResult] = []
    for after in reliability(run.conversations):
        old = before.get(after.profile)
        if old is None:
            continue  # a profile new in the run has nothing to fall from; the comparison lists it as new
        b, a = old.pass_k, after.pass_k
        k = f"{after.k}" if old.k == after.k else f"{old.k}→{after.k}"  # repeats may differ between the runs
        rates = f"pass^{k} {_shown(b)} → {_shown(a)}"
        change = difference(b, a)

        def result(
            status: GateStatus, why: str, b: Rate = b, a: Rate = a, name: str = after.profile
        ) -> GateResult:
            return GateResult("pass-k", name, status, why, a, baseline=b)

        if change.delta is None:
            side = "the run" if a.decided == 0 else "the baseline"
            results.append(result("inconclusive", f"no planned conversation with a decided repeat in {side}"))
        elif change.delta <= -threshold and change.significant_drop:
            results.append(result("regressed", f"{rates} ({change.interval_text()})"))
        elif change.delta <= -threshold:
            results.append(
                result(
                    "inconclusive",
                    f"{rates}: too few planned conversations to tell ({change.interval_text()})",
                )
            )
        else:
            results.append(result("passed", rates))
    return results


def min_pass_rate_gate(run: RunData, default: float | None) -> list[GateResult]:
    """Per profile with a minimum (its own, else `default`): is its pass@1 at least that?"""
    results: list[GateResult] = []
    for profile in reliability(run.conversations):
        own = profile.min_pass_rate
        minimum = own if own is not None else default
        if minimum is None:
            continue
        source = "the profile's min_pass_rate" if own is not None else "--min-pass-rate"
        rate = profile.pass_at_1
        wanted = f"{source} {percent(minimum)}"
        if rate.rate is None:
            status: GateStatus = "inconclusive"
            why = f"no decided conversation to hold to {wanted}"
        elif rate.rate < minimum:
            status, why = "failed", f"pass@1 {_shown(rate)} is below {wanted}"
        else:
            status, why = "passed", f"pass@1 {_shown(rate)} meets {wanted}"
        results.append(GateResult("min-pass-rate", profile.profile, status, why, rate, minimum=minimum))
    return results


def apply_gates(comparison: Comparison, results: Sequence[GateResult]) -> Comparison:
    """`comparison` with the gates' results in its verdict and reasons."""
    if not results:
        return comparison
    reasons = list(comparison.reasons)
    reasons += [f"{r.gate} {r.profile}: {r.status} — {r.why}" for r in results if r.status != "passed"]
    verdict: CompareVerdict = comparison.verdict
    if any(r.status in ("regressed", "failed") for r in results):
        verdict = "regressed"
    elif verdict in ("unchanged", "improved") and any(r.status == "inconclusive" for r in results):
        verdict = "inconclusive"
    return comparison.model_copy(update={"verdict": verdict, "reasons": reasons})


def gates_text(results: Sequence[GateResult]) -> str:
    if not results:
        return ""
    lines = ["gates:"]
    lines += [f"  {r.status:<12} {r.gate} {r.profile}: {r.why}" for r in results]
    return "\n".join(lines) + "\n"
