"""Fixtures for connector tests: a guard that lets traffic reach local fakes, no back-off waits, fake bots."""

from __future__ import annotations

import pytest

from engine.connectors import RetryPolicy, create_connector
from engine.egress import EgressGuard, EgressPolicy
from tests.doubles.connectors import FakeServer, ScriptedReply, fake_for, params_for

NETWORK_TECHNOLOGIES = ["http", "taskyto", "rasa", "millionbot", "langgraph", "openai-chat"]
FAST = RetryPolicy(attempts=3, first_wait_s=0)


def echo(session_id: str, text: str) -> ScriptedReply:
    """A bot that repeats the user; says two things and offers buttons when asked for "menu"."""
    if text == "menu":
        return ScriptedReply(
            ["Here is the menu.", "What would you like?"], [("Pizza", "/pizza"), ("Salad", "/salad")]
        )
    return ScriptedReply([f"You said: {text}"])


@pytest.fixture
def local_guard() -> EgressGuard:
    """Fakes listen on 127.0.0.1, which the guard refuses unless explicitly allowed — as here."""
    return EgressGuard(EgressPolicy.parse("127.0.0.1"))


class Running:
    """A started fake for one technology plus a way to build connectors that reach it."""

    def __init__(self, technology: str, server: FakeServer, params: dict, guard: EgressGuard) -> None:
        self.technology = technology
        self.server = server
        self.params = params
        self.guard = guard

    def connector(self, **overrides):
        return create_connector({**self.params, **overrides}, self.guard, retry=FAST)


@pytest.fixture
def running_fake(request, local_guard):
    """Parametrise indirectly with a technology name."""
    technology = request.param
    server, extra = fake_for(technology, echo)
    with server:
        yield Running(technology, server, params_for(technology, server, extra), local_guard)
