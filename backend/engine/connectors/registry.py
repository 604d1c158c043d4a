"""The registry of technologies and the stored form of a connector (`ConnectorConfig`).

`ConnectorConfig` is what the workspace stores and what a connector file holds: a technology name, that
technology's parameters and the connector's volatile patterns (`volatile.py`). `create_connector` validates it and builds a live `Connector`; validation failures
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
from engine.connectors.volatile import KEY as VOLATILE_KEY
from engine.connectors.volatile import check_volatile
from engine.egress import EgressGuard


class ConnectorConfig(BaseModel):
    """A connector as stored: `technology` plus its parameters (secrets in clear — encrypt before storing), and
    the regular expressions of the values its chatbot changes in every conversation (`volatile`)."""

    technology: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    volatile: list[str] = Field(default_factory=list)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ConnectorConfig:
        """From the flat file form `{technology: ..., volatile: [...], <parameters>...}`; a `volatile` that is not
        a list of strings is refused here, the patterns themselves by `validate_config`."""
        technology = data.get("technology")
        if not isinstance(technology, str) or not technology.strip():
            known = ", ".join(technology_names())
            raise ConnectorConfigError(f"technology: missing; choose one of {known}.", field="technology")
        params = {k: v for k, v in data.items() if k not in ("technology", VOLATILE_KEY)}
        volatile = data.get(VOLATILE_KEY) or []
        if not isinstance(volatile, list) or not all(isinstance(p, str) for p in volatile):
            raise ConnectorConfigError(
                f"{VOLATILE_KEY}: write a list of regular expressions (strings).", field=VOLATILE_KEY
            )
        return cls(technology=technology.strip(), params=params, volatile=volatile)

    def to_mapping(self) -> dict[str, JsonValue]:
        volatile: dict[str, JsonValue] = {VOLATILE_KEY: list(self.volatile)} if self.volatile else {}
        return {"technology": self.technology, **volatile, **self.params}


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
    settings = technology.validate(config.params, locate=locate, source=source)
    try:
        check_volatile(config.volatile)
    except ConnectorConfigError as exc:
        index = exc.field.rpartition(".")[2] if exc.field else ""
        where = locate((VOLATILE_KEY, int(index)) if index.isdigit() else (VOLATILE_KEY,)) if locate else None
        prefix = f"{source}: " if source else ""
        position = f"line {where[0]}, column {where[1]}: " if where else ""
        raise ConnectorConfigError(
            f"{prefix}{position}{exc.user_message}",
            field=exc.field,
            line=where[0] if where else None,
            column=where[1] if where else None,
        ) from None
    return settings


def create_connector(
    config: ConnectorConfig | Mapping[str, Any], guard: EgressGuard, *, retry: RetryPolicy | None = None
) -> Connector:
    """A live connector; every request it makes passes `guard`. Close it (or use it as a context manager)."""
    if not isinstance(config, ConnectorConfig):
        config = ConnectorConfig.from_mapping(config)
    technology = get_technology(config.technology)
    context = ConnectorContext(guard=guard, retry=retry or RetryPolicy())
    return technology.create(config.params, context)
