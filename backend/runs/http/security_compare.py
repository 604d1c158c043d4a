"""`GET /api/runs/{id}/security-compare/?baseline={id}&threshold=0.1`: two runs of a project's security campaigns
compared — breach rates per attack and delivery mode with their intervals, attempts newly breached or resisted,
errors and inconclusive attempts apart, and a verdict. The engine's `engine.security.compare_campaigns`, the same
code `parley security compare` runs.

Whoever may read both runs may compare them (a private run is a 404 to anyone else, as everywhere); a visitor of a
public project gets the comparison without the chatbot's address, as the run views hide it.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.regression import DEFAULT_THRESHOLD
from engine.security import AttemptRecord, SecurityComparison, compare_campaigns
from runs.http.compare import ComparisonSchema
from runs.models import Run, SecurityAttempt
from runs.selectors import readable_runs
from workspace import visibility


class RunSecurityComparison(SecurityComparison):
    """A comparison of two campaign runs of the platform: the engine's document and the two run ids."""

    baseline_run: int
    run: int


class SecurityComparisonSchema(ComparisonSchema):
    """The comparison's schema for the generated web client, as for the SENSEI comparison."""

    target_class = "engine.security.compare.SecurityComparison"


def attempts_of(run: Run) -> list[AttemptRecord]:
    rows = SecurityAttempt.objects.filter(run=run).order_by("attack_id", "index", "id")
    return [AttemptRecord.model_validate(record) for record in rows.values_list("record", flat=True)]


def _security_run(request: Request, run_id: int, field: str) -> Run:
    run = get_object_or_404(readable_runs(request.user), pk=run_id)
    if run.kind != Run.Kind.SECURITY:
        raise exceptions.ValidationError({field: ["Only security campaign runs are compared here."]})
    return run


class SecurityCompareQuery(serializers.Serializer[Any]):
    baseline = serializers.IntegerField(min_value=1)
    threshold = serializers.FloatField(required=False, min_value=0.001, max_value=1.0)


class SecurityCompareView(APIView):
    """/api/runs/{id}/security-compare/: a campaign run against another run of the same project."""

    permission_classes = (AllowAny,)  # readable_runs decides

    @extend_schema(
        parameters=[
            OpenApiParameter("baseline", int, required=True, description="The campaign run to compare with."),
            OpenApiParameter("threshold", float, required=False, description="Smallest change that counts."),
        ],
        responses=RunSecurityComparison,
        summary="Compare two security campaign runs: verdict, breach rates, newly breached attempts",
    )
    def get(self, request: Request, id: int) -> Response:
        run = _security_run(request, id, "run")
        query = SecurityCompareQuery(
            data={k: v for k, v in request.query_params.items() if k in SecurityCompareQuery().fields}
        )
        query.is_valid(raise_exception=True)
        wanted = query.validated_data
        baseline = _security_run(request, wanted["baseline"], "baseline")
        if baseline.pk == run.pk:
            raise exceptions.ValidationError({"baseline": ["Choose another run than the one compared."]})
        if baseline.project_id != run.project_id:
            raise exceptions.ValidationError({"baseline": ["Compare runs of the same project."]})
        comparison = compare_campaigns(
            attempts_of(baseline),
            attempts_of(run),
            threshold=wanted.get("threshold", DEFAULT_THRESHOLD),
            baseline_label=f"run {baseline.pk}",
            run_label=f"run {run.pk}",
        )
        data = comparison.model_dump(mode="json")
        data = visibility.for_runs(request.user, run, baseline).data(data)
        return Response({**data, "baseline_run": baseline.pk, "run": run.pk})
