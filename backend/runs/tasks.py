"""Celery tasks: each carries only a run id and calls one entry point; runs.bookkeeping owns the status."""

from __future__ import annotations

import logging
import socket
from typing import Any

from celery import shared_task
from celery.signals import task_failure
from django.utils import timezone

from accounts.models import LLMKey
from engine.connectors import test_connection
from engine.errors import ParleyError
from engine.llm import list_models
from runs import bookkeeping, deps, execution
from runs.bookkeeping import over_user_cap, run_task
from runs.models import Run
from workspace.models import Connector

logger = logging.getLogger(__name__)


@shared_task(name="runs.ping", time_limit=60, soft_time_limit=50)
@run_task
def ping(run: Run) -> dict[str, Any]:
    """Proves the path API → broker → worker → database works end to end."""
    return {"pong": True, "worker": socket.gethostname(), "message": str(run.input.get("message", ""))[:200]}


def _ask_for_models(run: Run) -> tuple[LLMKey, dict[str, Any]]:
    key = LLMKey.objects.get(pk=run.input["key_id"], owner=run.owner)
    try:
        models = list_models(key.provider, key.reveal(), key.base_url or None, deps.egress_guard())
    except ParleyError as exc:
        return key, {"ok": False, "message": exc.user_message, "models": [], "source": None}
    ok = models.source == "live"
    message = f"The key works: {len(models.models)} models available." if ok else (models.reason or "")
    return key, {"ok": ok, "message": message, "models": list(models.models), "source": models.source}


@shared_task(name="runs.key_test", time_limit=60, soft_time_limit=50)
@run_task
def key_test(run: Run) -> dict[str, Any]:
    """Asks the provider for its models with the key: the cheapest call that proves the key is accepted."""
    key, result = _ask_for_models(run)
    LLMKey.objects.filter(pk=key.pk).update(
        last_checked_at=timezone.now(), last_check_ok=result["ok"], last_check_message=result["message"][:500]
    )
    return {"ok": result["ok"], "message": result["message"]}


@shared_task(name="runs.key_models", time_limit=60, soft_time_limit=50)
@run_task
def key_models(run: Run) -> dict[str, Any]:
    return _ask_for_models(run)[1]


@shared_task(name="runs.connector_test", time_limit=120, soft_time_limit=110)
@run_task
def connector_test(run: Run) -> dict[str, Any]:
    connector = Connector.objects.get(pk=run.input["connector_id"], owner=run.owner)
    result = test_connection(
        deps.connector_config(connector), deps.egress_guard(), message=run.input["message"]
    )
    return result.model_dump(mode="json")


_tracer, _sensei, _check, _bench = (
    run_task(body)
    for body in (
        execution.execute_tracer,
        execution.execute_sensei,
        execution.execute_check,
        execution.execute_bench,
    )
)


def _capped(task: Any, run_id: int, body: Any) -> None:
    """Long runs wait (queued) while their owner already has the allowed number running."""
    if over_user_cap(run_id):
        task.apply_async((run_id,), countdown=10)
        return
    body(run_id)


@shared_task(name="runs.tracer", bind=True)
def tracer(self: Any, run_id: int) -> None:
    _capped(self, run_id, _tracer)


@shared_task(name="runs.sensei", bind=True)
def sensei(self: Any, run_id: int) -> None:
    _capped(self, run_id, _sensei)


@shared_task(name="runs.check", bind=True)
def check(self: Any, run_id: int) -> None:
    _capped(self, run_id, _check)


@shared_task(name="runs.bench", bind=True)
def bench(self: Any, run_id: int) -> None:
    _capped(self, run_id, _bench)


TASKS = {Run.Kind.TRACER: tracer, Run.Kind.SENSEI: sensei, Run.Kind.CHECK: check, Run.Kind.BENCH: bench}


@shared_task(name="runs.reap")
def reap() -> dict[str, int]:
    """Periodic (Celery beat): runs whose worker stopped sending signs of life are resumed or failed."""
    return bookkeeping.reap_stale_runs(TASKS)


@task_failure.connect
def on_task_failure(
    sender: Any = None, args: tuple[Any, ...] = (), exception: BaseException | None = None, **_: Any
) -> None:
    """Runs in the worker's main process when a child died or hit the hard time limit mid-run."""
    ours = getattr(getattr(sender, "run", None), "parley_run_task", False) or str(
        getattr(sender, "name", "")
    ).startswith("runs.")
    if not ours or not args:
        return
    name = type(exception).__name__ if exception else "WorkerLost"
    try:
        if name == "TimeLimitExceeded":
            bookkeeping.fail(int(args[0]), "time_limit", bookkeeping.time_limit_message())
        else:
            bookkeeping.requeue_or_fail(
                int(args[0]), TASKS, "The worker running this run stopped unexpectedly. Start the run again."
            )
    except Exception:
        logger.exception("Could not record the failure of run %s", args[0])
