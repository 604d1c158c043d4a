"""`millionbot`: a 1MillionBot chatbot through its public widget API.

Opening a conversation is a two-step handshake: POST `users` (-> `user._id`), then POST `conversations`
(-> `conversation._id`, plus an `x-chat-session-token` response header that later requests must echo). A turn
is POST `messages`; the reply's `response` list holds bubbles with `text` and an optional `payload` carrying
`buttons` or `cards[].buttons` (`text`, `value`, `url`). The API key is required and secret: Parley ships no
default key. The payload shapes follow the public widget's traffic and should be re-checked against a live bot.
"""

from __future__ import annotations

import time

from pydantic import Field, JsonValue, SecretStr

from engine.connectors.base import BotReply, Button, Connector, ConnectorContext
from engine.connectors.errors import ChatbotProtocolError
from engine.connectors.paths import extract
from engine.connectors.technologies._replies import as_buttons
from engine.connectors.technology import BaseUrl, PageUrl, Seconds, Technology, TechnologySettings
from engine.connectors.transport import HttpChannel, check_status, decode_json, display_url, join_url

SESSION_HEADER = "x-chat-session-token"


class MillionbotSettings(TechnologySettings):
    bot_id: str = Field(min_length=1, description="The bot's id in 1MillionBot.")
    api_key: SecretStr = Field(description="The widget's API key (sent as 'Authorization: API-KEY <key>').")
    base_url: BaseUrl = Field("https://api.1millionbot.com/api/public/", description="The public API root.")
    site_url: PageUrl | None = Field(
        None, description="Page the widget lives on; sent as Origin/Referer and url."
    )
    language: str = Field("es", description="Conversation language code.")
    timeout: Seconds = Field(60.0, description="Seconds to wait for a reply.")


def parse_millionbot_reply(body: JsonValue, where: str) -> tuple[list[str], list[Button]]:
    items = body.get("response") if isinstance(body, dict) else None
    if not isinstance(items, list):
        raise ChatbotProtocolError(f"The reply from {where} has no 'response' list.")
    messages: list[str] = []
    buttons: list[Button] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        text = item.get("text")
        if isinstance(text, str) and text.strip():
            messages.append(text)
        payload = item.get("payload")
        if isinstance(payload, dict):
            buttons.extend(as_buttons(payload.get("buttons") or []))
            cards = payload.get("cards")
            for card in cards if isinstance(cards, list) else []:
                if isinstance(card, dict):
                    buttons.extend(as_buttons(card.get("buttons") or []))
    return messages, buttons


class MillionbotConnector(Connector):
    technology = "millionbot"

    def __init__(self, settings: MillionbotSettings, context: ConnectorContext) -> None:
        self.settings = settings
        headers = {"Authorization": f"API-KEY {settings.api_key.get_secret_value()}"}
        if settings.site_url:
            headers |= {"Origin": settings.site_url, "Referer": settings.site_url}
        self._channel = HttpChannel(context, timeout=settings.timeout, headers=headers)
        self._user: str | None = None
        self._conversation: str | None = None
        self._token: str | None = None

    def _open_step(self, path: str, body: JsonValue, id_path: str) -> tuple[str, str | None]:
        response = self._channel.request(
            "POST", join_url(self.settings.base_url, path), phase="open", json_body=body
        )
        check_status(response)
        where = display_url(response.request.url)
        found = extract(decode_json(response), id_path, setting=id_path, where=where)
        if not isinstance(found, str) or not found:
            raise ChatbotProtocolError(f"The reply from {where} has no id at {id_path!r}.")
        return found, response.headers.get(SESSION_HEADER)

    def new_conversation(self) -> None:
        s = self.settings
        self._conversation = self._token = None
        self._user, _ = self._open_step(
            "users", {"bot": s.bot_id, "language": s.language, "platform": "parley"}, "user._id"
        )
        body: JsonValue = {
            "bot": s.bot_id,
            "user": self._user,
            "language": s.language,
            "integration": "web",
            "gdpr": True,
        }
        self._conversation, self._token = self._open_step("conversations", body, "conversation._id")

    def send(self, text: str) -> BotReply:
        if self._conversation is None:
            self.new_conversation()
        s = self.settings
        body: JsonValue = {
            "conversation": self._conversation,
            "sender_type": "User",
            "sender": self._user,
            "bot": s.bot_id,
            "language": s.language,
            "url": s.site_url or "",
            "message": {"text": text},
        }
        started = time.perf_counter()
        response = self._channel.request(
            "POST",
            join_url(s.base_url, "messages"),
            phase="turn",
            json_body=body,
            headers={SESSION_HEADER: self._token} if self._token else None,
        )
        latency = time.perf_counter() - started
        check_status(response)
        reply = decode_json(response)
        messages, buttons = parse_millionbot_reply(reply, display_url(response.request.url))
        return BotReply(messages=messages, buttons=buttons, raw=reply, latency_s=latency)

    def close(self) -> None:
        self._channel.close()


MILLIONBOT = Technology(
    name="millionbot",
    description="A 1MillionBot chatbot through its public widget API (bot id and API key).",
    settings=MillionbotSettings,
    factory=MillionbotConnector,
    example={"bot_id": "<bot id>", "api_key": "<API key>", "site_url": "https://www.example.com/"},
)
