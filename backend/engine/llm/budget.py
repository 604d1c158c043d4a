"""The USD budget of a run, enforced before each call is sent.

A call first reserves its estimated cost (prompt characters / 4 as input tokens — no tokenizer download —
plus its completion cap as output tokens) and is refused with `BudgetExceeded` if that does not fit in what
is left; afterwards the reservation is settled at the real cost. Reserving rather than just checking keeps
concurrent calls from all passing the check against the same remaining amount.

Unknown prices: a budget cannot be enforced on a model Parley has no price for, so by default such a call is
refused with an explanation (price the model, or run without a budget). `allow_unpriced=True` lets those
calls through uncounted, for free local models.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from engine.llm.errors import BudgetExceeded
from engine.llm.prices import Price

CHARS_PER_TOKEN = 4
# What the budget assumes a call may answer when the caller set no completion cap.
DEFAULT_COMPLETION_ESTIMATE = 1024


def estimate_tokens(text_chars: int) -> int:
    return math.ceil(text_chars / CHARS_PER_TOKEN)


def estimate_cost(price: Price, prompt_chars: int, max_completion_tokens: int | None) -> float:
    completion = max_completion_tokens if max_completion_tokens is not None else DEFAULT_COMPLETION_ESTIMATE
    return price.cost(estimate_tokens(prompt_chars), completion)


@dataclass(frozen=True)
class Reservation:
    amount_usd: float


class Budget:
    """A spending limit in USD shared by every call of a run; safe across threads."""

    def __init__(self, limit_usd: float, *, allow_unpriced: bool = False) -> None:
        if limit_usd < 0:
            raise ValueError("A budget cannot be negative.")
        self.limit_usd = limit_usd
        self.allow_unpriced = allow_unpriced
        self._lock = threading.Lock()
        self._spent = 0.0
        self._reserved = 0.0

    @property
    def spent_usd(self) -> float:
        with self._lock:
            return self._spent

    @property
    def remaining_usd(self) -> float:
        with self._lock:
            return self._remaining()

    def _remaining(self) -> float:
        return max(0.0, self.limit_usd - self._spent - self._reserved)

    def reserve(self, estimate_usd: float | None, *, model: str, tag: str) -> Reservation:
        """Hold `estimate_usd` for a call about to be sent, or raise `BudgetExceeded` without sending it."""
        with self._lock:
            remaining = self._remaining()
            if estimate_usd is None:
                if self.allow_unpriced:
                    return Reservation(0.0)
                raise BudgetExceeded(
                    f"The call {tag!r} was not sent: Parley has no price for the model {model!r}, so the "
                    f"budget of ${self.limit_usd:.2f} cannot be enforced. Add a price for the model or run "
                    "without a budget.",
                    estimate_usd=None,
                    remaining_usd=remaining,
                )
            if estimate_usd > remaining:
                raise BudgetExceeded(
                    f"The call {tag!r} was not sent: it could cost up to ${estimate_usd:.4f} but only "
                    f"${remaining:.4f} of the ${self.limit_usd:.2f} budget is left.",
                    estimate_usd=estimate_usd,
                    remaining_usd=remaining,
                )
            self._reserved += estimate_usd
            return Reservation(estimate_usd)

    def settle(self, reservation: Reservation, actual_usd: float | None) -> None:
        """Replace the reservation by the real cost; an unknown real cost keeps the (pessimistic) estimate."""
        with self._lock:
            self._reserved = max(0.0, self._reserved - reservation.amount_usd)
            self._spent += reservation.amount_usd if actual_usd is None else actual_usd

    def release(self, reservation: Reservation) -> None:
        """The call failed before the provider did any work: give the reservation back."""
        with self._lock:
            self._reserved = max(0.0, self._reserved - reservation.amount_usd)
