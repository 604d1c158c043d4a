"""Model qualification's doors (`runs.worker.qualifying` runs it):

- `POST /api/keys/{id}/qualify/estimate/` — the cost and time estimate of a qualification before it starts;
- `POST /api/keys/{id}/qualify/` — start one (202 with the run); refused (400) when the estimate is above
  `max_cost`;
- `GET /api/keys/{id}/qualifications/` — per model of the key, its last finished qualification (what the model
  pickers show beside a name), with the Parley version, seed and size it was measured with;
- `GET /api/runs/{id}/qualification/` — a finished run's result (the engine's `QualifyResult`, typed);
- `POST /api/runs/{id}/qualification/apply/` — set a project's models to the recommendation (the project's
  key becomes the qualified one; profiles' own `llm.model` are not touched).

Keys, runs and projects of another user are 404s, as in their lists.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import LLMKey
from engine.evaluation.qualify_plan import SIZES
from engine.evaluation.qualify_result import QualifyResult
from runs.http.serializers import RunSerializer
from runs.models import Run
from runs.qualify_plans import key_candidates, model_name, plan_estimate
from runs.services import create_run
from runs.worker import tasks
from workspace.models import Project

MAX_MODELS = 8


def _percent() -> serializers.FloatField:
    return serializers.FloatField(min_value=0.0, max_value=100.0, required=False)


class ThresholdsSerializer(serializers.Serializer[Any]):
    """Verdict thresholds in percent (`engine.evaluation.qualify_plan.Thresholds`; D32's defaults)."""

    qualified_kills = _percent()
    qualified_false_alarms = _percent()
    qualified_failures = _percent()
    usable_kills = _percent()
    usable_false_alarms = _percent()
    min_decided = serializers.IntegerField(min_value=1, max_value=100_000, required=False)
    explorer_precision = _percent()
    explorer_recall = _percent()
    usable_explorer_precision = _percent()
    usable_explorer_recall = _percent()
    min_explorer_sessions = serializers.IntegerField(min_value=1, max_value=100_000, required=False)


class QualifyStartSerializer(serializers.Serializer[Any]):
    models = serializers.ListField(
        child=serializers.CharField(max_length=200),
        min_length=1,
        max_length=MAX_MODELS,
        help_text="The key's models by name (gpt-4.1-mini) or Parley's doubles (double:imperfect, ...).",
    )
    size = serializers.ChoiceField(choices=sorted(SIZES), help_text="tiny, small or default (under $1).")
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False)
    max_cost = serializers.FloatField(
        min_value=0.0, required=False, allow_null=True, help_text="Refuse a run estimated above this (USD)."
    )
    thresholds = ThresholdsSerializer(
        required=False, help_text="Verdict thresholds (D32's defaults otherwise)."
    )


class EstimateRowSerializer(serializers.Serializer[Any]):
    model = serializers.CharField()
    calls = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    cost_usd = serializers.FloatField(allow_null=True)
    seconds = serializers.FloatField(allow_null=True)


class EstimateSerializer(serializers.Serializer[Any]):
    size = serializers.CharField()
    partner = serializers.CharField()
    cost_usd = serializers.FloatField(help_text="The priced models' total.")
    rows = EstimateRowSerializer(many=True)


class QualificationLabelSerializer(serializers.Serializer[Any]):
    model = serializers.CharField(help_text="As a project stores it: the key's model name, or double:NAME.")
    run = serializers.IntegerField()
    finished_at = serializers.DateTimeField()
    kill_rate = serializers.FloatField(allow_null=True)
    false_alarm_rate = serializers.FloatField(allow_null=True)
    cost_per_kill = serializers.FloatField(allow_null=True)
    seconds_per_kill = serializers.FloatField(allow_null=True)
    verdict = serializers.CharField()
    parley_version = serializers.CharField()
    seed = serializers.IntegerField()
    size = serializers.CharField()


class ApplySerializer(serializers.Serializer[Any]):
    project = serializers.IntegerField()


class AppliedSerializer(serializers.Serializer[Any]):
    project = serializers.IntegerField()
    llm_key = serializers.IntegerField()
    exploration_model = serializers.CharField()
    profile_model = serializers.CharField()
    judge_model = serializers.CharField()


def _plan(request: Request, key: LLMKey) -> tuple[dict[str, Any], dict[str, Any]]:
    """(validated body, estimate document); a name the key cannot take is a 400 naming it."""
    body = QualifyStartSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    data = body.validated_data
    seed = data.get("seed", 0)
    try:
        partner, planned = plan_estimate(key, data["models"], data["size"], seed)
    except ValueError as exc:
        raise exceptions.ValidationError({"models": [str(exc)]}) from None
    return {**data, "seed": seed}, {
        "size": data["size"],
        "partner": partner.entry,
        "cost_usd": planned.cost_usd,
        "rows": planned.rows,
    }


class QualifyEstimateView(APIView):
    @extend_schema(
        request=QualifyStartSerializer,
        responses=EstimateSerializer,
        summary="The cost and time estimate of a model qualification (nothing runs)",
    )
    def post(self, request: Request, id: int) -> Response:
        key = get_object_or_404(LLMKey, pk=id, owner=request.user)
        return Response(_plan(request, key)[1])


