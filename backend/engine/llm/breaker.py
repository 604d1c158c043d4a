"""When a provider is down or asks for patience, every call of the run hears it at once.

`CircuitBreaker`: counts failed attempts against one provider (5xx answers, timeouts, broken connections,
unreadable bodies) across every call and thread of a run; a success resets the count. After `threshold` failures
in a row it opens for good: every waiting retry wakes up and every new call fails at once with `LLMProviderDown`,
one message that names the provider and its last error, so the run stops within seconds instead of paying the
whole retry allowance once per conversation. Rate limits (429) are not outages and never open it.

`RatePause`: when the provider answers 429 with `Retry-After` (or its rate-limit headers say the window is
spent), every call to it waits until the window reopens: concurrent conversations back off together instead of
each earning its own 429.
"""

from __future__ import annotations

import re
import threading
import time

from engine.llm.errors import LLMProviderDown

DEFAULT_THRESHOLD = 5
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


class CircuitBreaker:
    """Shared by every client of a run that calls the same provider; thread-safe."""

    def __init__(self, where: str, *, threshold: int = DEFAULT_THRESHOLD) -> None:
        if threshold < 1:
            raise ValueError("A circuit breaker needs a threshold of at least 1.")
        self.where = where
        self.threshold = threshold
        self._lock = threading.Lock()
        self._opened = threading.Event()
        self._failures = 0
        self._last = ""

    @property
    def is_open(self) -> bool:
        return self._opened.is_set()

    @property
    def failures(self) -> int:
        with self._lock:
            return self._failures

    def error(self) -> LLMProviderDown:
        with self._lock:
            count, last = self._failures, self._last
        return LLMProviderDown(
            f"The LLM provider at {self.where} has failed {count} times in a row: {last} "
            "The run stopped; start it again once the provider is back."
        )

    def check(self) -> None:
        """Raise `LLMProviderDown` if the breaker is open."""
        if self._opened.is_set():
            raise self.error()

    def record_success(self) -> None:
        with self._lock:
            if not self._opened.is_set():
                self._failures = 0

    def record_failure(self, detail: str) -> None:
        """One failed attempt; `detail` is the provider's message (already scrubbed of secrets)."""
        with self._lock:
            if self._opened.is_set():
                return
            self._failures += 1
            self._last = detail if detail.endswith((".", "!", "?")) else f"{detail}."
            if self._failures >= self.threshold:
                self._opened.set()

    def sleep(self, seconds: float) -> None:
        """Wait `seconds`, waking at once (and raising) if the breaker opens meanwhile."""
        if seconds > 0 and self._opened.wait(seconds):
            raise self.error()
        self.check()


class RatePause:
    """The moment until which no call to one provider should be sent; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until = 0.0

    def hold(self, seconds: float) -> None:
        """Nobody sends for the next `seconds` (a later, longer hold wins; a shorter one changes nothing)."""
        if seconds <= 0:
            return
        with self._lock:
            self._until = max(self._until, time.monotonic() + seconds)

    def remaining(self) -> float:
        with self._lock:
            return max(0.0, self._until - time.monotonic())

    def wait(self, breaker: CircuitBreaker, *, limit_s: float | None = None) -> None:
        """Block until the pause is over (at most `limit_s`), or raise if the breaker opens."""
        deadline = None if limit_s is None else time.monotonic() + limit_s
        while (left := self.remaining()) > 0:
            if deadline is not None:
                left = min(left, deadline - time.monotonic())
                if left <= 0:
                    return
            breaker.sleep(min(left, 0.5))


def parse_duration(text: str) -> float | None:
    """OpenAI's reset headers ("20ms", "1s", "6m0s", "1h2m3.5s") or Google's "38s" in seconds."""
    value = text.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    parts = _DURATION_PART.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(number) * scale[unit] for number, unit in parts)
