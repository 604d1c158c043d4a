"""Response shapes of the runs API."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from runs.models import Run


class RunSerializer(serializers.ModelSerializer[Run]):
    wait_seconds = serializers.SerializerMethodField()
    duration_seconds = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = (
            "id",
            "kind",
            "status",
            "trigger_source",
            "input",
            "result",
            "error_type",
            "error_message",
            "created_at",
            "started_at",
            "finished_at",
            "wait_seconds",
            "duration_seconds",
        )
        read_only_fields = fields

    def get_wait_seconds(self, run: Run) -> float | None:
        return run.wait_time.total_seconds() if run.wait_time else None

    def get_duration_seconds(self, run: Run) -> float | None:
        return run.duration.total_seconds() if run.duration else None


class PingSerializer(serializers.Serializer[Any]):
    message = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
