"""`demo`: Parley's in-process reference chatbots, reached without any network.

The bots themselves arrive with the reference-bots issue, which calls `register_demo_bots(factory)` once at
start-up; `factory(bot)` returns a `Connector` for the named bot or raises `ConnectorConfigError` for an
unknown name. Until then the technology is listed (so forms and files can name it) but creating a connector
fails with a clear "not available yet" message.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import Field

from engine.connectors.base import Connector, ConnectorContext
from engine.connectors.errors import ConnectorConfigError
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


def _create(settings: DemoSettings, context: ConnectorContext) -> Connector:
    factory = _factory[0]
    if factory is None:
        raise ConnectorConfigError(
            f"Demo chatbots are not available yet in this installation, so {settings.bot!r} cannot be used.",
            field="bot",
        )
    return factory(settings.bot)


DEMO = Technology(
    name="demo",
    description="Parley's built-in reference chatbots, in process (no network).",
    settings=DemoSettings,
    factory=_create,
    example={"bot": "<reference bot name>"},
)
