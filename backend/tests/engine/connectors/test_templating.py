"""Placeholders are substituted into the parsed request: whatever the user says arrives intact and harmless."""

from __future__ import annotations

import json
from urllib.parse import unquote

import pytest

from engine.connectors import ConnectorConfigError, create_connector
from engine.connectors.templating import Values, render_body, render_path
from tests.doubles.connectors import FakeServer, GenericJsonProtocol
from tests.engine.connectors.conftest import FAST, echo

TRICKY = 'He said "hi" \\ then\nleft {session_id} ../../admin?x=1#frag {"user_msg": 1}'


@pytest.fixture
def fake():
    with FakeServer(GenericJsonProtocol(echo)) as server:
        yield server


def connector(fake, guard, send_message, **extra):
    params = {
        "technology": "http",
        "base_url": fake.base_url,
        "send_message": send_message,
        "response_path": "data.reply",
        **extra,
    }
    return create_connector(params, guard, retry=FAST)


def test_a_tricky_message_arrives_intact_in_a_json_body(fake, local_guard):
    template = {
        "text": "{user_msg}",
        "meta": {"session": "{session_id}", "turn": "{turn}", "list": ["{uuid}"]},
    }
    with connector(fake, local_guard, {"path": "/chat", "payload_template": template}) as bot:
        reply = bot.send(TRICKY)
        bot.send("again")
    first, second = (r.json() for r in fake.requests_to("/chat"))
    assert first["text"] == TRICKY
    assert reply.messages == [f"You said: {TRICKY}"]
    # {session_id} inside the user's text was not substituted again; the real one is a UUID.
    assert "{session_id}" in first["text"]
    assert first["meta"]["session"] == second["meta"]["session"] != "{session_id}"
    assert first["meta"]["turn"] == 1
    assert second["meta"]["turn"] == 2
    assert first["meta"]["list"][0] != second["meta"]["list"][0]


def test_a_tricky_message_in_the_path_is_one_encoded_segment(fake, local_guard):
    with connector(
        fake, local_guard, {"path": "/chat/{user_msg}", "payload_template": {"text": "fixed"}}
    ) as bot:
        bot.send(TRICKY)
    (received,) = fake.requests
    # Still under /chat/: no traversal, no query string or fragment smuggled in.
    assert received.target.startswith("/chat/")
    assert "/" not in received.target.removeprefix("/chat/")
    assert "?" not in received.target
    assert "#" not in received.target
    assert unquote(received.target.removeprefix("/chat/")) == TRICKY


@pytest.mark.parametrize("value", ["..", ".", "../..", "a/../b"])
def test_dot_segments_cannot_climb(value):
    path = render_path("/bots/{user_msg}/chat", Values(user_msg=value, session_id="s", uuid="u", turn=1))
    assert path.count("/") == 3
    assert ".." not in path


def test_a_tricky_message_in_a_get_query_arrives_intact(fake, local_guard):
    send = {
        "path": "/chat",
        "method": "get",
        "payload_template": {"text": "{user_msg}", "session": "{session_id}"},
    }
    with connector(fake, local_guard, send) as bot:
        reply = bot.send(TRICKY)
    (received,) = fake.requests
    assert received.method == "GET"
    assert received.query["text"] == TRICKY
    assert reply.messages == [f"You said: {TRICKY}"]


def test_a_line_break_reaching_a_header_is_refused_before_sending(fake, local_guard):
    send = {"path": "/chat", "headers": {"X-User": "{user_msg}"}, "payload_template": {"text": "{user_msg}"}}
    with connector(fake, local_guard, send) as bot:
        assert bot.send("plain").messages == ["You said: plain"]
        with pytest.raises(ConnectorConfigError) as refused:
            bot.send("evil\r\nX-Admin: yes")
    assert "send_message.headers.X-User" in refused.value.user_message
    assert len(fake.requests) == 1
    assert fake.requests[0].header("X-User") == "plain"


def test_placeholders_in_keys_and_unknown_braces_are_left_alone():
    values = Values(user_msg="hi", session_id="S", uuid="U", turn=3)
    rendered = render_body(
        {"{session_id}": "{user_msg} {unknown} {{user_msg}}", "n": 5, "t": "{turn}"}, values
    )
    assert rendered == {"S": "hi {unknown} {hi}", "n": 5, "t": 3}
    assert json.loads(json.dumps(rendered)) == rendered
