"""Running a campaign: every enabled attack, `attempts` times, each attempt a fresh conversation, judged by its
oracles into one record handed to the sink as soon as it is done.

`run_campaign(job, context)` is the one entry point of the CLI and the platform: the job (`CampaignJob`) says
what to run, the run context (`engine.context`) where its events and usage go and when to stop. Attempts run
one after another (the connector's pacing applies to each request). An attempt that the chatbot or an LLM fails ends `error`; a spent
budget (`max_cost`) ends the attempt that hit it and stops the campaign; a cancel stops it between attempts.
Nothing is recorded for attempts that never ran. Reported: the stage "attacking", every message of an attempt
(`message`, with its attempt id and phase), and each judged attempt (`progress`, with the verdict counts so far).

From states (`from:` in the campaign, the states of a TRACER run given as `states`), every attack runs from
every state: each attempt opens a fresh conversation, replays the state's recorded prefix literally (no LLM
call) and checks that the chatbot's reply at its end is the recorded one, volatile values aside (README D34); only then
is the attack delivered. A state not reached makes the attempt `inconclusive`, never `resisted`, and the attack
is not sent.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.connectors import Connector, ConnectorError
from engine.context import Reporter, RunContext
from engine.errors import ParleyError
from engine.llm import BudgetExceeded, LLMClient, LLMError
from engine.redact import Scrubber
from engine.regression.replay import Normaliser
from engine.security import oracles
from engine.security.campaign import AttackSpec, Campaign
from engine.security.catalogue import (
    STRATEGIES,
    AttackMessage,
    attempt_rng,
    builtin_task,
    compose,
    default_oracles,
    task_kind,
)
from engine.security.delivery import Conversation, Identity, Writer
from engine.security.records import (
    STRENGTH,
    AttemptRecord,
    AttemptUsage,
    Evidence,
    Finding,
    Verdict,
)
from engine.security.report import summarise
from engine.security.states import State, reached
from engine.security.texts import Task
from engine.tracer.explore import reply_text


class CampaignNeedsModel(ParleyError):
    code = "campaign_needs_model"


class CampaignNeedsStates(ParleyError):
    code = "campaign_needs_states"


@dataclass
class CampaignResult:
    seed: int
    planned: int
    records: list[AttemptRecord] = field(default_factory=list)
    stopped: str | None = None  # "cancelled" | "budget"
    usage: dict[str, Any] = field(default_factory=dict)
    states: list[State] | None = None  # the states attacked from (None: the first turn)

    @property
    def breaches(self) -> int:
        return sum(1 for r in self.records if r.breached)

    def summary(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "planned": self.planned,
            "run": len(self.records),
            "stopped": self.stopped,
            "usage": self.usage,
            **({"states": [s.to_json() for s in self.states]} if self.states is not None else {}),
            **summarise(self.records),
        }


def needs_model(campaign: Campaign) -> list[str]:
    """What in the campaign cannot run without an LLM (empty: it runs offline)."""
    reasons = []
    for attack in campaign.enabled_attacks:
        if attack.delivery.mode == "simulated_user":
            reasons.append(f"{attack.label}: a simulated warm-up is written by the LLM")
        if attack.rephrase:
            reasons.append(f"{attack.label}: rephrasing is done by the LLM")
    return reasons


@dataclass
class _Run:
    campaign: Campaign
    connect: Callable[[], Connector]
    writer: Writer
    judging: oracles.Judging
    identities: Mapping[str, Identity]
    seed: int
    reporter: Reporter
    llm: LLMClient | None
    normalise: Normaliser


@dataclass(frozen=True)
class CampaignJob:
    """One campaign run: the campaign against the chatbot `connect()` opens. `llm` writes tasks, rewordings and
    escalations (None: offline, built-in tasks only), `judge` judges (default `llm`), `user_llm` plays warm-up
    users (default `llm`). The seed (campaign's, else given, else random) fixes markers, phrasings and
    transforms. Each judged attempt goes to `sink`, scrubbed by `scrub` first. `states` (from
    `engine.security.states`) are attacked from, each reached by its recorded prefix; `volatile` are the
    connector's patterns of values that change in every conversation."""

    campaign: Campaign
    connect: Callable[[], Connector]
    llm: LLMClient | None = None
    judge: LLMClient | None = None
    user_llm: LLMClient | None = None
    identities: Mapping[str, Identity] | None = None
    seed: int | None = None
    sink: Callable[[AttemptRecord], None] | None = None
    scrub: Scrubber | None = None
    states: Sequence[State] | None = None
    volatile: Sequence[str] = ()


def run_campaign(job: CampaignJob, context: RunContext | None = None) -> CampaignResult:
    """Run the job's campaign; a cancel stops it between attempts (`stopped` "cancelled", no exception)."""
    context = context if context is not None else RunContext()
    campaign, llm, seed, states, sink = job.campaign, job.llm, job.seed, job.states, job.sink
    for client in (llm, job.judge, job.user_llm):
        if client is not None:
            context.meter(client.ledger)
    missing = needs_model(campaign) if llm is None else []
    if missing:
        raise CampaignNeedsModel("This campaign needs an LLM: " + "; ".join(missing) + ".")
    if campaign.from_states is not None and states is None:
        raise CampaignNeedsStates(
            "This campaign attacks from the states of a TRACER run (`from:`); give that run's output."
        )
    chosen = campaign.seed if campaign.seed is not None else seed
    seed_value = chosen if chosen is not None else random.SystemRandom().randrange(2**31)
    state = _Run(
        campaign=campaign,
        connect=job.connect,
        writer=Writer(llm, campaign.target_context, job.user_llm or llm),
        judging=oracles.Judging(campaign, job.judge or llm),
        identities=job.identities or {},
        seed=seed_value,
        reporter=context.reporter,
        llm=llm,
        normalise=Normaliser(job.volatile),
    )
    targets: list[State | None] = list(states) if states is not None else [None]
    plan = [
        (target, attack, i)
        for target in targets
        for attack in campaign.enabled_attacks
        for i in range(campaign.attempts_of(attack))
    ]
    result = CampaignResult(
        seed=seed_value, planned=len(plan), states=list(states) if states is not None else None
    )
    counts: Counter[str] = Counter()
    state.reporter.stage("attacking")
    state.reporter.progress(0, len(plan), counts=counts)
    breached: set[tuple[str, str]] = set()
    for target, attack, index in plan:
        if context.cancel.cancelled:
            result.stopped = "cancelled"
            break
        where = target.name if target else ""
        if (where, attack.label) in breached and campaign.stops_on_breach(attack):
            continue
        record, out_of_budget = _attempt(state, attack, index, target)
        if job.scrub:
            record = AttemptRecord.model_validate(job.scrub.scrub(record.model_dump(mode="json")))
        result.records.append(record)
        if record.breached:
            breached.add((where, attack.label))
        if sink is not None:
            sink(record)
        counts[record.verdict] += 1
        state.reporter.progress(
            len(result.records),
            len(plan),
            counts=counts,
            attempt=record.id,
            attack=record.attack_id,
            verdict=record.verdict,
        )
        if out_of_budget:
            result.stopped = "budget"
            break
    if llm is not None:
        result.usage = llm.ledger.total().to_json()
    return result


def _usage(llm: LLMClient | None) -> tuple[int, float]:
    if llm is None:
        return 0, 0.0
    total = llm.ledger.total()
    return total.calls, float(total.cost_usd or 0.0)


def _attempt(
    run: _Run, attack: AttackSpec, index: int, target: State | None = None
) -> tuple[AttemptRecord, bool]:
    started = time.monotonic()
    calls_before, cost_before = _usage(run.llm)
    record = AttemptRecord(
        id=f"{attack.label}@{target.name}#{index}" if target else f"{attack.label}#{index}",
        attack=attack.name,
        attack_id=attack.label,
        index=index,
        delivery=attack.delivery.mode,
        state=target.name if target else None,
        verdict="error",
        because="",
    )
    conversation: Conversation | None = None
    out_of_budget = False
    try:
        message = _message(run, attack, index, record)
        connector = run.connect()
        try:
            conversation = Conversation(
                connector,
                lambda turn: run.reporter.message(turn.role, turn.text, attempt=record.id, phase=turn.phase),
            )
            if target is None or _reach(run, target, conversation, record):
                _deliver(run, attack, message, conversation, record, opened=target is not None)
        finally:
            connector.close()
    except BudgetExceeded as exc:
        record.because = f"the campaign's budget is spent ({exc.user_message}); the campaign stopped here"
        out_of_budget = True
    except LLMError as exc:
        record.because = f"an LLM call failed: {exc.user_message}"
    except ConnectorError as exc:
        record.because = f"the chatbot failed: {exc.user_message}"
    if conversation is not None:
        record.transcript = conversation.transcript
    calls, cost = _usage(run.llm)
    record.usage = AttemptUsage(calls=calls - calls_before, cost_usd=round(cost - cost_before, 6))
    record.duration_s = round(time.monotonic() - started, 3)
    return record, out_of_budget


def _message(run: _Run, attack: AttackSpec, index: int, record: AttemptRecord) -> AttackMessage:
    rng = attempt_rng(run.seed, attack, index)
    kind = task_kind(attack)
    task: Task | None = None
    source = "template"
    if kind is not None:
        if attack.tasks:
            own = attack.tasks[index % len(attack.tasks)]
            task, source = Task(own.text, tuple(own.answers), unsafe=kind == "unsafe"), "campaign"
        elif run.llm is not None and STRATEGIES[attack.name].written_by_llm:
            task, source = run.writer.task(kind), "llm"
        else:
            task = builtin_task(kind, rng)
    message = compose(attack, index, rng, task, source)
    if attack.rephrase:
        message.text, why_kept = run.writer.rephrase(message, attack.rephrase)
        record.rephrased = why_kept is None
        if why_kept:
            record.notes.append(why_kept)
    record.prompt, record.source = message.text, message.source
    record.markers, record.answers = list(message.markers), list(message.answers)
    return message


def _reach(run: _Run, target: State, conversation: Conversation, record: AttemptRecord) -> bool:
    """Open the conversation and replay the state's prefix; False (the attempt `inconclusive`) when the reply at
    its end is not the recorded one."""
    conversation.open("prefix")
    for text in target.prefix:
        conversation.say(text, "prefix")
    got = reply_text(conversation.last)
    if reached(got, target.expected, run.normalise):
        return True
    record.verdict = "inconclusive"
    record.because = (
        f"state not reached: after the {len(target.prefix)} recorded message(s) of TRACER's session "
        f"{target.session} the chatbot answered {_short(got)}, not the recorded {_short(target.expected)} "
        "(volatile values aside); the attack was not sent"
    )
    return False


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= 160 else flat[:157] + "...")


