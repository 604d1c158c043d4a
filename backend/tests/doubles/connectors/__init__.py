"""Protocol fakes: in-process HTTP servers that speak each technology's wire format, for the tests only.

`server.FakeServer` (sockets, request log, fault injection) serves a protocol handler; the handlers here
(`RasaProtocol`, `GenericJsonProtocol`, `MillionbotProtocol`, `LanggraphProtocol`, `OpenaiChatProtocol`, and the
reference bots' own `TaskytoProtocol` from `engine.bots.taskyto`) know one wire format each and take the bot's logic as `reply(session_id, text)`.
`fake_for(technology, reply)` returns a not-yet-started server and the connector parameters that reach it.
"""

from __future__ import annotations

from pydantic import JsonValue

from engine.bots.taskyto import TaskytoProtocol
from tests.doubles.connectors.generic import GenericJsonProtocol
from tests.doubles.connectors.langgraph import LanggraphProtocol
from tests.doubles.connectors.millionbot import MillionbotProtocol
from tests.doubles.connectors.openai_chat import OpenaiChatProtocol
from tests.doubles.connectors.rasa import RasaProtocol
from tests.doubles.connectors.server import (
    FakeRequest,
    FakeResponse,
    FakeServer,
    ProtocolHandler,
    Reply,
    ScriptedReply,
)

HTTP_CONNECTOR_FOR_GENERIC: dict[str, JsonValue] = {
    "new_conversation": {"path": "/sessions", "session_id_path": "session.id", "greeting_path": "welcome"},
    "send_message": {"path": "/chat/{session_id}", "payload_template": {"text": "{user_msg}"}},
    "messages_path": "data.messages",
    "buttons_path": "data.buttons",
}


def fake_for(technology: str, reply: Reply) -> tuple[FakeServer, dict[str, JsonValue]]:
    """A not-yet-started fake server for `technology` and the connector parameters it needs besides
    `base_url` (see `params_for`)."""
    handlers: dict[str, tuple[ProtocolHandler, dict[str, JsonValue]]] = {
        "http": (GenericJsonProtocol(reply, strict_sessions=True), HTTP_CONNECTOR_FOR_GENERIC),
        "taskyto": (TaskytoProtocol(reply), {}),
        "rasa": (RasaProtocol(reply), {}),
        "millionbot": (MillionbotProtocol(reply), {"bot_id": "bot-1", "api_key": "test-key"}),
        "langgraph": (LanggraphProtocol(reply), {}),
        "openai-chat": (OpenaiChatProtocol(reply), {"model": "bot-model", "system_prompt": "Be brief."}),
    }
    if technology not in handlers:
        raise KeyError(f"no protocol fake for technology {technology!r}")
    handler, params = handlers[technology]
    return FakeServer(handler), dict(params)


def params_for(technology: str, server: FakeServer, extra: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """Connector parameters (flat, with `technology`) that reach a started fake server."""
    base = server.base_url + ("/v1" if technology == "openai-chat" else "")
    return {"technology": technology, "base_url": base, **extra}


__all__ = [
    "FakeRequest",
    "FakeResponse",
    "FakeServer",
    "GenericJsonProtocol",
    "LanggraphProtocol",
    "MillionbotProtocol",
    "OpenaiChatProtocol",
    "RasaProtocol",
    "Reply",
    "ScriptedReply",
    "TaskytoProtocol",
    "fake_for",
    "params_for",
]
