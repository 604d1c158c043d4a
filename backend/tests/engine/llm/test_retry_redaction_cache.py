"""Retry-After parsing, key redaction and the response cache."""

from __future__ import annotations

import email.utils

import pytest
from pydantic import BaseModel

from engine.egress import EgressGuard
from engine.llm import (
    DirectoryCache,
    LLMClient,
    LLMOutputError,
    MemoryCache,
    ProviderConfig,
    UsageLedger,
    user,
)
from engine.llm.offline import ScriptedChatModel
from engine.llm.redact import Redactor
from engine.llm.retry import parse_retry_after

KEY = "sk-proj-A1b2C3d4E5f6G7h8"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": email.utils.formatdate(1_000_030, usegmt=True)}, 30.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_in_seconds_milliseconds_or_as_an_http_date(headers, expected):
    assert parse_retry_after(headers, now=1_000_000) == expected


def test_the_key_and_masked_echoes_of_it_are_redacted():
    redact = Redactor(KEY)
    assert redact(f"bad key {KEY}!") == "bad key [redacted]!"
    assert (
        redact("Incorrect API key provided: sk-***********G7h8.") == "Incorrect API key provided: [redacted]."
    )
    assert redact("nothing secret here") == "nothing secret here"
    # Placeholder keys of local servers are too short to be secrets; masking them would garble text.
    assert Redactor("none")("none of these") == "none of these"


def test_the_provider_config_never_shows_its_key():
    config = ProviderConfig("openai", api_key=KEY)
    assert KEY not in repr(config)
    assert KEY not in config.limiter_key


class Echo(BaseModel):
    count: int


def test_the_raw_text_stored_on_an_output_error_is_redacted():
    model = ScriptedChatModel({"t.leak": {"content": f"my key is {KEY}"}})
    client = LLMClient(ProviderConfig("openai", api_key=KEY), guard=EgressGuard(), chat_model=model)
    with pytest.raises(LLMOutputError) as failed:
        client.structured([user("?")], Echo, tag="t.leak")
    assert failed.value.raw_text == "my key is [redacted]"


def _client(model, cache, ledger=None):
    config = ProviderConfig("openai", api_key=KEY, model="gpt-4o-mini")
    return LLMClient(
        config, guard=EgressGuard(), chat_model=model, cache=cache, ledger=ledger or UsageLedger()
    )


def test_the_cache_is_off_by_default_and_replays_identical_calls_when_on():
    uncached = ScriptedChatModel({"t.q": ["one", "two"]})
    plain = _client(uncached, None)
    assert [plain.complete([user("q")], tag="t.q") for _ in range(2)] == ["one", "two"]

    model = ScriptedChatModel({"t.q": ["one", "two"]})
    ledger = UsageLedger()
    cached = _client(model, MemoryCache(), ledger)
    assert [cached.complete([user("q")], tag="t.q") for _ in range(2)] == ["one", "one"]
    assert len(model.calls) == 1
    assert [r.cached for r in ledger.records] == [False, True]
    assert ledger.records[1].cost_usd == 0


def test_the_cache_key_covers_messages_parameters_and_schema():
    model = ScriptedChatModel({"t.q": ["1", "2", "3", '{"count": 4}']})
    client = _client(model, MemoryCache())
    client.complete([user("q")], tag="t.q")
    client.complete([user("other")], tag="t.q")
    client.complete([user("q")], tag="t.q", temperature=0.9)
    assert client.structured([user("q")], Echo, tag="t.q") == Echo(count=4)
    assert len(model.calls) == 4
    client.complete([user("q")], tag="t.q", temperature=0.9)
    assert len(model.calls) == 4


def test_a_directory_cache_is_shared_between_clients(tmp_path):
    first = ScriptedChatModel({"t.q": '{"count": 3}'})
    assert _client(first, DirectoryCache(tmp_path)).structured([user("q")], Echo, tag="t.q") == Echo(count=3)
    second = ScriptedChatModel({"t.q": '{"count": 99}'})
    assert _client(second, DirectoryCache(tmp_path)).structured([user("q")], Echo, tag="t.q") == Echo(count=3)
    assert second.calls == []
