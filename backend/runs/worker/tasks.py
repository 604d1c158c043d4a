"""Celery tasks: each carries only a run id and calls one entry point; runs.worker.bookkeeping owns the status."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import Any

from celery import shared_task
from celery.signals import task_failure
from django.utils import timezone

from accounts.models import LLMKey
from engine.connectors import test_connection
from engine.errors import ParleyError
from engine.llm import list_models
from runs.models import Run
from runs.worker import bookkeeping, deps, execution
from runs.worker.bookkeeping import run_task
from runs.worker.drafting import execute_profile_draft
from runs.worker.qualifying import execute_qualify
from runs.worker.security import execute_security
from runs.worker.short_results import ConnectionTest, KeyCheck, ModelList, PingResult
from runs.worker.shrinking import execute_shrink
from workspace.models import Connector

logger = logging.getLogger(__name__)


@shared_task(name="runs.ping", time_limit=60, soft_time_limit=50)
@run_task
def ping(run: Run) -> dict[str, Any]:
    """Proves the path API → broker → worker → database works end to end."""
    message = str(run.input.get("message", ""))[:200]
    return PingResult(pong=True, worker=socket.gethostname(), message=message).model_dump(mode="json")


def _ask_for_models(run: Run) -> tuple[LLMKey, ModelList]:
    key = LLMKey.objects.get(pk=run.input["key_id"], owner=run.owner)
    try:
        models = list_models(key.provider, key.reveal(), key.base_url or None, deps.egress_guard())
    except ParleyError as exc:
        return key, ModelList(ok=False, message=exc.user_message)
    ok = models.source == "live"
    message = f"The key works: {len(models.models)} models available." if ok else (models.reason or "")
    if ok:  # what the provider itself listed (never the curated fallback): the API checks model names with it
        LLMKey.objects.filter(pk=key.pk).update(
            models_seen=list(models.models), models_seen_at=timezone.now()
        )
    return key, ModelList(ok=ok, message=message, models=list(models.models), source=models.source)


@shared_task(name="runs.key_test", time_limit=60, soft_time_limit=50)
@run_task
def key_test(run: Run) -> dict[str, Any]:
    """Asks the provider for its models with the key: the cheapest call that proves the key is accepted."""
    key, result = _ask_for_models(run)
    LLMKey.objects.filter(pk=key.pk).update(
        last_checked_at=timezone.now(), last_check_ok=result.ok, last_check_message=result.message[:500]
    )
    return KeyCheck(ok=result.ok, message=result.message).model_dump(mode="json")


@shared_task(name="runs.key_models", time_limit=60, soft_time_limit=50)
@run_task
def key_models(run: Run) -> dict[str, Any]:
    return _ask_for_models(run)[1].model_dump(mode="json")


@shared_task(name="runs.connector_test", time_limit=120, soft_time_limit=110)
@run_task
def connector_test(run: Run) -> dict[str, Any]:
    connector = Connector.objects.get(pk=run.input["connector_id"], owner=run.owner)
    result = test_connection(
        deps.connector_config(connector), deps.egress_guard(), message=run.input["message"]
    )
    return ConnectionTest(**dict(result)).model_dump(mode="json")


@shared_task(name="runs.profile_draft", time_limit=900, soft_time_limit=870)
@run_task
def profile_draft(run: Run) -> dict[str, Any]:
    """Drafts profiles for chosen functionalities with the project's LLM (a few calls; `runs.worker.drafting`)."""
    return execute_profile_draft(run)


@shared_task(name="runs.shrink", bind=True)
def shrink(self: Any, run_id: int) -> None:
    """A short run that replays against the chatbot: like the long kinds, it waits while its owner is at the cap."""
    _capped(self, run_id, execute_shrink)


def _capped(task: Any, run_id: int, body: Callable[[Run], dict[str, Any]]) -> None:
    """Long runs wait (queued) while their owner already has the allowed number running."""
    try:
        claimed = bookkeeping.start_within_cap(run_id)
    except Exception:
        logger.exception("Could not claim run %s", run_id)
        return
    if isinstance(claimed, bookkeeping.AtCap):
        task.apply_async((run_id,), countdown=10)
        # The run's message is alive (this re-publication): the reaper need not publish it again.
        Run.objects.filter(pk=run_id, status=Run.Status.QUEUED).update(heartbeat_at=timezone.now())
        return
    if claimed is not None:
        bookkeeping.execute(claimed, body)


@shared_task(name="runs.tracer", bind=True)
def tracer(self: Any, run_id: int) -> None:
    _capped(self, run_id, execution.execute_tracer)


@shared_task(name="runs.sensei", bind=True)
def sensei(self: Any, run_id: int) -> None:
    _capped(self, run_id, execution.execute_sensei)


@shared_task(name="runs.check", bind=True)
def check(self: Any, run_id: int) -> None:
    _capped(self, run_id, execution.execute_check)


@shared_task(name="runs.bench", bind=True)
def bench(self: Any, run_id: int) -> None:
    _capped(self, run_id, execution.execute_bench)


@shared_task(name="runs.qualify", bind=True)
def qualify(self: Any, run_id: int) -> None:
    """Model qualification on a key (`runs.worker.qualifying`): a long run, capped like the others."""
    _capped(self, run_id, execute_qualify)


@shared_task(name="runs.worker.security", bind=True)
def security(self: Any, run_id: int) -> None:
    _capped(self, run_id, execute_security)


TASKS = {
    Run.Kind.TRACER: tracer,
    Run.Kind.SENSEI: sensei,
    Run.Kind.CHECK: check,
    Run.Kind.BENCH: bench,
    Run.Kind.SECURITY: security,
}
# Every kind of run, for the reaper: it may need to publish any queued run again.
JOBS = {
    **TASKS,
    Run.Kind.PING: ping,
    Run.Kind.KEY_TEST: key_test,
    Run.Kind.KEY_MODELS: key_models,
    Run.Kind.CONNECTOR_TEST: connector_test,
    Run.Kind.PROFILE_DRAFT: profile_draft,
    Run.Kind.SHRINK: shrink,
    Run.Kind.QUALIFY: qualify,
}


@shared_task(name="runs.reap")
def reap() -> dict[str, int]:
    """Periodic (Celery beat): runs whose worker stopped sending signs of life are resumed or failed."""
    return bookkeeping.reap_stale_runs(JOBS)


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
                int(args[0]), JOBS, "The worker running this run stopped unexpectedly. Start the run again."
            )
    except Exception:
        logger.exception("Could not record the failure of run %s", args[0])
