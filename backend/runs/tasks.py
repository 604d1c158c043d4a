"""Celery tasks: each carries only a run id and calls one entry point; runs.bookkeeping owns the status."""

from __future__ import annotations

import socket
from typing import Any

from celery import shared_task

from runs.bookkeeping import run_task
from runs.models import Run


@shared_task(name="runs.ping", time_limit=60, soft_time_limit=50)
@run_task
def ping(run: Run) -> dict[str, Any]:
    """Proves the path API → broker → worker → database works end to end."""
    return {"pong": True, "worker": socket.gethostname(), "message": str(run.input.get("message", ""))[:200]}
