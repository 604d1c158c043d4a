"""How a running engine talks to the database: events, progress, usage, heartbeat, artefacts and cancellation.

`run_context(run)` is the worker's one builder of an engine's `RunContext` (every kind alike): `RunRecorder`
implements the engines' one `Reporter` and writes `RunEvent` rows and the run's live fields; `RunCancel` answers
"should I stop?" from the run's `cancel_requested` flag, asking the database at most once a second. Usage is
accumulated in memory, written with the next event, and proves the worker alive at most every few seconds (a
bench's TRACER phase reports nothing else for minutes). Both may be called from SENSEI's worker threads, so
shared state sits behind a lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from django.utils import timezone

from engine.context import CancelToken, Reporter, RunContext
from runs.models import Artefact, Run, RunEvent
from runs.worker.secrets import run_scrubber

HEARTBEAT_S = 5.0  # how often a run that only makes LLM calls (the bench) proves its worker lives
MAX_TEXT = 4000  # one chatbot message in the live log; the full transcript is stored elsewhere
MAX_STAGE = 32  # the run's `stage` field


def run_context(run_id: int) -> RunContext:
    """The context every engine of a platform run gets: the run's recorder and its cancel flag."""
    return RunContext(reporter=RunRecorder(run_id), cancel=RunCancel(run_id))


def recorder_of(context: RunContext) -> RunRecorder:
    """The recorder of a context `run_context` built (for what the worker files itself: results, plans)."""
    assert isinstance(context.reporter, RunRecorder)
    return context.reporter


class RunCancel(CancelToken):
    """The run's cancel flag in the database, polled at most every `interval_s`; `cancel()` also stops the run
    at once (SENSEI cancels when a conversation's failure ends the run)."""

    def __init__(self, run_id: int, *, interval_s: float = 1.0) -> None:
        super().__init__()
        self.run_id = run_id
        self.interval_s = interval_s
        self._checked_at = 0.0
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        with self._lock:
            if not super().cancelled and time.monotonic() - self._checked_at >= self.interval_s:
                self._checked_at = time.monotonic()
                if Run.objects.filter(pk=self.run_id, cancel_requested=True).exists():
                    super().cancel()
            return super().cancelled


class RunRecorder(Reporter):
    """The engines' reporter on the platform: every hook becomes a `RunEvent` row and the run's live fields."""

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
        self._beat_at = 0.0

    # -- writing ---------------------------------------------------------------------------------------------
    def write(self, type_: str, data: dict[str, Any], *, owner_only: bool = False, **run_fields: Any) -> None:
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
            self._beat_at = time.monotonic()
        Run.objects.filter(pk=self.run_id).update(heartbeat_at=timezone.now(), **run_fields)

    # -- the engines' hooks (engine.context.Reporter) -------------------------------------------------------------
    def stage(self, stage: str, *, label: str | None = None) -> None:
        self.write(RunEvent.Type.STAGE, {"stage": label or stage}, stage=stage[:MAX_STAGE])

    def progress(
        self, done: int, total: int, *, counts: Mapping[str, int] | None = None, **detail: Any
    ) -> None:
        fields: dict[str, Any] = {"progress_done": done, "progress_total": total}
        if counts is not None:
            fields["counters"] = dict(counts)
        self.write(RunEvent.Type.PROGRESS, {"done": done, "total": total, **detail}, **fields)

    def message(self, role: str, text: str, **where: Any) -> None:
        self.write(RunEvent.Type.MESSAGE, {**where, "role": role, "text": text[:MAX_TEXT]})

    def event(self, kind: str, data: Mapping[str, Any], *, done: int | None = None) -> None:
        shortened = {
            key: value[:MAX_TEXT] if isinstance(value, str) else value for key, value in data.items()
        }
        self.write(kind, shortened, **({"progress_done": done} if done is not None else {}))

    def artefact(self, name: str, content: Any) -> None:
        Artefact.objects.update_or_create(
            run_id=self.run_id, name=name, defaults={"content": self.scrub.scrub(content)}
        )

    def usage(self, record: Mapping[str, Any]) -> None:
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
            beat = time.monotonic() - self._beat_at >= HEARTBEAT_S
        if beat:
            self.touch()

    def warning(self, text: str) -> None:
        self.write(RunEvent.Type.WARNING, {"text": text})

    def log(self, text: str) -> None:
        self.write(RunEvent.Type.LOG, {"text": text}, owner_only=True)
