"""Rasa's REST channel, server side: POST `/webhooks/rest/webhook` `{sender, message}` -> list of bubbles.

Each message becomes `{"recipient_id", "text"}`; buttons ride on the last bubble as `{"title", "payload"}`.
Senders are remembered (`senders`), nothing else: Rasa has no "unknown session".
"""

from __future__ import annotations

from pydantic import JsonValue

from tests.doubles.connectors.server import FakeRequest, FakeResponse, Reply, ScriptedReply

WEBHOOK = "/webhooks/rest/webhook"


class RasaProtocol:
    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.senders: set[str] = set()

    def handle(self, request: FakeRequest) -> FakeResponse:
        if request.path != WEBHOOK:
            return FakeResponse.html(404, "404 Not Found")
        if request.method != "POST":
            return FakeResponse.html(405, "405 Method Not Allowed")
        try:
            data = request.json()
        except ValueError:
            return FakeResponse.json({"status": "failure", "reason": "BodyParseError", "code": 400}, 400)
        if not isinstance(data, dict) or not isinstance(data.get("sender"), str) or "message" not in data:
            return FakeResponse.json({"status": "failure", "reason": "BadRequest", "code": 400}, 400)
        self.senders.add(data["sender"])
        try:
            said = ScriptedReply.of(self.reply(data["sender"], str(data["message"])))
        except Exception as exc:  # noqa: BLE001 - the bot's failure is the server's 500
            return FakeResponse.json({"status": "failure", "message": str(exc), "code": 500}, 500)
        bubbles: list[dict[str, JsonValue]] = [
            {"recipient_id": data["sender"], "text": m} for m in said.messages
        ]
        if said.buttons:
            buttons: JsonValue = [{"title": label, "payload": value} for label, value in said.buttons]
            if not bubbles:
                bubbles.append({"recipient_id": data["sender"]})
            bubbles[-1]["buttons"] = buttons
        return FakeResponse.json(list(bubbles))
