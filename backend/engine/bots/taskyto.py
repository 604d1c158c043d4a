"""Taskyto's HTTP protocol, server side: the wire behaviour of `taskyto-serve`, with pluggable bot logic.

`TaskytoProtocol(reply)` reproduces the wire behaviour the real server was observed to have — uuid4 ids,
per-conversation state, the greeting swallowed by the first turn, a turn's utterances joined by newlines,
compact sorted JSON with a trailing newline, the same status codes, content types and error prefixes, and
Flask-style HTML pages for unknown routes and wrong methods. The bot logic is only the `reply` callable: the
reference-bots server (`engine.bots.server`) serves the bots through it, and the connector tests serve their
fake Taskyto bots through it too (`tests/doubles/connectors/`). Test switches: `forget_all()`
(a restart), `fail_new = True` (a bot that cannot start: HTML 500 on `new`).
"""

from __future__ import annotations

import json
import threading
import uuid

from pydantic import JsonValue

from engine.bots.wire import FakeRequest, FakeResponse, Reply, ScriptedReply

NEW = "/conversation/new"
MESSAGE = "/conversation/user_message"


def _flask_json(data: JsonValue, status: int = 200) -> FakeResponse:
    body = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    return FakeResponse(status, body.encode())


class TaskytoProtocol:
    def __init__(self, reply: Reply, *, greeting: str = "Hello") -> None:
        self.reply = reply
        self.greeting = greeting
        self.fail_new = False
        self._pending: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    @property
    def conversation_ids(self) -> list[str]:
        with self._lock:
            return list(self._pending)

    def forget_all(self) -> None:
        """Drop every conversation, as a restart of the real server does."""
        with self._lock:
            self._pending.clear()

    def handle(self, request: FakeRequest) -> FakeResponse:
        path = request.path
        if path not in (NEW, MESSAGE):
            return FakeResponse.html(404, "404 Not Found")
        if request.method != "POST":
            return FakeResponse.html(405, "405 Method Not Allowed")
        if path == NEW:
            return self._new()
        return self._user_message(request)

    def _new(self) -> FakeResponse:
        if self.fail_new:
            return FakeResponse.html(500, "500 Internal Server Error")
        conversation = str(uuid.uuid4())
        with self._lock:
            self._pending[conversation] = [self.greeting] if self.greeting else []
        return _flask_json({"id": conversation})

    def _user_message(self, request: FakeRequest) -> FakeResponse:
        content_type = (request.header("Content-Type") or "").split(";")[0].strip()
        if content_type != "application/json":
            error = (
                "Unexpected error: 415 Unsupported Media Type: Did not attempt to load JSON data because the "
                "request Content-Type was not 'application/json'."
            )
            return _flask_json({"error": error}, 500)
        try:
            data = request.json()
        except ValueError:
            error = "400 Bad Request: The browser (or proxy) sent a request that this server could not understand."
            return _flask_json({"error": error}, 400)
        if not isinstance(data, dict) or "id" not in data or "message" not in data:
            return _flask_json({"error": "400 Bad Request: Missing 'id' or 'message' in request"}, 400)
        conversation = str(data["id"])
        with self._lock:
            known = conversation in self._pending
            if known:
                self._pending[conversation] = []  # the first turn clears the greeting, like the real server
        if not known:
            error = f"404 Not Found: Conversation with id {conversation} not found"
            return _flask_json({"error": error}, 404)
        try:
            if not isinstance(data["message"], str):
                raise TypeError("message must be a string")
            said = ScriptedReply.of(self.reply(conversation, data["message"])).messages
        except Exception as exc:  # noqa: BLE001 - any bot failure is the engine's 500, as in Taskyto
            error = f"500 Internal Server Error: Error executing the engine: {exc}"
            return _flask_json({"error": error}, 500)
        return _flask_json({"id": conversation, "message": "\n".join(said), "type": "chatbot_response"})
