"""`openai-chat`: a chatbot that *is* an OpenAI-compatible chat-completions endpoint plus a system prompt.

The conversation history is kept here, client-side: each turn sends the system prompt, every earlier turn and
the new user message to POST `chat/completions`, and appends the pair only once the reply arrived (a failed
turn leaves the history as it was). A new conversation is an empty history, no request. This talks plain HTTP
through the egress guard; it is the chatbot under test, not Parley's own LLM (that is engine.llm).
"""

from __future__ import annotations

import time

from pydantic import Field, JsonValue, SecretStr

from engine.connectors.base import BotReply, Connector, ConnectorContext
from engine.connectors.errors import ChatbotProtocolError
from engine.connectors.paths import extract
from engine.connectors.technologies.langgraph import latest_ai_messages
from engine.connectors.technology import BaseUrl, Seconds, Technology, TechnologySettings
from engine.connectors.transport import HttpChannel, check_status, decode_json, display_url, join_url


class OpenaiChatSettings(TechnologySettings):
    base_url: BaseUrl = Field(
        description="The API root, usually ending in /v1 (chat/completions is appended)."
    )
    model: str = Field(min_length=1, description="Model name sent with every request.")
    api_key: SecretStr | None = Field(None, description="Sent as 'Authorization: Bearer <key>' when set.")
    system_prompt: str | None = Field(
        None, description="The chatbot's instructions, sent first on every turn."
    )
    temperature: float | None = Field(
        None, ge=0, le=2, description="Sampling temperature; provider default if unset."
    )
    max_tokens: int | None = Field(None, gt=0, description="Upper bound on the reply's length in tokens.")
    timeout: Seconds = Field(120.0, description="Seconds to wait for a reply.")


class OpenaiChatConnector(Connector):
    technology = "openai-chat"

    def __init__(self, settings: OpenaiChatSettings, context: ConnectorContext) -> None:
        self.settings = settings
        headers = (
            {"Authorization": f"Bearer {settings.api_key.get_secret_value()}"} if settings.api_key else {}
        )
        self._channel = HttpChannel(context, timeout=settings.timeout, headers=headers)
        self._history: list[JsonValue] = []

    def new_conversation(self) -> None:
        self._history = []

    def send(self, text: str) -> BotReply:
        s = self.settings
        system: list[JsonValue] = [{"role": "system", "content": s.system_prompt}] if s.system_prompt else []
        user: JsonValue = {"role": "user", "content": text}
        request: dict[str, JsonValue] = {"model": s.model, "messages": [*system, *self._history, user]}
        if s.temperature is not None:
            request["temperature"] = s.temperature
        if s.max_tokens is not None:
            request["max_tokens"] = s.max_tokens
        started = time.perf_counter()
        response = self._channel.request(
            "POST", join_url(s.base_url, "chat/completions"), phase="turn", json_body=request
        )
        latency = time.perf_counter() - started
        check_status(response)
        body = decode_json(response)
        where = display_url(response.request.url)
        message = extract(body, "choices.0.message", setting="the reply's choices.0.message", where=where)
        if not isinstance(message, dict):
            raise ChatbotProtocolError(f"The reply from {where} has no message in choices[0].")
        messages = latest_ai_messages({"content": message.get("content")})
        self._history += [user, {"role": "assistant", "content": "\n".join(messages)}]
        return BotReply(messages=messages, raw=body, latency_s=latency)

    def close(self) -> None:
        self._channel.close()


OPENAI_CHAT = Technology(
    name="openai-chat",
    description="A chatbot that is an OpenAI-compatible chat-completions endpoint with a system prompt.",
    settings=OpenaiChatSettings,
    factory=OpenaiChatConnector,
    example={"base_url": "https://llm.example.com/v1", "model": "<model>", "system_prompt": "You are ..."},
)
