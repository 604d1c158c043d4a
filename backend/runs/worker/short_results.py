"""What the short runs put in `result` (README D31): a ping, a key test, a model list and a connection test.

Each is a pydantic model with the run's `kind`, so `runs.result_schema` serves it through the schema and the web
client reads it typed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from engine.connectors.check import ConnectionTestResult


class PingResult(BaseModel):
    """API → broker → worker → database, end to end."""

    kind: Literal["ping"] = "ping"
    pong: bool = False
    worker: str = ""
    message: str = ""


class KeyCheck(BaseModel):
    """Whether the provider accepted the key, in its own words."""

    kind: Literal["key_test"] = "key_test"
    ok: bool = False
    message: str = ""


class ModelList(BaseModel):
    """The models a key can use: `live` when the provider listed them, `fallback` for a curated list."""

    kind: Literal["key_models"] = "key_models"
    ok: bool = False
    message: str = ""
    models: list[str] = Field(default_factory=list)
    source: Literal["live", "fallback"] | None = None


class ConnectionTest(ConnectionTestResult):
    """One round trip with the chatbot (`engine.connectors.check.test_connection`)."""

    kind: Literal["connector_test"] = "connector_test"
    ok: bool = False
    technology: str = ""
    message_sent: str = ""
