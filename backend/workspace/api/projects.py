"""/api/projects/: projects the caller owns, and public projects for anyone (read-only)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import serializers, viewsets

from accounts.models import LLMKey
from common.validators import unique_name_per_owner
from workspace import visibility
from workspace.models import Connector, Project
from workspace.permissions import PublicReadOwnerWrite, readable_projects


class ProjectSerializer(serializers.ModelSerializer[Project]):
    owner_name = serializers.CharField(source="owner.public_name", read_only=True)
    is_owner = serializers.SerializerMethodField()
    model_warnings = serializers.SerializerMethodField(
        help_text="Chosen models the key's provider did not list at its last test or model list, with the "
        "closest listed ones. A warning only: empty when every model was listed or no list is known."
    )
    connector = serializers.PrimaryKeyRelatedField(queryset=Connector.objects.none())
    llm_key = serializers.PrimaryKeyRelatedField(
        queryset=LLMKey.objects.none(), allow_null=True, required=False
    )
    budget_usd = serializers.DecimalField(
        max_digits=10,
        decimal_places=2,
        min_value=0,
        allow_null=True,
        required=False,
        help_text="Largest LLM spend of one run of this project, in USD (empty: no limit).",
    )

    class Meta:
        model = Project
        fields = (
            "id",
            "name",
            "description",
            "connector",
            "llm_key",
            "exploration_model",
            "profile_model",
            "judge_model",
            "budget_usd",
            "public",
            "owner_name",
            "is_owner",
            "model_warnings",
            "created_at",
            "updated_at",
        )
        read_only_fields = ("id", "owner_name", "is_owner", "model_warnings", "created_at", "updated_at")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            # Only the caller's own connectors and keys can be attached: ids of others' are "not found".
            self.fields["connector"].queryset = Connector.objects.filter(owner=user)
            self.fields["llm_key"].queryset = LLMKey.objects.filter(owner=user)

    def get_is_owner(self, project: Project) -> bool:
        request = self.context.get("request")
        return visibility.sees_as_owner(getattr(request, "user", None), project.owner_id)

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_model_warnings(self, project: Project) -> list[str]:
        return project.model_warnings() if self.get_is_owner(project) else []

    def to_representation(self, instance: Project) -> dict[str, Any]:
        data = super().to_representation(instance)
        if not data["is_owner"]:
            # Visitors of a public project see what was tested, not how it is wired or paid for.
            request = self.context.get("request")
            data = visibility.for_projects(getattr(request, "user", None), instance).data(data)
            data.update(dict.fromkeys(visibility.PRIVATE_PROJECT_FIELDS))
        return data

    def validate_name(self, value: str) -> str:
        return unique_name_per_owner(self, Project, value, "project")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """A project with a key needs the model its runs fall back on (runs.worker.deps): without one, every run
        would be refused at start. Without a key it may be saved as a draft; the test center says what is
        missing."""
        current = self.instance

        def value(field: str) -> Any:
            return attrs[field] if field in attrs else getattr(current, field, None)

        if value("llm_key") is not None and not (value("exploration_model") or "").strip():
            message = (
                "Choose the exploration model: TRACER explores with it, and SENSEI and checks use it when no "
                "profile or judge model is chosen."
            )
            raise serializers.ValidationError({"exploration_model": [message]})
        return attrs


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter(
                "scope",
                enum=["mine", "public"],
                required=False,
                description="`mine` (default when logged in): your projects; `public`: everyone's public projects.",
            )
        ]
    )
)
class ProjectViewSet(viewsets.ModelViewSet[Project]):
    serializer_class = ProjectSerializer
    permission_classes = (PublicReadOwnerWrite,)

    def get_queryset(self) -> QuerySet[Project]:
        if getattr(self, "swagger_fake_view", False):
            return Project.objects.none()
        user = self.request.user
        projects = readable_projects(user).select_related("owner", "llm_key", "connector")
        if self.action == "list":
            mine = user.is_authenticated and self.request.query_params.get("scope", "mine") != "public"
            projects = projects.filter(owner=user) if mine else projects.filter(public=True)
        return projects

    def perform_create(self, serializer: ProjectSerializer) -> None:
        serializer.save(owner=self.request.user)
