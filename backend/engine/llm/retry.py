"""Which failures are worth another attempt, how long to wait, and what to tell the user when we give up.

Retried: 429 (waiting what `Retry-After` — or Gemini's `RetryInfo.retryDelay` — asks), 5xx, timeouts, broken
connections and unreadable responses, with exponential back-off and jitter, bounded by a number of attempts and
by total time (a wait that would overrun the total is not started). Never retried: a rejected key (401/403), a
refused request (400/404/422), an address the egress guard refused — the same request would fail the same way —
and a refusal dressed as a server error: a 5xx whose body is a request-validation message (llama-cpp-python
answers a `response_format` it does not know with HTTP 500 and pydantic's "1 validation error … Input should
be 'text' or 'json_object'"), or a 500 that repeats the body of the attempt before it word for word.
502/503/504, answers with `Retry-After` and a provider's stock text for passing trouble (OpenAI's
`server_error`, Gemini's `INTERNAL`, "please retry") keep their retries: they repeat one page while they
recover.
The SDK's own retries are off (`max_retries=0`) so there is exactly one retry loop, and it reports to the run's
circuit breaker and rate-limit pause (`engine.llm.breaker`): every failed attempt that looks like an outage
counts towards the breaker, and a 429 makes every call of the run to that provider wait, not just this one.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import openai

from engine.egress import EgressDenied
from engine.llm.breaker import CircuitBreaker, RatePause, parse_duration
from engine.llm.capabilities import error_messages
from engine.llm.errors import (
    LLMAuthError,
    LLMError,
    LLMModelNotFound,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
)
from engine.redact import Scrubber

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

    def backoff(self, attempt: int) -> float:
        """The wait after failed attempt number `attempt` (1-based), when the provider asked for none."""
        base = min(self.max_delay_s, self.initial_delay_s * 2.0 ** (attempt - 1))
        return float(base + random.uniform(0, self.jitter_s))  # noqa: S311 - jitter, not cryptography


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


def _retry_delay_in_body(body: Any) -> float | None:
    """Gemini says how long to wait inside the error: `details: [{"@type": "…RetryInfo", "retryDelay": "38s"}]`."""
    if isinstance(body, list) and body:
        body = body[0]
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    details = inner.get("details") if isinstance(inner, Mapping) else None
    for detail in details if isinstance(details, list) else ():
        if isinstance(detail, Mapping) and str(detail.get("@type", "")).endswith("RetryInfo"):
            return parse_duration(str(detail.get("retryDelay", "")))
    return None


def response_body(exc: openai.APIStatusError) -> Any:
    """The error body exactly as the server sent it (the SDK keeps only part of it in `exc.body`)."""
    try:
        return json.loads(exc.response.text)
    except (ValueError, AttributeError):
        return exc.body


def retry_after_of(exc: BaseException) -> float | None:
    if not isinstance(exc, openai.APIStatusError):
        return None
    asked = parse_retry_after(exc.response.headers)
    return asked if asked is not None else _retry_delay_in_body(response_body(exc))


def rate_window_wait(headers: Mapping[str, str]) -> float | None:
    """After a success: when OpenAI's rate-limit headers say no request or token is left, how long until reset."""
    waits = []
    for kind in ("requests", "tokens"):
        remaining = headers.get(f"x-ratelimit-remaining-{kind}")
        if remaining is not None and remaining.strip() == "0":
            wait = parse_duration(headers.get(f"x-ratelimit-reset-{kind}", ""))
            if wait:
                waits.append(wait)
    return max(waits) if waits else None


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


_VALIDATION = re.compile(
    r"validation error|literal_error|input should be|extra (inputs|fields) (are|is) not permitted|"
    r"field required|unsupported_(value|parameter)|unrecognized request argument|is not supported",
    re.IGNORECASE,
)
_GATEWAY_STATUSES = (502, 503, 504)


