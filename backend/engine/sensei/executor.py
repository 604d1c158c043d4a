"""Running many conversations: a bounded thread pool, limits, a sink per finished conversation, cancellation.

`run_profiles` plans every profile (unless given plans), then runs all their conversations on a pool of
`concurrency` threads (default 4). Limits: `chatbot_concurrency` caps conversations open at once against the
chatbot (a semaphore around each conversation); the provider limit is the gateway's own per-key limiter
(`ProviderConfig.max_concurrency`), shared by every client of that key. Each conversation gets a fresh
connector from `connector_factory` and closes it afterwards.

Each finished conversation goes to `sink(record)` at once, from the worker thread but one at a time (the sink
need not be thread-safe): the platform's worker stores it, the CLI writes a file. A connector failure ends only
that conversation; a failing sink stops the run (records would be lost) and is re-raised. `cancel` stops new
conversations from starting and ends running ones between turns (error 4000, still sunk).
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from engine.connectors.base import Connector
from engine.conversation import ConversationRecord, Turn
from engine.llm import LLMClient, LLMError, user
from engine.sensei.errors import connector_error, describe
from engine.sensei.generators import AnyResolver, GeneratorError
from engine.sensei.planner import Plan, PlannedConversation, plan
from engine.sensei.profile import AnyRequest, Profile, Scalar, Variable
from engine.sensei.prompts import ANY_LIST
from engine.sensei.simulator import CancelToken, Simulator, SimulatorSettings, SpendTracker

ConnectorFactory = Callable[[], Connector]
Sink = Callable[[ConversationRecord], None]
TAG_ANY_LIST = "sensei.any_list"
DEFAULT_CONCURRENCY = 4


class RunReporter:
    """Progress callbacks; override what you need. Called from worker threads (turn, started, finished)."""

    def profile_planned(self, profile: Profile, planned: Plan) -> None:
        """A profile's plan is ready (before any of its conversations starts)."""

    def conversation_started(self, profile: Profile, planned: PlannedConversation) -> None:
        """A conversation is about to open its connector."""

    def turn(self, record: ConversationRecord, turn: Turn) -> None:
        """A user message was sent or a bot reply arrived."""

    def conversation_finished(self, record: ConversationRecord) -> None:
        """A conversation ended and was handed to the sink."""


@dataclass
class RunSummary:
    planned: int = 0
    conversations: int = 0
    with_errors: int = 0
    skipped: int = 0
    errors_by_code: dict[int, int] = field(default_factory=dict)
    by_profile: dict[str, dict[str, Any]] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return self.with_errors == 0 and self.skipped == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "planned": self.planned,
            "conversations": self.conversations,
            "with_errors": self.with_errors,
            "skipped": self.skipped,
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
            raise GeneratorError(
                f"variable {variable.name}: any({request.prompt}) failed: {exc.user_message}"
            ) from exc
        values = [v.strip() for v in answer.values if v.strip()]
        if not values:
            raise GeneratorError(f"variable {variable.name}: any({request.prompt}) produced no values")
        return values[: request.count] if request.count else values

    return resolve


class _SerialSink:
    def __init__(self, sink: Sink, reporter: RunReporter, summary: RunSummary) -> None:
        self.sink = sink
        self.reporter = reporter
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
                record.profile, {"conversations": 0, "with_errors": 0, "cost_usd": 0.0}
            )
            profile["conversations"] += 1
            profile["cost_usd"] = round(profile["cost_usd"] + (record.usage.cost_usd or 0.0), 8)
            if record.errors:
                summary.with_errors += 1
                profile["with_errors"] += 1
            for item in record.errors:
                summary.errors_by_code[item.code] = summary.errors_by_code.get(item.code, 0) + 1
            self.reporter.conversation_finished(record)


def run_profiles(
    profiles: Sequence[Profile | tuple[Profile, Plan]],
    connector_factory: ConnectorFactory,
    llm: LLMClient,
    *,
    judge: LLMClient | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    chatbot_concurrency: int | None = None,
    seed: int | None = None,
    sink: Sink,
    reporter: RunReporter | None = None,
    cancel: CancelToken | None = None,
    settings: SimulatorSettings | None = None,
    technology: str | None = None,
    base_dir: Path | None = None,
    today: Callable[[], date] = date.today,
) -> RunSummary:
    """Plan and run every conversation of `profiles`; each finished record goes to `sink` immediately."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    reporter = reporter or RunReporter()
    cancel = cancel or CancelToken()
    summary = RunSummary()
    started = time.monotonic()
    simulator = Simulator(llm, judge=judge, settings=settings, today=today)
    resolver = llm_any_resolver(judge or llm)
    jobs: list[tuple[Profile, PlannedConversation, SpendTracker]] = []
    for item in profiles:
        profile, planned = item if isinstance(item, tuple) else (item, None)
        if planned is None:
            planned = plan(
                profile,
                seed,
                today=today(),
                any_values=resolver,
                base_dir=base_dir,
                model=llm.model,
                prices=llm.prices,
            )
        reporter.profile_planned(profile, planned)
        spend = SpendTracker(profile.conversation.max_cost)
        jobs += [(profile, conversation, spend) for conversation in planned.conversations]
    summary.planned = len(jobs)
    serial_sink = _SerialSink(sink, reporter, summary)
    gate = threading.BoundedSemaphore(chatbot_concurrency or concurrency)
    run_id = uuid.uuid4().hex[:8]

    def work(job: tuple[Profile, PlannedConversation, SpendTracker]) -> bool:
        profile, planned, spend = job
        if cancel.cancelled or serial_sink.failure is not None:
            return False
        with gate:
            if cancel.cancelled:
                return False
            reporter.conversation_started(profile, planned)
            record = _run_one(
                simulator,
                profile,
                planned,
                spend,
                connector_factory,
                cancel,
                reporter,
                technology,
                f"{run_id}-{_slug(profile.name)}-{planned.index}",
            )
        try:
            serial_sink(record)
        except BaseException:
            cancel.cancel()
            raise
        return True

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="sensei") as pool:
        futures = [pool.submit(work, job) for job in jobs]
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
    connector_factory: ConnectorFactory,
    cancel: CancelToken,
    reporter: RunReporter,
    technology: str | None,
    conversation_id: str,
) -> ConversationRecord:
    try:
        connector = connector_factory()
    except Exception as exc:  # noqa: BLE001 - a connector that cannot even be built fails this conversation only
        return ConversationRecord(
            id=conversation_id,
            profile=profile.name,
            index=planned.index,
            language=profile.user.language,
            goals=list(profile.user.goals),
            inputs=dict(planned.values),
            outputs={o.name: None for o in profile.chatbot.outputs},
            settings={"seed": planned.seed, "connector": technology, "stopped_because": "connector_error"},
            errors=[connector_error(exc, 0)],
            started_at=datetime.now(UTC),
            duration_s=0.0,
        )
    try:
        return simulator.run(
            profile,
            planned,
            connector,
            cancel=cancel,
            profile_spend=spend,
            conversation_id=conversation_id,
            technology=technology,
            on_turn=reporter.turn,
        )
    finally:
        with contextlib.suppress(Exception):  # closing is best effort; the record is already complete
            connector.close()
