"""Fixtures for SENSEI: a gateway client on the scripted chat model, and in-process chatbots.

`FakeBot` is a tiny deterministic connector (greeting, fallback, HTTP 500 on a keyword, timeouts, slow
replies, scripted answers). `ReferenceBotConnector` wraps the reference bots' in-process runtime
(`engine.bots.open_bot`); once the `demo` connector technology is wired to the bots, these tests can build
their connectors with `create_connector({"technology": "demo", "bot": "pizza"}, guard)` instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from benchmarks.on_bots import TODAY, profile_from, run_on_bot  # noqa: F401  (the SENSEI tests' shared helpers)
from engine.connectors import BotReply, Button, ChatbotHTTPError, ChatbotTimeout, Connector
from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, RetryPolicy, UsageLedger
from engine.llm.offline import ScriptedChatModel

FAST_RETRY = RetryPolicy(max_attempts=1, initial_delay_s=0.0, max_delay_s=0.0, jitter_s=0.0, max_total_s=1)
FALLBACK = "Sorry, I did not understand that. Could you say it another way?"


class FakeBot(Connector):
    """Answers from `answer(text, turn)`; raises on keywords; counts what it received and open conversations."""

    technology = "fake"
    lock = threading.Lock()
    open_now = 0
    max_open = 0

    def __init__(
        self,
        answer: Callable[[str, int], str] | None = None,
        *,
        greeting: str | None = None,
        delay_s: float = 0.0,
        buttons: list[str] | None = None,
    ) -> None:
        self.answer = answer or (lambda text, turn: f"Noted: {text}")
        self.greeting_text = greeting
        self.delay_s = delay_s
        self.buttons = buttons or []
        self.received: list[str] = []
        self.events: list[str] = []
        self.opened = False

    def new_conversation(self) -> None:
        self.events.append("open")
        with FakeBot.lock:
            FakeBot.open_now += 1
            FakeBot.max_open = max(FakeBot.max_open, FakeBot.open_now)
        self.opened = True

    def greeting(self) -> BotReply | None:
        self.events.append("greeting")
        if self.greeting_text is None:
            return None
        return BotReply(messages=[self.greeting_text], latency_s=0.01)

    def send(self, text: str) -> BotReply:
        self.events.append(f"send:{text}")
        self.received.append(text)
        if "CRASH" in text:
            raise ChatbotHTTPError("The chatbot answered HTTP 500 Internal Server Error.", status=500)
        if "SLOW" in text:
            raise ChatbotTimeout("No reply within 10 s.")
        if self.delay_s:
            time.sleep(self.delay_s)
        reply = self.answer(text, len(self.received))
        return BotReply(messages=[reply], buttons=[Button(label=b) for b in self.buttons], latency_s=0.02)

    def close(self) -> None:
        if self.opened:
            with FakeBot.lock:
                FakeBot.open_now -= 1
            self.opened = False


class ReferenceBotConnector(Connector):
    """A reference bot (engine.bots) behind the Connector contract, in process."""

    technology = "reference-bot"

    def __init__(self, bot_id: str) -> None:
        from engine.bots import open_bot

        self.bot_id = bot_id
        self._open = open_bot
        self.runtime: Any = None
        self.received: list[str] = []

    def new_conversation(self) -> None:
        self.runtime = self._open(self.bot_id, conversation_id="conv-1", today=TODAY)

    def greeting(self) -> BotReply | None:
        reply = self.runtime.start()
        return (
            BotReply(messages=reply.messages, buttons=[Button(label=b) for b in reply.buttons])
            if (reply.messages)
            else None
        )

    def send(self, text: str) -> BotReply:
        if self.runtime is None:
            self.new_conversation()
        self.received.append(text)
        reply = self.runtime.reply(text)
        return BotReply(messages=reply.messages, buttons=[Button(label=b) for b in reply.buttons])


@pytest.fixture(autouse=True)
def _reset_fakebot() -> None:
    FakeBot.open_now = 0
    FakeBot.max_open = 0


@pytest.fixture
def make_llm() -> Callable[..., tuple[LLMClient, ScriptedChatModel]]:
    def build(script: dict[str, Any] | None = None, **options: Any) -> tuple[LLMClient, ScriptedChatModel]:
        model = ScriptedChatModel(script or {})
        config = ProviderConfig(
            "openai-compatible", base_url="http://127.0.0.1:9/v1", model=options.pop("model", "gpt-4o-mini")
        )
        options.setdefault("ledger", UsageLedger())
        client = LLMClient(
            config,
            guard=EgressGuard(EgressPolicy.parse("127.0.0.1")),
            retry=FAST_RETRY,
            chat_model=model,
            **options,
        )
        return client, model

    return build