def error_text(exc: openai.APIStatusError) -> str:
    """The error body's message (or the whole body), for comparing and matching."""
    body = response_body(exc)
    return error_messages(body)[0] or (json.dumps(body, default=str) if body is not None else "")


def is_validation_refusal(exc: BaseException) -> bool:
    """A server error that is really the server refusing the request's shape: retrying sends the same shape."""
    return (
        isinstance(exc, openai.APIStatusError)
        and exc.status_code >= 500
        and bool(_VALIDATION.search(error_text(exc)))
    )


_TRANSIENT_KINDS = frozenset({"server_error", "api_error", "overloaded_error", "internal", "unavailable"})
_TRANSIENT_WORDS = re.compile(r"retry|try again|overloaded|temporar|busy|capacity", re.IGNORECASE)


def _generic(exc: openai.APIStatusError) -> bool:
    """The provider's stock text for its own passing trouble (OpenAI's "The server had an error while processing
    your request", `type: server_error`; Gemini's `INTERNAL`): the same words every time, and worth a retry."""
    body = response_body(exc)
    inner = body[0] if isinstance(body, list) and body else body
    inner = inner.get("error", inner) if isinstance(inner, Mapping) else None
    kinds = (
        {str(inner.get(key, "")).lower() for key in ("type", "status", "code")}
        if isinstance(inner, Mapping)
        else set()
    )
    return bool(kinds & _TRANSIENT_KINDS) or bool(_TRANSIENT_WORDS.search(error_text(exc)))


def _repeats(exc: BaseException, previous: str | None) -> bool:
    """The same refusal as the attempt before: a server that answers one request the same way twice will a
    third time. Not for 429/408/409, gateway statuses, answers that ask to wait or a provider's stock text for
    passing trouble (see the module docstring)."""
    if previous is None or not isinstance(exc, openai.APIStatusError):
        return False
    if exc.status_code in (408, 409, 429, *_GATEWAY_STATUSES) or retry_after_of(exc) is not None:
        return False
    return error_text(exc) == previous and not _generic(exc)


def is_retryable(exc: BaseException) -> bool:
    if egress_denial(exc) is not None:
        return False
    if isinstance(exc, openai.APIStatusError):
        if is_validation_refusal(exc):
            return False
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return isinstance(exc, openai.APIConnectionError | httpx.TransportError) or is_malformed_response(exc)


def is_outage(exc: BaseException) -> bool:
    """A failure that says the provider is not working (as opposed to busy, or refusing this request)."""
    return is_retryable(exc) and not (isinstance(exc, openai.APIStatusError) and exc.status_code == 429)


def _detail(exc: BaseException, redact: Scrubber) -> str:
    message: Any = None
    if isinstance(exc, openai.APIStatusError):
        message = error_messages(response_body(exc))[0] or None
    message = message or getattr(exc, "message", None) or str(exc) or type(exc).__name__
    text = redact(" ".join(str(message).split()))
    return text if len(text) <= _DETAIL_LIMIT else text[:_DETAIL_LIMIT] + "…"


def outage_detail(exc: BaseException, redact: Scrubber, timeout_s: float) -> str:
    """One line for the circuit breaker's message: what the provider last did wrong."""
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {_detail(exc, redact)}"
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return f"no answer within {timeout_s:g} s"
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        cause = exc.__cause__ or exc.__context__ or exc
        return f"could not be reached ({_detail(cause, redact)})"
    return f"an answer that is not a chat completion ({_detail(exc, redact)})"


