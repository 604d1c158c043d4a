"""Which failures are worth another attempt, how long to wait, and what to tell the user when we give up.

Retried: 429 (waiting what `Retry-After` asks), 5xx, timeouts, broken connections and unreadable responses,
with exponential back-off and jitter, bounded by a number of attempts and by total time (a wait that would
overrun the total is not started). Never retried: a rejected key (401/403), a refused request (400/404/422),
and an address the egress guard refused — the same request would fail the same way.
The OpenAI SDK's own retries are switched off (`max_retries=0`) so there is exactly one retry loop.
"""

from __future__ import annotations

import email.utils
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import httpx
import openai
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential_jitter,
)

from engine.egress import EgressDenied
from engine.llm.errors import (
    LLMAuthError,
    LLMError,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
)
from engine.llm.redact import Redactor

logger = logging.getLogger("engine.llm")
T = TypeVar("T")
_DETAIL_LIMIT = 300


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds of the retry loop; tests shrink the delays to milliseconds."""

    max_attempts: int = 5
    initial_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter_s: float = 1.0
    max_total_s: float = 180.0


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the provider asked us to wait: `retry-after-ms`, `Retry-After` in seconds or as an HTTP date."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def egress_denial(exc: BaseException) -> EgressDenied | None:
    """The SDK wraps whatever the transport raised in APIConnectionError; find a guard refusal inside."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, EgressDenied):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def is_malformed_response(exc: BaseException) -> bool:
    """A 2xx answer that is not the JSON the protocol promises (a proxy's HTML page, a truncated body)."""
    return isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError) or (
        isinstance(exc, ValueError) and "Unexpected response type" in str(exc)
    )


def is_retryable(exc: BaseException) -> bool:
    if egress_denial(exc) is not None:
        return False
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError | httpx.TransportError) or is_malformed_response(exc)


def _wait(policy: RetryPolicy) -> Callable[[RetryCallState], float]:
    backoff = wait_exponential_jitter(
        multiplier=policy.initial_delay_s, max=policy.max_delay_s, jitter=policy.jitter_s
    )

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, openai.APIStatusError):
            asked = parse_retry_after(exc.response.headers)
            if asked is not None:
                # The provider knows when the window reopens; earlier would only earn another 429.
                return asked
        return float(backoff(state))

    return wait


def call_with_retries(
    fn: Callable[[], T], *, policy: RetryPolicy, describe: str, redact: Redactor
) -> tuple[T, int]:
    """Run `fn` under the policy; return its result and the number of attempts, or raise the last error."""

    def log_retry(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        logger.warning(
            "%s failed (%s); attempt %d of %d, retrying in %.2f s",
            describe,
            redact(f"{type(exc).__name__}: {exc}"),
            state.attempt_number,
            policy.max_attempts,
            wait,
        )

    retrying = Retrying(
        stop=stop_after_attempt(policy.max_attempts) | stop_before_delay(policy.max_total_s),
        wait=_wait(policy),
        retry=retry_if_exception(is_retryable),
        before_sleep=log_retry,
        reraise=True,
    )
    attempts = 0

    def counted() -> T:
        nonlocal attempts
        attempts += 1
        return fn()

    try:
        return retrying(counted), attempts
    except BaseException as exc:
        exc.add_note(f"parley-attempts={attempts}")
        raise


def attempts_of(exc: BaseException) -> int:
    for note in getattr(exc, "__notes__", []):
        if note.startswith("parley-attempts="):
            return int(note.removeprefix("parley-attempts="))
    return 1


def _detail(exc: BaseException, redact: Redactor) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    text = redact(" ".join(str(message).split()))
    return text if len(text) <= _DETAIL_LIMIT else text[:_DETAIL_LIMIT] + "…"


def to_llm_error(
    exc: BaseException, *, provider_name: str, model: str, timeout_s: float, redact: Redactor
) -> Exception:
    """The user-facing error for a failure the retry loop gave up on (or never retried)."""
    denied = egress_denial(exc)
    if denied is not None:
        return denied
    if isinstance(exc, LLMError):
        return exc
    tries = attempts_of(exc)
    after = f" after {tries} attempts" if tries > 1 else ""
    if isinstance(exc, openai.AuthenticationError):
        return LLMAuthError(f"The API key was rejected by {provider_name}.")
    if isinstance(exc, openai.PermissionDeniedError):
        return LLMAuthError(
            f"The API key was refused access by {provider_name} (HTTP 403): it may not be allowed to use "
            f"the model {model!r}."
        )
    if isinstance(exc, openai.RateLimitError):
        asked = parse_retry_after(exc.response.headers)
        wait = f" (it asked to wait {asked:.0f} s)" if asked else ""
        return LLMRateLimitError(
            f"{provider_name} kept refusing calls for making too many requests{after}{wait}: "
            f"{_detail(exc, redact)}. Try again later or lower the concurrency."
        )
    if isinstance(exc, openai.NotFoundError):
        return LLMRequestError(
            f"{provider_name} does not offer the model {model!r} (HTTP 404): {_detail(exc, redact)}"
        )
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code >= 500 or exc.status_code in (408, 409):
            return LLMUnavailableError(
                f"{provider_name} failed{after} (HTTP {exc.status_code}): {_detail(exc, redact)}. "
                "Try again later."
            )
        return LLMRequestError(
            f"{provider_name} refused the request (HTTP {exc.status_code}): {_detail(exc, redact)}"
        )
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return LLMUnavailableError(f"{provider_name} did not answer within {timeout_s:g} s{after}.")
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        cause = exc.__cause__ or exc.__context__ or exc
        return LLMUnavailableError(f"{provider_name} could not be reached{after}: {_detail(cause, redact)}")
    if is_malformed_response(exc):
        return LLMUnavailableError(
            f"{provider_name} answered with something that is not a chat completion{after}: "
            f"{_detail(exc, redact)}"
        )
    return exc if isinstance(exc, Exception) else RuntimeError(str(exc))
