"""Creating runs and handing them to the queue.

A project run starts with a warning event for every chosen model the key's provider did not list (README D7:
a warning, not a refusal — the worker, which has the key, fails the run with the provider's own message if the
model really does not exist).
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task
from django.db import transaction
from ruamel.yaml.error import YAMLError

from accounts.models import User
from engine.errors import ParleyError
from engine.yamlguard import load_yaml
from runs.models import Run, RunEvent
from runs.worker import bookkeeping
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
        if project is not None:
            for warning in project.model_warnings(_profile_models(run.input)):
                RunEvent.objects.create(run=run, type=RunEvent.Type.WARNING, data={"text": warning})
        transaction.on_commit(lambda: _publish(task, run.pk))
    return run


def _profile_models(run_input: dict[str, Any]) -> list[str]:
    """The `llm.model` each profile of a SENSEI run names (they play the simulated user, D6)."""
    models = []
    for snapshot in run_input.get("profiles") or []:
        try:
            data = load_yaml(str(snapshot.get("text", "")), round_trip=False)
        except (ParleyError, YAMLError):
            continue  # validated when the profile was saved; nothing to warn about here
        llm = data.get("llm") if isinstance(data, dict) else None
        if isinstance(llm, dict) and isinstance(llm.get("model"), str):
            models.append(llm["model"])
    return models
