"""Running many conversations: a bounded thread pool, limits, a sink per finished conversation, cancellation.

`run_profiles(job, context)` is the one entry point of a SENSEI run, for the CLI and the platform alike: the job
(`SenseiJob`) says what to run, the run context (`engine.context`) where its events and usage go and when to
stop. It gives each profile
a key unique in the run (its test name; `name#2`, `name#3`... for later profiles of the same name, so records
never collide), plans every profile with the run's seed (drawn at random when None, reported in the summary)
and the `any()` resolver (an LLM by default), skips the conversations listed in `done` (already recorded by an
earlier attempt of the run), then runs the rest on a pool of `concurrency` threads (default 4). A caller that
keeps `any_memory` (the platform, in the run's plan) gets the same any() values on a resumed attempt.

Limits: `chatbot_concurrency` caps conversations open at once against the chatbot (a semaphore around each
conversation), and the connector's own pacing (`engine.connectors.pacing`) caps them per chatbot; the provider
limit is the gateway's own per-key limiter (`ProviderConfig.max_concurrency`), shared by every client of that
key. Each conversation gets a fresh connector from `connector_factory` and closes it afterwards.

Each finished conversation goes to `sink(record)` at once, from the worker thread but one at a time (the sink
need not be thread-safe): the platform's worker stores it, the CLI writes a file. A connector failure ends only
that conversation; a failing sink stops the run (records would be lost) and is re-raised. The context's cancel
token stops new conversations from starting and ends running ones between turns (error 4000, still sunk); the
run then ends early with `cancelled` in its summary rather than raising.

Reported as it happens: the stage "simulating" and the planned count (`progress`), each profile's plan (`log`),
the whole plan as the artefact "plan" (`plan_document`, before the first conversation), every turn (`message`)
and every finished conversation (event "conversation", with the count done).

The summary counts verdicts (passed, failed, inconclusive, with the reasons of the last two) and simulator
slips; `ok` means no conversation `failed` — inconclusive ones are shown apart, never as chatbot failures.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
import uuid
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from engine.connectors.base import Connector
from engine.context import RunContext
from engine.conversation import ConversationRecord, RecordOutcome, RecordSettings
from engine.llm import LLMClient, LLMError, user
from engine.sensei.errors import connector_error, describe
from engine.sensei.generators import AnyResolver, GeneratorError
from engine.sensei.planner import Plan, PlannedConversation, plan
from engine.sensei.profile import AnyRequest, Profile, Scalar, Variable
from engine.sensei.prompts import ANY_LIST
from engine.sensei.simulator import (
    Simulator,
    SimulatorSettings,
    SpendTracker,
    simulated_user_model,
)
from engine.sensei.verdicts import FAULTS, VERDICT_RULES, fault_of, judge, reason_code

ConnectorFactory = Callable[[], Connector]
Sink = Callable[[ConversationRecord], None]
TAG_ANY_LIST = "sensei.any_list"
DEFAULT_CONCURRENCY = 4


@dataclass
class RunSummary:
    seed: int | None = None
    planned: int = 0
    already_done: int = 0  # planned conversations recorded by an earlier attempt, not run again
    conversations: int = 0
    with_errors: int = 0
    skipped: int = 0
    # Verdicts (engine.sensei.verdicts): only `failed` is a chatbot failure; inconclusive ones say why.
    passed: int = 0
    failed: int = 0
    inconclusive: int = 0
    failed_reasons: dict[str, int] = field(default_factory=dict)
    inconclusive_reasons: dict[str, int] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)  # who is at fault → conversations (not passed)
    simulator_slips: int = 0  # times the user LLM left its role (cut, or written again), over the run
    slips_by_kind: dict[str, int] = field(default_factory=dict)
    errors_by_code: dict[int, int] = field(default_factory=dict)
    by_profile: dict[str, dict[str, Any]] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        """No chatbot failure and nothing skipped; inconclusive conversations do not count against it."""
        return self.failed == 0 and self.skipped == 0

    def add_verdict(self, record: ConversationRecord) -> None:
        verdict, reason = record.verdict or "inconclusive", reason_code(record.verdict_reason)
        setattr(self, verdict, getattr(self, verdict) + 1)
        reasons = {"failed": self.failed_reasons, "inconclusive": self.inconclusive_reasons}.get(verdict)
        if reasons is not None:
            reasons[reason] = reasons.get(reason, 0) + 1
            fault = record.fault or fault_of(record.verdict_reason) or "infrastructure"
            self.faults[fault] = self.faults.get(fault, 0) + 1
        for slip in record.outcome.simulator_slips or []:
            self.simulator_slips += 1
            kind = slip.kind or "unknown"
            self.slips_by_kind[kind] = self.slips_by_kind.get(kind, 0) + 1

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "planned": self.planned,
            "already_done": self.already_done,
            "conversations": self.conversations,
            "with_errors": self.with_errors,
            "skipped": self.skipped,
            "verdicts": {"passed": self.passed, "failed": self.failed, "inconclusive": self.inconclusive},
            "failed_reasons": dict(sorted(self.failed_reasons.items())),
            "inconclusive_reasons": dict(sorted(self.inconclusive_reasons.items())),
            "faults": {name: self.faults.get(name, 0) for name in FAULTS},
            "verdict_rules": VERDICT_RULES,
            "simulator_slips": self.simulator_slips,
            "simulator_slips_by_kind": dict(sorted(self.slips_by_kind.items())),
            "cancelled": self.cancelled,
            "duration_s": round(self.duration_s, 3),
            "errors": [
                {"code": code, "name": describe(code).slug, "count": count}
                for code, count in sorted(self.errors_by_code.items())
            ],
            "profiles": self.by_profile,
            "usage": self.usage,
        }


class _AnyList(BaseModel):
    """The invented values."""

    values: list[str] = Field(default_factory=list)


def llm_any_resolver(llm: LLMClient) -> AnyResolver:
    """Fills `any(...)` list items with values the LLM invents (one structured call per any() item)."""

    def resolve(variable: Variable, request: AnyRequest, existing: list[Scalar]) -> list[str]:
        type_hint = ""
        if request.count:
            type_hint = f"Give exactly {request.count} values. "
        prompt = ANY_LIST.fill(
            prompt=request.prompt,
            type_hint=type_hint,
            existing=", ".join(str(v) for v in existing) or "(none)",
        )
        try:
            answer = llm.structured([user(prompt)], _AnyList, tag=TAG_ANY_LIST, temperature=0.7)
        except LLMError as exc:
            if exc.ends_run:
                raise
            raise GeneratorError(
                f"variable {variable.name}: any({request.prompt}) failed: {exc.user_message}"
            ) from exc
        values = [v.strip() for v in answer.values if v.strip()]
        if not values:
            raise GeneratorError(f"variable {variable.name}: any({request.prompt}) produced no values")
        return values[: request.count] if request.count else values

    return resolve


def remembering_resolver(resolver: AnyResolver, memory: dict[str, list[str]]) -> AnyResolver:
    """`resolver` with a memory: an `any()` request answered before (in `memory`, which this fills) gets the
    same values again without a call. A platform run keeps the memory, so a resumed run plans exactly what
    its first attempt planned even though an LLM would invent other values."""
    lock = threading.Lock()

    def resolve(variable: Variable, request: AnyRequest, existing: list[Scalar]) -> list[str]:
        key = json.dumps([variable.name, request.prompt, request.count, existing], ensure_ascii=False)
        with lock:
            if key in memory:
                return list(memory[key])
        values = resolver(variable, request, existing)
        with lock:
            memory[key] = list(values)
        return values

    return resolve


def plan_document(
    plans: Sequence[tuple[Profile, Plan]], seed: int, planned_on: date, any_values: dict[str, list[str]]
) -> dict[str, Any]:
    """What a run planned, as the CLI (`plan.json`) and the platform (the run's `plan` artefact) keep it: the
    seed, the date, the values invented for any() items (the memory of `remembering_resolver`) and each
    profile's plan under its run key."""
    return {
        "seed": seed,
        "planned_on": planned_on.isoformat(),
        "any_values": dict(any_values),
        "profiles": [planned.to_json() | {"profile": profile.name} for profile, planned in plans],
    }


class _SerialSink:
    def __init__(self, sink: Sink, context: RunContext, summary: RunSummary) -> None:
        self.sink = sink
        self.context = context
        self.summary = summary
        self.lock = threading.Lock()
        self.failure: BaseException | None = None

    def __call__(self, record: ConversationRecord) -> None:
        with self.lock:
            if self.failure is not None:
                return
            try:
                self.sink(record)
            except BaseException as exc:
                self.failure = exc
                raise
            summary = self.summary
            summary.conversations += 1
            profile = summary.by_profile.setdefault(
                record.profile,
                {
                    "conversations": 0,
                    "with_errors": 0,
                    "passed": 0,
                    "failed": 0,
                    "inconclusive": 0,
                    "cost_usd": 0.0,
                },
            )
            profile["conversations"] += 1
            summary.add_verdict(record)
            profile[record.verdict or "inconclusive"] += 1
            profile["cost_usd"] = round(profile["cost_usd"] + (record.usage.cost_usd or 0.0), 8)
            if record.errors:
                summary.with_errors += 1
                profile["with_errors"] += 1
            for item in record.errors:
                summary.errors_by_code[item.code] = summary.errors_by_code.get(item.code, 0) + 1
            self.context.reporter.event(
                "conversation",
                {
                    "conversation": record.id,
                    "profile": record.profile,
                    "index": record.index,
                    "errors": record.error_codes,
                    "verdict": record.verdict,
                    "verdict_reason": record.verdict_reason or "",
                },
                done=summary.already_done + summary.conversations,
            )


def profile_keys(names: Sequence[str]) -> list[str]:
    """A key per profile, unique in the run: the name itself, then `name#2`, `name#3`... for repeats."""
    keys: list[str] = []
    taken = set(names)
    seen: dict[str, int] = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            keys.append(name)
            continue
        number = seen[name]
        while f"{name}#{number}" in taken:
            number += 1
        key = f"{name}#{number}"
        taken.add(key)
        keys.append(key)
    return keys


def new_seed() -> int:
    """A random run seed, in the range the API accepts."""
    return random.SystemRandom().randrange(2**31)


@dataclass
class SenseiJob:
    """One SENSEI run: the profiles (each with a plan already made, or planned here), the chatbot, the models, where
    each record goes, and what an earlier attempt of the run left.

    `planned_on` is the date the plans are drawn for (relative dates; default: today); `any_values` fills
    `any()` items (default: the judge, else the user LLM); `any_memory`, when given, holds the values invented
    by an earlier attempt and receives the new ones (`remembering_resolver`); `done` holds (profile key, index)
    pairs to skip. `user_model` overrides every profile's `llm.model` (README D6); plans are priced with the model that
    will play the user. `replan`, when given, may change each profile's plan before it runs
    (`engine.regression.Repeats` runs every conversation k times). `thread_cleanup`, when given, is called in the
    worker thread after each of its conversations, to release what that thread holds (the platform closes the
    thread's database connection)."""

    profiles: Sequence[Profile | tuple[Profile, Plan]]
    connector_factory: ConnectorFactory
    llm: LLMClient
    sink: Sink
    judge: LLMClient | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    chatbot_concurrency: int | None = None
    seed: int | None = None
    settings: SimulatorSettings | None = None
    technology: str | None = None
    base_dir: Path | None = None
    today: Callable[[], date] = date.today
    planned_on: date | None = None
    any_values: AnyResolver | None = None
    any_memory: dict[str, list[str]] | None = None
    done: Collection[tuple[str, int]] = ()
    user_model: str | None = None
    replan: Callable[[Profile, Plan], Plan] | None = None
    thread_cleanup: Callable[[], None] | None = None


def run_profiles(job: SenseiJob, context: RunContext | None = None) -> RunSummary:
    """Plan and run every conversation of `job.profiles`; each finished record goes to `job.sink` immediately."""
    context = context if context is not None else RunContext()
    llm, judge, today, user_model = job.llm, job.judge, job.today, job.user_model
    concurrency, cancel, reporter = job.concurrency, context.cancel, context.reporter
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    seed = new_seed() if job.seed is None else job.seed
    summary = RunSummary(seed=seed)
    started = time.monotonic()
    for client in (llm, judge):
        if client is not None:
            context.meter(client.ledger)
    simulator = Simulator(llm, judge=judge, settings=job.settings, today=today, user_model=user_model)
    resolver = job.any_values or llm_any_resolver(judge or llm)
    if job.any_memory is not None:
        resolver = remembering_resolver(resolver, job.any_memory)
    planned_on = job.planned_on or today()
    items = [item if isinstance(item, tuple) else (item, None) for item in job.profiles]
    keys = profile_keys([profile.name for profile, _ in items])
    plans: list[tuple[Profile, Plan]] = []
    test_names: dict[str, str] = {}
    for (original, given), key in zip(items, keys, strict=True):
        test_names[key] = original.name
        profile = original if key == original.name else original.model_copy(update={"name": key})
        planned = given
        if planned is None:
            planned = plan(
                profile,
                seed,
                today=planned_on,
                any_values=resolver,
                base_dir=job.base_dir,
                model=simulated_user_model(profile, override=user_model, default=llm.model),
                prices=llm.prices,
            )
        if job.replan is not None:
            planned = job.replan(profile, planned)
        reporter.log(f"{profile.name}: {len(planned.conversations)} conversation(s) to run")
        plans.append((profile, planned))
    skip = set(job.done)
    tasks: list[tuple[Profile, PlannedConversation, SpendTracker]] = []
    for profile, planned in plans:
        spend = SpendTracker(profile.conversation.max_cost)
        tasks += [
            (profile, conversation, spend)
            for conversation in planned.conversations
            if (profile.name, conversation.index) not in skip
        ]
    summary.planned = sum(len(planned.conversations) for _, planned in plans)
    summary.already_done = summary.planned - len(tasks)
    reporter.artefact("plan", plan_document(plans, seed, planned_on, job.any_memory or {}))
    reporter.stage("simulating")
    reporter.progress(summary.already_done, summary.planned)
    serial_sink = _SerialSink(job.sink, context, summary)
    gate = threading.BoundedSemaphore(job.chatbot_concurrency or concurrency)
    run_id = uuid.uuid4().hex[:8]

    def work(task: tuple[Profile, PlannedConversation, SpendTracker]) -> bool:
        profile, planned, spend = task
        if cancel.cancelled or serial_sink.failure is not None:
            return False
        with gate:
            if cancel.cancelled:
                return False
            try:
                record = _run_one(
                    simulator,
                    profile,
                    planned,
                    spend,
                    job,
                    context,
                    f"{run_id}-{_slug(profile.name)}-{planned.index}",
                )
            except LLMError as exc:
                if exc.ends_run:  # the provider is down or the model missing: no other conversation can work
                    cancel.cancel()
                raise
        if test_names[profile.name] != profile.name:
            record.settings.test_name = test_names[profile.name]  # the key was made unique in this run
        try:
            serial_sink(record)
        except BaseException:
            cancel.cancel()
            raise
        return True

    def work_and_clean(task: tuple[Profile, PlannedConversation, SpendTracker]) -> bool:
        try:
            return work(task)
        finally:
            if job.thread_cleanup is not None:
                job.thread_cleanup()

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="sensei") as pool:
        futures = [pool.submit(work_and_clean, task) for task in tasks]
        results = [future.exception() or future.result() for future in futures]
    if serial_sink.failure is not None:
        raise serial_sink.failure
    for result in results:
        if isinstance(result, BaseException):
            raise result
    summary.skipped = sum(1 for result in results if result is False)
    summary.cancelled = cancel.cancelled
    ledgers = [llm.ledger] if judge is None or judge.ledger is llm.ledger else [llm.ledger, judge.ledger]
    summary.usage = (
        ledgers[0].to_json()
        if len(ledgers) == 1
        else {"user": ledgers[0].to_json(), "judge": ledgers[1].to_json()}
    )
    summary.duration_s = time.monotonic() - started
    return summary


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:60] or "profile"


