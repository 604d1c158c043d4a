"""1MillionBot's public widget API, server side (as far as Parley's connector uses it).

POST `/users` -> `{"user": {"_id"}}`; POST `/conversations` -> `{"conversation": {"_id"}}` plus the
`x-chat-session-token` header; POST `/messages` -> `{"response": [{"text"}..., {"payload": {"buttons"}}]}`.
Every call needs `Authorization: API-KEY <api_key>`; `/messages` needs the session token and a known
conversation (JSON 404 otherwise).
"""

from __future__ import annotations

import uuid

from pydantic import JsonValue

from tests.doubles.connectors.server import FakeRequest, FakeResponse, Reply, ScriptedReply


class MillionbotProtocol:
    def __init__(self, reply: Reply, *, api_key: str = "test-key") -> None:
        self.reply = reply
        self.api_key = api_key
        self.conversations: dict[str, str] = {}  # conversation id -> session token

    def handle(self, request: FakeRequest) -> FakeResponse:
        if request.method != "POST":
            return FakeResponse.html(405, "Method Not Allowed")
        if request.header("Authorization") != f"API-KEY {self.api_key}":
            return FakeResponse.json({"error": "invalid API key"}, 401)
        try:
            data = request.json()
        except ValueError:
            return FakeResponse.json({"error": "invalid JSON"}, 400)
        if request.path == "/users":
            return FakeResponse.json({"user": {"_id": uuid.uuid4().hex}})
        if request.path == "/conversations":
            created, token = uuid.uuid4().hex, uuid.uuid4().hex
            self.conversations[created] = token
            return FakeResponse.json(
                {"conversation": {"_id": created}}, headers={"x-chat-session-token": token}
            )
        if request.path != "/messages":
            return FakeResponse.html(404, "Not Found")
        conversation = data.get("conversation") if isinstance(data, dict) else None
        if not isinstance(conversation, str) or conversation not in self.conversations:
            return FakeResponse.json({"error": "conversation not found"}, 404)
        if request.header("x-chat-session-token") != self.conversations[conversation]:
            return FakeResponse.json({"error": "invalid session token"}, 403)
        message = data.get("message")
        text = message.get("text") if isinstance(message, dict) else None
        try:
            said = ScriptedReply.of(self.reply(str(conversation), str(text)))
        except Exception as exc:  # noqa: BLE001 - the bot's failure is the server's 500
            return FakeResponse.json({"error": str(exc)}, 500)
        items: list[JsonValue] = [{"text": m} for m in said.messages]
        if said.buttons:
            buttons: JsonValue = [{"text": label, "value": value} for label, value in said.buttons]
            items.append({"payload": {"buttons": buttons}})
        return FakeResponse.json({"response": items})
