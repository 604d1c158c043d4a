"""/api/projects/{id}/campaigns/: a project's security campaigns, beside its profiles and rules.

The document viewsets' shape (validate on save, keep invalid text, template, upload), plus `plan` (the attempts
and a cost ceiling with the project's model) and `convert` (a reference `security.yml` in Parley's format).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from engine.security import TEMPLATE, dump_campaign, load_campaign, plan_campaign
from workspace.api.documents import DocumentSerializer, DocumentViewSet, TextSerializer, _upload_schema
from workspace.models import Campaign
from workspace.validation import Validation, validate_campaign


class CampaignSerializer(DocumentSerializer):
    class Meta(DocumentSerializer.Meta):
        model = Campaign


@_upload_schema(CampaignSerializer)
class CampaignViewSet(DocumentViewSet):
    model = Campaign
    serializer_class = CampaignSerializer
    template_text = TEMPLATE

    def validate_text(self, text: str) -> Validation:
        return validate_campaign(text)

    @extend_schema(
        request=None,
        responses=inline_serializer(
            "CampaignPlan",
            {
                "attempts": serializers.IntegerField(),
                "llm_calls_at_most": serializers.IntegerField(),
                "model": serializers.CharField(allow_null=True),
                "estimated_cost_usd": serializers.FloatField(allow_null=True),
                "seed": serializers.IntegerField(),
                "attacks": inline_serializer(
                    "PlannedAttack",
                    {
                        "attack_id": serializers.CharField(),
                        "attack": serializers.CharField(),
                        "delivery": serializers.CharField(),
                        "attempts": serializers.IntegerField(),
                        "oracles": serializers.ListField(child=serializers.CharField()),
                        "calls": serializers.DictField(child=serializers.IntegerField()),
                        "written_by_llm": serializers.BooleanField(),
                        "example": serializers.CharField(),
                    },
                    many=True,
                ),
            },
        ),
        summary="The attempts this campaign makes and the most its LLM calls may cost with the project's model",
    )
    @action(detail=True, methods=["post"], url_path="plan")
    def plan_attempts(self, request: Request, project_id: str, pk: str | None = None) -> Response:
        document: Campaign = self.get_object()
        result = self.validate_text(document.text)
        if not result.valid or result.parsed is None:
            raise exceptions.ValidationError({"text": ["The campaign has errors; fix them before planning."]})
        project = self.project
        with_model = bool(project.llm_key_id and project.exploration_model)
        plan = plan_campaign(result.parsed, model=project.exploration_model or None, with_model=with_model)
        return Response(plan.to_json())

    @extend_schema(
        request=TextSerializer,
        responses=inline_serializer("ConvertedCampaign", {"text": serializers.CharField()}),
        summary="A campaign (the reference format too) written in Parley's format",
    )
    @action(detail=False, methods=["post"], url_path="convert")
    def convert(self, request: Request, project_id: str) -> Response:
        body = TextSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        loaded = load_campaign(body.validated_data["text"])
        if loaded.campaign is None:
            raise exceptions.ValidationError({"text": [p.message for p in loaded.problems if p.is_error][:5]})
        return Response({"text": dump_campaign(loaded.campaign)})

    def extra_fields(self, result: Validation) -> dict[str, Any]:
        return {}
