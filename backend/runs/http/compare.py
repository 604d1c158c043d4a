"""The regression workflow on the platform: a project's baseline run, and any run compared with it.

- `POST /api/runs/{id}/baseline/` makes a finished SENSEI run its project's baseline (the previous one stops
  being it); `DELETE` unmarks it. Owners only. `GET /api/projects/{id}/baseline/` says which run it is.
- `POST /api/runs/{id}/rerun/` starts a new SENSEI run with the same profiles, seed and settings against the
  chatbot as it is now, answering its LLM calls from this run's while the chatbot answers alike (`runs.worker.replay`,
  README D24): an unchanged chatbot is re-tested without one LLM call. Owners only.
- `GET /api/runs/{id}/compare/?baseline={id}&threshold=0.1` compares a SENSEI run with the given run, or with
  its project's baseline: the engine's `engine.regression.compare`, the same code `parley sensei compare` runs.
  Per-rule pass rates come from the latest finished check run over that SENSEI run alone.

Whoever may read both runs may compare them; a visitor of a public project gets the comparison without the
chatbot's address, as the run views hide it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.contrib.pydantic import PydanticExtension
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.regression import DEFAULT_THRESHOLD, CompareSettings, Comparison, RunData, compare, run_data
from runs import services
from runs.http.serializers import RunSerializer
from runs.models import Conversation, RuleResult, Run
from runs.result_schema import openapi_30
from runs.selectors import readable_runs
from runs.worker import tasks
from workspace import visibility
from workspace.permissions import readable_projects


class RunComparison(Comparison):
    """A comparison of two platform runs: the engine's document and the two run ids."""

    baseline_run: int
    run: int


class ComparisonSchema(PydanticExtension):
    """The comparison's schema for the generated web client (drf-spectacular's pydantic support, in 3.0 terms)."""

    target_class = "engine.regression.compare.Comparison"
    match_subclasses = True
    priority = 1

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        from pydantic.json_schema import model_json_schema

        schema = model_json_schema(
            self.target, ref_template="#/components/schemas/{model}", mode="serialization"
        )
        for name, sub_schema in schema.pop("$defs", {}).items():
            component = ResolvedComponent(
                name=name, type=ResolvedComponent.SCHEMA, object=name, schema=openapi_30(sub_schema)
            )
            auto_schema.registry.register_on_missing(component)
        return openapi_30(schema)


def check_reports(run: Run) -> list[dict[str, Any]]:
    """The rule reports of the latest finished check run over `run` alone (none when there is no such run)."""
    checks = Run.objects.filter(
        project_id=run.project_id,
        kind=Run.Kind.CHECK,
        status=Run.Status.SUCCEEDED,
        input__sensei_runs=[run.pk],
    ).order_by("-finished_at", "-id")
    latest = checks.first()
    if latest is None:
        return []
    return [dict(report) for report in RuleResult.objects.filter(run=latest).values_list("report", flat=True)]


def run_data_of(run: Run) -> RunData:
    records = (
        Conversation.objects.filter(run=run).order_by("profile", "index").values_list("record", flat=True)
    )
    return run_data(f"run {run.pk}", list(records), rule_reports=check_reports(run), cost_usd=run.cost_usd)


def compare_runs(baseline: Run, run: Run, threshold: float = DEFAULT_THRESHOLD) -> Comparison:
    return compare(run_data_of(baseline), run_data_of(run), CompareSettings(threshold=threshold))


def _sensei_run(request: Request, run_id: int, *, owned: bool = False) -> Run:
    """A run the user may read (else 404), theirs when `owned` (else 403), and a SENSEI run (else 400)."""
    run = get_object_or_404(readable_runs(request.user), pk=run_id)
    if owned and run.owner_id != request.user.pk:
        raise exceptions.PermissionDenied("Only the owner can do this with the run.")
    if run.kind != Run.Kind.SENSEI:
        raise exceptions.ValidationError(
            {"run": ["Only SENSEI runs are compared, re-run or made baselines."]}
        )
    return run


class BaselineSerializer(serializers.Serializer[Any]):
    project = serializers.IntegerField()
    run = serializers.IntegerField(allow_null=True, help_text="The baseline run, or null when there is none.")


def _baseline_of(project_id: int) -> dict[str, Any]:
    run = Run.objects.filter(project_id=project_id, is_baseline=True).values_list("pk", flat=True).first()
    return {"project": project_id, "run": run}