def call_with_retries(
    fn: Callable[[], T],
    *,
    policy: RetryPolicy,
    describe: str,
    redact: Scrubber,
    breaker: CircuitBreaker | None = None,
    pause: RatePause | None = None,
    timeout_s: float = 0.0,
    on_failure: Callable[[Exception], None] | None = None,
) -> tuple[T, int]:
    """Run `fn` under the policy; return its result and the number of attempts, or raise the last error.

    Before each attempt: wait out the provider's rate-limit pause, and fail at once if its breaker is open.
    `on_failure` hears about every failed attempt, before the decision to retry."""
    breaker = breaker or CircuitBreaker(describe, threshold=10**9)
    started = time.monotonic()
    attempt = 0
    previous: str | None = None  # the error body of the attempt before, if it failed with one
    while True:
        attempt += 1
        try:
            if pause is not None:
                pause.wait(breaker)
            breaker.check()
            result = fn()
        except Exception as exc:
            if isinstance(exc, LLMError):  # the breaker opened: nothing to retry
                exc.add_note(f"parley-attempts={attempt}")
                raise
            if is_outage(exc) and not _repeats(exc, previous):
                breaker.record_failure(outage_detail(exc, redact, timeout_s))
            if on_failure is not None:
                on_failure(exc)
            asked = retry_after_of(exc)
            wait = asked if asked is not None else policy.backoff(attempt)
            repeated = _repeats(exc, previous)
            previous = error_text(exc) if isinstance(exc, openai.APIStatusError) else None
            if (
                not is_retryable(exc)
                or repeated
                or attempt >= policy.max_attempts
                or time.monotonic() - started + wait > policy.max_total_s
            ):
                exc.add_note(f"parley-attempts={attempt}")
                raise
            if isinstance(exc, openai.RateLimitError) and pause is not None and asked:
                pause.hold(asked)  # the other calls to this provider wait too: they would only earn a 429
            logger.warning(
                "%s failed (%s); attempt %d of %d, retrying in %.2f s",
                describe,
                redact(f"{type(exc).__name__}: {exc}"),
                attempt,
                policy.max_attempts,
                wait,
            )
            try:
                breaker.sleep(wait)
            except LLMError as down:
                down.add_note(f"parley-attempts={attempt}")
                raise down from None
            continue
        breaker.record_success()
        return result, attempt


def attempts_of(exc: BaseException) -> int:
    for note in getattr(exc, "__notes__", []):
        if note.startswith("parley-attempts="):
            return int(note.removeprefix("parley-attempts="))
    return 1


def _invalid_key_400(exc: BaseException) -> bool:
    """Gemini answers a wrong key with HTTP 400 ("API key not valid", reason API_KEY_INVALID), not 401."""
    if not isinstance(exc, openai.BadRequestError):
        return False
    text = json.dumps(response_body(exc)).lower()
    return "api key not valid" in text or "api_key_invalid" in text


def to_llm_error(
    exc: BaseException, *, provider_name: str, model: str, timeout_s: float, redact: Scrubber
) -> Exception:
    """The user-facing error for a failure the retry loop gave up on (or never retried)."""
    denied = egress_denial(exc)
    if denied is not None:
        return denied
    if isinstance(exc, LLMError):
        return exc
    tries = attempts_of(exc)
    after = f" after {tries} attempts" if tries > 1 else ""
    if isinstance(exc, openai.AuthenticationError) or _invalid_key_400(exc):
        return LLMAuthError(f"The API key was rejected by {provider_name}.")
    if isinstance(exc, openai.PermissionDeniedError):
        return LLMAuthError(
            f"The API key was refused access by {provider_name} (HTTP 403): it may not be allowed to use "
            f"the model {model!r}."
        )
    if isinstance(exc, openai.RateLimitError):
        asked = retry_after_of(exc)
        wait = f" (it asked to wait {asked:.0f} s)" if asked else ""
        return LLMRateLimitError(
            f"{provider_name} kept refusing calls for making too many requests{after}{wait}: "
            f"{_detail(exc, redact)}. Try again later or lower the concurrency."
        )
    if isinstance(exc, openai.NotFoundError):
        return LLMModelNotFound(
            f"{provider_name} does not offer the model {model!r} (HTTP 404): {_detail(exc, redact)}"
        )
    if isinstance(exc, openai.APIStatusError):
        if is_validation_refusal(exc):
            return LLMRequestError(
                f"{provider_name} refused the request (HTTP {exc.status_code}, a validation error): "
                f"{_detail(exc, redact)}"
            )
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
