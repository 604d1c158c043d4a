"""Chatbot connectors: how Parley talks to the chatbot under test, whatever its technology.

Owns the `Connector` contract and its data (`base.py`), the error hierarchy (`errors.py`), HTTP with retries
(429/503 waited out as the chatbot asks) and error classification through the egress guard (`transport.py`),
the pace kept toward each chatbot (`pacing.py`: least interval between requests, most conversations at once), request templating (`templating.py`),
reply paths (`paths.py`), the technologies (`technologies/`) and their registry (`registry.py`), connector
files (`files.py`), the one-round-trip check (`check.py`), and protocol fakes for tests (`testing/`).
Callers build an `EgressGuard` from their own configuration and pass it in; nothing here reads the environment.
"""

from __future__ import annotations

from engine.connectors.base import BotReply, Button, Connector, ConnectorContext, RetryPolicy
from engine.connectors.check import ConnectionTestResult, test_connection
from engine.connectors.errors import (
    ChatbotHTTPError,
    ChatbotProtocolError,
    ChatbotRateLimited,
    ChatbotTimeout,
    ChatbotUnavailable,
    ConnectorConfigError,
    ConnectorError,
    SessionLost,
)
from engine.connectors.files import dump_connector_yaml, load_connector_file, parse_connector_yaml
from engine.connectors.registry import (
    ConnectorConfig,
    create_connector,
    get_technology,
    register_technology,
    technologies,
    technology_names,
    validate_config,
)
from engine.connectors.technology import Parameter, Technology, destinations

__all__ = [
    "BotReply",
    "Button",
    "ChatbotHTTPError",
    "ChatbotProtocolError",
    "ChatbotRateLimited",
    "ChatbotTimeout",
    "ChatbotUnavailable",
    "ConnectionTestResult",
    "Connector",
    "ConnectorConfig",
    "ConnectorConfigError",
    "ConnectorContext",
    "ConnectorError",
    "Parameter",
    "RetryPolicy",
    "SessionLost",
    "Technology",
    "create_connector",
    "destinations",
    "dump_connector_yaml",
    "get_technology",
    "load_connector_file",
    "parse_connector_yaml",
    "register_technology",
    "technologies",
    "technology_names",
    "test_connection",
    "validate_config",
]
