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
from collections import Counter
from typing import Any

from django.db import IntegrityError

from accounts.models import LLMKey
from engine.connectors import create_connector
from engine.errors import ParleyError
from engine.llm import Budget
from engine.security import (
    AttemptRecord,
    CampaignReporter,
    State,
    TranscriptTurn,
    identity_from_profile,
    load_campaign,
    run_campaign,
)
from engine.yamlguard import load_yaml
from runs.models import Run, RunEvent, SecurityAttempt
from runs.worker import deps
from runs.worker.reporting import MAX_TEXT, RunCancel, RunRecorder


class SecurityCancelled(ParleyError):
    code = "cancelled"


class _Progress(CampaignReporter):
    """The campaign's progress as run fields and events: attempts done, verdict counts, the live transcript."""

    def __init__(self, recorder: RunRecorder) -> None:
        self.recorder = recorder
        self.counts: Counter[str] = Counter()

    def planned(self, total: int, seed: int) -> None:
        self.recorder.touch(stage="attacking", progress_total=total, progress_done=0, counters={})

    def attempt_started(self, attack: str, index: int) -> None:
        self.recorder.touch()

    def turn(self, attempt: str, turn: TranscriptTurn) -> None:
        data = {"attempt": attempt, "role": turn.role, "phase": turn.phase, "text": turn.text[:MAX_TEXT]}
        self.recorder.event(RunEvent.Type.MESSAGE, data)

    def attempt_finished(self, record: AttemptRecord, done: int, total: int) -> None:
        self.counts[record.verdict] += 1
        data = {"attempt": record.id, "attack": record.attack_id, "verdict": record.verdict, "done": done}
        self.recorder.event(
            RunEvent.Type.PROGRESS, data, progress_done=done, progress_total=total, counters=dict(self.counts)
        )


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


def execute_security(run: Run) -> dict[str, Any]:
    project = run.project
    recorder, cancel = RunRecorder(run.pk), RunCancel(run.pk)
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
        with contextlib.suppress(IntegrityError):  # a second delivery of the same attempt
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

    config, guard = deps.connector_config(project.connector), deps.egress_guard()
    llm = state = None
    if run.input.get("llm"):
        state = deps.provider_state(project, recorder)
        llm = deps.new_llm_client(
            project, project.exploration_model, budget=_budget(run, campaign.max_cost), state=state
        )
        llm.ledger.subscribe(lambda usage: recorder.usage(usage.to_json()))
    try:
        result = run_campaign(
            campaign,
            lambda: create_connector(config, guard),
            llm=llm,
            judge=llm.for_model(deps.judge_model(project)) if llm else None,
            user_llm=llm.for_model(project.simulation_model()) if llm else None,
            identities=identities,
            seed=run.input["seed"],
            sink=sink,
            reporter=_Progress(recorder),
            cancel=cancel,
            scrub=recorder.scrub,
            states=_states(run.input.get("tracer")),
            volatile=config.volatile,
        )
    finally:
        if llm is not None and state is not None:
            llm.close()
            deps.remember_capabilities(project, state)
    summary = result.summary()
    document = {"ok": result.breaches == 0, "breaches": result.breaches, "campaign": campaign.name, **summary}
    if result.stopped == "cancelled":
        recorder.touch(result=document)
        raise SecurityCancelled("The run was cancelled; the attempts it finished are kept.")
    recorder.touch(stage="done")
    return document
