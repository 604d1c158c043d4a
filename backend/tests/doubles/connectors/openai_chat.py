"""An OpenAI-compatible chat-completions endpoint, server side: POST `/v1/chat/completions`.

The bot logic sees the conversation's first user message as its "session" key (the protocol has no session
ids: history travels with every request) and the latest user message; `received` keeps every request's
message list so tests can check what history was sent.
"""

from __future__ import annotations

from pydantic import JsonValue

from tests.doubles.connectors.server import FakeRequest, FakeResponse, Reply, ScriptedReply

PATH = "/v1/chat/completions"


class OpenaiChatProtocol:
    def __init__(self, reply: Reply, *, model: str = "bot-model") -> None:
        self.reply = reply
        self.model = model
        self.received: list[list[JsonValue]] = []

    def handle(self, request: FakeRequest) -> FakeResponse:
        if request.path != PATH:
            return FakeResponse.json({"error": {"message": "Not found"}}, 404)
        try:
            data = request.json()
            messages = list(data["messages"])
        except (ValueError, KeyError, TypeError):
            return FakeResponse.json({"error": {"message": "Invalid request body"}}, 400)
        if data.get("model") != self.model:
            return FakeResponse.json(
                {"error": {"message": f"The model {data.get('model')} does not exist"}}, 404
            )
        self.received.append(messages)
        users = [m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        try:
            said = ScriptedReply.of(
                self.reply(str(users[0]) if users else "", str(users[-1]) if users else "")
            )
        except Exception as exc:  # noqa: BLE001 - the model's failure is the server's 500
            return FakeResponse.json({"error": {"message": str(exc)}}, 500)
        content = "\n".join(said.messages)
        return FakeResponse.json(
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "model": self.model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            }
        )
