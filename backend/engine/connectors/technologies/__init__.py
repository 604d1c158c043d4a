"""The built-in technologies, one module each, every one exposing a `Technology` constant.

To add one: a module here with a `TechnologySettings` subclass (its parameters), a `Connector` subclass,
the constant, an entry in `ALL`, and a protocol fake in `tests/doubles/connectors/` so the registry-wide contract
test (tests/engine/connectors/test_contract.py) covers it. Technologies defined above this package (the reference
bots' `demo`) are added with `registry.register_technology`.
"""

from __future__ import annotations

from typing import Any

from engine.connectors.technologies.http import HTTP
from engine.connectors.technologies.langgraph import LANGGRAPH
from engine.connectors.technologies.millionbot import MILLIONBOT
from engine.connectors.technologies.openai_chat import OPENAI_CHAT
from engine.connectors.technologies.rasa import RASA
from engine.connectors.technologies.taskyto import TASKYTO
from engine.connectors.technology import Technology

ALL: tuple[Technology[Any], ...] = (HTTP, TASKYTO, RASA, MILLIONBOT, LANGGRAPH, OPENAI_CHAT)
