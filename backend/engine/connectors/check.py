"""`test_connection`: one real round trip with a connector, summarised for a form or the CLI.

It opens a conversation, reads the greeting, sends one message and reports the parsed reply, the raw response
(truncated), the latency — or the classified error with its user message. It never raises for a chatbot or
configuration problem; those are the result.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, JsonValue

from engine.connectors.base import BotReply, RetryPolicy
from engine.connectors.errors import ChatbotHTTPError, ChatbotProtocolError
from engine.connectors.registry import ConnectorConfig, create_connector
from engine.egress import EgressGuard
from engine.errors import ParleyError

RAW_CHARS = 2000


class ConnectionTestResult(BaseModel):
    ok: bool
    technology: str
    message_sent: str
    greeting: BotReply | None = None
    reply: BotReply | None = None
    raw_excerpt: str = ""
    latency_s: float = 0.0
    error_code: str | None = None
    error_message: str | None = None
    http_status: int | None = None


def _truncate(value: JsonValue | str) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)
    return text if len(text) <= RAW_CHARS else text[:RAW_CHARS] + "… (truncated)"


def test_connection(
    config: ConnectorConfig | Mapping[str, Any],
    guard: EgressGuard,
    *,
    message: str = "Hello",
    retry: RetryPolicy | None = None,
) -> ConnectionTestResult:
    technology = (
        config.technology if isinstance(config, ConnectorConfig) else str(config.get("technology", ""))
    )
    started = time.perf_counter()
    greeting: BotReply | None = None
    try:
        with create_connector(config, guard, retry=retry) as connector:
            connector.new_conversation()
            greeting = connector.greeting()
            reply = connector.send(message)
    except ParleyError as exc:
        body = exc.body_excerpt if isinstance(exc, ChatbotHTTPError | ChatbotProtocolError) else ""
        return ConnectionTestResult(
            ok=False,
            technology=technology,
            message_sent=message,
            greeting=greeting,
            raw_excerpt=_truncate(body),
            latency_s=time.perf_counter() - started,
            error_code=exc.code,
            error_message=exc.user_message,
            http_status=exc.status if isinstance(exc, ChatbotHTTPError) else None,
        )
    return ConnectionTestResult(
        ok=True,
        technology=technology,
        message_sent=message,
        greeting=greeting,
        reply=reply,
        raw_excerpt=_truncate(reply.raw),
        latency_s=reply.latency_s,
    )


# pytest would collect a module-level function named test_* when imported into a test module.
test_connection.__test__ = False  # type: ignore[attr-defined]
