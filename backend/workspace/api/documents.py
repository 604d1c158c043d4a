"""/api/projects/{id}/profiles|rules|personalities/: a project's YAML documents.

One viewset shape serves the three kinds; each kind brings its validator and template. Every save validates the
text and stores the result (`valid`, `problems`), so an invalid document is kept — nothing a user typed is lost —
but can never be selected for a run. TRACER's profiles are immutable: saving one stores a manual copy that
points back to it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import transaction
from django.db.models import Model, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view, inline_serializer
from rest_framework import exceptions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from common.requests import GuardedJSONParser
from engine.sensei.planner import PlanError, plan
from engine.sensei.simulator import simulated_user_model
from workspace import templates
from workspace.models import Personality, Profile, Project, Rule
from workspace.permissions import PublicReadOwnerWrite, readable_projects, writable_projects
from workspace.rule_names import check_rule_names
from workspace.validation import Validation, validate_personality, validate_profile, validate_rule


@extend_schema_field({"$ref": "#/components/schemas/JsonValue"})
class JsonValueField(serializers.JSONField):
    """A conversation's variable value: the schema's `JsonValue` (engine/json_value.py), as a record has it."""


MAX_UPLOAD_FILES = 200


class ProblemSerializer(serializers.Serializer[Any]):
    severity = serializers.ChoiceField(choices=["error", "warning"])
    message = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)
    path = serializers.CharField(allow_blank=True)
    hint = serializers.CharField(allow_null=True)


class ValidationResultSerializer(serializers.Serializer[Any]):
    valid = serializers.BooleanField()
    name = serializers.CharField(allow_null=True)
    problems = ProblemSerializer(many=True)


class TextSerializer(serializers.Serializer[Any]):
    text = serializers.CharField(max_length=1024 * 1024, trim_whitespace=False)


class DocumentSerializer(serializers.ModelSerializer[Any]):
    text = serializers.CharField(max_length=1024 * 1024, trim_whitespace=False)
    name = serializers.CharField(
        max_length=200, required=False, help_text="Defaults to the name in the YAML."
    )
    problems = ProblemSerializer(many=True, read_only=True)

    class Meta:
        fields: tuple[str, ...] = (
            "id",
            "name",
            "text",
            "valid",
            "problems",
            "warnings",
            "created_at",
            "updated_at",
        )
        read_only_fields: tuple[str, ...] = (
            "id",
            "valid",
            "problems",
            "warnings",
            "created_at",
            "updated_at",
        )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "text" in attrs:
            result: Validation = self.context["validate"](attrs["text"])
            attrs.update(valid=result.valid, problems=result.problems, warnings=result.warnings)
            if not attrs.get("name") and (self.instance is None or "name" not in self.initial_data):
                attrs["name"] = (result.name or "untitled")[:200]
            attrs.update(self.context["extra_fields"](result))
        return attrs


class ProfileSerializer(DocumentSerializer):
    class Meta(DocumentSerializer.Meta):
        model = Profile
        fields = (*DocumentSerializer.Meta.fields, "origin", "source_run", "derived_from")
        read_only_fields = (*DocumentSerializer.Meta.read_only_fields, "origin", "source_run", "derived_from")


class RuleSerializer(DocumentSerializer):
    class Meta(DocumentSerializer.Meta):
        model = Rule
        fields = (*DocumentSerializer.Meta.fields, "active")
        read_only_fields = (*DocumentSerializer.Meta.read_only_fields, "active")


class PersonalitySerializer(DocumentSerializer):
    class Meta(DocumentSerializer.Meta):
        model = Personality

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        # Profiles name a personality, so two with one name in a project would make that name ambiguous.
        name = attrs.get("name")
        others = Personality.objects.filter(project=self.context["project"], name=name)
        if self.instance is not None:
            others = others.exclude(pk=self.instance.pk)
        if name and others.exists():
            raise serializers.ValidationError(
                {"name": [f"This project already has a personality called {name!r}."]}
            )
        return attrs


class DocumentViewSet(viewsets.ModelViewSet[Any]):
    """The shared shape; subclasses set the model, serializer, validator and template."""

    permission_classes = (PublicReadOwnerWrite,)
    parser_classes = (GuardedJSONParser,)
    model: ClassVar[type[Model]]
    template_text: ClassVar[str]

    # -- the project, under the one permission policy ------------------------------------------------------
    @property
    def project(self) -> Project:
        if not hasattr(self, "_project"):
            pk = self.kwargs["project_id"]
            project = get_object_or_404(readable_projects(self.request.user), pk=pk)
            if (
                self.request.method not in ("GET", "HEAD", "OPTIONS")
                and not writable_projects(self.request.user).filter(pk=project.pk).exists()
            ):
                raise exceptions.PermissionDenied("Only the owner can change this project.")
            self._project = project
        return self._project

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self.project  # noqa: B018  (decides 404/403 before any body is read or validated)

    def get_queryset(self) -> QuerySet[Any]:
        if getattr(self, "swagger_fake_view", False):
            return self.model.objects.none()
        return self.model.objects.filter(project=self.project)

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        context.update(validate=self.validate_text, extra_fields=self.extra_fields)
        if not getattr(self, "swagger_fake_view", False):
            context["project"] = self.project
        return context

    def validate_text(self, text: str) -> Validation:
        raise NotImplementedError

    def extra_fields(self, result: Validation) -> dict[str, Any]:
        return {}

    def perform_create(self, serializer: Any) -> None:
        serializer.save(project=self.project)

    # -- actions -------------------------------------------------------------------------------------------
    @extend_schema(
        request=TextSerializer, responses=ValidationResultSerializer, summary="Validate without saving"
    )
    @action(detail=False, methods=["post"], url_path="validate")
    def validate_document(self, request: Request, project_id: str) -> Response:
        body = TextSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        result = self.validate_text(body.validated_data["text"])
        return Response({"valid": result.valid, "name": result.name, "problems": result.problems})

    @extend_schema(
        responses=inline_serializer("DocumentTemplate", {"text": serializers.CharField()}),
        summary="A commented starting point",
    )
    @action(detail=False, methods=["get"])
    def template(self, request: Request, project_id: str) -> Response:
        return Response({"text": self.template_text})

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {"files": {"type": "array", "items": {"type": "string", "format": "binary"}}},
            }
        },
        summary="Upload YAML files (each is validated and stored, valid or not)",
    )
    # The answer is one plain list of the stored documents (each kind declares its item type with
    # `_upload_schema`); without pagination here the schema does not describe it as a page.
    @action(detail=False, methods=["post"], parser_classes=(MultiPartParser,), pagination_class=None)
    def upload(self, request: Request, project_id: str) -> Response:
        project = self.project
        files = request.FILES.getlist("files")
        if not files:
            raise exceptions.ValidationError({"files": ["Choose at least one YAML file."]})
        if len(files) > MAX_UPLOAD_FILES:
            raise exceptions.ValidationError({"files": [f"At most {MAX_UPLOAD_FILES} files per upload."]})
        limit = settings.PARLEY_MAX_YAML_BYTES
        texts: list[tuple[str, str]] = []
        for upload in files:
            if upload.size > limit:
                raise exceptions.ValidationError({"files": [f"{upload.name}: larger than {limit:,} bytes."]})
            try:
                texts.append((upload.name, upload.read().decode("utf-8")))
            except UnicodeDecodeError:
                raise exceptions.ValidationError({"files": [f"{upload.name}: not UTF-8 text."]}) from None
        created = []
        with transaction.atomic():
            for file_name, text in texts:
                serializer = self.get_serializer(data={"text": text})
                serializer.is_valid(raise_exception=True)
                if serializer.validated_data.get("name") == "untitled":
                    serializer.validated_data["name"] = file_name.rsplit(".", 1)[0][:200]
                serializer.save(project=project)
                created.append(serializer.data)
        return Response(created, status=status.HTTP_201_CREATED)


def _upload_schema(serializer: type[DocumentSerializer]) -> Any:
    """The `upload` action's response for one kind: the list of the documents it stored."""
    return extend_schema_view(upload=extend_schema(responses={201: serializer(many=True)}))