class ProjectBaselineView(APIView):
    """/api/projects/{project_id}/baseline/: which run of the project is its baseline."""

    permission_classes = (AllowAny,)  # readable_projects decides

    @extend_schema(responses=BaselineSerializer, summary="The project's baseline run")
    def get(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(readable_projects(request.user), pk=project_id)
        return Response(_baseline_of(project.pk))


class BaselineView(APIView):
    """/api/runs/{id}/baseline/: mark or unmark a SENSEI run as its project's baseline."""

    @extend_schema(request=None, responses=BaselineSerializer, summary="Make this run its project's baseline")
    def post(self, request: Request, id: int) -> Response:
        run = self._owned(request, id)
        if run.status in Run.ACTIVE:
            raise exceptions.ValidationError({"run": ["Wait until the run has finished."]}, code="active")
        if not Conversation.objects.filter(run=run).exists():
            raise exceptions.ValidationError({"run": ["This run has no conversation to compare with."]})
        with transaction.atomic():
            Run.objects.filter(project_id=run.project_id, is_baseline=True).exclude(pk=run.pk).update(
                is_baseline=False
            )
            Run.objects.filter(pk=run.pk).update(is_baseline=True)
        return Response(_baseline_of(run.project_id))

    @extend_schema(request=None, responses=BaselineSerializer, summary="Stop using this run as the baseline")
    def delete(self, request: Request, id: int) -> Response:
        run = self._owned(request, id)
        Run.objects.filter(pk=run.pk).update(is_baseline=False)
        return Response(_baseline_of(run.project_id))

    def _owned(self, request: Request, run_id: int) -> Any:
        run = _sensei_run(request, run_id, owned=True)
        if run.project_id is None:
            raise exceptions.ValidationError({"run": ["Only a project's runs can be its baseline."]})
        return run


class CompareQuery(serializers.Serializer[Any]):
    baseline = serializers.IntegerField(required=False, min_value=1)
    threshold = serializers.FloatField(required=False, min_value=0.001, max_value=1.0)


class CompareView(APIView):
    """/api/runs/{id}/compare/: the run against a baseline (its project's, unless one is named)."""

    permission_classes = (AllowAny,)  # readable_runs decides

    @extend_schema(
        parameters=[
            OpenApiParameter("baseline", int, required=False, description="Default: the project's baseline."),
            OpenApiParameter("threshold", float, required=False, description="Smallest change that counts."),
        ],
        responses=RunComparison,
        summary="Compare a SENSEI run with a baseline: verdict, pass rates, newly failing conversations",
    )
    def get(self, request: Request, id: int) -> Response:
        run = _sensei_run(request, id)
        query = CompareQuery(
            data={k: v for k, v in request.query_params.items() if k in CompareQuery().fields}
        )
        query.is_valid(raise_exception=True)
        wanted = query.validated_data
        if "baseline" in wanted:
            baseline = _sensei_run(request, wanted["baseline"])
        else:
            baseline = readable_runs(request.user).filter(project_id=run.project_id, is_baseline=True).first()
            if baseline is None or run.project_id is None:
                raise exceptions.ValidationError(
                    {"baseline": ["This project has no baseline: mark a SENSEI run as its baseline first."]},
                    code="no_baseline",
                )
        if baseline.pk == run.pk:
            raise exceptions.ValidationError({"baseline": ["Choose another run than the one compared."]})
        if baseline.project_id != run.project_id:
            raise exceptions.ValidationError({"baseline": ["Compare runs of the same project."]})
        comparison = compare_runs(baseline, run, wanted.get("threshold", DEFAULT_THRESHOLD))
        data = comparison.model_dump(mode="json")
        data = visibility.for_runs(request.user, run, baseline).data(data)
        return Response({**data, "baseline_run": baseline.pk, "run": run.pk})


class RerunView(APIView):
    """/api/runs/{id}/rerun/: the same SENSEI run again, against the chatbot as it is now, replayed."""

    @extend_schema(request=None, responses={201: RunSerializer}, summary="Re-run against the current chatbot")
    def post(self, request: Request, id: int) -> Response:
        source = _sensei_run(request, id, owned=True)
        if source.status in Run.ACTIVE:
            raise exceptions.ValidationError({"run": ["Wait until the run has finished."]}, code="active")
        if source.project is None or "profiles" not in source.input:
            raise exceptions.ValidationError({"run": ["Only a project's SENSEI runs can be re-run."]})
        run_input = {**source.input, "replay_of": source.pk}
        run = services.create_run(
            request.user, Run.Kind.SENSEI, tasks.TASKS[Run.Kind.SENSEI], run_input, project=source.project
        )
        return Response(RunSerializer(run, context={"request": request}).data, status=201)
