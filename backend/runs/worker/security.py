"""Security campaign runs, the worker side: from a run row to stored attempts (the dashboards and exports read
them in `runs.http.security_exports`).

`execute_security` builds what `engine.security.run_campaign` needs in the worker — the campaign and warm-up
profiles from the run's snapshot, the connector, the project's models (generation and escalation: the
exploration model; judging: the judge model; warm-up users: the simulation model) on one budget, the smaller of
the project's budget and the campaign's `max_cost` — and stores each attempt as it is judged. A project without
an LLM key runs the campaign offline (built-in tasks, oracles decided in code). A repeated execution starts over.
"""

from __future__ import annotations

import contextlib
from typing import Any

from django.db import IntegrityError

from accounts.models import LLMKey
from engine.connectors import create_connector
from engine.context import Cancelled
from engine.errors import ParleyError
from engine.llm import Budget
from engine.security import (
    AttemptRecord,
    CampaignJob,
    State,
    identity_from_profile,
    load_campaign,
    run_campaign,
)
from engine.security.result import campaign_summary
from engine.yamlguard import load_yaml
from runs.models import Run, SecurityAttempt
from runs.worker import deps
from runs.worker.reporting import recorder_of, run_context


def _states(tracer: dict[str, Any] | None) -> list[State] | None:
    if not tracer:
        return None
    return [
        State(
            name=s["name"],
            description=s["description"],
            session=s["session"],
            turn=s["turn"],
            prefix=tuple(s["prefix"]),
            expected=s["expected"],
        )
        for s in tracer["states"]
    ]


def _budget(run: Run, max_cost: float | None) -> Budget | None:
    project = run.project
    caps = [float(c) for c in (project.budget_usd, max_cost) if c is not None]
    if not caps:
        return None
    key = project.llm_key
    allow_unpriced = key is not None and key.provider == LLMKey.Provider.OPENAI_COMPATIBLE
    return Budget(min(caps), allow_unpriced=allow_unpriced)


def store_attempt(run: Run, record: AttemptRecord) -> None:
    """One judged attempt of `run`, stored as its row; a second delivery of the same attempt is ignored."""
    with contextlib.suppress(IntegrityError):
        SecurityAttempt.objects.create(
            run=run,
            attack=record.attack,
            attack_id=record.attack_id,
            index=record.index,
            delivery=record.delivery,
            state=record.state or "",
            verdict=record.verdict,
            because=record.because,
            record=record.model_dump(mode="json"),
            duration_s=record.duration_s,
            cost_usd=record.usage.cost_usd,
        )


def execute_security(run: Run) -> dict[str, Any]:
    project = run.project
    context = run_context(run.pk)
    recorder = recorder_of(context)
    loaded = load_campaign(run.input["campaign"]["text"])
    if loaded.campaign is None or not loaded.ok:
        first = next((p.message for p in loaded.problems if p.is_error), "it has errors")
        raise ParleyError(f"The campaign {run.input['campaign']['name']!r} is not valid any more: {first}")
    campaign = loaded.campaign
    identities = {
        item["name"]: identity_from_profile(load_yaml(item["text"], round_trip=False), name=item["name"])
        for item in run.input.get("profiles") or []
    }
    SecurityAttempt.objects.filter(run=run).delete()

    def sink(record: AttemptRecord) -> None:
        store_attempt(run, record)

    config, guard = deps.connector_config(project.connector), deps.egress_guard()
    llm = state = None
    if run.input.get("llm"):
        state = deps.provider_state(project, recorder)
        llm = deps.new_llm_client(
            project, project.exploration_model, budget=_budget(run, campaign.max_cost), state=state
        )
    try:
        job = CampaignJob(
            campaign,
            lambda: create_connector(config, guard),
            llm=llm,
            judge=llm.for_model(deps.judge_model(project)) if llm else None,
            user_llm=llm.for_model(project.simulation_model()) if llm else None,
            identities=identities,
            seed=run.input["seed"],
            sink=sink,
            scrub=recorder.scrub,
            states=_states(run.input.get("tracer")),
            volatile=config.volatile,
        )
        result = run_campaign(job, context)
    finally:
        if llm is not None and state is not None:
            llm.close()
            deps.remember_capabilities(project, state)
    document = campaign_summary(result, campaign.name).model_dump(mode="json")
    if result.stopped == "cancelled":
        recorder.touch(result=document)
        raise Cancelled("The run was cancelled; the attempts it finished are kept.")
    recorder.touch(stage="done")
    return document
