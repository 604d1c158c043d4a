"""The Run model and its state machine."""

from __future__ import annotations

from datetime import timedelta
from typing import ClassVar

from django.conf import settings
from django.db import models


class IllegalTransition(Exception):
    """A run was asked to move between two states the state machine does not connect."""


class Run(models.Model):
    class Kind(models.TextChoices):
        PING = "ping", "Ping"
        KEY_TEST = "key_test", "Key test"
        KEY_MODELS = "key_models", "Model list"
        CONNECTOR_TEST = "connector_test", "Connection test"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class Trigger(models.TextChoices):
        API = "api", "API"
        CLI = "cli", "Command line"
        SCHEDULE = "schedule", "Schedule"

    # The whole state machine: a run is created queued and ends in exactly one terminal state.
    TRANSITIONS: ClassVar[dict[str, frozenset[str]]] = {
        Status.QUEUED: frozenset({Status.RUNNING, Status.FAILED, Status.CANCELLED}),
        Status.RUNNING: frozenset({Status.SUCCEEDED, Status.FAILED, Status.CANCELLED}),
        Status.SUCCEEDED: frozenset(),
        Status.FAILED: frozenset(),
        Status.CANCELLED: frozenset(),
    }
    ACTIVE: ClassVar[tuple[str, ...]] = (Status.QUEUED, Status.RUNNING)

    kind = models.CharField(max_length=32, choices=Kind.choices)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    trigger_source = models.CharField(max_length=16, choices=Trigger.choices, default=Trigger.API)
    input = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error_type = models.CharField(max_length=64, blank=True)
    error_message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["owner", "-created_at"], name="run_owner_recent"),
            models.Index(fields=["owner", "kind", "status"], name="run_owner_kind_status"),
            models.Index(fields=["status"], name="run_status"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} run {self.pk} ({self.status})"

    @classmethod
    def check_transition(cls, old: str, new: str) -> None:
        if new not in cls.TRANSITIONS[old]:
            raise IllegalTransition(f"A run cannot go from {old} to {new}.")

    @property
    def is_finished(self) -> bool:
        return not self.TRANSITIONS[self.status]

    @property
    def wait_time(self) -> timedelta | None:
        return self.started_at - self.created_at if self.started_at else None

    @property
    def duration(self) -> timedelta | None:
        return self.finished_at - self.started_at if self.started_at and self.finished_at else None