@_upload_schema(ProfileSerializer)
class ProfileViewSet(DocumentViewSet):
    model = Profile
    serializer_class = ProfileSerializer
    template_text = templates.PROFILE

    def validate_text(self, text: str) -> Validation:
        custom = [
            p
            for p in (validate_personality(doc.text).parsed for doc in self.project.personalities.all())
            if p
        ]
        return validate_profile(text, personalities=custom)

    def perform_update(self, serializer: Any) -> None:
        original: Profile = serializer.instance
        if original.origin != Profile.Origin.TRACER:
            serializer.save()
            return
        # TRACER's output stays as it was generated; the edit becomes the user's own copy.
        fields = ("name", "text", "valid", "problems", "warnings")
        values = {field: serializer.validated_data.get(field, getattr(original, field)) for field in fields}
        serializer.instance = Profile.objects.create(
            project=original.project, origin=Profile.Origin.MANUAL, derived_from=original, **values
        )

    @extend_schema(
        request=inline_serializer(
            "PlanRequest", {"seed": serializers.IntegerField(required=False, allow_null=True)}
        ),
        responses=inline_serializer(
            "PlanResult",
            {
                "conversations": serializers.IntegerField(),
                "seed": serializers.IntegerField(),
                "rows": serializers.ListField(child=serializers.DictField(child=JsonValueField())),
                "estimated_cost_usd": serializers.FloatField(allow_null=True),
            },
        ),
        summary="The conversations this profile will run, with their variable values and a cost estimate",
    )
    @action(detail=True, methods=["post"], url_path="plan")
    def plan_conversations(self, request: Request, project_id: str, pk: str | None = None) -> Response:
        profile_doc: Profile = self.get_object()
        result = self.validate_text(profile_doc.text)
        if not result.valid or result.parsed is None:
            raise exceptions.ValidationError({"text": ["The profile has errors; fix them before planning."]})
        seed = request.data.get("seed") if isinstance(request.data, dict) else None
        if seed is not None and not isinstance(seed, int):
            raise exceptions.ValidationError({"seed": ["The seed must be a whole number."]})
        try:
            # Priced with the model that will play the user: the profile's own, else the project's (README D6).
            model = simulated_user_model(result.parsed, default=self.project.simulation_model() or None)
            planned = plan(result.parsed, seed, model=model)
        except PlanError as exc:
            raise exceptions.ValidationError({"text": [str(exc)]}) from None
        return Response(
            {
                "conversations": len(planned.conversations),
                "seed": planned.seed,
                "rows": planned.rows,
                "estimated_cost_usd": planned.estimated_cost_usd,
            }
        )


@_upload_schema(RuleSerializer)
class RuleViewSet(DocumentViewSet):
    model = Rule
    serializer_class = RuleSerializer
    template_text = templates.RULE

    def validate_text(self, text: str) -> Validation:
        return check_rule_names(validate_rule(text), self.project)

    def extra_fields(self, result: Validation) -> dict[str, Any]:
        return {"active": bool(result.parsed.active)} if result.parsed is not None else {}


@_upload_schema(PersonalitySerializer)
class PersonalityViewSet(DocumentViewSet):
    model = Personality
    serializer_class = PersonalitySerializer
    template_text = templates.PERSONALITY

    def validate_text(self, text: str) -> Validation:
        return validate_personality(text)
