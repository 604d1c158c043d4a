"""Security campaign runs: from a run row to stored attempts, and what the dashboards and exports read of them.

`execute_security` builds what `engine.security.run_campaign` needs in the worker — the campaign and warm-up
profiles from the run's snapshot, the connector, the project's models (generation and escalation: the
exploration model; judging: the judge model; warm-up users: the simulation model) on one budget, the smaller of
the project's budget and the campaign's `max_cost` — and stores each attempt as it is judged. A project without
an LLM key runs the campaign offline (built-in tasks, oracles decided in code). A repeated execution starts over.
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from typing import Any
from xml.etree import ElementTree as ET

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
    choose_states,
    identity_from_profile,
    load_campaign,
    run_campaign,
    states_from_tracer,
    summarise,
)
from engine.security.result import campaign_summary
from engine.spreadsheet import csv_writer
from engine.yamlguard import load_yaml
from runs import deps
from runs.models import Artefact, Run, RunEvent, SecurityAttempt
from runs.reporting import MAX_TEXT, RunCancel, RunRecorder


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


class NoTracerStates(ParleyError):
    code = "no_tracer_states"


def tracer_states(project_id: int, wanted: str | list[str], tracer_id: int | None) -> dict[str, Any]:
    """For a campaign with `from:`: the TRACER run to attack from (the one named, of this project, else the
    project's latest finished one) and its states with their recorded prefixes, as stored in the run's input so
    the run replays exactly what was planned."""
    with_model = Artefact.objects.filter(name=Artefact.Name.MODEL).values("run_id")
    candidates = Run.objects.filter(project_id=project_id, kind=Run.Kind.TRACER, pk__in=with_model)
    if tracer_id is not None:
        tracer = candidates.filter(pk=tracer_id).first()
        if tracer is None:
            raise NoTracerStates("Choose a TRACER run of this project that wrote a model.")
    else:
        tracer = candidates.filter(status=Run.Status.SUCCEEDED).order_by("-finished_at", "-id").first()
        if tracer is None:
            raise NoTracerStates(
                "This campaign attacks from TRACER's states (`from:`), and the project has no finished TRACER "
                "run: explore the chatbot with TRACER first."
            )
    contents = dict(
        Artefact.objects.filter(
            run=tracer, name__in=[Artefact.Name.MODEL, Artefact.Name.TRANSCRIPTS]
        ).values_list("name", "content")
    )
    model, transcripts = contents.get(Artefact.Name.MODEL), contents.get(Artefact.Name.TRANSCRIPTS)
    states, left_out = choose_states(
        states_from_tracer(model if isinstance(model, dict) else {}, transcripts or []), wanted
    )
    if not states:
        why = "; ".join(left_out) or "it recorded no turn for any functionality (a run older than found_at)"
        raise NoTracerStates(f"TRACER run #{tracer.pk} has no state to attack from: {why}.")
    return {"run": tracer.pk, "states": [s.to_json() for s in states], "left_out": left_out}


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
    document = campaign_summary(result, campaign.name).model_dump(mode="json")
    if result.stopped == "cancelled":
        recorder.touch(result=document)
        raise SecurityCancelled("The run was cancelled; the attempts it finished are kept.")
    recorder.touch(stage="done")
    return document


# -- dashboards and exports -----------------------------------------------------------------------------------
def records(run: Run) -> list[dict[str, Any]]:
    return list(SecurityAttempt.objects.filter(run=run).values_list("record", flat=True))


def statistics(run: Run) -> dict[str, Any]:
    """Verdict counts and breach rates (Wilson intervals) per attack and delivery mode; from TRACER's states, per
    state too, with the TRACER run whose graph they are states of."""
    body = summarise([AttemptRecord.model_validate(record) for record in records(run)])
    tracer = run.input.get("tracer") if isinstance(run.input, dict) else None
    if tracer:
        body["tracer_run"] = tracer.get("run")
    return body


def _reply(record: dict[str, Any]) -> str:
    bot = [
        t["text"] for t in record.get("transcript", []) if t["role"] == "bot" and t.get("phase") == "attack"
    ]
    return bot[-1] if bot else ""


def csv_text(run: Run) -> str:
    out = io.StringIO()
    writer = csv_writer(out)
    writer.writerow(
        ["attack", "strategy", "attempt", "delivery", "verdict", "because", "evidence", "prompt", "reply"]
    )
    for record in records(run):
        writer.writerow(
            [
                record["attack_id"],
                record["attack"],
                record["index"] + 1,
                record["delivery"],
                record["verdict"],
                record["because"],
                " | ".join(e["quote"] for e in record.get("evidence", [])),
                record.get("prompt", ""),
                _reply(record),
            ]
        )
    return out.getvalue()


def junit(run: Run) -> str:
    """A breach is a failure, an error an error, an inconclusive attempt skipped with its reason."""
    suite = ET.Element("testsuite", name=f"parley-security-{run.pk}")
    counts = Counter[str]()
    for record in records(run):
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"security.{record['attack_id']}",
            name=f"attempt {record['index'] + 1} ({record['delivery']})",
        )
        detail = record["because"] + "".join(f"\n> {e['quote']}" for e in record.get("evidence", []))
        tag = {"breached": "failure", "error": "error", "inconclusive": "skipped"}.get(record["verdict"])
        if tag:
            counts[tag] += 1
            ET.SubElement(case, tag, message=record["because"][:200]).text = detail
        counts["tests"] += 1
    suite.set("tests", str(counts["tests"]))
    suite.set("failures", str(counts["failure"]))
    suite.set("errors", str(counts["error"]))
    suite.set("skipped", str(counts["skipped"]))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)
