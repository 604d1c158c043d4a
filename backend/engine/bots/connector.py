"""The reference bots as an in-process `Connector`: the `demo` technology, reached without any network.

`register_demo_technology()` adds `demo` to the connectors' registry; the composition roots (the CLI, the Django
apps) call it, so the connectors never import the bots. A bot crash becomes a `ChatbotHTTPError` with status 500,
exactly what the same bot served over HTTP would produce. Tests may install another factory with
`register_demo_bots(factory)`: `factory(bot)` returns a `Connector` for the named bot or raises
`ConnectorConfigError` for an unknown name.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date

from pydantic import Field

from engine.bots.adversarial import ADVERSARIAL_BOTS, AdversarialConnector
from engine.bots.registry import BOTS, StillbornMutant, UnknownMutant, bot_definition, open_bot
from engine.bots.runtime import BotCrash, BotRuntime, Reply
from engine.connectors.base import BotReply, Button, Connector, ConnectorContext
from engine.connectors.errors import ChatbotHTTPError, ConnectorConfigError
from engine.connectors.registry import register_technology
from engine.connectors.technology import Technology, TechnologySettings


class InProcessBot(Connector):
    """A reference bot's runtime behind the `Connector` interface, a fresh one (`_open`) per conversation; a bot
    crash becomes a `ChatbotHTTPError` with status 500, as the same bot served over HTTP answers."""

    technology = "demo"
    _runtime: BotRuntime | None = None
    _greeting: BotReply | None = None

    def _open(self) -> BotRuntime:
        raise NotImplementedError

    def _name(self) -> str:
        """The bot as a crash message names it ("demo bot pizza")."""
        raise NotImplementedError

    def new_conversation(self) -> None:
        self._runtime = self._open()
        opening = self._runtime.start()
        self._greeting = bot_reply(opening, 0.0) if opening.messages else None

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
            raise ChatbotHTTPError(f"The {self._name()} failed: {exc.user_message}", status=500) from None
        return bot_reply(reply, time.perf_counter() - started)


def bot_reply(reply: Reply, latency: float) -> BotReply:
    return BotReply(
        messages=list(reply.messages),
        buttons=[Button(label=b, value=b) for b in reply.buttons],
        raw={"messages": list(reply.messages), "buttons": list(reply.buttons)},
        latency_s=latency,
    )


class BotConnector(InProcessBot):
    def __init__(self, bot_id: str, *, mutant: str | None = None, today: date | None = None) -> None:
        self.bot_id = bot_id
        self.mutant = mutant
        self.today = today

    def _open(self) -> BotRuntime:
        return open_bot(self.bot_id, self.mutant, today=self.today)

    def _name(self) -> str:
        return f"demo bot {self.bot_id}"


def demo_factory(bot: str) -> Connector:
    """`bot` is a bot id, or `<bot id>@<mutant id>` for a mutant; `leaky` and `guarded` are the security bots."""
    bot_id, _, mutant = bot.partition("@")
    if bot_id in ADVERSARIAL_BOTS and not mutant:
        return AdversarialConnector(bot_id)
    if bot_id not in BOTS:
        raise ConnectorConfigError(
            f"Unknown demo bot {bot_id!r}; the bots are {', '.join([*BOTS, *ADVERSARIAL_BOTS])}.", field="bot"
        )
    if mutant:
        try:
            bot_definition(bot_id, mutant)
        except (UnknownMutant, StillbornMutant) as exc:
            raise ConnectorConfigError(exc.user_message, field="bot") from None
    return BotConnector(bot_id, mutant=mutant or None)


DemoBotFactory = Callable[[str], Connector]

_factory: list[DemoBotFactory] = [demo_factory]


def register_demo_bots(factory: DemoBotFactory | None) -> DemoBotFactory:
    """Install the factory behind `demo` (None restores the reference bots); returns the previous one."""
    previous = _factory[0]
    _factory[0] = factory or demo_factory
    return previous


class DemoSettings(TechnologySettings):
    bot: str = Field(min_length=1, description="Name of the reference chatbot to talk to.")


def _create(settings: DemoSettings, context: ConnectorContext) -> Connector:
    return _factory[0](settings.bot)


DEMO = Technology(
    name="demo",
    description="Parley's built-in reference chatbots, in process (no network).",
    settings=DemoSettings,
    factory=_create,
    example={"bot": "pizza"},
)


def register_demo_technology() -> None:
    """Make `demo` a connector technology (idempotent)."""
    register_technology(DEMO)
