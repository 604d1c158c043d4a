"""Validation shared by the API's serializers: names unique per owner, and the addresses Parley will call."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Model
from rest_framework import serializers

from engine.egress import EgressPolicy, refusal


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


def destination_problem(url: str) -> str | None:
    """Why Parley would surely refuse to send requests to `url` (a chatbot's or an LLM server's base URL), said
    when it is saved rather than at the first run: a URL in no valid form, or an IP address — in any form, octal
    and hex included — outside what PARLEY_EGRESS_ALLOW allows. Decided without any DNS lookup: a host name is
    checked by the egress guard when a request is made."""
    return refusal(url, EgressPolicy.parse(settings.EGRESS_ALLOW))
