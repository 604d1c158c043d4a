"""/api/keys/ and /api/providers/: the caller's LLM API keys.

A key is encrypted on arrival and only its masked hint is ever returned. Creating one never contacts the
provider (it works offline). Testing a key and listing its models are short runs started by `runs.http.jobs`, so the key
is decrypted only inside a worker — never in a web request and never in a queue message.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import URLValidator
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import LLMKey
from common.validators import destination_problem, unique_name_per_owner
from engine.llm.providers import BASE_URLS, DEFAULT_MODELS, FALLBACK_MODELS


class DestinationURLField(serializers.URLField):
    """A URL Parley will send requests to, checked as the egress guard will check it (`destination_problem`)
    rather than by Django's URL pattern, which refuses some forms of an address the operator may allow
    (`http://0177.0.0.1`, `http://[::ffff:127.0.0.1]`) and accepts others the guard refuses."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, URLValidator)]

    def to_internal_value(self, data: Any) -> str:
        value = str(super().to_internal_value(data)).strip()
        if value and (problem := destination_problem(value)):
            raise serializers.ValidationError(problem)
        return value


class LLMKeySerializer(serializers.ModelSerializer[LLMKey]):
    base_url = DestinationURLField(required=False, allow_blank=True, max_length=500)
    key = serializers.CharField(
        write_only=True,
        trim_whitespace=True,
        max_length=1000,
        required=False,
        allow_blank=True,
        help_text="The API key. Write-only: responses carry `hint` instead.",
    )

    class Meta:
        model = LLMKey
        fields = (
            "id",
            "name",
            "provider",
            "base_url",
            "key",
            "hint",
            "created_at",
            "updated_at",
            "last_checked_at",
            "last_check_ok",
            "last_check_message",
        )
        read_only_fields = (
            "id",
            "hint",
            "created_at",
            "updated_at",
            "last_checked_at",
            "last_check_ok",
            "last_check_message",
        )

    def validate_name(self, value: str) -> str:
        return unique_name_per_owner(self, LLMKey, value, "key")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if self.instance is not None:
            # A key's provider and secret are what it *is*: to change them, add a new key.
            for frozen in ("provider", "base_url", "key"):
                if frozen in attrs and attrs[frozen] != getattr(self.instance, frozen, None):
                    raise serializers.ValidationError(
                        {frozen: ["Only the name can be changed; add a new key instead."]}
                    )
            return attrs
        provider = attrs.get("provider")
        if provider == LLMKey.Provider.OPENAI_COMPATIBLE and not attrs.get("base_url"):
            raise serializers.ValidationError(
                {"base_url": ["An OpenAI-compatible server needs its base URL."]}
            )
        if provider != LLMKey.Provider.OPENAI_COMPATIBLE and attrs.get("base_url"):
            raise serializers.ValidationError(
                {"base_url": ["Only OpenAI-compatible servers take a base URL."]}
            )
        if provider != LLMKey.Provider.OPENAI_COMPATIBLE and not attrs.get("key"):
            raise serializers.ValidationError({"key": ["Paste the API key."]})
        return attrs

    def create(self, validated_data: dict[str, Any]) -> LLMKey:
        secret = validated_data.pop("key", "") or ""
        key = LLMKey(owner=self.context["request"].user, **validated_data)
        key.set_secret(secret)
        key.save()
        return key


class LLMKeyViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[LLMKey],
):
    serializer_class = LLMKeySerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self) -> QuerySet[LLMKey]:
        if getattr(self, "swagger_fake_view", False):
            return LLMKey.objects.none()
        return LLMKey.objects.filter(owner=self.request.user)


class ProvidersView(APIView):
    @extend_schema(
        summary="The LLM providers Parley supports",
        responses=inline_serializer(
            "Provider",
            {
                "id": serializers.CharField(),
                "label": serializers.CharField(),
                "needs_base_url": serializers.BooleanField(),
                "base_url": serializers.CharField(allow_blank=True),
                "default_model": serializers.CharField(allow_blank=True),
                "fallback_models": serializers.ListField(child=serializers.CharField()),
            },
            many=True,
        ),
    )
    def get(self, request: Request) -> Response:
        return Response(
            [
                {
                    "id": provider.value,
                    "label": provider.label,
                    "needs_base_url": provider == LLMKey.Provider.OPENAI_COMPATIBLE,
                    "base_url": BASE_URLS.get(provider.value, ""),
                    "default_model": DEFAULT_MODELS.get(provider.value, ""),
                    "fallback_models": list(FALLBACK_MODELS.get(provider.value, ())),
                }
                for provider in LLMKey.Provider
            ]
        )
