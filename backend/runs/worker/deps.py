"""Building what the engines need, inside a worker: the egress guard and decrypted credentials.

This is the only place where stored secrets are decrypted, and it runs in Celery workers, never in a web
request. Nothing built here is logged or written back to the run.

Every LLM client of a run shares one `ProviderState`: it starts from what earlier runs learned about the key's
server (`LLMKey.capabilities`, README D10), writes each adaptation as a run warning, and what this run learned
is stored back with the key when the client closes, so the next run does not pay the same refusal again.
Which model each role uses (D6): the simulated user plays the profile's `llm.model`, else the project's
simulation model (`profile_model`, else `exploration_model`); SENSEI's goal checks and extraction, and check
runs, use `judge_model` (else `exploration_model`); TRACER explores with `exploration_model`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from django.conf import settings
from django.db import transaction

from accounts.models import LLMKey
from engine.connectors import ConnectorConfig
from engine.egress import EgressGuard, EgressPolicy
from engine.errors import ParleyError
from engine.llm import Budget, Learned, LLMClient, ProviderConfig, ProviderState, UsageLedger
from workspace.models import Connector, Project


def egress_guard() -> EgressGuard:
    return EgressGuard(EgressPolicy.parse(settings.EGRESS_ALLOW))


def connector_config(connector: Connector) -> ConnectorConfig:
    return ConnectorConfig(
        technology=connector.technology,
        params=connector.full_params(),
        volatile=list(connector.volatile or []),
    )


def project_budget(project: Project) -> Budget | None:
    """The project's spending limit, one per run: every LLM client of the run draws from it."""
    if project.budget_usd is None:
        return None
    key = project.llm_key
    # Local servers (openai-compatible) usually have no price list; counting them as free keeps them usable.
    allow_unpriced = key is not None and key.provider == LLMKey.Provider.OPENAI_COMPATIBLE
    return Budget(float(project.budget_usd), allow_unpriced=allow_unpriced)


class Warns(Protocol):
    def warning(self, text: str) -> None: ...


def judge_model(project: Project) -> str:
    return project.judge_model or project.exploration_model


def provider_state(project: Project, recorder: Warns | None = None) -> ProviderState:
    """The run's shared provider state, knowing what earlier runs learned about the project's key."""
    key = project.llm_key
    known = key.capabilities if key is not None else {}
    return ProviderState(known=known, on_warning=recorder.warning if recorder is not None else None)


def remember_capabilities(project: Project, state: ProviderState) -> None:
    """Store with the key what the run learned (merged with what a concurrent run may have stored meanwhile)."""
    learned = state.to_json()
    if project.llm_key_id is None or not learned:
        return
    with transaction.atomic():
        key = LLMKey.objects.select_for_update().filter(pk=project.llm_key_id).first()
        if key is None:
            return
        merged: dict[str, Any] = dict(key.capabilities or {})
        for name, data in learned.items():
            merged[name] = Learned.from_json(merged.get(name)).merged(Learned.from_json(data)).to_json()
        if merged != key.capabilities:
            LLMKey.objects.filter(pk=key.pk).update(capabilities=merged)


def new_llm_client(
    project: Project, model: str, *, budget: Budget | None, state: ProviderState | None = None
) -> LLMClient:
    """The project's LLM with its key decrypted here in the worker and the egress guard; the caller closes it."""
    key = project.llm_key
    if key is None:
        raise ParleyError("This project has no LLM key: choose one in the project's settings.")
    if not model:
        raise ParleyError("This project names no model for this step: choose one in the project's settings.")
    config = ProviderConfig(key.provider, api_key=key.reveal(), model=model, base_url=key.base_url or None)
    return LLMClient(config, guard=egress_guard(), ledger=UsageLedger(), budget=budget, state=state)


@contextmanager
def llm_client(project: Project, model: str, *, recorder: Warns | None = None) -> Iterator[LLMClient]:
    """The project's LLM for one step of a run, with the project's budget and the run's provider state (its
    adaptations are warnings on `recorder`; what it learned is stored with the key at the end)."""
    state = provider_state(project, recorder)
    client = new_llm_client(project, model, budget=project_budget(project), state=state)
    try:
        yield client
    finally:
        client.close()
        remember_capabilities(project, state)