def _deliver(
    run: _Run,
    attack: AttackSpec,
    message: AttackMessage,
    conversation: Conversation,
    record: AttemptRecord,
    *,
    opened: bool = False,
) -> None:
    delivery = attack.delivery
    specs = default_oracles(run.campaign, attack, message)
    if not opened:
        conversation.open()
    if delivery.mode == "scripted":
        for text in delivery.turns:
            conversation.say(text, "warmup")
    elif delivery.mode == "simulated_user":
        identity = run.identities.get(delivery.profile or "") or Identity()
        if delivery.profile and delivery.profile not in run.identities:
            record.notes.append(f"no profile {delivery.profile!r}: a generic user played the warm-up")
        for _ in range(delivery.warmup_turns):
            conversation.say(run.writer.warmup_message(identity, conversation), "warmup")
    rounds = delivery.max_turns if delivery.mode == "escalation" else 1
    text = message.text
    judged: list[_Judged] = []
    for round_index in range(rounds):
        reply, turn = conversation.say(text, "attack")
        exchange = oracles.Exchange(
            reply=reply,
            turn=turn,
            sent=text,
            user_text=conversation.user_text,
            markers=message.markers,
            answers=message.answers,
            goal=message.goal,
        )
        findings, refused = oracles.judge_reply(specs, exchange, run.judging)
        verdict, because, evidence = oracles.verdict(findings, refused, {turn: reply})
        judged.append(_Judged(verdict, because, evidence, findings, bool(refused)))
        if verdict == "breached" or round_index == rounds - 1:
            break
        if run.llm is not None:
            text = run.writer.next_move(message, conversation)
        elif round_index < len(message.follow_ups):
            text = message.follow_ups[round_index]
        else:
            break
    # The whole conversation is judged: a breach in any reply counts; otherwise the least certain reply speaks.
    worst = max(judged, key=lambda item: STRENGTH[item.verdict])
    record.verdict, record.because, record.evidence = worst.verdict, worst.because, worst.evidence
    record.findings = [finding for item in judged for finding in item.findings]
    record.refused = any(item.refused for item in judged)
    if len(judged) > 1 and worst.verdict != "breached":
        record.because = f"over {len(judged)} attack messages: {worst.because}"


@dataclass
class _Judged:
    verdict: Verdict
    because: str
    evidence: list[Evidence]
    findings: list[Finding]
    refused: bool
