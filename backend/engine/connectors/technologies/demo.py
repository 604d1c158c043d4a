"""`demo`: Parley's in-process reference chatbots, reached without any network.

The bots live in engine.bots and are imported on first use (connectors stay light to import). Tests may
install another factory with `register_demo_bots(factory)`: `factory(bot)` returns a `Connector` for the
named bot or raises `ConnectorConfigError` for an unknown name.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from engine.connectors.base import Connector, ConnectorContext
from engine.connectors.technology import Technology, TechnologySettings

DemoBotFactory = Callable[[str], Connector]

_factory: list[DemoBotFactory | None] = [None]


def register_demo_bots(factory: DemoBotFactory | None) -> DemoBotFactory | None:
    """Install the factory of reference bots (None removes it); returns the previous one, for tests."""
    previous = _factory[0]
    _factory[0] = factory
    return previous


class DemoSettings(TechnologySettings):
    bot: str = Field(min_length=1, description="Name of the reference chatbot to talk to.")


def _reference_bots(bot: str) -> Connector:
    from engine.bots.connector import demo_factory

    return demo_factory(bot)


def _create(settings: DemoSettings, context: ConnectorContext) -> Connector:
    return (_factory[0] or _reference_bots)(settings.bot)


DEMO = Technology(
    name="demo",
    description="Parley's built-in reference chatbots, in process (no network).",
    settings=DemoSettings,
    factory=_create,
    example={"bot": "pizza"},
)
