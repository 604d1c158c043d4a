"""The one place that moves runs through their state machine.

Every change is a conditional UPDATE on the expected current status, so two workers (or a worker and a cancel
request) can never both win: the loser sees zero rows changed and stands down. Task bodies never write status;
`run_task` wraps them and owns success, failure and time-outs; the Celery `task_failure` handler in `runs.worker.tasks`
owns the deaths that happen outside the task body (hard time limit, killed worker process).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from typing import Any, Self

from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from engine.errors import ParleyError
from runs.models import Run

logger = logging.getLogger(__name__)

S = Run.Status


def transition(run_id: int, old: str | Iterable[str], new: str, **fields: Any) -> bool:
    """Move run `run_id` from one of `old` to `new`; True if this call made the change."""
    olds = (old,) if isinstance(old, str) else tuple(old)
    for status in olds:
        Run.check_transition(status, new)
    if new in (S.SUCCEEDED, S.FAILED, S.CANCELLED):
        fields.setdefault("finished_at", timezone.now())
    return Run.objects.filter(pk=run_id, status__in=olds).update(status=new, **fields) == 1


def start(run_id: int) -> Run | None:
    """Claim a queued run for this worker; None when it was already claimed, finished or cancelled."""
    if not transition(run_id, S.QUEUED, S.RUNNING, started_at=timezone.now()):
        return None
    return Run.objects.get(pk=run_id)


def succeed(run_id: int, result: dict[str, Any]) -> bool:
    return transition(run_id, S.RUNNING, S.SUCCEEDED, result=result)


def fail(run_id: int, error_type: str, message: str) -> bool:
    return transition(run_id, Run.ACTIVE, S.FAILED, error_type=error_type[:64], error_message=message)


def cancel(run_id: int) -> bool:
    """Cancel a queued or running run; a second cancel (or a cancel after the end) changes nothing."""
    return transition(run_id, Run.ACTIVE, S.CANCELLED)


def time_limit_message() -> str:
    from django.conf import settings

    return f"The run exceeded its time limit of {settings.RUN_TIME_LIMIT_S // 60} minutes and was stopped."


class Heartbeat:
    """While a task body runs, a thread of the worker stamps the run's `heartbeat_at` every `every` seconds on a
    connection of its own. The engine may be silent for minutes (one long LLM call); the process is not, so the
    reaper can tell a busy worker from a dead one within a minute."""

    def __init__(self, run_id: int, every: float) -> None:
        self.run_id = run_id
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{run_id}", daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.every):
                try:
                    Run.objects.filter(pk=self.run_id, status=S.RUNNING).update(heartbeat_at=timezone.now())
                except Exception:  # the database is away: try again next beat on a new connection
                    logger.warning("Could not record the heartbeat of run %s", self.run_id, exc_info=True)
                    connection.close()
        finally:
            connection.close()


def _settle(write: Callable[..., bool], run_id: int, *args: Any) -> bool:
    """Record a run's end; a connection that dropped while the run ran is replaced once, so the run is not
    left running for the reaper to find."""
    try:
        return write(run_id, *args)
    except (OperationalError, InterfaceError):
        logger.warning("The database connection dropped; recording the end of run %s again", run_id)
        connection.close()
        return write(run_id, *args)


def run_task(body: Callable[[Run], dict[str, Any]]) -> Callable[[int], None]:
    """Wrap a task body `body(run) -> result` with the bookkeeping; the wrapper never raises."""

    @functools.wraps(body)
    def wrapper(run_id: int) -> None:
        try:
            run = start(run_id)
        except Exception:
            logger.exception("Could not claim run %s", run_id)
            return
        if run is None:
            logger.info("Run %s is not queued any more; this delivery does nothing.", run_id)
            return
        execute(run, body)

    wrapper.parley_run_task = True  # type: ignore[attr-defined]
    return wrapper


def execute(run: Run, body: Callable[[Run], dict[str, Any]]) -> None:
    """Run the body of a claimed run and record how it ended; never raises."""
    from django.conf import settings

    from runs.worker.secrets import run_scrubber

    run_id = run.pk
    scrub = run_scrubber(run_id)  # a failure message may quote what a chatbot or provider echoed
    try:
        with Heartbeat(run_id, settings.RUN_HEARTBEAT_S):
            result = body(run)
    except SoftTimeLimitExceeded:
        _settle(fail, run_id, "time_limit", time_limit_message())
    except ParleyError as exc:
        # An engine stopping because the owner cancelled is a cancellation, not a failure.
        if not (Run.objects.filter(pk=run_id, cancel_requested=True).exists() and cancel(run_id)):
            _settle(fail, run_id, exc.code, scrub(exc.user_message))
    except Exception as exc:
        logger.exception("Run %s crashed", run_id)
        if isinstance(exc, OperationalError | InterfaceError):
            connection.close()
        _settle(
            fail,
            run_id,
            "internal_error",
            f"The run stopped because of an internal error ({type(exc).__name__}). "
            "The details are in the worker log.",
        )
    else:
        _settle(succeed, run_id, scrub.scrub(result))


RESUMABLE = (Run.Kind.TRACER, Run.Kind.SENSEI)
LONG = (Run.Kind.TRACER, Run.Kind.SENSEI, Run.Kind.CHECK, Run.Kind.BENCH, Run.Kind.SECURITY, Run.Kind.QUALIFY)
MAX_ATTEMPTS = 3


class AtCap:
    """What `start_within_cap` answers when the owner already runs as many long runs as allowed."""


AT_CAP = AtCap()


def start_within_cap(run_id: int) -> Run | AtCap | None:
    """Claim a queued long run unless its owner already has PARLEY_RUNS_PER_USER long runs running; the count and
    the claim happen under a lock on the owner, so two workers can never both take the last slot."""
    from django.conf import settings

    from accounts.models import User

    with transaction.atomic():
        owner_id = Run.objects.filter(pk=run_id, status=S.QUEUED).values_list("owner_id", flat=True).first()
        if owner_id is None:
            return None
        User.objects.select_for_update().filter(pk=owner_id).exists()
        running = Run.objects.filter(owner_id=owner_id, status=S.RUNNING, kind__in=LONG).count()
        if running >= settings.RUNS_PER_USER:
            return AT_CAP
        return start(run_id)


def requeue_or_fail(run_id: int, tasks: Mapping[str, Any], reason: str) -> str:
    """A running run lost its worker: resume it elsewhere if it can resume, else fail it with `reason`."""
    run = Run.objects.filter(pk=run_id, status=S.RUNNING).first()
    if run is None:
        return "gone"
    if run.cancel_requested:
        return "cancelled" if cancel(run_id) else "gone"
    if run.kind in RESUMABLE and run.attempts + 1 < MAX_ATTEMPTS:
        if transition(run_id, S.RUNNING, S.QUEUED, attempts=F("attempts") + 1, heartbeat_at=None):
            tasks[run.kind].delay(run_id)
            return "requeued"
        return "gone"
    return "failed" if fail(run_id, "worker_lost", reason) else "gone"


def reap_stale_runs(tasks: Mapping[str, Any], *, stale_after: timedelta | None = None) -> dict[str, int]:
    """Runs whose worker went silent (no heartbeat for `stale_after`) are resumed or failed; queued runs that no
    worker claimed are published again, in case their message was lost."""
    from django.conf import settings

    stale_after = stale_after if stale_after is not None else timedelta(seconds=settings.RUN_STALE_AFTER_S)
    now = timezone.now()
    limit = now - stale_after
    silent = Run.objects.filter(status=S.RUNNING).filter(
        Q(heartbeat_at__lt=limit) | Q(heartbeat_at__isnull=True, started_at__lt=limit)
    )
    outcome: dict[str, int] = {}
    for run_id in silent.values_list("pk", flat=True):
        verdict = requeue_or_fail(
            run_id, tasks, "The worker running this run stopped answering, and the run could not be resumed."
        )
        outcome[verdict] = outcome.get(verdict, 0) + 1
    republished = republish_unclaimed(tasks, now=now)
    if republished:
        outcome["republished"] = republished
    return outcome


def republish_unclaimed(tasks: Mapping[str, Any], *, now: Any = None) -> int:
    """Publish again the queued runs whose last publication is older than half their age (at least 30 s, at
    most 10 minutes): a lost message costs at most that wait, and a run that waits behind busy workers is
    published only a handful of times. A second delivery of a run is harmless (the claim is conditional)."""
    now = now or timezone.now()
    published = 0
    queued = Run.objects.filter(status=S.QUEUED, kind__in=list(tasks)).values_list(
        "pk", "created_at", "heartbeat_at"
    )
    for run_id, created_at, last in queued:
        wait = min(max((now - created_at) / 2, REPUBLISH_MIN), REPUBLISH_MAX)
        if now - (last or created_at) < wait:
            continue
        if Run.objects.filter(pk=run_id, status=S.QUEUED).update(heartbeat_at=now):
            tasks[Run.objects.only("kind").get(pk=run_id).kind].delay(run_id)
            published += 1
    return published


REPUBLISH_MIN = timedelta(seconds=30)
REPUBLISH_MAX = timedelta(minutes=10)
