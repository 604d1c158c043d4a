"""Unknown sessions per technology, and the retry policy: opening retried, a turn that left never repeated."""

from __future__ import annotations

import pytest

from engine.connectors import ChatbotHTTPError, ChatbotUnavailable, SessionLost, create_connector
from engine.egress import EgressGuard, EgressPolicy
from tests.doubles.connectors import FakeResponse, FakeServer, TaskytoProtocol
from tests.engine.connectors.conftest import FAST, echo


@pytest.mark.parametrize("running_fake", ["taskyto"], indirect=True)
def test_taskyto_restart_is_session_lost(running_fake):
    with running_fake.connector() as bot:
        bot.send("hello")
        running_fake.server.handler.forget_all()
        with pytest.raises(SessionLost) as lost:
            bot.send("are you there?")
        assert "restarted" in lost.value.user_message
        bot.new_conversation()
        assert bot.send("again").messages == ["You said: again"]


@pytest.mark.parametrize("running_fake", ["langgraph"], indirect=True)
def test_langgraph_unknown_thread_is_session_lost(running_fake):
    with running_fake.connector() as bot:
        bot.send("hello")
        running_fake.server.handler.threads.clear()
        with pytest.raises(SessionLost):
            bot.send("hello?")


@pytest.mark.parametrize(
    ("running_fake", "forget", "expected"),
    [
        ("http", lambda handler: handler.sessions.clear(), "unknown session"),
        ("millionbot", lambda handler: handler.conversations.clear(), "conversation not found"),
    ],
    indirect=["running_fake"],
)
def test_an_unknown_session_without_a_session_lost_convention_is_a_404(running_fake, forget, expected):
    # These protocols do not promise that 404 means "session forgotten", so it stays an HTTP error.
    with running_fake.connector() as bot:
        bot.send("hello")
        forget(running_fake.server.handler)
        with pytest.raises(ChatbotHTTPError) as failed:
            bot.send("hello?")
    assert failed.value.status == 404
    assert expected in failed.value.user_message


@pytest.mark.parametrize("running_fake", ["rasa"], indirect=True)
def test_rasa_404_hints_at_the_rest_channel(running_fake):
    running_fake.server.inject(FakeResponse.html(404, "404 Not Found"))
    with running_fake.connector() as bot, pytest.raises(ChatbotHTTPError) as failed:
        bot.send("hello")
    assert "credentials.yml" in failed.value.user_message


@pytest.mark.parametrize("running_fake", ["openai-chat"], indirect=True)
def test_openai_chat_keeps_the_history_client_side(running_fake):
    with running_fake.connector() as bot:
        bot.send("one")
        bot.send("two")
        bot.new_conversation()
        bot.send("three")
    _, second, third = running_fake.server.handler.received
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == "You said: one"
    assert [m["content"] for m in third] == ["Be brief.", "three"]


@pytest.mark.parametrize("running_fake", ["openai-chat"], indirect=True)
def test_openai_chat_a_failed_turn_is_not_added_to_the_history(running_fake):
    server = running_fake.server
    with running_fake.connector() as bot:
        server.inject(FakeResponse.json({"error": {"message": "it broke"}}, 500))
        with pytest.raises(ChatbotHTTPError, match="it broke"):
            bot.send("lost")
        bot.send("kept")
    assert [m["content"] for m in server.handler.received[-1]] == ["Be brief.", "kept"]


def test_opening_a_conversation_is_retried_after_a_server_error(local_guard):
    with FakeServer(TaskytoProtocol(echo)) as server:
        server.inject(FakeResponse.json({"error": "busy"}, 503), path_contains="/conversation/new")
        with create_connector(
            {"technology": "taskyto", "base_url": server.base_url}, local_guard, retry=FAST
        ) as bot:
            bot.new_conversation()
            assert bot.send("hi").messages == ["You said: hi"]
        assert len(server.requests_to("/conversation/new")) == 2


def test_a_bot_that_cannot_start_fails_after_the_retries_with_the_html_title(local_guard):
    protocol = TaskytoProtocol(echo)
    protocol.fail_new = True
    with FakeServer(protocol) as server:
        with (
            create_connector(
                {"technology": "taskyto", "base_url": server.base_url}, local_guard, retry=FAST
            ) as bot,
            pytest.raises(ChatbotHTTPError) as failed,
        ):
            bot.new_conversation()
        assert len(server.requests_to("/conversation/new")) == FAST.attempts
    assert failed.value.status == 500
    assert "Internal Server Error" in failed.value.user_message
    assert "could not start" in failed.value.user_message


class FlakyDNS:
    """Fails the first lookup (the request cannot have left), then answers with the local fake."""

    def __init__(self, failures):
        self.failures = failures

    def __call__(self, host, port):
        if self.failures:
            self.failures -= 1
            raise OSError("Temporary failure in name resolution")
        return ["127.0.0.1"]


def test_a_turn_is_retried_only_when_it_never_left(local_guard):
    with FakeServer(TaskytoProtocol(echo)) as server:
        port = server.base_url.rsplit(":", 1)[1]
        guard = EgressGuard(EgressPolicy.parse("bot.test"), resolver=FlakyDNS(0))
        params = {"technology": "taskyto", "base_url": f"http://bot.test:{port}"}
        with create_connector(params, guard, retry=FAST) as bot:
            bot.new_conversation()
            guard.resolver = flaky = FlakyDNS(1)
            assert bot.send("once").messages == ["You said: once"]
        assert flaky.failures == 0  # the first attempt did fail
        assert len(server.requests_to("/user_message")) == 1


def test_an_unreachable_chatbot_is_unavailable_and_named(local_guard):
    # Port 9 on loopback (discard) has no listener here: the connection is refused, nothing was sent.
    params = {"technology": "taskyto", "base_url": "http://127.0.0.1:9"}
    with (
        create_connector(params, local_guard, retry=FAST) as bot,
        pytest.raises(ChatbotUnavailable) as failed,
    ):
        bot.new_conversation()
    assert "http://127.0.0.1:9/conversation/new" in failed.value.user_message
    assert "refused" in failed.value.user_message.lower()
