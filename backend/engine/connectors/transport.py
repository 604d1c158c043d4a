"""HTTP for connectors: one guarded httpx client per connector, the retry policy, and error classification.

Every request goes through `engine.egress.guarded_client`, so the egress guard vets and pins each destination.
`HttpChannel.request` applies the retry policy by phase:

- `phase="open"` (opening a conversation): retried on any transport failure and on 429/5xx answers;
- `phase="turn"` (a user turn): retried only when the connection could not be made, i.e. the request never
  left; a timeout or an error status after that is reported, never repeated.

In both phases a 429 or 503 answer is the chatbot refusing the load, not processing the request: it is sent
again after the answer's `Retry-After` (seconds or an HTTP date; without one, the back-off), at most
`RetryPolicy.rate_limit_retries` times. If the refusals persist, or the chatbot asks for a longer wait than
`max_retry_after_s`, `ChatbotRateLimited` says so (an inconclusive conversation, never a chatbot fault).

`check_status` and `decode_json` turn what came back into the classes of `errors.py`, with messages that name
the URL (without its query string, which may carry a token).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
from pydantic import JsonValue
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter, wait_none

from engine.connectors.base import ConnectorContext
from engine.connectors.errors import (
    ChatbotHTTPError,
    ChatbotProtocolError,
    ChatbotRateLimited,
    ChatbotTimeout,
    ChatbotUnavailable,
    ConnectorConfigError,
    SessionLost,
)
from engine.egress import InvalidAddress, guarded_client

Phase = Literal["open", "turn"]
Response = httpx.Response
RATE_LIMITED = (429, 503)
EXCERPT_CHARS = 300
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def display_url(url: str | httpx.URL) -> str:
    """The URL as shown to users: no credentials, no query string. Never raises: a URL httpx cannot read (which
    an error message is about to name) is shown as it was written, without userinfo and query."""
    try:
        parsed = httpx.URL(str(url))
    except httpx.InvalidURL:
        written = urlsplit(str(url))
        return f"{written.scheme}://{written.netloc.rpartition('@')[2]}{written.path}"
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.scheme}://{parsed.host}{port}{parsed.path}"


def join_url(base_url: str, path: str) -> str:
    """`base_url` followed by `path`, exactly one slash between them (no urljoin surprises: a base URL with a
    path keeps it whether or not it ends in a slash)."""
    if not path:
        return base_url
    return base_url.rstrip("/") + "/" + path.lstrip("/")


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit] + "…"


def _looks_like_html(response: httpx.Response) -> bool:
    if "html" in response.headers.get("content-type", "").lower():
        return True
    start = response.text.lstrip()[:15].lower()
    return start.startswith(("<!doctype", "<html", "<head", "<body"))


def _html_title(text: str) -> str:
    found = _TITLE.search(text)
    title = found.group(1) if found else _TAG.sub(" ", text)
    return " ".join(title.split())[:120]


def error_detail(response: httpx.Response) -> str:
    """The most informative short text of an error response."""
    if _looks_like_html(response):
        title = _html_title(response.text)
        return f"an HTML page ({title})" if title else "an HTML page"
    try:
        body: Any = response.json()
    except ValueError:
        return excerpt(response.text, 200)
    if isinstance(body, dict):
        for key in ("error", "detail", "message"):
            value = body.get(key)
            if isinstance(value, dict):
                value = value.get("message", value)
            if isinstance(value, str) and value:
                return excerpt(value, 200)
    return excerpt(response.text, 200)


def check_status(response: httpx.Response, *, lost_session_on: Collection[int] = (), hint: str = "") -> None:
    """Raise for an error status: `SessionLost` for the statuses that mean "unknown conversation" for this
    technology, `ChatbotHTTPError` otherwise."""
    status = response.status_code
    if status < 400:
        return
    url = display_url(response.request.url)
    detail = error_detail(response)
    if status in lost_session_on:
        raise SessionLost(
            f"The chatbot at {url} no longer knows this conversation (HTTP {status}: {detail}); "
            "it may have restarted. Start a new conversation."
        )
    reason = f" {response.reason_phrase}" if response.reason_phrase else ""
    message = f"The chatbot at {url} answered HTTP {status}{reason}: {detail}."
    raise ChatbotHTTPError(
        message + (f" {hint}" if hint else ""), status=status, body_excerpt=excerpt(response.text)
    )


def decode_json(response: httpx.Response) -> JsonValue:
    """The JSON body, or `ChatbotProtocolError` saying what came instead."""
    url = display_url(response.request.url)
    text = response.text
    if _looks_like_html(response):
        title = _html_title(text)
        raise ChatbotProtocolError(
            f"The chatbot at {url} answered with an HTML page{f' ({title})' if title else ''} instead of JSON.",
            body_excerpt=excerpt(text),
        )
    if not text.strip():
        raise ChatbotProtocolError(f"The chatbot at {url} answered with an empty body instead of JSON.")
    try:
        value: JsonValue = json.loads(text)
    except ValueError as exc:
        raise ChatbotProtocolError(
            f"The chatbot at {url} answered with invalid JSON ({exc}): {excerpt(text, 120)!r}",
            body_excerpt=excerpt(text),
        ) from None
    return value


def retry_after_s(response: httpx.Response, *, now: datetime | None = None) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds (0 for a date in the past); None without one."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class _RetryableStatus(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _rate_limited(
    response: httpx.Response, retries: int, asked: float | None, longest_wait: float
) -> ChatbotRateLimited:
    status = response.status_code
    url = display_url(response.request.url)
    if asked is not None and asked > longest_wait:
        why = f"asked to wait {asked:g} s, longer than the {longest_wait:g} s Parley waits"
    else:
        why = f"still refused after {retries} {'retry' if retries == 1 else 'retries'}"
    return ChatbotRateLimited(
        f"The chatbot at {url} refused the load (HTTP {status}: {error_detail(response)}); {why}. Lower the "
        "connector's pace (min_interval_s, max_sessions) or the run's concurrency.",
        status=status,
        retry_after_s=asked,
        body_excerpt=excerpt(response.text),
    )


def _never_left(exc: BaseException) -> bool:
    # ConnectError/ConnectTimeout: no connection; PoolTimeout: no connection slot. The request was not sent.
    return isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, httpx.UnsupportedProtocol):
        return False
    return isinstance(exc, httpx.TransportError | _RetryableStatus)


def _classify(exc: httpx.HTTPError | httpx.InvalidURL, url: str, timeout: float) -> Exception:
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ConnectorConfigError(f"{url} is not a usable http:// or https:// URL.", field="base_url")
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return ChatbotUnavailable(f"Could not connect to the chatbot at {url} within {timeout:g} s.")
    if isinstance(exc, httpx.TimeoutException):
        return ChatbotTimeout(f"The chatbot at {url} did not answer within {timeout:g} s.")
    if isinstance(exc, httpx.ConnectError):
        reason = re.sub(r"\[Errno -?\d+\] ", "", str(exc)) or type(exc).__name__
        return ChatbotUnavailable(f"Could not connect to the chatbot at {url}: {reason}")
    return ChatbotUnavailable(f"The connection to the chatbot at {url} failed before a reply arrived: {exc}")


class HttpChannel:
    """The connector's HTTP client: guarded, with shared headers and the phase-aware retry policy."""

    def __init__(
        self,
        context: ConnectorContext,
        *,
        timeout: float,
        headers: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._retry = context.retry
        self._sleep = sleep
        self.timeout = timeout
        self._client = guarded_client(context.guard, headers=dict(headers or {}), follow_redirects=True)

    def request(
        self,
        method: str,
        url: str,
        *,
        phase: Phase,
        json_body: JsonValue = None,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> httpx.Response:
        """Send one request under the retry policy of `phase`; returns the response whatever its status."""
        seconds = timeout or self.timeout
        limits = httpx.Timeout(seconds, connect=min(seconds, 10.0))
        kwargs: dict[str, Any] = {"params": params, "headers": headers, "timeout": limits}
        if json_body is not None:
            kwargs["json"] = json_body

        def attempt() -> httpx.Response:
            response = self._client.request(method, url, **kwargs)
            status = response.status_code
            if phase == "open" and status >= 500 and status not in RATE_LIMITED:
                raise _RetryableStatus(response)
            return response

        policy = self._retry
        retrying = Retrying(
            stop=stop_after_attempt(max(1, policy.attempts)),
            wait=wait_exponential_jitter(initial=policy.first_wait_s, max=policy.max_wait_s)
            if policy.first_wait_s > 0
            else wait_none(),
            retry=retry_if_exception(_transient if phase == "open" else _never_left),
            sleep=self._sleep,
            reraise=True,
        )
        refusals = 0
        while True:
            try:
                response = retrying(attempt)
            except _RetryableStatus as last:
                return last.response
            except (
                httpx.HTTPError,
                httpx.InvalidURL,
            ) as exc:  # InvalidURL is no HTTPError: a redirect's bad host
                raise _classify(exc, display_url(url), seconds) from None
            except InvalidAddress as exc:  # the guard found a host in no valid form (a redirect's, here)
                raise ConnectorConfigError(
                    f"{display_url(url)}: {exc.user_message}", field="base_url"
                ) from None
            if response.status_code not in RATE_LIMITED:
                return response
            asked = retry_after_s(response)
            wait = asked if asked is not None else min(policy.max_wait_s, policy.first_wait_s * 2**refusals)
            if refusals >= policy.rate_limit_retries or wait > policy.max_retry_after_s:
                raise _rate_limited(response, refusals, asked, policy.max_retry_after_s)
            refusals += 1
            if wait > 0:
                self._sleep(wait)

    def close(self) -> None:
        self._client.close()
