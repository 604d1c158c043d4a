"""Chatbot limits: 429/503 are waited out as the chatbot asks, then reported as rate limiting (inconclusive);
every connector keeps its chatbot's pace (least interval between requests, most conversations open at once)."""

from __future__ import annotations

import itertools
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from engine.connectors import (
    ChatbotHTTPError,
    ChatbotRateLimited,
    RetryPolicy,
    create_connector,
    get_technology,
    technology_names,
)
from engine.connectors.pacing import Pacer, Pacing
from engine.connectors.transport import retry_after_s
from engine.conversation import ErrorCode
from engine.evaluation.scoring import error_reason
from engine.sensei import connector_error_code, describe
from tests.doubles.connectors import FakeResponse, FakeServer, TaskytoProtocol
from tests.engine.connectors.conftest import FAST, echo

BUSY = {"error": "too many requests"}


def _taskyto(server, guard, retry=FAST, **params):
    return create_connector(
        {"technology": "taskyto", "base_url": server.base_url, **params}, guard, retry=retry
    )


@pytest.mark.parametrize("status", [429, 503])
def test_a_refused_turn_is_sent_again_after_retry_after(local_guard, status):
    with FakeServer(TaskytoProtocol(echo)) as server, _taskyto(server, local_guard) as bot:
        bot.new_conversation()
        server.inject(
            FakeResponse.json(BUSY, status, headers={"Retry-After": "1"}), path_contains="/user_message"
        )
        started = time.monotonic()
        assert bot.send("hello").messages == ["You said: hello"]
        assert time.monotonic() - started >= 0.95  # it waited as asked
    assert len(server.requests_to("/user_message")) == 2


def test_persistent_refusals_are_rate_limiting_not_a_chatbot_fault(local_guard):
    with FakeServer(TaskytoProtocol(echo)) as server, _taskyto(server, local_guard) as bot:
        bot.new_conversation()
        server.inject(
            FakeResponse.json(BUSY, 429, headers={"Retry-After": "0"}),
            path_contains="/user_message",
            times=99,
        )
        with pytest.raises(ChatbotRateLimited) as limited:
            bot.send("hello")
    assert len(server.requests_to("/user_message")) == 1 + FAST.rate_limit_retries
    error = limited.value
    assert error.status == 429 and "3 retries" in error.user_message and "max_sessions" in error.user_message
    assert isinstance(error, ChatbotHTTPError)  # callers that handle HTTP errors still do
    code = connector_error_code(error)
    assert code == ErrorCode.RATE_LIMITED
    assert describe(code).kind == "setup"  # inconclusive: no finding about the chatbot
    assert error_reason(code) is None  # the bench does not count it as a kill or a false alarm either


def test_a_503_that_persists_is_no_crash_finding_but_a_500_is(local_guard):
    with FakeServer(TaskytoProtocol(echo)) as server, _taskyto(server, local_guard) as bot:
        bot.new_conversation()
        server.inject(
            FakeResponse.json(BUSY, 503), path_contains="/user_message", times=1 + FAST.rate_limit_retries
        )
        with pytest.raises(ChatbotRateLimited) as overloaded:
            bot.send("hello")
        assert connector_error_code(overloaded.value) == ErrorCode.RATE_LIMITED
        server.inject(FakeResponse.json({"error": "boom"}, 500), path_contains="/user_message", times=99)
        with pytest.raises(ChatbotHTTPError) as crashed:
            bot.send("again")
    assert not isinstance(crashed.value, ChatbotRateLimited)
    assert connector_error_code(crashed.value) == ErrorCode.CHATBOT_CRASH


def test_a_wait_longer_than_parley_accepts_is_not_waited_for(local_guard):
    with FakeServer(TaskytoProtocol(echo)) as server, _taskyto(server, local_guard) as bot:
        server.inject(
            FakeResponse.json(BUSY, 429, headers={"Retry-After": "3600"}), path_contains="/conversation/new"
        )
        started = time.monotonic()
        with pytest.raises(ChatbotRateLimited) as limited:
            bot.new_conversation()
        assert time.monotonic() - started < 5
    assert limited.value.retry_after_s == 3600
    assert "asked to wait 3600 s" in limited.value.user_message


