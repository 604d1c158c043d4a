"""The HTTP servers: Taskyto-protocol conformance (TASKYTO-ALMITA-MORTAR.md §2), the connectors' taskyto
and http connectors against them, the json protocol, coverage endpoints and fault injection."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from engine.bots.server import Faults, build_server
from engine.connectors import ChatbotHTTPError, SessionLost, create_connector, load_connector_file
from engine.connectors.base import RetryPolicy
from engine.egress import EgressGuard, EgressPolicy
from tests.engine.bots.scripts import TODAY

GUARD = EgressGuard(EgressPolicy.parse("127.0.0.1"))
FAST = RetryPolicy(attempts=1, first_wait_s=0)
EXAMPLE = Path(__file__).parents[3] / "engine" / "bots" / "examples" / "json-connector.yaml"


@pytest.fixture
def taskyto():
    server, sessions = build_server("bike", protocol="taskyto", today=TODAY)
    with server:
        yield server, sessions


def new(client, base):
    response = client.post(f"{base}/conversation/new")
    assert response.status_code == 200
    return response.json()["id"]


def test_taskyto_protocol_status_codes_and_bodies(taskyto):
    server, _ = taskyto
    base = server.base_url
    with httpx.Client(trust_env=False) as client:
        conversation = new(client, base)
        ok = client.post(
            f"{base}/conversation/user_message", json={"id": conversation, "message": "book a repair"}
        )
        assert ok.status_code == 200
        assert ok.headers["content-type"].startswith("application/json")
        expected = {"id": conversation, "message": "Which day would you like to bring the bike?"}
        assert ok.text == json.dumps({**expected, "type": "chatbot_response"}, separators=(",", ":")) + "\n"
        probes = [
            ({"content": b"{}", "headers": {"Content-Type": "text/plain"}}, 500, "Unexpected error: 415"),
            ({"content": b"{nope", "headers": {"Content-Type": "application/json"}}, 400,
             "400 Bad Request: The browser (or proxy) sent a request that this server could not understand."),
            ({"json": {}}, 400, "400 Bad Request: Missing 'id' or 'message' in request"),
            ({"json": {"id": "nope", "message": "hi"}}, 404, "404 Not Found: Conversation with id nope not found"),
            ({"json": {"id": conversation, "message": 3}}, 500,
             "500 Internal Server Error: Error executing the engine: "),
        ]  # fmt: skip
        for kwargs, status, prefix in probes:
            response = client.post(f"{base}/conversation/user_message", **kwargs)
            assert response.status_code == status
            assert response.json()["error"].startswith(prefix)
        assert client.get(f"{base}/conversation/new").status_code == 405
        assert "text/html" in client.get(f"{base}/conversation/new").headers["content-type"]
        assert client.post(f"{base}/elsewhere").status_code == 404


def test_the_taskyto_connector_talks_to_the_server_and_the_greeting_is_swallowed(taskyto):
    server, _ = taskyto
    with create_connector({"technology": "taskyto", "base_url": server.base_url}, GUARD, retry=FAST) as bot:
        bot.new_conversation()
        assert bot.greeting() is None
        first = bot.send("book a repair")
        assert first.messages == ["Which day would you like to bring the bike?"]
        bot.send("tomorrow")
        done = bot.send("at 10am")
        assert done.text.startswith("Done! Your repair is booked for 11/03/2027 at 10:00.")
    with httpx.Client(trust_env=False) as client:
        aggregate = client.get(f"{server.base_url}/__coverage").json()
        assert aggregate["module"] == pytest.approx(66.67) and aggregate["input"] == 100.0
        (conversation,) = aggregate["conversation_ids"]
        one = client.get(f"{server.base_url}/__coverage/{conversation}").json()
        assert one["values"] == [["book_service", "service", "repair"]]
        assert client.get(f"{server.base_url}/__coverage/unknown").status_code == 404


def test_fault_injection_latency_500_on_a_turn_and_forgotten_sessions():
    server, _ = build_server(
        "bike", protocol="taskyto", faults=Faults(fail_on_turn=2, forget_every=3), today=TODAY
    )
    with (
        server,
        create_connector({"technology": "taskyto", "base_url": server.base_url}, GUARD, retry=FAST) as bot,
    ):
        bot.new_conversation()
        bot.send("book a repair")
        with pytest.raises(ChatbotHTTPError):
            bot.send("tomorrow")
        assert bot.send("tomorrow").messages == ["At what time? We are open from 9am to 5:30pm."]
        with pytest.raises(SessionLost):
            bot.send("at 10am")  # every session was forgotten after the third turn served


def test_fault_injection_500_on_every_second_turn():
    server, _ = build_server("bike", protocol="taskyto", faults=Faults(fail_every=2), today=TODAY)
    with (
        server,
        create_connector({"technology": "taskyto", "base_url": server.base_url}, GUARD, retry=FAST) as bot,
    ):
        bot.new_conversation()
        answered = []
        for turn, text in enumerate(["book a repair", "tomorrow", "tomorrow", "at 10am", "at 10am"], start=1):
            try:
                bot.send(text)
                answered.append(turn)
            except ChatbotHTTPError as exc:
                assert exc.status == 500
        assert answered == [1, 3, 5]


def test_a_stillborn_mutant_cannot_start_like_taskyto():
    server, _ = build_server("bike", mutant="change-optionality-1", protocol="taskyto")
    with server, httpx.Client(trust_env=False) as client:
        response = client.post(f"{server.base_url}/conversation/new")
        assert response.status_code == 500 and "text/html" in response.headers["content-type"]


def test_json_protocol_and_the_example_http_connector():
    server, _ = build_server("pizza", protocol="json", today=TODAY)
    with server, httpx.Client(trust_env=False) as client:
        opened = client.post(f"{server.base_url}/chat", json={}).json()
        assert opened["messages"] == [] and opened["session_id"]
        turn = client.post(
            f"{server.base_url}/chat", json={"session_id": opened["session_id"], "message": "order"}
        )
        assert turn.json()["buttons"] == ["House pizza", "Build your own"]
        assert (
            client.post(f"{server.base_url}/chat", json={"session_id": "x", "message": "hi"}).status_code
            == 404
        )
        assert client.post(f"{server.base_url}/chat", content=b"{nope").status_code == 400
        config = load_connector_file(EXAMPLE)
        params = {**config.params, "technology": config.technology, "base_url": server.base_url}
        with create_connector(params, GUARD, retry=FAST) as bot:
            bot.new_conversation()
            reply = bot.send("order")
            assert reply.messages == [
                "Would you like one of our house pizzas, or would you rather build your own?"
            ]
            assert [b.label for b in reply.buttons] == ["House pizza", "Build your own"]
        assert client.get(f"{server.base_url}/__coverage").json()["conversations"] == 2


def test_json_protocol_reports_a_crash_as_500():
    server, _ = build_server("bike", mutant="crash-on-value-1", protocol="json", today=TODAY)
    with server, httpx.Client(trust_env=False) as client:
        session = client.post(f"{server.base_url}/chat", json={}).json()["session_id"]
        response = client.post(
            f"{server.base_url}/chat", json={"session_id": session, "message": "a tune-up tomorrow at 10am"}
        )
        assert response.status_code == 500
        assert "no entry for 'tune-up'" in response.json()["error"]


def test_the_demo_factory_gives_an_in_process_connector():
    from engine.bots.connector import demo_factory
    from engine.connectors import ConnectorConfigError

    with demo_factory("bike") as bot:
        bot.new_conversation()
        assert bot.greeting().messages[0].startswith("Hi! Spoke & Chain Cycles here.")
        assert bot.send("book a repair").buttons == []
    crash = demo_factory("bike@crash-on-value-1")
    with pytest.raises(ChatbotHTTPError):
        crash.send("a tune-up tomorrow at 10am")
    with pytest.raises(ConnectorConfigError):
        demo_factory("chess")
    with pytest.raises(ConnectorConfigError):
        demo_factory("bike@change-optionality-1")


def test_a_flaky_bot_fails_some_turns_reproducibly_from_its_seed():
    def failing_turns(seed: int) -> list[int]:
        server, _ = build_server("bike", protocol="taskyto", faults=Faults(fail_rate=0.3, fault_seed=seed))
        failed = []
        with (
            server,
            create_connector(
                {"technology": "taskyto", "base_url": server.base_url}, GUARD, retry=FAST
            ) as bot,
        ):
            bot.new_conversation()
            for turn in range(1, 21):
                try:
                    bot.send("book a repair")
                except ChatbotHTTPError as exc:
                    assert exc.status == 500
                    failed.append(turn)
        return failed

    first = failing_turns(4)
    assert 0 < len(first) < 20  # some turns, not all
    assert failing_turns(4) == first
    assert failing_turns(5) != first
    with pytest.raises(ValueError, match="probability"):
        Faults(fail_rate=1.5)
