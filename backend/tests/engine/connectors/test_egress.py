"""Connector traffic goes through the egress guard: private, loopback and metadata addresses are refused unless
allowed, before any connection is made (names are resolved by an injected resolver, never the network)."""

from __future__ import annotations

import pytest

from engine.connectors import create_connector, test_connection
from engine.egress import EgressDenied, EgressGuard, EgressPolicy
from tests.doubles.connectors import FakeServer, TaskytoProtocol
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


@pytest.mark.parametrize("technology", NETWORK_TECHNOLOGIES)
@pytest.mark.parametrize("form", ["0177.0.0.3", "0x7f.0.0.3", "2130706435", "127.0.0.3.", "[::ffff:7f00:3]"])
def test_every_form_of_a_loopback_address_ends_a_connection_test_as_a_refusal(technology, form):
    """`http://0177.0.0.3:18090` once ended as an internal error: httpx cannot read that host. Every form is read
    as the address it names, and the guard refuses it with its reason, before any lookup."""
    result = test_connection(
        minimal_params(technology, f"http://{form}:18090"), EgressGuard(resolver=NoDNS()), retry=FAST
    )
    assert result.error_code == "egress_denied"
    assert "127.0.0.3" in result.error_message and "loopback" in result.error_message


def test_an_allowed_local_bot_is_reached_whatever_form_its_address_is_written_in():
    with FakeServer(TaskytoProtocol(echo)) as server:
        port = server.base_url.rsplit(":", 1)[1]
        for form in ("0177.0.0.1", "0x7f.1", "2130706433", "127.0.0.1."):
            params = {"technology": "taskyto", "base_url": f"http://{form}:{port}"}
            allowed = test_connection(params, EgressGuard(EgressPolicy.parse("127.0.0.1")), retry=FAST)
            assert allowed.ok, (form, allowed.error_message)


@pytest.mark.parametrize("base_url", ["http://1.2.3.4.5:80", "http://256.0.0.1", "http://a..b/"])
def test_a_host_in_no_valid_form_is_a_configuration_error_naming_it(base_url):
    result = test_connection({"technology": "taskyto", "base_url": base_url}, EgressGuard(resolver=NoDNS()))
    assert result.error_code == "connector_config_error"
    assert "base_url" in result.error_message
