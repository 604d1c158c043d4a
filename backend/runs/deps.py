"""Building what the engines need, inside a worker: the egress guard and decrypted credentials.

This is the only place where stored secrets are decrypted, and it runs in Celery workers, never in a web
request. Nothing built here is logged or written back to the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from accounts.models import LLMKey
from engine.connectors import ConnectorConfig
from engine.egress import EgressGuard, EgressPolicy
from engine.errors import ParleyError
from engine.llm import Budget, LLMClient, ProviderConfig, UsageLedger
from workspace.models import Connector, Project


def egress_guard() -> EgressGuard:
    return EgressGuard(EgressPolicy.parse(settings.EGRESS_ALLOW))


def connector_config(connector: Connector) -> ConnectorConfig:
    return ConnectorConfig(technology=connector.technology, params=connector.full_params())


@contextmanager
def llm_client(project: Project, model: str) -> Iterator[LLMClient]:
    """The project's LLM, with its key decrypted here in the worker, its budget, and the egress guard."""
    key = project.llm_key
    if key is None:
        raise ParleyError("This project has no LLM key: choose one in the project's settings.")
    if not model:
        raise ParleyError("This project names no model for this step: choose one in the project's settings.")
    budget = None
    if project.budget_usd is not None:
        # Local servers (openai-compatible) usually have no price list; counting them as free keeps them usable.
        budget = Budget(
            float(project.budget_usd), allow_unpriced=key.provider == LLMKey.Provider.OPENAI_COMPATIBLE
        )
    config = ProviderConfig(key.provider, api_key=key.reveal(), model=model, base_url=key.base_url or None)
    client = LLMClient(config, guard=egress_guard(), ledger=UsageLedger(), budget=budget)
    try:
        yield client
    finally:
        client.close()
