"""/api/connectors/: the caller's connectors, their technologies' parameter schemas and validation (testing one is a
short run, started by `runs.http.jobs`).

Secret parameters (as each technology declares them) are encrypted on save and never returned: responses list
only which secrets are set. On update, an omitted or empty secret keeps its stored value.

`volatile` lists regular expressions of values the chatbot changes in every conversation; a re-run against the
current chatbot normalises them away before deciding that a reply changed (README D24). Each pattern is checked on
save (`engine.connectors.volatile`): a bad one is a 400 naming it.
"""

from __future__ import annotations

from typing import Any

from django.db.models import ProtectedError, QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from common.validators import destination_problem, unique_name_per_owner
from engine.connectors import (
    ConnectorConfig,
    ConnectorConfigError,
    destinations,
    get_technology,
    technologies,
    validate_config,
)
from engine.connectors.files import parse_connector_yaml
from engine.connectors.volatile import MAX_PATTERN_LENGTH, MAX_PATTERNS, check_volatile
from workspace.api.documents import ProblemSerializer
from workspace.models import Connector


def _secret_names(technology: str) -> set[str]:
    return {p.name for p in get_technology(technology).parameters() if p.secret}


def _config_error(exc: ConnectorConfigError) -> exceptions.ValidationError:
    field = f"params.{exc.field}" if exc.field and exc.field != "technology" else (exc.field or "params")
    return exceptions.ValidationError({field: [exc.user_message]})


def _checked(config: ConnectorConfig) -> None:
    """`ConnectorConfigError` for invalid settings, or for an address Parley would refuse to call (a literal IP
    outside PARLEY_EGRESS_ALLOW, in any form): said on save, not at the first run. No DNS lookup here."""
    settings = validate_config(config)
    for field, url in destinations(settings).items():
        if problem := destination_problem(url):
            raise ConnectorConfigError(f"{field}: {problem}", field=field)


class ConnectorSerializer(serializers.ModelSerializer[Connector]):
    params = serializers.DictField(
        child=serializers.JSONField(),
        required=False,
        help_text="The technology's parameters. Secret ones are write-only: responses omit them.",
    )
    yaml = serializers.CharField(
        write_only=True,
        required=False,
        max_length=1024 * 1024,
        help_text="Alternatively, a connector file (technology and parameters at the top level).",
    )
    volatile = serializers.ListField(
        child=serializers.CharField(max_length=MAX_PATTERN_LENGTH, trim_whitespace=False),
        required=False,
        max_length=MAX_PATTERNS,
        help_text="Regular expressions of values the chatbot changes in every conversation (a ticket number, a "
        "session code), besides the built-in UUIDs, dates, times and ids: a re-run normalises them before "
        "comparing replies.",
    )
    secrets_set = serializers.ListField(child=serializers.CharField(), source="secret_names", read_only=True)
    projects = serializers.SerializerMethodField()

    class Meta:
        model = Connector
        fields = (
            "id",
            "name",
            "technology",
            "params",
            "volatile",
            "yaml",
            "secrets_set",
            "projects",
            "created_at",
            "updated_at",
        )
        read_only_fields = ("id", "secrets_set", "projects", "created_at", "updated_at")
        extra_kwargs = {"technology": {"required": False}}

    def get_projects(self, connector: Connector) -> list[str]:
        return [p.name for p in connector.projects.all()]

    def to_representation(self, instance: Connector) -> dict[str, Any]:
        data = super().to_representation(instance)
        data["params"] = dict(instance.params)
        return data

    def validate_name(self, value: str) -> str:
        return unique_name_per_owner(self, Connector, value, "connector")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        text = attrs.pop("yaml", None)
        if text is not None:
            try:
                parsed = parse_connector_yaml(text, source="yaml")
            except ConnectorConfigError as exc:
                raise exceptions.ValidationError({"yaml": [exc.user_message]}) from None
            attrs["technology"], attrs["params"] = parsed.technology, parsed.params
            attrs.setdefault("volatile", parsed.volatile)
        technology = attrs.get("technology") or (self.instance.technology if self.instance else None)
        if not technology:
            raise exceptions.ValidationError({"technology": ["Choose a technology."]})
        try:
            secret = _secret_names(technology)
        except ConnectorConfigError as exc:
            raise _config_error(exc) from None
        stored = (
            self.instance.reveal_secrets() if self.instance and self.instance.technology == technology else {}
        )
        given = attrs.get("params", dict(self.instance.params) if self.instance else {})
        secrets = {**stored, **{k: v for k, v in given.items() if k in secret and v not in (None, "")}}
        plain = {k: v for k, v in given.items() if k not in secret}
        try:
            _checked(ConnectorConfig(technology=technology, params={**plain, **secrets}))
        except ConnectorConfigError as exc:
            raise _config_error(exc) from None
        if "volatile" in attrs:
            try:
                attrs["volatile"] = check_volatile(attrs["volatile"])
            except ConnectorConfigError as exc:
                message = exc.user_message.removeprefix("volatile: ")
                raise exceptions.ValidationError({"volatile": [message[:1].upper() + message[1:]]}) from None
        attrs.update(technology=technology, params=plain, secrets=secrets)
        return attrs

    def _save(self, instance: Connector, attrs: dict[str, Any]) -> Connector:
        instance.set_secrets(attrs.pop("secrets"))
        for key, value in attrs.items():
            setattr(instance, key, value)
        instance.save()
        return instance

    def create(self, validated_data: dict[str, Any]) -> Connector:
        if "name" not in validated_data:
            raise exceptions.ValidationError({"name": ["A name is required."]})
        return self._save(Connector(owner=self.context["request"].user), validated_data)

    def update(self, instance: Connector, validated_data: dict[str, Any]) -> Connector:
        return self._save(instance, validated_data)


