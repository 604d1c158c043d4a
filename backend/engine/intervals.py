"""Rates with their uncertainty, for every figure Parley prints with an interval: the Wilson score interval of one
rate and Newcombe's interval of the difference of two. SENSEI's pass rates and pass^k, the bench's mutation
scores and false-alarm rates, and the campaigns' breach rates all use these two functions.

A run of 12 conversations that all pass does not prove a pass rate of 100 %; the Wilson interval says what it
does prove (here at least 76 %, at 95 %). Comparing two runs, the difference of their rates has an interval too
(Newcombe's "method 10", built from the two Wilson intervals): when it excludes zero, the change is unlikely to be
the simulator's luck. Both stay sensible at 0 and 100 % and with few conversations, where the textbook normal
approximation does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959963984540054  # the 97.5th percentile of the standard normal: two-sided 95 %


@dataclass(frozen=True)
class Rate:
    """`passed` of `decided` (passed + failed), with the Wilson interval of the pass rate."""

    passed: int
    decided: int
    low: float
    high: float

    @property
    def rate(self) -> float | None:
        return self.passed / self.decided if self.decided else None

    @property
    def failed(self) -> int:
        return self.decided - self.passed

    def bounds(self) -> list[float] | None:
        """[low, high] rounded to 4 places; None when nothing was decided (a campaign's breach rate)."""
        return [round(self.low, 4), round(self.high, 4)] if self.decided else None

    def percent_bounds(self) -> list[float] | None:
        """[low, high] in percent, rounded to 2 places; None when nothing was decided (the bench's scores)."""
        return [round(100 * self.low, 2), round(100 * self.high, 2)] if self.decided else None

    def to_json(self) -> dict[str, float | int | None]:
        rate = self.rate
        return {
            "passed": self.passed,
            "failed": self.failed,
            "decided": self.decided,
            "rate": None if rate is None else round(rate, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
        }


def wilson(passed: int, decided: int, z: float = Z_95) -> Rate:
    """The pass rate `passed / decided` with its Wilson score interval; [0, 1] when nothing was decided."""
    if decided < 0 or not 0 <= passed <= decided:
        raise ValueError(f"need 0 <= passed <= decided, got {passed} of {decided}")
    if decided == 0:
        return Rate(0, 0, 0.0, 1.0)
    p = passed / decided
    z2 = z * z
    centre = (p + z2 / (2 * decided)) / (1 + z2 / decided)
    half = z * math.sqrt(p * (1 - p) / decided + z2 / (4 * decided * decided)) / (1 + z2 / decided)
    # Exact at the edges: floating point would otherwise give 0.9999999 for 12 of 12.
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == decided else min(1.0, centre + half)
    return Rate(passed, decided, low, high)


@dataclass(frozen=True)
class Difference:
    """`after.rate - before.rate` with Newcombe's 95 % interval; None when either side decided nothing."""

    delta: float | None
    low: float | None
    high: float | None

    @property
    def significant_drop(self) -> bool:
        return self.high is not None and self.high < 0

    @property
    def significant_rise(self) -> bool:
        return self.low is not None and self.low > 0

    def interval_text(self) -> str:
        """The interval as a user reads it: "95 % CI of the change -12 points … +3 points"."""
        return f"95 % CI of the change {_points(self.low or 0)} … {_points(self.high or 0)}"

    def to_json(self) -> dict[str, float | None]:
        return {
            "delta": None if self.delta is None else round(self.delta, 4),
            "low": None if self.low is None else round(self.low, 4),
            "high": None if self.high is None else round(self.high, 4),
        }


def difference(before: Rate, after: Rate) -> Difference:
    """The change from `before` to `after` (Newcombe 1998, method 10: the hybrid Wilson score interval)."""
    if before.rate is None or after.rate is None:
        return Difference(None, None, None)
    delta = after.rate - before.rate
    low = delta - math.sqrt((after.rate - after.low) ** 2 + (before.high - before.rate) ** 2)
    high = delta + math.sqrt((after.high - after.rate) ** 2 + (before.rate - before.low) ** 2)
    return Difference(delta, max(-1.0, low), min(1.0, high))


def percent(value: float | None) -> str:
    """A rate as a user reads it: "67 %", or "—" when nothing was decided."""
    return "—" if value is None else f"{100 * value:.0f} %"


def _points(value: float) -> str:
    return f"{100 * value:+.0f} points"
