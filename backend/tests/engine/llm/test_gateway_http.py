"""The gateway against the fake OpenAI-compatible server: real HTTP through the egress-guarded clients."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from pydantic import BaseModel, Field

from engine.egress import EgressDenied, EgressGuard
from engine.llm import (
    Budget,
    BudgetExceeded,
    LLMAuthError,
    LLMOutputError,
    LLMRateLimitError,
    LLMRequestError,
    LLMUnavailableError,
    RetryPolicy,
    UsageLedger,
    system,
    user,
)
from tests.engine.llm.conftest import FAKE_KEY


class Verdict(BaseModel):
    """Whether the chatbot answered the question."""

    answered: bool
    reason: str = Field(min_length=3)
    confidence: float = Field(ge=0, le=1)


def test_usage_and_cost_are_recorded_from_the_provider_usage_fields(fake_llm, make_client):
    fake_llm.set_replies(
        "tracer.extract", {"content": "ok", "usage": {"prompt_tokens": 2000, "completion_tokens": 500}}
    )
    ledger = UsageLedger()
    client = make_client(ledger=ledger)

    assert client.complete([system("You extract."), user("Hello")], tag="tracer.extract") == "ok"

    [record] = ledger.records
    assert (record.provider, record.model, record.tag) == (
        "openai-compatible",
        "gpt-4o-mini",
        "tracer.extract",
    )
    assert (record.prompt_tokens, record.completion_tokens) == (2000, 500)
    # gpt-4o-mini: $0.15 per 1M input, $0.60 per 1M output.
    assert record.cost_usd == pytest.approx(2000 * 0.15e-6 + 500 * 0.60e-6)
    assert record.latency_s > 0
    exported = ledger.to_json()
    assert exported["calls"] == 1
    assert exported["calls_by_tag"] == {"tracer.extract": 1}
    assert exported["cost_usd"] == pytest.approx(0.0006)


def test_every_call_carries_its_tag_and_model_to_the_server(fake_llm, make_client):
    make_client().complete([user("hi")], tag="sensei.user_turn")
    [request] = fake_llm.chat_requests()
    assert request.tag == "sensei.user_turn"
    assert request.headers["x-parley-tag"] == "sensei.user_turn"
    assert request.body["model"] == "gpt-4o-mini"
    assert request.messages == [{"role": "user", "content": "hi"}]


def test_a_429_is_retried_after_the_wait_the_server_asked_for(fake_llm, make_client):
    fake_llm.inject("rate_limit", retry_after=1)
    ledger = UsageLedger()

    answer = make_client(ledger=ledger).complete([user("hi")], tag="t.rate")

    first, second = fake_llm.chat_requests()
    assert (first.status, second.status) == (429, 200)
    # The back-off alone would wait ~10 ms; Retry-After asked for a whole second.
    assert second.started - first.finished >= 0.95
    assert answer
    assert ledger.records[0].attempts == 2


def test_a_rate_limit_asking_to_wait_beyond_the_time_allowance_gives_up_at_once(fake_llm, make_client):
    fake_llm.inject("rate_limit", retry_after=3600)
    started = time.monotonic()
    with pytest.raises(LLMRateLimitError, match="too many requests"):
        make_client().complete([user("hi")], tag="t.rate")
    assert time.monotonic() - started < 5
    assert len(fake_llm.chat_requests()) == 1


def test_server_errors_are_retried_with_backoff_until_the_attempts_run_out(fake_llm, make_client):
    fake_llm.inject("server_error", times=10, status=503)
    ledger = UsageLedger()
    with pytest.raises(LLMUnavailableError, match=r"failed after 4 attempts \(HTTP 503\)"):
        make_client(ledger=ledger).complete([user("hi")], tag="t.down")
    assert len(fake_llm.chat_requests()) == 4
    [record] = ledger.records
    assert (record.ok, record.error_code, record.attempts, record.cost_usd) == (
        False,
        "llm_unavailable",
        4,
        None,
    )


def test_a_transient_server_error_is_invisible_to_the_caller(fake_llm, make_client):
    fake_llm.inject("server_error", times=2)
    assert make_client().complete([user("hi")], tag="t.flaky")
    assert [r.status for r in fake_llm.chat_requests()] == [500, 500, 200]


def test_a_response_that_is_not_json_is_retried(fake_llm, make_client):
    fake_llm.inject("malformed_body")
    assert make_client().complete([user("hi")], tag="t.garbled")
    assert len(fake_llm.chat_requests()) == 2


def test_a_slow_server_times_out_with_a_readable_error(fake_llm, make_client):
    fake_llm.inject("slow", times=10, delay=1)
    client = make_client(
        config={"timeout_s": 0.2}, retry=RetryPolicy(max_attempts=2, initial_delay_s=0.01, jitter_s=0)
    )
    with pytest.raises(LLMUnavailableError, match=r"did not answer within 0\.2 s after 2 attempts"):
        client.complete([user("hi")], tag="t.slow")


def test_a_rejected_key_fails_at_once_without_retry_and_without_showing_the_key(
    fake_llm, make_client, caplog
):
    wrong_key = "sk-wrong-5e1b0c9d77aa42"
    caplog.set_level(logging.DEBUG)
    client = make_client(config={"api_key": wrong_key, "provider": "openai-compatible"})

    with pytest.raises(LLMAuthError) as rejected:
        client.complete([user("hi")], tag="t.auth")

    assert "The API key was rejected by the server at 127.0.0.1" in rejected.value.user_message
    assert len(fake_llm.chat_requests()) == 1
    # The fake server echoes the key it got, like real providers do; none of it may surface.
    assert fake_llm.chat_requests()[0].status == 401
    for text in (str(rejected.value), rejected.value.user_message, caplog.text):
        assert wrong_key not in text
        assert wrong_key[-6:] not in text


def test_a_key_echoed_in_an_error_message_is_redacted_from_the_error_and_the_log(
    fake_llm, make_client, caplog
):
    # Some proxies quote the request's credentials in their error pages.
    echoed = f"upstream refused Authorization: Bearer {FAKE_KEY}"
    fake_llm.inject("server_error", times=10, status=502, message=echoed)
    caplog.set_level(logging.DEBUG)

    with pytest.raises(LLMUnavailableError) as failed:
        make_client().complete([user("hi")], tag="t.echo")

    assert "upstream refused Authorization: Bearer [redacted]" in failed.value.user_message
    assert "Bearer [redacted]" in caplog.text  # the retry log lines quote the error too
    assert FAKE_KEY not in failed.value.user_message
    assert FAKE_KEY not in caplog.text


def test_malformed_structured_output_gets_exactly_one_repair_showing_the_problem(fake_llm, make_client):
    good = {"answered": True, "reason": "It gave the opening hours.", "confidence": 0.9}
    fake_llm.set_replies("check.verdict", [{"fault": "malformed_json"}, {"json": good}])
    ledger = UsageLedger()

    verdict = make_client(ledger=ledger).structured([user("Did it answer?")], Verdict, tag="check.verdict")

    assert verdict == Verdict(**good)
    first, repair = fake_llm.chat_requests()
    assert first.body["response_format"]["json_schema"]["name"] == "check_verdict"
    shown = repair.messages[-1]["content"]
    assert "not valid against the required JSON schema" in shown
    assert "Invalid JSON" in shown
    assert [r.repair for r in ledger.records] == [False, True]


def test_a_schema_violation_that_survives_the_repair_raises_a_typed_error_with_the_raw_text(
    fake_llm, make_client
):
    wrong = {"answered": "maybe", "reason": "no", "confidence": 7}
    fake_llm.set_replies("check.verdict", {"json": wrong})

    with pytest.raises(LLMOutputError) as failed:
        make_client().structured([user("Did it answer?")], Verdict, tag="check.verdict")

    assert len(fake_llm.chat_requests()) == 2
    assert failed.value.code == "llm_output_invalid"
    assert '"answered": "maybe"' in failed.value.raw_text
    assert "confidence" in failed.value.problems
    assert "Verdict" in failed.value.user_message


def test_a_structured_answer_cut_off_at_the_token_limit_is_a_clear_error_and_still_billed(
    fake_llm, make_client
):
    fake_llm.set_replies(
        "check.verdict",
        {
            "content": '{"answered": tr',
            "finish_reason": "length",
            "usage": {"prompt_tokens": 100, "completion_tokens": 8},
        },
    )
    ledger = UsageLedger()
    with pytest.raises(LLMOutputError, match="cut off at the completion token limit"):
        make_client(ledger=ledger).structured([user("?")], Verdict, tag="check.verdict", max_tokens=8)
    [record] = ledger.records
    assert (record.ok, record.completion_tokens) == (False, 8)
    assert record.cost_usd == pytest.approx(100 * 0.15e-6 + 8 * 0.60e-6)


def test_unscripted_structured_calls_get_schema_valid_answers(make_client):
    verdict = make_client().structured([user("?")], Verdict, tag="check.verdict")
    assert isinstance(verdict, Verdict)


def test_structured_output_falls_back_to_tool_calling_when_response_formats_are_refused(
    fake_llm, make_client
):
    fake_llm.json_schema_supported = False
    good = {"answered": False, "reason": "It changed the subject.", "confidence": 0.4}
    fake_llm.set_replies("check.verdict", {"json": good})
    client = make_client()

    assert client.structured([user("?")], Verdict, tag="check.verdict") == Verdict(**good)
    assert client.structured([user("?")], Verdict, tag="check.verdict") == Verdict(**good)

    first, second, third = fake_llm.chat_requests()
    assert (first.status, "response_format" in first.body) == (400, True)
    assert second.body["tool_choice"]["function"]["name"] == "check_verdict"
    # Once learnt, the client asks with tool calling straight away.
    assert "tools" in third.body


def test_a_refused_request_is_not_retried(fake_llm, make_client):
    fake_llm.json_schema_supported = False
    client = make_client(config={"structured_method": "json_schema"})
    with pytest.raises(LLMRequestError, match="HTTP 400"):
        client.structured([user("?")], Verdict, tag="check.verdict")
    assert len(fake_llm.chat_requests()) == 1


def test_the_budget_refuses_a_call_before_anything_is_sent(fake_llm, make_client):
    budget = Budget(0.0001)
    client = make_client(budget=budget, config={"max_tokens": 1000})
    # 1000 completion tokens of gpt-4o-mini could cost $0.0006: more than the $0.0001 left.
    with pytest.raises(BudgetExceeded) as refused:
        client.complete([user("hi")], tag="sensei.user_turn")
    assert fake_llm.requests == []
    assert refused.value.remaining_usd == pytest.approx(0.0001)
    assert "sensei.user_turn" in refused.value.user_message


def test_the_budget_counts_what_calls_really_cost(fake_llm, make_client):
    fake_llm.set_replies(
        "t.paid", {"content": "ok", "usage": {"prompt_tokens": 1000, "completion_tokens": 1000}}
    )
    budget = Budget(0.01)
    client = make_client(budget=budget, config={"max_tokens": 2000})
    client.complete([user("hi")], tag="t.paid")
    assert budget.spent_usd == pytest.approx(1000 * 0.15e-6 + 1000 * 0.60e-6)
    assert budget.remaining_usd == pytest.approx(0.01 - 0.00075)


def test_a_budget_cannot_be_enforced_on_a_model_without_a_price(fake_llm, make_client):
    fake_llm.models = (*fake_llm.models, "llama3.1:8b")
    client = make_client(budget=Budget(5.0), config={"model": "llama3.1:8b"})
    with pytest.raises(BudgetExceeded, match=r"no price for the model 'llama3\.1:8b'"):
        client.complete([user("hi")], tag="t.local")
    assert fake_llm.requests == []
    free = make_client(budget=Budget(5.0, allow_unpriced=True), config={"model": "llama3.1:8b"})
    assert free.complete([user("hi")], tag="t.local")


def test_the_concurrency_limit_holds_at_the_server(fake_llm, make_client):
    fake_llm.latency_s = 0.15
    client = make_client(config={"max_concurrency": 2})
    threads = [
        threading.Thread(target=client.complete, args=([user(f"q{i}")],), kwargs={"tag": "sensei.user_turn"})
        for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(fake_llm.chat_requests()) == 8
    assert fake_llm.max_in_flight == 2


def test_two_clients_with_the_same_key_share_one_limit(fake_llm, make_client):
    from engine.llm import ConcurrencyLimiter

    fake_llm.latency_s = 0.15
    limiter = ConcurrencyLimiter()
    clients = [make_client(limiter=limiter, config={"max_concurrency": 1}) for _ in range(2)]
    threads = [
        threading.Thread(target=c.complete, args=([user("q")],), kwargs={"tag": "t.shared"})
        for c in clients
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert fake_llm.max_in_flight == 1


def test_a_loopback_base_url_is_refused_unless_the_policy_allows_it(fake_llm, make_client):
    client = make_client(guard=EgressGuard())
    ledger_before = len(client.ledger.records)
    with pytest.raises(EgressDenied, match="loopback address"):
        client.complete([user("hi")], tag="t.egress")
    assert fake_llm.requests == []  # never retried, never connected
    assert client.ledger.records[ledger_before].ok is False


def test_the_async_variants_go_through_the_same_gateway(fake_llm, make_client):
    import asyncio

    fake_llm.set_replies("t.async", "async answer")
    ledger = UsageLedger()
    client = make_client(ledger=ledger)

    async def main():
        return await asyncio.gather(
            client.acomplete([user("a")], tag="t.async"),
            client.astructured([user("b")], Verdict, tag="t.verdict"),
        )

    text, verdict = asyncio.run(main())
    assert text == "async answer"
    assert isinstance(verdict, Verdict)
    assert sorted(r.tag for r in ledger.records) == ["t.async", "t.verdict"]


def test_the_key_is_sent_to_the_server_as_a_bearer_token(fake_llm, make_client):
    make_client().complete([user("hi")], tag="t.key")
    assert fake_llm.chat_requests()[0].headers["authorization"] == f"Bearer {FAKE_KEY}"
