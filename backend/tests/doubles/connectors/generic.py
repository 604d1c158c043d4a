"""A generic JSON chatbot API, server side, for the `http` technology.

Routes:
- POST `/sessions` -> 201 `{"session": {"id"}, "welcome": <greeting>}`;
- GET/POST/PUT `/chat` or `/chat/<session>`: the text is the body's `text` (or the `text` query parameter),
  the session the path segment, else the body's or query's `session`; replies
  `{"data": {"reply": <all text>, "messages": [{"text"}...], "buttons": [{"title", "payload"}...]}}`.
A session named in the path or body that `/sessions` did not create is a JSON 404 when `strict_sessions` is
set; otherwise any session id is accepted (client-generated ids).
"""

from __future__ import annotations

import uuid
from urllib.parse import unquote

from pydantic import JsonValue

from tests.doubles.connectors.server import FakeRequest, FakeResponse, Reply, ScriptedReply


class GenericJsonProtocol:
    def __init__(self, reply: Reply, *, welcome: str = "Welcome!", strict_sessions: bool = False) -> None:
        self.reply = reply
        self.welcome = welcome
        self.strict_sessions = strict_sessions
        self.sessions: set[str] = set()

    def handle(self, request: FakeRequest) -> FakeResponse:
        if request.path == "/sessions" and request.method == "POST":
            session = str(uuid.uuid4())
            self.sessions.add(session)
            return FakeResponse.json({"session": {"id": session}, "welcome": self.welcome}, 201)
        if request.path != "/chat" and not request.path.startswith("/chat/"):
            return FakeResponse.html(404, "404 Not Found")
        body: object = {}
        if request.method in ("POST", "PUT"):
            try:
                body = request.json() if request.body else {}
            except ValueError:
                return FakeResponse.json({"error": "body is not JSON"}, 400)
        fields = body if isinstance(body, dict) else {}
        text = fields.get("text", request.query.get("text"))
        segment = request.path.removeprefix("/chat").strip("/")
        session = unquote(segment) if segment else fields.get("session", request.query.get("session", ""))
        if not isinstance(text, str):
            return FakeResponse.json({"error": "missing 'text'"}, 400)
        if self.strict_sessions and session not in self.sessions:
            return FakeResponse.json({"error": f"unknown session {session}"}, 404)
        try:
            said = ScriptedReply.of(self.reply(str(session), text))
        except Exception as exc:  # noqa: BLE001 - the bot's failure is the server's 500
            return FakeResponse.json({"error": str(exc)}, 500)
        data: JsonValue = {
            "reply": "\n".join(said.messages),
            "messages": [{"text": m} for m in said.messages],
            "buttons": [{"title": label, "payload": value} for label, value in said.buttons],
        }
        return FakeResponse.json({"data": data})
