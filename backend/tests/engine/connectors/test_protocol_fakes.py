"""Every network technology against its protocol fake: replies, several messages, buttons, and each failure
mapped to the right error class — with the turn never sent twice."""

from __future__ import annotations

import pytest

from engine.connectors import (
    BotReply,
    ChatbotHTTPError,
    ChatbotProtocolError,
    ChatbotTimeout,
)
from tests.doubles.connectors import FakeResponse
from tests.engine.connectors.conftest import NETWORK_TECHNOLOGIES

# The request path that carries a user turn, per technology, for counting and fault injection.
TURN_PATH = {
    "http": "/chat",
    "taskyto": "/conversation/user_message",
    "rasa": "/webhooks/rest/webhook",
    "millionbot": "/messages",
    "langgraph": "/runs/wait",
    "openai-chat": "/chat/completions",
}
WITH_BUTTONS = {"http", "rasa", "millionbot"}
# Taskyto and OpenAI-style endpoints deliver a turn as one text; the others as separate bubbles.
ONE_TEXT = {"taskyto", "openai-chat"}

pytestmark = pytest.mark.parametrize("running_fake", NETWORK_TECHNOLOGIES, indirect=True)


def test_a_turn_returns_the_bots_reply_with_latency(running_fake):
    with running_fake.connector() as bot:
        bot.new_conversation()
        reply = bot.send("hello there")
    assert isinstance(reply, BotReply)
    assert reply.messages == ["You said: hello there"]
    assert reply.latency_s > 0
    assert reply.raw is not None


def test_a_turn_with_several_messages_and_buttons(running_fake):
    with running_fake.connector() as bot:
        reply = bot.send("menu")
    if running_fake.technology in ONE_TEXT:
        assert reply.messages == ["Here is the menu.\nWhat would you like?"]
    else:
        assert reply.messages == ["Here is the menu.", "What would you like?"]
    if running_fake.technology in WITH_BUTTONS:
        assert [(b.label, b.value) for b in reply.buttons] == [("Pizza", "/pizza"), ("Salad", "/salad")]
    else:
        assert reply.buttons == []  # the protocol has no buttons


def test_a_500_is_reported_with_its_status_and_the_turn_is_not_sent_again(running_fake):
    server = running_fake.server
    path = TURN_PATH[running_fake.technology]
    with running_fake.connector() as bot:
        bot.new_conversation()
        server.inject(FakeResponse.json({"error": "engine exploded"}, 500), path_contains=path, times=5)
        with pytest.raises(ChatbotHTTPError) as failed:
            bot.send("hello")
    assert failed.value.status == 500
    assert "500" in failed.value.user_message
    assert "engine exploded" in failed.value.user_message
    assert len(server.requests_to(path)) == 1


def test_a_timeout_is_reported_and_not_retried(running_fake):
    server = running_fake.server
    path = TURN_PATH[running_fake.technology]
    with running_fake.connector(timeout=0.5) as bot:
        bot.new_conversation()
        server.inject(FakeResponse.json({"late": True}, delay_s=3), path_contains=path)
        with pytest.raises(ChatbotTimeout) as timed_out:
            bot.send("hello")
    assert "0.5 s" in timed_out.value.user_message
    assert server.base_url.split("//")[1] in timed_out.value.user_message
    assert len(server.requests_to(path)) == 1


def test_an_html_page_instead_of_json_is_a_protocol_error_naming_the_url(running_fake):
    server = running_fake.server
    path = TURN_PATH[running_fake.technology]
    with running_fake.connector() as bot:
        bot.new_conversation()
        page = FakeResponse(200, b"<html><head><title>Login required</title></head></html>", "text/html")
        server.inject(page, path_contains=path)
        with pytest.raises(ChatbotProtocolError) as failed:
            bot.send("hello")
    assert "HTML page (Login required)" in failed.value.user_message
    assert path in failed.value.user_message


def test_an_html_error_page_is_an_http_error_with_the_page_title(running_fake):
    server = running_fake.server
    path = TURN_PATH[running_fake.technology]
    with running_fake.connector() as bot:
        bot.new_conversation()
        server.inject(FakeResponse.html(502, "502 Bad Gateway"), path_contains=path)
        with pytest.raises(ChatbotHTTPError) as failed:
            bot.send("hello")
    assert failed.value.status == 502
    assert "502 Bad Gateway" in failed.value.user_message


def test_invalid_json_is_a_protocol_error_quoting_the_body(running_fake):
    server = running_fake.server
    with running_fake.connector() as bot:
        bot.new_conversation()
        server.inject(
            FakeResponse.text('{"message": "unfinished'), path_contains=TURN_PATH[running_fake.technology]
        )
        with pytest.raises(ChatbotProtocolError) as failed:
            bot.send("hello")
    assert "invalid JSON" in failed.value.user_message
    assert "unfinished" in failed.value.user_message


def test_a_new_conversation_forgets_the_previous_one(running_fake):
    with running_fake.connector() as bot:
        bot.send("first")
        bot.new_conversation()
        reply = bot.send("second")
    assert reply.messages == ["You said: second"]
