"""`taskyto`: a Taskyto chatbot served by `taskyto-serve` (Flask, one user turn per request).

Protocol: POST `conversation/new` -> `{"id"}`; POST `conversation/user_message` `{"id", "message"}` ->
`{"message"}` holding every bot utterance of the turn joined by newlines — kept as one message, because single
utterances may contain newlines too. The greeting is never delivered (the first turn clears it), so the user
speaks first. A JSON 404 means the server forgot the conversation (it restarted): `SessionLost`. A derived fork's
envelope `{"success", "debug_msg", "data": {"message"}}` is accepted as well.
"""

from __future__ import annotations

import time

from pydantic import Field, JsonValue

from engine.connectors.base import BotReply, Connector, ConnectorContext
from engine.connectors.errors import ChatbotProtocolError, SessionLost
from engine.connectors.technology import BaseUrl, Seconds, Technology, TechnologySettings
from engine.connectors.transport import HttpChannel, check_status, decode_json, display_url, join_url


class TaskytoSettings(TechnologySettings):
    base_url: BaseUrl = Field(
        description="Where taskyto-serve listens, port included, e.g. http://127.0.0.1:5000."
    )
    timeout: Seconds = Field(
        90.0, description="Seconds to wait for a turn (Taskyto makes several LLM calls)."
    )


def _unwrap(body: JsonValue, where: str) -> dict[str, JsonValue]:
    if not isinstance(body, dict):
        raise ChatbotProtocolError(
            f"The Taskyto server at {where} answered with {type(body).__name__}, not an object."
        )
    if "success" in body and isinstance(body.get("data"), dict):
        if not body["success"]:
            raise ChatbotProtocolError(
                f"The Taskyto server at {where} reported a failure: {body.get('debug_msg')}"
            )
        data = body["data"]
        assert isinstance(data, dict)
        return data
    return body


class TaskytoConnector(Connector):
    technology = "taskyto"

    def __init__(self, settings: TaskytoSettings, context: ConnectorContext) -> None:
        self.settings = settings
        self._channel = HttpChannel(context, timeout=settings.timeout)
        self._id: str | None = None

    def new_conversation(self) -> None:
        self._id = None
        response = self._channel.request(
            "POST", join_url(self.settings.base_url, "conversation/new"), phase="open", json_body={}
        )
        check_status(response, hint="Taskyto could not start the chatbot.")
        where = display_url(response.request.url)
        conversation = _unwrap(decode_json(response), where).get("id")
        if not isinstance(conversation, str) or not conversation:
            raise ChatbotProtocolError(f"The Taskyto server at {where} did not return a conversation id.")
        self._id = conversation

    def send(self, text: str) -> BotReply:
        if self._id is None:
            self.new_conversation()
        started = time.perf_counter()
        response = self._channel.request(
            "POST",
            join_url(self.settings.base_url, "conversation/user_message"),
            phase="turn",
            json_body={"id": self._id, "message": text},
        )
        latency = time.perf_counter() - started
        where = display_url(response.request.url)
        if response.status_code == 404 and "json" in response.headers.get("content-type", ""):
            raise SessionLost(
                f"The Taskyto server at {where} no longer knows conversation {self._id} (it probably restarted)."
            )
        check_status(
            response, hint="Is base_url a Taskyto server?" if response.status_code in (404, 405) else ""
        )
        body = decode_json(response)
        message = _unwrap(body, where).get("message")
        if not isinstance(message, str):
            raise ChatbotProtocolError(f"The reply from {where} has no text in its 'message' field.")
        return BotReply(messages=[message] if message else [], raw=body, latency_s=latency)

    def close(self) -> None:
        self._channel.close()


TASKYTO = Technology(
    name="taskyto",
    description="A Taskyto chatbot served by taskyto-serve (base_url with port).",
    settings=TaskytoSettings,
    factory=TaskytoConnector,
    example={"base_url": "http://127.0.0.1:5000"},
)
