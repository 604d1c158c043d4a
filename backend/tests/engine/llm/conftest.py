"""Fixtures for the gateway tests: a fake OpenAI-compatible server and clients pointed at it.

The server logic lives in `engine.llm.offline.server`; any other conftest can wrap it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine.egress import EgressGuard, EgressPolicy
from engine.llm import LLMClient, ProviderConfig, RetryPolicy
from engine.llm.offline.server import FakeLLMServer, running_fake_server

# Real keys are never used: this one only has to look like a key, so redaction can be checked.
FAKE_KEY = "sk-parley-test-7d3f9c2a51b4e8"

# Delays in milliseconds keep retry tests fast; a Retry-After header still sets the real wait.
FAST_RETRY = RetryPolicy(
    max_attempts=4, initial_delay_s=0.01, max_delay_s=0.05, jitter_s=0.01, max_total_s=10
)


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A running fake server that only accepts FAKE_KEY."""
    with running_fake_server(api_key=FAKE_KEY) as server:
        yield server


@pytest.fixture
def local_guard() -> EgressGuard:
    """The fake server listens on loopback, which the guard refuses unless the policy allows it."""
    return EgressGuard(EgressPolicy.parse("127.0.0.1"))


@pytest.fixture
def make_client(fake_llm: FakeLLMServer, local_guard: EgressGuard) -> Iterator[Callable[..., LLMClient]]:
    """Build LLMClients for the fake server; `config` overrides ProviderConfig fields, the rest go to LLMClient."""
    clients: list[LLMClient] = []

    def build(*, config: dict[str, Any] | None = None, **options: Any) -> LLMClient:
        settings = {
            "provider": "openai-compatible",
            "api_key": FAKE_KEY,
            "base_url": fake_llm.base_url,
            "model": "gpt-4o-mini",
            **(config or {}),
        }
        options.setdefault("guard", local_guard)
        options.setdefault("retry", FAST_RETRY)
        client = LLMClient(ProviderConfig(**settings), **options)
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.close()
