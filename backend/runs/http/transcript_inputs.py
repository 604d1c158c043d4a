"""What a run asked from the Transcripts page stores as its input: a TRACER run over the project's imported
conversations, and a SENSEI run that enforces a calibrated user (runs.http.serializers asks here)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from engine.sensei import new_seed
from engine.tracer.from_transcripts import DEFAULT_SAMPLE
from runs.models import ImportedConversation
from workspace.models import Project
from workspace.validation import validate_personality


def transcript_tracer_input(project: Project, sample: int | None, seed: int | None) -> dict[str, Any]:
    if not ImportedConversation.objects.filter(project=project).exists():
        raise serializers.ValidationError(
            {"source": ["This project has no imported conversations: upload transcripts first."]}
        )
    return {
        "source": "transcripts",
        "sample": sample or DEFAULT_SAMPLE,
        "seed": new_seed() if seed is None else seed,
    }


def calibrated_user_input(project: Project, name: str | None) -> dict[str, Any]:
    """`{"calibrated_user": name}` when `name` is a valid calibrated personality of the project, else a 400."""
    if not name:
        return {}
    document = project.personalities.filter(name=name, valid=True).first()
    parsed = validate_personality(document.text).parsed if document else None
    if parsed is None or not parsed.parameters:
        raise serializers.ValidationError(
            {
                "calibrated_user": [
                    f"{name!r} is not a calibrated personality of this project: calibrate first."
                ]
            }
        )
    return {"calibrated_user": name}