def _run_one(
    simulator: Simulator,
    profile: Profile,
    planned: PlannedConversation,
    spend: SpendTracker,
    job: SenseiJob,
    context: RunContext,
    conversation_id: str,
) -> ConversationRecord:
    technology = job.technology
    try:
        connector = job.connector_factory()
    except Exception as exc:  # noqa: BLE001 - a connector that cannot even be built fails this conversation only
        record = ConversationRecord(
            id=conversation_id,
            profile=profile.name,
            index=planned.index,
            language=profile.user.language,
            goals=list(profile.user.goals),
            inputs=dict(planned.values),
            outputs={o.name: None for o in profile.chatbot.outputs},
            settings=RecordSettings(seed=planned.seed, connector=technology),
            outcome=RecordOutcome(stopped_because="connector_error"),
            errors=[connector_error(exc, 0)],
            started_at=datetime.now(UTC),
            duration_s=0.0,
        )
        return judge(record)
    try:
        return simulator.run(
            profile,
            planned,
            connector,
            cancel=context.cancel,
            profile_spend=spend,
            conversation_id=conversation_id,
            technology=technology,
            on_turn=lambda record, turn: context.reporter.message(
                turn.role, turn.text, conversation=record.id, profile=record.profile, index=record.index
            ),
        )
    finally:
        with contextlib.suppress(Exception):  # closing is best effort; the record is already complete
            connector.close()
