"""Outages and rate limits: the circuit breaker stops every call of a run with one message, and a 429 makes the
run's concurrent calls back off together (engine.llm.breaker, through the gateway and the strict double)."""

from __future__ import annotations

import threading
import time

import pytest

from engine.llm import LLMError, LLMProviderDown, ProviderState, RetryPolicy, user
from engine.llm.breaker import CircuitBreaker, RatePause, parse_duration
from engine.llm.retry import rate_window_wait

# Real back-off sizes (1 s, 2 s, 4 s...) as a worker uses them; the breaker must not wait for them to run out.
REAL_RETRY = RetryPolicy()


def test_the_breaker_opens_after_the_threshold_and_a_success_resets_the_count():
    breaker = CircuitBreaker("the server at x", threshold=3)
    breaker.record_failure("HTTP 503: down")
    breaker.record_failure("HTTP 503: down")
    breaker.record_success()
    breaker.record_failure("HTTP 503: down")
    breaker.record_failure("HTTP 503: down")
    assert not breaker.is_open
    breaker.record_failure("HTTP 503: still down")
    assert breaker.is_open
    with pytest.raises(LLMProviderDown) as down:
        breaker.check()
    assert down.value.user_message.startswith(
        "The LLM provider at the server at x has failed 3 times in a row: HTTP 503: still down."
    )
    assert down.value.ends_run


def test_a_sleeping_retry_wakes_as_soon_as_the_breaker_opens():
    breaker = CircuitBreaker("x", threshold=1)
    woke: list[float] = []

    def sleeper() -> None:
        started = time.monotonic()
        with pytest.raises(LLMProviderDown):
            breaker.sleep(30)
        woke.append(time.monotonic() - started)

    thread = threading.Thread(target=sleeper)
    thread.start()
    time.sleep(0.1)
    breaker.record_failure("gone")
    thread.join(timeout=5)
    assert woke and woke[0] < 2


def test_durations_of_rate_limit_headers():
    assert parse_duration("20ms") == pytest.approx(0.02)
    assert parse_duration("6m0s") == 360
    assert parse_duration("1h2m3.5s") == pytest.approx(3723.5)
    assert parse_duration("38s") == 38
    assert parse_duration("2") == 2
    assert parse_duration("soon") is None
    headers = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1.5s"}
    assert rate_window_wait(headers) == 1.5
    assert (
        rate_window_wait({"x-ratelimit-remaining-requests": "12", "x-ratelimit-reset-requests": "1s"}) is None
    )


def test_a_pause_holds_every_caller_and_a_shorter_hold_does_not_shorten_it():
    pause = RatePause()
    pause.hold(0.4)
    pause.hold(0.1)
    started = time.monotonic()
    pause.wait(CircuitBreaker("x"))
    assert 0.3 < time.monotonic() - started < 2


def test_a_provider_that_is_down_stops_every_concurrent_call_within_seconds_with_its_message(
    fake_llm, make_client
):
    fake_llm.inject("server_error", times=1000, status=503, message="upstream connect error")
    client = make_client(retry=REAL_RETRY, state=ProviderState(), config={"max_concurrency": 4})
    errors: list[BaseException] = []

    def call(i: int) -> None:
        try:
            client.complete([user(f"q{i}")], tag="sensei.user_turn")
        except LLMError as exc:
            errors.append(exc)

    started = time.monotonic()
    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started

    # Without the breaker each call would retry 5 times over ~15 s; with it, all stop after 5 failures in a row.
    assert elapsed < 8, elapsed
    assert len(errors) == 6 and all(isinstance(e, LLMProviderDown) for e in errors)
    message = errors[0].user_message
    assert "has failed 5 times in a row: HTTP 503: upstream connect error" in message
    assert len(fake_llm.chat_requests()) <= 5 + 4  # the threshold, plus calls already in flight


def test_a_429_with_retry_after_makes_concurrent_calls_wait_together_and_none_fails(fake_llm, make_client):
    fake_llm.latency_s = 0.05
    fake_llm.inject("rate_limit", times=1, retry_after=2)
    client = make_client(retry=REAL_RETRY, config={"max_concurrency": 4})
    answers: list[str] = []
    first_sent = threading.Event()

    def call(i: int) -> None:
        if i:
            first_sent.wait(5)
            time.sleep(0.3)  # the others start while the first waits out its Retry-After
        else:
            first_sent.set()
        answers.append(client.complete([user(f"q{i}")], tag="sensei.user_turn"))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(answers) == 4
    requests = fake_llm.chat_requests()
    assert [r.status for r in requests].count(429) == 1  # the others did not go and earn their own 429
    refused = next(r for r in requests if r.status == 429)
    later = [r for r in requests if r.status == 200]
    assert all(r.started - refused.finished >= 1.9 for r in later)


def test_geminis_retry_delay_in_the_error_body_is_honoured(make_client, local_guard):
    from engine.llm.offline.server import running_fake_server

    with running_fake_server(provider="gemini", models=("gemini-2.0-flash",)) as server:
        server.inject("rate_limit", times=1, retry_after=1)
        client = make_client(
            config={"provider": "gemini", "base_url": server.base_url, "model": "gemini-2.0-flash"}
        )
        assert client.complete([user("hi")], tag="t.gemini")
        refused, answered = server.chat_requests()
        assert refused.status == 429 and "retry-after" not in {k.lower() for k in refused.error[0]}
        assert answered.started - refused.finished >= 0.95


def test_a_spent_rate_window_in_the_headers_pauses_the_next_call(fake_llm, make_client):
    fake_llm.set_replies(
        "t.window",
        [
            {
                "content": "first",
                "headers": {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "800ms"},
            },
            "second",
        ],
    )
    client = make_client()
    assert client.complete([user("a")], tag="t.window") == "first"
    assert client.complete([user("b")], tag="t.window") == "second"
    first, second = fake_llm.chat_requests()
    assert second.started - first.finished >= 0.75
