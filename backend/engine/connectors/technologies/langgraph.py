"""`langgraph`: a LangGraph graph deployed on an Agent Server (LangGraph Platform REST API).

A conversation is a thread: POST `threads` -> `thread_id`. A turn is POST `threads/<id>/runs/wait` with the
user message as input; the reply is the thread state. The bot's messages are the AI messages after the last
human message in the list at `response_path` (default `messages`), so a turn that produced several AI
messages yields several bubbles. A JSON 404 means the thread is gone: `SessionLost`.
"""

from __future__ import annotations

import time
from urllib.parse import quote

from pydantic import Field, JsonValue, SecretStr

from engine.connectors.base import BotReply, Connector, ConnectorContext
from engine.connectors.errors import ChatbotProtocolError, SessionLost
from engine.connectors.paths import extract
from engine.connectors.technology import BaseUrl, Seconds, Technology, TechnologySettings
from engine.connectors.transport import HttpChannel, check_status, decode_json, display_url, join_url

_AI = {"ai", "assistant", "AIMessage", "AIMessageChunk"}
_HUMAN = {"human", "user", "HumanMessage"}


class LanggraphSettings(TechnologySettings):
    base_url: BaseUrl = Field(description="The Agent Server, e.g. http://127.0.0.1:2024.")
    assistant_id: str = Field("agent", min_length=1, description="Assistant id or graph name to run.")
    api_key: SecretStr | None = Field(None, description="Sent as X-Api-Key when set.")
    response_path: str = Field("messages", description="Where the message list is in the run's output.")
    timeout: Seconds = Field(120.0, description="Seconds to wait for a run to finish.")


def _content_text(content: JsonValue) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b if isinstance(b, str) else b.get("text") if isinstance(b, dict) else None for b in content]
        return "".join(p for p in parts if isinstance(p, str))
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return ""


def _role(message: dict[str, JsonValue]) -> str:
    return str(message.get("type") or message.get("role") or "")


def latest_ai_messages(value: JsonValue) -> list[str]:
    """Texts of the AI messages that follow the last human message (a plain string is one message)."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, dict):
        text = _content_text(value.get("content"))
        return [text] if text else []
    if not isinstance(value, list):
        return []
    start = 0
    for index, item in enumerate(value):
        if isinstance(item, dict) and _role(item) in _HUMAN:
            start = index + 1
    texts = [
        _content_text(m.get("content")) for m in value[start:] if isinstance(m, dict) and _role(m) in _AI
    ]
    return [t for t in texts if t]


class LanggraphConnector(Connector):
    technology = "langgraph"

    def __init__(self, settings: LanggraphSettings, context: ConnectorContext) -> None:
        self.settings = settings
        headers = {"X-Api-Key": settings.api_key.get_secret_value()} if settings.api_key else {}
        self._channel = HttpChannel(context, timeout=settings.timeout, headers=headers)
        self._thread: str | None = None

    def new_conversation(self) -> None:
        self._thread = None
        response = self._channel.request(
            "POST", join_url(self.settings.base_url, "threads"), phase="open", json_body={}
        )
        check_status(response)
        where = display_url(response.request.url)
        body = decode_json(response)
        thread = body.get("thread_id") if isinstance(body, dict) else None
        if not isinstance(thread, str) or not thread:
            raise ChatbotProtocolError(f"The Agent Server at {where} did not return a thread_id.")
        self._thread = thread

    def send(self, text: str) -> BotReply:
        if self._thread is None:
            self.new_conversation()
        assert self._thread is not None
        url = join_url(self.settings.base_url, f"threads/{quote(self._thread, safe='')}/runs/wait")
        request: JsonValue = {
            "assistant_id": self.settings.assistant_id,
            "input": {"messages": [{"role": "user", "content": text}]},
        }
        started = time.perf_counter()
        response = self._channel.request("POST", url, phase="turn", json_body=request)
        latency = time.perf_counter() - started
        where = display_url(response.request.url)
        if response.status_code == 404 and "json" in response.headers.get("content-type", ""):
            raise SessionLost(f"The Agent Server at {where} no longer knows thread {self._thread}.")
        check_status(response)
        body = decode_json(response)
        if isinstance(body, dict) and isinstance(body.get("__error__"), dict):
            error = body["__error__"]
            assert isinstance(error, dict)
            raise ChatbotProtocolError(
                f"The run at {where} failed: {error.get('message') or error.get('error')}"
            )
        found = extract(body, self.settings.response_path, setting="response_path", where=where)
        return BotReply(messages=latest_ai_messages(found), raw=body, latency_s=latency)

    def close(self) -> None:
        self._channel.close()


LANGGRAPH = Technology(
    name="langgraph",
    description="A LangGraph graph on an Agent Server (threads and runs).",
    settings=LanggraphSettings,
    factory=LanggraphConnector,
    example={"base_url": "http://127.0.0.1:2024", "assistant_id": "agent"},
)
