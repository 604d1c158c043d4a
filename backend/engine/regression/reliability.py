"""Reliability over repeats: pass^k and pass@1, per planned conversation and per profile (README D33).

A chatbot that passes 94 % of the time on each of 11 tasks gives an all-green run only about half the time, so a
pass rate alone hides how often a *task* fails. With `--repeats k` each planned conversation runs k times:

- **pass@1** — the share of decided repeats that passed (the usual pass rate), with its Wilson 95 % interval;
- **pass^k** — the share of planned conversations whose decided repeats *all* passed, with its Wilson interval.

Inconclusive repeats say nothing about the chatbot, so they are left out: a planned conversation counts towards
pass^k when at least one of its repeats was decided, and every figure shows how many were decided (`decided`
of `repeats` per conversation, `counted` of `planned` per profile). A conversation none of whose repeats was
decided is listed, never counted. pass^k ≤ pass@1 up to the interval: the gap is the flakiness.

Plain Python over the comparison's `Conversation`s (`engine.regression.data`), so the CLI's run summary, the
platform's run result and `parley sensei compare --gate pass-k` count alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.intervals import Rate, percent, wilson
from engine.regression.compare import stability
from engine.regression.data import Conversation, Key


@dataclass(frozen=True)
class PlannedReliability:
    """The repeats of one planned conversation."""

    profile: str
    planned_index: int
    inputs: dict[str, Any]
    repeats: int
    decided: int
    passed: int
    verdict: str  # passed, failed, flaky or inconclusive (`engine.regression.compare.stability`)

    @property
    def all_passed(self) -> bool | None:
        """Whether every decided repeat passed; None when none was decided."""
        return None if self.decided == 0 else self.passed == self.decided

    def to_json(self) -> dict[str, Any]:
        return {
            "planned_index": self.planned_index,
            "inputs": self.inputs,
            "repeats": self.repeats,
            "decided": self.decided,
            "passed": self.passed,
            "pass_k": self.all_passed,
            "pass_at_1": wilson(self.passed, self.decided).to_json(),
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class ProfileReliability:
    """pass^k and pass@1 of one profile, and its planned conversations (flaky ones first)."""

    profile: str
    k: int  # repeats per planned conversation (the most any of them ran)
    planned: int
    pass_k: Rate  # planned conversations whose decided repeats all passed, of those with one decided
    pass_at_1: Rate  # decided repeats that passed
    repeats: int  # conversations run, decided or not
    min_pass_rate: float | None
    conversations: tuple[PlannedReliability, ...]

    @property
    def flaky(self) -> int:
        return sum(1 for c in self.conversations if c.verdict == "flaky")

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "k": self.k,
            "planned": self.planned,
            "counted": self.pass_k.decided,
            "pass_k": self.pass_k.to_json(),
            "pass_at_1": self.pass_at_1.to_json(),
            "repeats": self.repeats,
            "decided_repeats": self.pass_at_1.decided,
            "flaky": self.flaky,
            "min_pass_rate": self.min_pass_rate,
            "conversations": [c.to_json() for c in self.conversations],
        }

    def line(self) -> str:
        """One line a console reader takes in: both rates, their intervals, and what was decided."""
        k, rate, first = self.k, self.pass_k, self.pass_at_1
        return (
            f"{self.profile}: pass^{k} {percent(rate.rate)} [{_interval(rate)}] of {rate.decided} planned "
            f"conversation(s) with a decided repeat (of {self.planned}); pass@1 {percent(first.rate)} "
            f"[{_interval(first)}] of {first.decided} decided repeat(s) (of {self.repeats}); {self.flaky} flaky"
        )


_ORDER = {"flaky": 0, "failed": 1, "inconclusive": 2, "passed": 3}


def _interval(rate: Rate) -> str:
    return "—" if rate.decided == 0 else f"{100 * rate.low:.0f}-{100 * rate.high:.0f} %"


def _min_pass_rate(conversations: Iterable[Conversation]) -> float | None:
    for conversation in conversations:
        value = conversation.record.settings.min_pass_rate
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1:
            return float(value)
    return None


def planned_reliability(key: Key, repeats: Sequence[Conversation]) -> PlannedReliability:
    verdicts = [c.outcome.verdict for c in repeats]
    decided = [v for v in verdicts if v != "inconclusive"]
    return PlannedReliability(
        profile=key[0],
        planned_index=key[1],
        inputs=dict(repeats[0].record.inputs) if repeats else {},
        repeats=len(repeats),
        decided=len(decided),
        passed=sum(1 for v in decided if v == "passed"),
        verdict=stability(repeats),
    )


def profile_reliability(profile: str, conversations: Sequence[Conversation]) -> ProfileReliability:
    """pass^k and pass@1 of one profile's conversations (every repeat of every planned conversation)."""
    keyed: dict[Key, list[Conversation]] = {}
    for conversation in conversations:
        keyed.setdefault(conversation.key, []).append(conversation)
    planned = [planned_reliability(key, repeats) for key, repeats in sorted(keyed.items())]
    counted = [p for p in planned if p.decided]
    return ProfileReliability(
        profile=profile,
        k=max((p.repeats for p in planned), default=0),
        planned=len(planned),
        pass_k=wilson(sum(1 for p in counted if p.all_passed), len(counted)),
        pass_at_1=wilson(sum(p.passed for p in planned), sum(p.decided for p in planned)),
        repeats=len(conversations),
        min_pass_rate=_min_pass_rate(conversations),
        conversations=tuple(sorted(planned, key=lambda p: (_ORDER.get(p.verdict, 9), p.planned_index))),
    )


def reliability(conversations: Iterable[Conversation]) -> list[ProfileReliability]:
    """Every profile's reliability, by profile name."""
    by_profile: dict[str, list[Conversation]] = {}
    for conversation in conversations:
        by_profile.setdefault(conversation.record.profile, []).append(conversation)
    return [profile_reliability(name, items) for name, items in sorted(by_profile.items())]


def reliability_json(profiles: Sequence[ProfileReliability]) -> list[dict[str, Any]]:
    return [p.to_json() for p in profiles]


def reliability_text(profiles: Sequence[ProfileReliability], *, listed: int = 10) -> str:
    """The console's lines: one per profile, then the planned conversations that did not pass every repeat."""
    if not profiles:
        return ""
    lines = ["reliability (pass^k: every decided repeat passed; inconclusive repeats left out):"]
    for profile in profiles:
        lines.append(f"  {profile.line()}")
        shaky = [c for c in profile.conversations if c.all_passed is not True]
        for item in shaky[:listed]:
            inputs = ", ".join(f"{k}={v}" for k, v in item.inputs.items()) or "no inputs"
            lines.append(
                f"    #{item.planned_index} ({inputs}): {item.verdict}, {item.passed} of {item.decided} decided "
                f"repeat(s) passed (of {item.repeats})"
            )
        if len(shaky) > listed:
            lines.append(f"    … and {len(shaky) - listed} more (see the JSON)")
    return "\n".join(lines) + "\n"
