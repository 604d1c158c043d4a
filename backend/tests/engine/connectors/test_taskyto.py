"""Taskyto: the fake answers like taskyto-serve, and the connector handles its quirks."""

from __future__ import annotations

import pytest

from engine.connectors import ChatbotHTTPError, ChatbotProtocolError, create_connector
from engine.egress import guarded_client
from tests.doubles.connectors import FakeResponse, FakeServer, TaskytoProtocol
from tests.engine.connectors.conftest import FAST, echo


@pytest.fixture
def taskyto():
    with FakeServer(TaskytoProtocol(echo)) as server:
        yield server


def connect(server, guard):
    return create_connector({"technology": "taskyto", "base_url": server.base_url}, guard, retry=FAST)


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "content_type", "prefix"),
    [
        ("POST", "/conversation/user_message", {"content": b"{}", "headers": {"Content-Type": "text/plain"}}, 500,
         "json", "Unexpected error: 415"),
        ("POST", "/conversation/user_message", {"content": b"{nope", "headers": {"Content-Type": "application/json"}},
         400, "json", "400 Bad Request: The browser"),
        ("POST", "/conversation/user_message", {"json": {}}, 400, "json", "400 Bad Request: Missing 'id'"),
        ("POST", "/conversation/user_message", {"json": {"id": "x", "message": "hi"}}, 404, "json",
         "404 Not Found: Conversation with id x"),
        ("GET", "/conversation/new", {}, 405, "html", None),
        ("POST", "/elsewhere", {}, 404, "html", None),
    ],
)  # fmt: skip
def test_the_fake_answers_like_taskyto_serve(
    taskyto, local_guard, method, path, kwargs, status, content_type, prefix
):
    with guarded_client(local_guard) as client:
        response = client.request(method, taskyto.base_url + path, **kwargs)
    assert response.status_code == status
    assert content_type in response.headers["content-type"]
    if prefix:
        assert response.json()["error"].startswith(prefix)
        assert response.text.endswith("\n")


def test_the_greeting_is_swallowed_and_the_user_speaks_first(taskyto, local_guard):
    with connect(taskyto, local_guard) as bot:
        bot.new_conversation()
        assert bot.greeting() is None
        assert bot.send("hi").messages == ["You said: hi"]
    (turn,) = taskyto.requests_to("/user_message")
    assert turn.header("Content-Type") == "application/json"
    assert set(turn.json()) == {"id", "message"}


def test_an_engine_failure_is_a_500_finding(local_guard):
    def crashing(session_id, text):
        raise RuntimeError("Connection error.")

    with (
        FakeServer(TaskytoProtocol(crashing)) as server,
        connect(server, local_guard) as bot,
        pytest.raises(ChatbotHTTPError) as failed,
    ):
        bot.send("hi")
    assert failed.value.status == 500
    assert "Error executing the engine: Connection error." in failed.value.user_message


def test_a_wrong_base_url_is_an_http_error_with_a_hint(taskyto, local_guard):
    params = {"technology": "taskyto", "base_url": taskyto.base_url + "/not-taskyto"}
    with create_connector(params, local_guard, retry=FAST) as bot, pytest.raises(ChatbotHTTPError) as failed:
        bot.send("hi")
    assert failed.value.status == 404
    assert "/not-taskyto/conversation/new" in failed.value.user_message


def test_the_success_data_envelope_of_a_fork_is_accepted(taskyto, local_guard):
    envelope = {
        "success": 1,
        "debug_msg": "{}",
        "data": {"id": "x", "type": "chatbot_response", "message": "Hi!"},
    }
    with connect(taskyto, local_guard) as bot:
        bot.new_conversation()
        taskyto.inject(FakeResponse.json(envelope), path_contains="/user_message")
        assert bot.send("hi").messages == ["Hi!"]
        failed = {"success": 0, "debug_msg": "engine down", "data": {}}
        taskyto.inject(FakeResponse.json({**failed, "data": {"message": ""}}), path_contains="/user_message")
        with pytest.raises(ChatbotProtocolError, match="engine down"):
            bot.send("hi")


def test_a_reply_keeps_its_newlines_as_one_message(local_guard):
    protocol = TaskytoProtocol(lambda s, t: ["Step done.", "Size?\n(small or large)"])
    with FakeServer(protocol) as server, connect(server, local_guard) as bot:
        assert bot.send("go").messages == ["Step done.\nSize?\n(small or large)"]
