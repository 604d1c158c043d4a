"""`rasa`: a Rasa assistant through its REST channel (`POST webhooks/rest/webhook`).

Rasa keys conversations by sender id, so a new conversation is a new random sender id (no request). The reply
is a list of bubbles: `text`, `image` (its URL becomes a message), `buttons` (`title`/`payload`) and `custom`
(written out as JSON). An optional `start_message` (e.g. `/greet`) is sent when a conversation opens and its
answer becomes the greeting, for assistants that speak first.
"""

from __future__ import annotations

import json
import time
import uuid

from pydantic import Field, JsonValue, SecretStr

from engine.connectors.base import BotReply, Button, Connector, ConnectorContext
from engine.connectors.errors import ChatbotProtocolError
from engine.connectors.technologies._replies import as_buttons
from engine.connectors.technology import BaseUrl, Seconds, Technology, TechnologySettings
from engine.connectors.transport import HttpChannel, Phase, check_status, decode_json, display_url, join_url

WEBHOOK = "webhooks/rest/webhook"


class RasaSettings(TechnologySettings):
    base_url: BaseUrl = Field(description="The Rasa server, e.g. http://rasa.example.com:5005.")
    token: SecretStr | None = Field(None, description="Sent as 'Authorization: Bearer <token>' when set.")
    start_message: str | None = Field(None, description="Sent when a conversation opens (e.g. /greet).")
    timeout: Seconds = Field(60.0, description="Seconds to wait for a reply.")


def parse_rasa_reply(body: JsonValue, where: str) -> tuple[list[str], list[Button]]:
    items = body.get("messages") if isinstance(body, dict) else body
    if not isinstance(items, list):
        raise ChatbotProtocolError(f"The Rasa server at {where} answered with something other than a list.")
    messages: list[str] = []
    buttons: list[Button] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        for key in ("text", "image"):
            value = item.get(key)
            if isinstance(value, str) and value:
                messages.append(value)
        if "custom" in item:
            messages.append(json.dumps(item["custom"], ensure_ascii=False))
        buttons.extend(as_buttons(item.get("buttons") or []))
    return messages, buttons


class RasaConnector(Connector):
    technology = "rasa"

    def __init__(self, settings: RasaSettings, context: ConnectorContext) -> None:
        self.settings = settings
        headers = {"Authorization": f"Bearer {settings.token.get_secret_value()}"} if settings.token else {}
        self._channel = HttpChannel(context, timeout=settings.timeout, headers=headers)
        self._sender: str | None = None
        self._greeting: BotReply | None = None

    def _post(self, text: str, phase: Phase) -> BotReply:
        started = time.perf_counter()
        response = self._channel.request(
            "POST",
            join_url(self.settings.base_url, WEBHOOK),
            phase=phase,
            json_body={"sender": self._sender, "message": text},
        )
        latency = time.perf_counter() - started
        check_status(
            response,
            hint="Is the REST channel enabled in credentials.yml?" if response.status_code == 404 else "",
        )
        body = decode_json(response)
        messages, buttons = parse_rasa_reply(body, display_url(response.request.url))
        return BotReply(messages=messages, buttons=buttons, raw=body, latency_s=latency)

    def new_conversation(self) -> None:
        self._sender = f"parley-{uuid.uuid4().hex}"
        self._greeting = (
            self._post(self.settings.start_message, "open") if self.settings.start_message else None
        )

    def greeting(self) -> BotReply | None:
        if self._sender is None:
            self.new_conversation()
        return self._greeting

    def send(self, text: str) -> BotReply:
        if self._sender is None:
            self.new_conversation()
        return self._post(text, "turn")

    def close(self) -> None:
        self._channel.close()


RASA = Technology(
    name="rasa",
    description="A Rasa assistant through its REST webhook channel.",
    settings=RasaSettings,
    factory=RasaConnector,
    example={"base_url": "http://rasa.example.com:5005"},
)
