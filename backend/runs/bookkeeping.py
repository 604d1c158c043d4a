"""The one place that moves runs through their state machine.

Every change is a conditional UPDATE on the expected current status, so two workers (or a worker and a cancel
request) can never both win: the loser sees zero rows changed and stands down. Task bodies never write status;
`run_task` wraps them and owns success, failure and time-outs; the Celery `task_failure` handler in `runs.tasks`
owns the deaths that happen outside the task body (hard time limit, killed worker process).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
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
        try:
            result = body(run)
        except SoftTimeLimitExceeded:
            fail(run_id, "time_limit", time_limit_message())
        except ParleyError as exc:
            # An engine stopping because the owner cancelled is a cancellation, not a failure.
            if not (Run.objects.filter(pk=run_id, cancel_requested=True).exists() and cancel(run_id)):
                fail(run_id, exc.code, exc.user_message)
        except Exception as exc:
            logger.exception("Run %s crashed", run_id)
            fail(
                run_id,
                "internal_error",
                f"The run stopped because of an internal error ({type(exc).__name__}). "
                "The details are in the worker log.",
            )
        else:
            succeed(run_id, result)

    wrapper.parley_run_task = True  # type: ignore[attr-defined]
    return wrapper


RESUMABLE = (Run.Kind.TRACER, Run.Kind.SENSEI)
LONG = (Run.Kind.TRACER, Run.Kind.SENSEI, Run.Kind.CHECK, Run.Kind.BENCH)
MAX_ATTEMPTS = 3


def over_user_cap(run_id: int) -> bool:
    """Whether the run's owner already has as many long runs running as allowed (PARLEY_RUNS_PER_USER)."""
    from django.conf import settings

    run = Run.objects.filter(pk=run_id, status=S.QUEUED).only("owner_id").first()
    if run is None:
        return False
    running = Run.objects.filter(owner_id=run.owner_id, status=S.RUNNING, kind__in=LONG).count()
    return running >= settings.RUNS_PER_USER


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
    """Runs whose worker went silent: long runs by their heartbeat, short ones by their start time."""
    from django.conf import settings

    stale_after = stale_after if stale_after is not None else timedelta(seconds=settings.RUN_STALE_AFTER_S)
    limit = timezone.now() - stale_after
    silent = Run.objects.filter(status=S.RUNNING).filter(
        Q(kind__in=LONG, heartbeat_at__lt=limit)
        | Q(kind__in=LONG, heartbeat_at__isnull=True, started_at__lt=limit)
        | (~Q(kind__in=LONG) & Q(started_at__lt=limit))
    )
    outcome: dict[str, int] = {}
    for run_id in silent.values_list("pk", flat=True):
        verdict = requeue_or_fail(
            run_id, tasks, "The worker running this run stopped answering, and the run could not be resumed."
        )
        outcome[verdict] = outcome.get(verdict, 0) + 1
    return outcome
