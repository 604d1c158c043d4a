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


def project_budget(project: Project) -> Budget | None:
    """The project's spending limit, one per run: every LLM client of the run draws from it."""
    if project.budget_usd is None:
        return None
    key = project.llm_key
    # Local servers (openai-compatible) usually have no price list; counting them as free keeps them usable.
    allow_unpriced = key is not None and key.provider == LLMKey.Provider.OPENAI_COMPATIBLE
    return Budget(float(project.budget_usd), allow_unpriced=allow_unpriced)


def new_llm_client(project: Project, model: str, *, budget: Budget | None) -> LLMClient:
    """The project's LLM with its key decrypted here in the worker and the egress guard; the caller closes it."""
    key = project.llm_key
    if key is None:
        raise ParleyError("This project has no LLM key: choose one in the project's settings.")
    if not model:
        raise ParleyError("This project names no model for this step: choose one in the project's settings.")
    config = ProviderConfig(key.provider, api_key=key.reveal(), model=model, base_url=key.base_url or None)
    return LLMClient(config, guard=egress_guard(), ledger=UsageLedger(), budget=budget)


@contextmanager
def llm_client(project: Project, model: str) -> Iterator[LLMClient]:
    """The project's LLM for one step of a run, with the project's budget."""
    client = new_llm_client(project, model, budget=project_budget(project))
    try:
        yield client
    finally:
        client.close()
