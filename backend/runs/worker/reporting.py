"""How a running engine talks to the database: events, progress, usage, heartbeat, and cancellation.

`RunRecorder` implements both engines' reporter interfaces and writes `RunEvent` rows and the run's live fields.
Usage is accumulated in memory and written with the next event. `RunCancel` answers the engines' "should I
stop?" from the run's `cancel_requested` flag, asking the database at most once a second. Both may be called from
SENSEI's worker threads, so shared state sits behind a lock.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.db.models import F
from django.utils import timezone

from engine.conversation import ConversationRecord, Turn
from engine.evaluation import BenchReporter, MutantOutcome
from engine.llm import UsageRecord
from runs.models import Run, RunEvent
from runs.worker.secrets import run_scrubber

HEARTBEAT_S = 5.0  # how often a run that only makes LLM calls (the bench) proves its worker lives
MAX_TEXT = 4000  # one chatbot message in the live log; the full transcript is stored elsewhere


class RunCancel:
    """Satisfies TRACER's `is_set()` and SENSEI's `cancelled`/`cancel()`."""

    def __init__(self, run_id: int, *, interval_s: float = 1.0) -> None:
        self.run_id = run_id
        self.interval_s = interval_s
        self._checked_at = 0.0
        self._set = False
        self._lock = threading.Lock()

    def is_set(self) -> bool:
        with self._lock:
            if not self._set and time.monotonic() - self._checked_at >= self.interval_s:
                self._checked_at = time.monotonic()
                self._set = Run.objects.filter(pk=self.run_id, cancel_requested=True).exists()
            return self._set

    @property
    def cancelled(self) -> bool:
        return self.is_set()

    def cancel(self) -> None:
        with self._lock:
            self._set = True


class RunRecorder:
    """Reporter for TRACER (stage/progress/message/functionality/usage/warning) and SENSEI (RunReporter hooks)."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        # Everything this recorder writes passes the run's secrets scrubber (chatbots and providers echo them).
        self.scrub = run_scrubber(run_id)
        self._lock = threading.Lock()
        self._usage = {
            "calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost_usd": 0.0,
            "unpriced_calls": 0,
        }
        self._usage_dirty = False

    # -- writing ---------------------------------------------------------------------------------------------
    def event(self, type_: str, data: dict[str, Any], *, owner_only: bool = False, **run_fields: Any) -> None:
        visibility = RunEvent.Visibility.OWNER if owner_only else RunEvent.Visibility.PUBLIC
        RunEvent.objects.create(
            run_id=self.run_id, type=type_, visibility=visibility, data=self.scrub.scrub(data)
        )
        self.touch(**run_fields)

    def touch(self, **run_fields: Any) -> None:
        with self._lock:
            if self._usage_dirty:
                run_fields["usage"] = dict(self._usage)
                run_fields["cost_usd"] = round(self._usage["cost_usd"], 6)
                self._usage_dirty = False
        Run.objects.filter(pk=self.run_id).update(heartbeat_at=timezone.now(), **run_fields)

    # -- TRACER ------------------------------------------------------------------------------------------------
    def stage(self, stage: str) -> None:
        self.event(RunEvent.Type.STAGE, {"stage": stage}, stage=stage)

    def progress(self, sessions_done: int, sessions_total: int) -> None:
        self.event(
            RunEvent.Type.PROGRESS,
            {"done": sessions_done, "total": sessions_total},
            progress_done=sessions_done,
            progress_total=sessions_total,
        )

    def message(self, session: int, role: str, text: str) -> None:
        self.event(RunEvent.Type.MESSAGE, {"session": session, "role": role, "text": text[:MAX_TEXT]})

    def functionality(self, event: str, name: str, detail: str) -> None:
        self.event(RunEvent.Type.FUNCTIONALITY, {"event": event, "name": name, "detail": detail})

    def usage(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._usage["calls"] += 1
            self._usage["prompt_tokens"] += int(record.get("prompt_tokens") or 0)
            self._usage["completion_tokens"] += int(record.get("completion_tokens") or 0)
            cost = record.get("cost_usd")
            if cost is None:
                self._usage["unpriced_calls"] += 1
            else:
                self._usage["cost_usd"] += float(cost)
            self._usage_dirty = True

    def warning(self, text: str) -> None:
        self.event(RunEvent.Type.WARNING, {"text": text})

    def log(self, text: str) -> None:
        self.event(RunEvent.Type.LOG, {"text": text}, owner_only=True)

    # -- SENSEI (engine.sensei.executor.RunReporter) -------------------------------------------------------------
    def profile_planned(self, profile: Any, planned: Any) -> None:
        count = len(planned.conversations)
        self.event(
            RunEvent.Type.LOG, {"text": f"{profile.name}: {count} conversation(s) to run"}, owner_only=True
        )

    def run_planned(self, plans: Any, seed: int, done: int) -> None:
        total = sum(len(planned.conversations) for _, planned in plans)
        self.touch(progress_total=total, progress_done=done, stage="simulating")

    def conversation_started(self, profile: Any, planned: Any) -> None:
        self.touch()

    def turn(self, record: ConversationRecord, turn: Turn) -> None:
        self.event(
            RunEvent.Type.MESSAGE,
            {
                "conversation": record.id,
                "profile": record.profile,
                # Conversations run side by side: the live log labels each line with its profile and index.
                "index": record.index,
                "role": turn.role,
                "text": turn.text[:MAX_TEXT],
            },
        )

    def conversation_finished(self, record: ConversationRecord) -> None:
        codes = record.error_codes
        self.event(
            RunEvent.Type.CONVERSATION,
            {
                "conversation": record.id,
                "profile": record.profile,
                "index": record.index,
                "errors": codes,
                "verdict": record.verdict,
                "verdict_reason": (record.verdict_reason or "")[:MAX_TEXT],
            },
            progress_done=F("progress_done") + 1,
        )


class BenchProgress(BenchReporter):
    """The bench's reporter: its stages and mutant outcomes become run events, and every LLM call of every
    phase adds to the run's usage and, at most every few seconds, to its heartbeat (a TRACER phase of the
    bench reports nothing else for minutes)."""

    def __init__(self, recorder: RunRecorder) -> None:
        self.recorder = recorder
        self._beat_at = 0.0

    def stage(self, bot: str, stage: str) -> None:
        self.recorder.event(RunEvent.Type.STAGE, {"stage": f"{bot}: {stage}"}, stage=stage[:32])

    def mutant(self, bot: str, outcome: MutantOutcome, done: int, total: int) -> None:
        self.recorder.event(
            RunEvent.Type.PROGRESS,
            {
                "done": done,
                "total": total,
                "mutant": outcome.id,
                "operator": outcome.operator,
                "status": outcome.status,
                "killed_automatic": outcome.statuses.get("automatic") == "killed",
                "reasons": list(outcome.reasons),
            },
            progress_done=done,
            progress_total=total,
        )

    def warning(self, text: str) -> None:
        self.recorder.warning(text)

    def llm_call(self, usage: UsageRecord) -> None:
        self.recorder.usage(usage.to_json())
        now = time.monotonic()
        if now - self._beat_at >= HEARTBEAT_S:
            self._beat_at = now
            self.recorder.touch()