def test_retry_after_reads_seconds_and_http_dates():
    now = datetime(2027, 3, 10, 12, 0, tzinfo=UTC)

    def response(value):
        return httpx.Response(429, headers={"Retry-After": value} if value else {})

    assert retry_after_s(response("7")) == 7
    assert retry_after_s(response(format_datetime(now + timedelta(seconds=30), usegmt=True)), now=now) == 30
    assert retry_after_s(response(format_datetime(now - timedelta(seconds=30), usegmt=True)), now=now) == 0
    assert retry_after_s(response(None)) is None
    assert retry_after_s(response("soon")) is None


@pytest.mark.parametrize("name", technology_names())
def test_every_technology_takes_the_pacing_parameters_last_with_defaults(name):
    technology = get_technology(name)
    parameters = technology.parameters()
    assert [p.name for p in parameters[-2:]] == ["min_interval_s", "max_sessions"]
    by_name = {p.name: p for p in parameters}
    assert by_name["min_interval_s"].type == "number" and by_name["min_interval_s"].default == 0.0
    assert by_name["max_sessions"].type == "integer" and by_name["max_sessions"].default == 8
    assert not by_name["max_sessions"].required
    settings = technology.validate({**technology.example, "min_interval_s": 0.5, "max_sessions": 2})
    assert (settings.min_interval_s, settings.max_sessions) == (0.5, 2)


def test_bad_pacing_values_are_named():
    technology = get_technology("taskyto")
    with pytest.raises(Exception, match="max_sessions"):
        technology.validate({**technology.example, "max_sessions": 0})


def test_requests_to_one_chatbot_keep_the_least_interval_across_conversations(local_guard):
    with FakeServer(TaskytoProtocol(echo)) as server:
        bots = [_taskyto(server, local_guard, min_interval_s=0.2) for _ in range(2)]
        try:
            for bot in bots:
                bot.new_conversation()
            threads = [threading.Thread(target=bot.send, args=("hi",)) for bot in bots for _ in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            for bot in bots:
                bot.close()
        stamps = sorted(r.received_at for r in server.requests)
    assert len(stamps) == 6  # two openings, four turns
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert min(gaps) >= 0.17, gaps


def test_conversations_beyond_max_sessions_wait_for_a_free_slot(local_guard):
    opened: list[str] = []
    with FakeServer(TaskytoProtocol(echo)) as server:
        first = _taskyto(server, local_guard, max_sessions=1)
        second = _taskyto(server, local_guard, max_sessions=1)
        first.new_conversation()
        opened.append("first")

        def open_second():
            second.new_conversation()
            opened.append("second")

        waiter = threading.Thread(target=open_second)
        waiter.start()
        time.sleep(0.3)
        assert opened == ["first"]  # the second conversation waits for the only slot
        first.close()
        waiter.join(timeout=5)
        second.close()
    assert opened == ["first", "second"]


def test_a_pacer_hands_out_turns_in_order_on_its_clock():
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds):
        slept.append(seconds)
        now[0] += seconds

    pacer = Pacer(Pacing(min_interval_s=2.0, max_sessions=1), clock=lambda: now[0], sleep=sleep)
    assert [pacer.wait_turn() for _ in range(3)] == [0.0, 2.0, 2.0]
    now[0] += 10
    assert pacer.wait_turn() == 0.0
    pacer.take_slot()
    with pytest.raises(Exception, match="session slots"):
        pacer.take_slot(timeout_s=0.05)
    pacer.give_slot()


def test_the_default_policy_waits_patiently():
    policy = RetryPolicy()
    assert policy.rate_limit_retries == 3 and policy.max_retry_after_s == 60


class _ClosingBot:
    """A JSON chatbot whose reply says `"done": true` once the user says bye."""

    def handle(self, request):
        text = request.json()["text"]
        return FakeResponse.json({"reply": f"You said: {text}", "done": "bye" in text})


def test_the_http_technology_reads_the_chatbot_s_end_flag(local_guard):
    with FakeServer(_ClosingBot()) as server:
        params = {
            "technology": "http",
            "base_url": server.base_url,
            "send_message": {"path": "/chat", "payload_template": {"text": "{user_msg}"}},
            "response_path": "reply",
            "ended_path": "done",
        }
        with create_connector(params, local_guard, retry=FAST) as bot:
            assert bot.send("hello").ended is False
            assert bot.send("bye now").ended is True
        without = {k: v for k, v in params.items() if k != "ended_path"}
        with create_connector(without, local_guard, retry=FAST) as bot:
            assert bot.send("bye now").ended is False
