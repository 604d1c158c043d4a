"""The `http` technology's reply paths and greeting, other technologies' greetings, and `test_connection`."""

from __future__ import annotations

import pytest

from engine.connectors import ChatbotProtocolError, create_connector, test_connection
from engine.connectors.paths import extract, parse_path
from tests.doubles.connectors import HTTP_CONNECTOR_FOR_GENERIC as GENERIC
from tests.doubles.connectors import FakeResponse, FakeServer, GenericJsonProtocol, RasaProtocol
from tests.engine.connectors.conftest import FAST, echo

DOC = {"data": {"messages": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("data.messages.0.text", "a"),
        ("data.messages.-1.text", "c"),
        ("data.messages[-2].text", "b"),
        ("", DOC),
    ],
)
def test_reply_paths_index_lists_from_either_end(path, value):
    assert extract(DOC, path) == value


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("data.reply", "at data there is an object with keys: messages, with no 'reply'"),
        ("data.messages.3.text", "at data.messages there is a list of 3 item(s), with no 3"),
        ("data.messages.0.text.x", "at data.messages.0.text there is the value 'a', with no 'x'"),
    ],
)
def test_a_missing_reply_path_says_where_it_stopped(path, said):
    with pytest.raises(ChatbotProtocolError) as missing:
        extract(DOC, path, where="http://bot/chat")
    assert said in missing.value.user_message
    assert "http://bot/chat" in missing.value.user_message


def test_path_syntax_errors_are_value_errors():
    with pytest.raises(ValueError, match="empty segment"):
        parse_path("a..b")


@pytest.fixture
def generic():
    with FakeServer(
        GenericJsonProtocol(echo, welcome="Hi! Ask me anything.", strict_sessions=True)
    ) as server:
        yield server


def test_http_session_greeting_and_wrong_response_path(generic, local_guard):
    params = {"technology": "http", "base_url": generic.base_url, **GENERIC}
    with create_connector(params, local_guard, retry=FAST) as bot:
        assert bot.greeting().messages == ["Hi! Ask me anything."]
        bot.send("x")
    session = generic.requests_to("/sessions")
    assert len(session) == 1
    assert generic.requests_to("/chat/")[0].path.endswith(next(iter(generic.handler.sessions)))

    wrong = {**params, "messages_path": None, "response_path": "data.answer"}
    result = test_connection(wrong, local_guard, message="hello", retry=FAST)
    assert not result.ok
    assert result.error_code == "chatbot_protocol_error"
    assert "response_path 'data.answer'" in result.error_message


def test_http_without_new_conversation_gets_a_fresh_session_id_per_conversation(generic, local_guard):
    params = {
        "technology": "http",
        "base_url": generic.base_url,
        "send_message": {
            "path": "/chat",
            "payload_template": {"session": "{session_id}", "text": "{user_msg}"},
        },
        "response_path": "data.reply",
    }
    generic.handler.strict_sessions = False
    with create_connector(params, local_guard, retry=FAST) as bot:
        bot.send("one")
        bot.send("two")
        bot.new_conversation()
        bot.send("three")
    sessions = [r.json()["session"] for r in generic.requests_to("/chat")]
    assert sessions[0] == sessions[1] != sessions[2]


def test_http_response_path_on_an_object_is_explained(generic, local_guard):
    params = {**GENERIC, "technology": "http", "base_url": generic.base_url}
    params.pop("messages_path")
    params["response_path"] = "data"
    with create_connector(params, local_guard, retry=FAST) as bot, pytest.raises(ChatbotProtocolError) as bad:
        bot.send("x")
    assert "points at an object" in bad.value.user_message


def test_rasa_start_message_gives_the_greeting(local_guard):
    def greeter(sender, text):
        return "Welcome to the shop!" if text == "/greet" else echo(sender, text)

    with FakeServer(RasaProtocol(greeter)) as server:
        params = {"technology": "rasa", "base_url": server.base_url, "start_message": "/greet"}
        with create_connector(params, local_guard, retry=FAST) as bot:
            bot.new_conversation()
            assert bot.greeting().messages == ["Welcome to the shop!"]
            bot.send("hi")
        first, second = (r.json()["sender"] for r in server.requests)
    assert first == second
    assert first.startswith("parley-")


def test_connection_result_for_a_working_bot(generic, local_guard):
    params = {"technology": "http", "base_url": generic.base_url, **GENERIC}
    result = test_connection(params, local_guard, message="menu", retry=FAST)
    assert result.ok
    assert result.greeting.messages == ["Hi! Ask me anything."]
    assert result.reply.messages == ["Here is the menu.", "What would you like?"]
    assert [b.label for b in result.reply.buttons] == ["Pizza", "Salad"]
    assert '"Here is the menu."' in result.raw_excerpt
    assert result.latency_s > 0


def test_connection_result_for_a_failing_bot_keeps_the_body(generic, local_guard):
    generic.inject(FakeResponse.json({"error": "x" * 5000}, 500), path_contains="/chat")
    params = {"technology": "http", "base_url": generic.base_url, **GENERIC}
    result = test_connection(params, local_guard, retry=FAST)
    assert not result.ok
    assert result.error_code == "chatbot_http_error"
    assert result.http_status == 500
    assert len(result.raw_excerpt) < 400
    assert len(result.error_message) < 400


def test_connection_result_for_bad_settings():
    from engine.egress import EgressGuard

    result = test_connection({"technology": "taskyto"}, EgressGuard())
    assert not result.ok
    assert result.error_code == "connector_config_error"
    assert "base_url" in result.error_message
