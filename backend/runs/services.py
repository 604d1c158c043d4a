"""Creating runs and handing them to the queue."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task
from django.db import transaction

from accounts.models import User
from runs import bookkeeping
from runs.models import Run
from workspace.models import Project

logger = logging.getLogger(__name__)


def _publish(task: Task, run_id: int) -> None:
    try:
        task.delay(run_id)
    except Exception:
        logger.exception("Could not enqueue run %s", run_id)
        bookkeeping.fail(
            run_id,
            "queue_unavailable",
            "The job queue (RabbitMQ) could not be reached, so the run was not started. Try again shortly.",
        )


def create_run(
    owner: User,
    kind: str,
    task: Task,
    run_input: dict[str, Any] | None = None,
    trigger: str = Run.Trigger.API,
    project: Project | None = None,
) -> Run:
    """Write the run row and enqueue its id once the row is committed (a rollback enqueues nothing)."""
    with transaction.atomic():
        run = Run.objects.create(
            owner=owner, kind=kind, input=run_input or {}, trigger_source=trigger, project=project
        )
        transaction.on_commit(lambda: _publish(task, run.pk))
    return run
