"""ScriptedChatModel: the in-process double that lets engine unit tests run the whole gateway without HTTP."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from engine.egress import EgressGuard
from engine.llm import (
    LLMClient,
    LLMOutputError,
    LLMRateLimitError,
    ProviderConfig,
    RetryPolicy,
    UsageLedger,
    user,
)
from engine.llm.offline import ScriptedChatModel, prose_around

FAST = RetryPolicy(max_attempts=3, initial_delay_s=0.001, jitter_s=0.001, max_total_s=5)


class Functionality(BaseModel):
    name: str
    parameters: list[str]


def scripted_client(model: ScriptedChatModel, **options) -> LLMClient:
    config = ProviderConfig("openai", api_key="sk-unit-test-key-000000", model="gpt-4.1-mini")
    return LLMClient(config, guard=EgressGuard(), chat_model=model, retry=FAST, **options)


def test_answers_come_from_the_script_by_tag_in_order_and_the_last_one_repeats():
    model = ScriptedChatModel({"sensei.user_turn": ["Hi, I want a pizza.", "Large, please."]})
    client = scripted_client(model)
    answers = [client.complete([user("?")], tag="sensei.user_turn") for _ in range(3)]
    assert answers == ["Hi, I want a pizza.", "Large, please.", "Large, please."]
    assert [call.tag for call in model.calls] == ["sensei.user_turn"] * 3


def test_structured_answers_are_scripted_as_json_and_validated():
    model = ScriptedChatModel({"tracer.extract": {"json": {"name": "order_pizza", "parameters": ["size"]}}})
    found = scripted_client(model).structured([user("?")], Functionality, tag="tracer.extract")
    assert found == Functionality(name="order_pizza", parameters=["size"])
    assert model.calls[0].structured


def test_unscripted_calls_get_deterministic_generated_answers():
    client = scripted_client(ScriptedChatModel())
    assert client.complete([user("?")], tag="tracer.plan") == "A scripted answer for tracer.plan."
    first = client.structured([user("?")], Functionality, tag="tracer.extract")
    second = client.structured([user("?")], Functionality, tag="tracer.extract")
    assert first == second
    assert first.parameters


def test_tool_calling_is_answered_with_a_tool_call():
    model = ScriptedChatModel({"tracer.extract": {"json": {"name": "greet", "parameters": []}}})
    config = ProviderConfig("openai", api_key="sk-unit-test-key-000000", structured_method="tool_calling")
    client = LLMClient(config, guard=EgressGuard(), chat_model=model, retry=FAST)
    assert client.structured([user("?")], Functionality, tag="tracer.extract").name == "greet"
    assert model.calls[0].options["tool_choice"]["function"]["name"] == "tracer_extract"


def test_a_bad_answer_then_a_good_one_is_one_repair():
    model = ScriptedChatModel(
        {"tracer.extract": ["not JSON at all", {"json": {"name": "x", "parameters": []}}]}
    )
    ledger = UsageLedger()
    assert scripted_client(model, ledger=ledger).structured([user("?")], Functionality, tag="tracer.extract")
    assert len(model.calls) == 2
    assert model.calls[1].messages[-2] == ("ai", "not JSON at all")
    assert [record.repair for record in ledger.records] == [False, True]


def test_two_bad_answers_raise_the_typed_error():
    model = ScriptedChatModel({"tracer.extract": {"json": {"name": 3}}})
    with pytest.raises(LLMOutputError) as failed:
        scripted_client(model).structured([user("?")], Functionality, tag="tracer.extract")
    # Outside strict JSON-schema mode the double wraps JSON in prose, as models do; the raw text is all of it.
    assert failed.value.raw_text == prose_around('{"name": 3}')
    assert len(model.calls) == 2


def test_scripted_faults_exercise_the_retry_logic():
    model = ScriptedChatModel({"t.busy": [{"fault": "rate_limit", "retry_after": 0}, "finally"]})
    assert scripted_client(model).complete([user("?")], tag="t.busy") == "finally"
    always_busy = ScriptedChatModel({"t.busy": {"fault": "rate_limit", "retry_after": 0}})
    with pytest.raises(LLMRateLimitError):
        scripted_client(always_busy).complete([user("?")], tag="t.busy")
    assert len(always_busy.calls) == 3


def test_usage_is_reported_so_the_ledger_prices_scripted_calls():
    model = ScriptedChatModel(
        {"t.cost": {"content": "ok", "usage": {"prompt_tokens": 1_000_000, "completion_tokens": 0}}}
    )
    ledger = UsageLedger()
    scripted_client(model, ledger=ledger).complete([user("?")], tag="t.cost")
    assert ledger.records[0].cost_usd == pytest.approx(0.40)  # gpt-4.1-mini input price


def test_an_unknown_fault_in_a_script_is_refused_early():
    with pytest.raises(ValueError, match="Unknown fault"):
        ScriptedChatModel({"t": {"fault": "explode"}})
