"""Connector traffic goes through the egress guard: private, loopback and metadata addresses are refused unless
allowed, before any connection is made (names are resolved by an injected resolver, never the network)."""

from __future__ import annotations

import pytest

from engine.connectors import create_connector, test_connection
from engine.connectors.testing import FakeServer, TaskytoProtocol
from engine.egress import EgressDenied, EgressGuard, EgressPolicy
from tests.engine.connectors.conftest import FAST, NETWORK_TECHNOLOGIES, echo


class NoDNS:
    def __init__(self, table=None):
        self.table = table or {}

    def __call__(self, host, port):
        if host not in self.table:
            raise AssertionError(f"unexpected lookup of {host}")
        return self.table[host]


def minimal_params(technology, base_url):
    extra = {
        "http": {"send_message": {"payload_template": {"q": "{user_msg}"}}, "response_path": "a"},
        "millionbot": {"bot_id": "b", "api_key": "k"},
        "openai-chat": {"model": "m"},
    }
    return {"technology": technology, "base_url": base_url, **extra.get(technology, {})}


@pytest.mark.parametrize("technology", NETWORK_TECHNOLOGIES)
@pytest.mark.parametrize(
    ("base_url", "category"),
    [
        ("http://127.0.0.1:8080", "loopback"),
        ("http://10.1.2.3", "private"),
        ("http://169.254.169.254", "cloud metadata"),
        ("http://bot.internal.example", "private"),
    ],
)
def test_connectors_refuse_non_public_destinations_by_default(technology, base_url, category):
    guard = EgressGuard(resolver=NoDNS({"bot.internal.example": ["10.9.8.7"]}))
    connector = create_connector(minimal_params(technology, base_url), guard, retry=FAST)
    with connector as bot, pytest.raises(EgressDenied) as refused:
        bot.new_conversation()
        bot.send("hello")
    assert category in refused.value.user_message
    assert "PARLEY_EGRESS_ALLOW" in refused.value.user_message


def test_a_refused_local_bot_receives_nothing_and_an_allowed_one_answers():
    with FakeServer(TaskytoProtocol(echo)) as server:
        params = {"technology": "taskyto", "base_url": server.base_url}
        refused = test_connection(params, EgressGuard(resolver=NoDNS()), retry=FAST)
        assert refused.error_code == "egress_denied"
        assert server.requests == []

        allowed = test_connection(params, EgressGuard(EgressPolicy.parse("127.0.0.1")), retry=FAST)
        assert allowed.ok
        assert allowed.reply.messages == ["You said: Hello"]


def test_a_refusal_is_never_retried():
    calls = []

    def resolver(host, port):
        calls.append(host)
        return ["10.0.0.5"]

    params = {"technology": "taskyto", "base_url": "http://bot.corp.example"}
    with (
        create_connector(params, EgressGuard(resolver=resolver), retry=FAST) as bot,
        pytest.raises(EgressDenied),
    ):
        bot.new_conversation()
    assert calls == ["bot.corp.example"]
