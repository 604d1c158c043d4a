"""The registry of technologies and the stored form of a connector (`ConnectorConfig`).

`ConnectorConfig` is what the workspace stores and what a connector file holds: a technology name and that
technology's parameters. `create_connector` validates it and builds a live `Connector`; validation failures
are `ConnectorConfigError`s naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field, JsonValue

from engine.connectors.base import Connector, ConnectorContext, RetryPolicy
from engine.connectors.errors import ConnectorConfigError
from engine.connectors.technologies import ALL
from engine.connectors.technology import Locator, Technology, TechnologySettings
from engine.egress import EgressGuard


class ConnectorConfig(BaseModel):
    """A connector as stored: `technology` plus its parameters (secrets in clear — encrypt before storing)."""

    technology: str
    params: dict[str, JsonValue] = Field(default_factory=dict)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ConnectorConfig:
        """From the flat file form `{technology: ..., <parameters>...}`."""
        technology = data.get("technology")
        if not isinstance(technology, str) or not technology.strip():
            known = ", ".join(technology_names())
            raise ConnectorConfigError(f"technology: missing; choose one of {known}.", field="technology")
        params = {k: v for k, v in data.items() if k != "technology"}
        return cls(technology=technology.strip(), params=params)

    def to_mapping(self) -> dict[str, JsonValue]:
        return {"technology": self.technology, **self.params}


_REGISTERED: dict[str, Technology[Any]] = {}


def register_technology(technology: Technology[Any]) -> None:
    """Add a technology defined above this package (the reference bots' `demo`); registering a name again
    replaces it. The built-in technologies need no registration."""
    if any(t.name == technology.name for t in ALL):
        raise ValueError(f"{technology.name!r} is a built-in technology")
    _REGISTERED[technology.name] = technology


def technologies() -> list[Technology[Any]]:
    return [*ALL, *_REGISTERED.values()]


def technology_names() -> list[str]:
    return [t.name for t in technologies()]


def get_technology(name: str) -> Technology[Any]:
    for technology in technologies():
        if technology.name == name:
            return technology
    raise ConnectorConfigError(
        f"technology: {name!r} is not a known technology; choose one of {', '.join(technology_names())}.",
        field="technology",
    )


def validate_config(
    config: ConnectorConfig | Mapping[str, Any], *, locate: Locator | None = None, source: str = ""
) -> TechnologySettings:
    """The validated settings of a connector (flat mapping or `ConnectorConfig`), or `ConnectorConfigError`."""
    if not isinstance(config, ConnectorConfig):
        config = ConnectorConfig.from_mapping(config)
    technology: Technology[TechnologySettings] = get_technology(config.technology)
    return technology.validate(config.params, locate=locate, source=source)


def create_connector(
    config: ConnectorConfig | Mapping[str, Any], guard: EgressGuard, *, retry: RetryPolicy | None = None
) -> Connector:
    """A live connector; every request it makes passes `guard`. Close it (or use it as a context manager)."""
    if not isinstance(config, ConnectorConfig):
        config = ConnectorConfig.from_mapping(config)
    technology = get_technology(config.technology)
    context = ConnectorContext(guard=guard, retry=retry or RetryPolicy())
    return technology.create(config.params, context)