class QualifyView(APIView):
    @extend_schema(
        request=QualifyStartSerializer,
        responses={202: RunSerializer},
        summary="Start a model qualification on this key (refused above max_cost)",
    )
    def post(self, request: Request, id: int) -> Response:
        key = get_object_or_404(LLMKey, pk=id, owner=request.user)
        data, planned = _plan(request, key)
        if data.get("max_cost") is not None and planned["cost_usd"] > data["max_cost"]:
            raise exceptions.ValidationError(
                {
                    "max_cost": [
                        (
                            f"The estimate (${planned['cost_usd']:.2f}) is above max_cost "
                            f"${data['max_cost']:.2f}: raise it, or choose a smaller size or fewer models."
                        )
                    ]
                }
            )
        run_input = {
            "key_id": key.pk,
            "models": [name.strip() for name in data["models"]],
            "size": data["size"],
            "seed": data["seed"],
            "max_cost": data.get("max_cost"),
            "thresholds": dict(data.get("thresholds") or {}),
            "estimate_usd": planned["cost_usd"],
        }
        run = create_run(request.user, Run.Kind.QUALIFY, tasks.qualify, run_input)
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


def _qualify_run(request: Request, id: int) -> Run:
    run = get_object_or_404(Run, pk=id, owner=request.user)
    if run.kind != Run.Kind.QUALIFY:
        raise exceptions.ValidationError({"run": ["Only a model qualification run has this."]})
    if run.status != Run.Status.SUCCEEDED:
        raise exceptions.ValidationError({"run": ["The qualification has not finished."]})
    return run


class QualificationView(APIView):
    @extend_schema(
        responses=QualifyResult, summary="A finished model qualification: one row per model and role"
    )
    def get(self, request: Request, id: int) -> Response:
        run = _qualify_run(request, id)
        return Response(QualifyResult.model_validate(run.result).model_dump(mode="json"))


class QualificationApplyView(APIView):
    @extend_schema(
        request=ApplySerializer,
        responses=AppliedSerializer,
        summary="Set a project's models to the qualification's recommendation",
    )
    def post(self, request: Request, id: int) -> Response:
        run = _qualify_run(request, id)
        body = ApplySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        project = get_object_or_404(Project, pk=body.validated_data["project"], owner=request.user)
        result = QualifyResult.model_validate(run.result)
        if result.recommendation is None:
            raise exceptions.ValidationError({"run": ["This qualification recommends no model."]})
        key = get_object_or_404(LLMKey, pk=run.input["key_id"], owner=request.user)
        rec = result.recommendation
        names = [rec.simulated_user, rec.judge, rec.explorer or rec.simulated_user]
        by_entry = {c.entry: model_name(c) for c in key_candidates(key, run.input["models"])}
        if (
            any(by_entry[n].startswith("double:") for n in names)
            and key.provider != LLMKey.Provider.OPENAI_COMPATIBLE
        ):
            raise exceptions.ValidationError(
                {"run": ["A double is recommended: only an OpenAI-compatible server can serve that name."]}
            )
        project.llm_key = key
        project.profile_model, project.judge_model, project.exploration_model = (by_entry[n] for n in names)
        project.save(update_fields=["llm_key", "profile_model", "judge_model", "exploration_model"])
        return Response(
            {
                "project": project.pk,
                "llm_key": key.pk,
                "exploration_model": project.exploration_model,
                "profile_model": project.profile_model,
                "judge_model": project.judge_model,
            }
        )


class KeyQualificationsView(APIView):
    @extend_schema(
        responses=QualificationLabelSerializer(many=True),
        summary="Per model of the key, its last finished qualification (as the simulated user)",
    )
    def get(self, request: Request, id: int) -> Response:
        key = get_object_or_404(LLMKey, pk=id, owner=request.user)
        runs = Run.objects.filter(
            owner=request.user, kind=Run.Kind.QUALIFY, status=Run.Status.SUCCEEDED, input__key_id=key.pk
        ).order_by("-finished_at", "-id")[:50]
        latest: dict[str, dict[str, Any]] = {}
        for run in runs:
            result = QualifyResult.model_validate(run.result)
            names = {c.entry: model_name(c) for c in key_candidates(key, run.input["models"])}
            for row in result.models:
                name = names.get(row.model)
                if row.role != "simulated_user" or name is None or name in latest:
                    continue
                latest[name] = {
                    "model": name,
                    "run": run.pk,
                    "finished_at": run.finished_at,
                    "kill_rate": row.kill_rate,
                    "false_alarm_rate": row.false_alarm_rate,
                    "cost_per_kill": row.cost_per_kill,
                    "seconds_per_kill": row.seconds_per_kill,
                    "verdict": row.verdict,
                    "parley_version": result.parley_version,
                    "seed": result.seed,
                    "size": result.size,
                }
        return Response(QualificationLabelSerializer(list(latest.values()), many=True).data)