class TechnologyParameterSerializer(serializers.Serializer[Any]):
    """One parameter of a technology (`engine.connectors.technology.Parameter`), as a form shows it."""

    name = serializers.CharField()
    type = serializers.CharField(
        help_text="The JSON Schema type: string, number, integer, boolean, object or array."
    )
    required = serializers.BooleanField()
    default = serializers.JSONField(allow_null=True)
    secret = serializers.BooleanField()
    description = serializers.CharField(allow_blank=True)


class TechnologySerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    description = serializers.CharField()
    parameters = TechnologyParameterSerializer(many=True)
    json_schema = serializers.DictField()
    example = serializers.DictField()


class ConnectorViewSet(viewsets.ModelViewSet[Connector]):
    serializer_class = ConnectorSerializer

    def get_queryset(self) -> QuerySet[Connector]:
        if getattr(self, "swagger_fake_view", False):
            return Connector.objects.none()
        return Connector.objects.filter(owner=self.request.user).prefetch_related("projects")

    def perform_destroy(self, instance: Connector) -> None:
        try:
            instance.delete()
        except ProtectedError:
            names = ", ".join(sorted(p.name for p in instance.projects.all()))
            raise exceptions.ValidationError(
                {
                    "non_field_errors": [
                        f"This connector is used by: {names}. Change or delete those projects first."
                    ]
                },
                code="in_use",
            ) from None

    @extend_schema(responses=TechnologySerializer(many=True), summary="Technologies and their parameters")
    @action(detail=False, methods=["get"], pagination_class=None)
    def technologies(self, request: Request) -> Response:
        body = [
            {
                "name": t.name,
                "description": t.description,
                "parameters": [p.model_dump() for p in t.parameters()],
                "json_schema": t.json_schema(),
                "example": {k: v for k, v in t.example.items() if k not in _secret_names(t.name)},
            }
            for t in technologies()
        ]
        return Response(body)

    @extend_schema(
        request=inline_serializer(
            "ConnectorValidation",
            {
                "technology": serializers.CharField(required=False),
                "params": serializers.DictField(required=False),
                "yaml": serializers.CharField(required=False),
            },
        ),
        responses=inline_serializer(
            "ConnectorValidationResult",
            {
                "valid": serializers.BooleanField(),
                "technology": serializers.CharField(allow_null=True),
                "problems": ProblemSerializer(many=True),
            },
        ),
        summary="Validate a connector (form values or a connector file) without saving it",
    )
    @action(detail=False, methods=["post"])
    def validate(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise exceptions.ValidationError(
                "Send a JSON object with `yaml`, or with `technology` and `params`."
            )
        try:
            if isinstance(request.data.get("yaml"), str):
                config = parse_connector_yaml(request.data["yaml"], source="yaml")
            else:
                params = request.data.get("params") or {}
                if not isinstance(params, dict):
                    raise exceptions.ValidationError(
                        {"params": ["Send the parameters as a JSON object of name: value."]}
                    )
                config = ConnectorConfig(technology=str(request.data.get("technology") or ""), params=params)
            _checked(config)
        except ConnectorConfigError as exc:
            problem = {
                "severity": "error",
                "message": exc.user_message,
                "line": exc.line,
                "column": exc.column,
                "path": exc.field or "",
                "hint": None,
            }
            return Response({"valid": False, "technology": None, "problems": [problem]})
        return Response({"valid": True, "technology": config.technology, "problems": []})
