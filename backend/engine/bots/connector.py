"""The reference bots as an in-process `Connector`, for the connectors' `demo` technology.

The `demo` technology imports `demo_factory` on first use. A bot crash becomes a
`ChatbotHTTPError` with status 500, exactly what the same bot served over HTTP would produce.
"""

from __future__ import annotations

import time
from datetime import date

from engine.bots.registry import BOTS, StillbornMutant, UnknownMutant, bot_definition, open_bot
from engine.bots.runtime import BotCrash, BotRuntime
from engine.connectors.base import BotReply, Button, Connector
from engine.connectors.errors import ChatbotHTTPError, ConnectorConfigError


class BotConnector(Connector):
    technology = "demo"

    def __init__(self, bot_id: str, *, mutant: str | None = None, today: date | None = None) -> None:
        self.bot_id = bot_id
        self.mutant = mutant
        self.today = today
        self._runtime: BotRuntime | None = None
        self._greeting: BotReply | None = None

    def new_conversation(self) -> None:
        self._runtime = open_bot(self.bot_id, self.mutant, today=self.today)
        opening = self._runtime.start()
        self._greeting = _reply(opening.messages, opening.buttons, 0.0) if opening.messages else None

    def greeting(self) -> BotReply | None:
        if self._runtime is None:
            self.new_conversation()
        return self._greeting

    def send(self, text: str) -> BotReply:
        if self._runtime is None:
            self.new_conversation()
        assert self._runtime is not None
        started = time.perf_counter()
        try:
            reply = self._runtime.reply(text)
        except BotCrash as exc:
            raise ChatbotHTTPError(
                f"The demo bot {self.bot_id} failed: {exc.user_message}", status=500
            ) from None
        return _reply(reply.messages, reply.buttons, time.perf_counter() - started)


def _reply(messages: list[str], buttons: list[str], latency: float) -> BotReply:
    return BotReply(
        messages=list(messages),
        buttons=[Button(label=b, value=b) for b in buttons],
        raw={"messages": list(messages), "buttons": list(buttons)},
        latency_s=latency,
    )


def demo_factory(bot: str) -> Connector:
    """`bot` is a bot id, or `<bot id>@<mutant id>` for a mutant."""
    bot_id, _, mutant = bot.partition("@")
    if bot_id not in BOTS:
        raise ConnectorConfigError(
            f"Unknown demo bot {bot_id!r}; the bots are {', '.join(BOTS)}.", field="bot"
        )
    if mutant:
        try:
            bot_definition(bot_id, mutant)
        except (UnknownMutant, StillbornMutant) as exc:
            raise ConnectorConfigError(exc.user_message, field="bot") from None
    return BotConnector(bot_id, mutant=mutant or None)
