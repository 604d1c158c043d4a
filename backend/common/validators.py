"""Validation shared by the API's serializers."""

from __future__ import annotations

from typing import Any

from django.db.models import Model
from rest_framework import serializers


def unique_name_per_owner(
    serializer: serializers.Serializer[Any], model: type[Model], value: str, noun: str
) -> str:
    """The stripped name, unless the caller already has another `model` with it (case-insensitively)."""
    name = value.strip()
    taken = model._default_manager.filter(owner=serializer.context["request"].user, name__iexact=name)
    if serializer.instance is not None:
        taken = taken.exclude(pk=serializer.instance.pk)
    if taken.exists():
        raise serializers.ValidationError(f"You already have a {noun} with this name.")
    return name
