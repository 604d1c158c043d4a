""" "Shrink this failure" on the platform, and the shrunk failure's export.

`ShrinkView` (POST /api/runs/{id}/conversations/{cid}/shrink/) starts a short `shrink` run on a failed
conversation of a SENSEI run; only the project's owner may (it sends real requests to the project's chatbot).
The worker is `runs.worker.shrinking`.

`ShrinkReportView` (GET /api/runs/{id}/shrink-report/markdown or …/junit, like the runs' exports) exports a finished shrink run as
the Markdown bug report or a JUnit case, for whoever may read the run; `report_hider` is the one place that
decides what a reader may not see (the chatbot's address, for anyone but the owner).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.regression.shrink import (
    DEFAULT_MAX_CHATBOT_CALLS,
    DEFAULT_NEEDED,
    DEFAULT_REPLAYS,
    ShrinkResult,
)
from engine.regression.shrink.bugreport import Hide, to_junit, to_markdown
from runs import services
from runs.http.conversation_list import row_verdict
from runs.http.serializers import RunSerializer
from runs.models import Conversation, Run
from runs.selectors import readable_runs
from runs.worker import tasks
from workspace import visibility


class ShrinkRequest(serializers.Serializer[Any]):
    """Every field is optional; left out, the engine's defaults apply (3 replays, 2 needed, 200 calls)."""

    replays = serializers.IntegerField(required=False, min_value=1, max_value=10)
    needed = serializers.IntegerField(required=False, min_value=1, max_value=10)
    max_chatbot_calls = serializers.IntegerField(required=False, min_value=1, max_value=1000)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = {
            "replays": DEFAULT_REPLAYS,
            "needed": DEFAULT_NEEDED,
            "max_chatbot_calls": DEFAULT_MAX_CHATBOT_CALLS,
            **attrs,
        }
        if attrs["needed"] > attrs["replays"]:
            raise serializers.ValidationError({"needed": ["At most the number of replays."]})
        return attrs


class ShrinkView(APIView):
    """/api/runs/{id}/conversations/{cid}/shrink/: shrink a failed conversation and pin it (a short run)."""

    @extend_schema(
        request=ShrinkRequest,
        responses={202: RunSerializer},
        summary="Shrink this failure: replay the conversation's user turns against the chatbot, find the "
        "shortest script that still fails, and save it as a scripted profile (sends real requests)",
    )
    def post(self, request: Request, id: int, cid: int) -> Response:
        run = get_object_or_404(readable_runs(request.user), pk=id)
        if run.project is None or run.project.owner_id != request.user.pk:
            raise exceptions.PermissionDenied("Only the project's owner shrinks its failures.")
        if run.kind != Run.Kind.SENSEI:
            raise exceptions.ValidationError({"conversation": ["Only a SENSEI run's conversations shrink."]})
        row = get_object_or_404(Conversation, run=run, pk=cid)
        verdict, reason = row_verdict(row)
        if verdict != "failed":
            raise exceptions.ValidationError(
                {"conversation": [f"Only a failed conversation shrinks; this one is {verdict} ({reason})."]}
            )
        if run.project.connector is None:
            raise exceptions.ValidationError(
                {"conversation": ["The project has no connector to replay with."]}
            )
        body = ShrinkRequest(data=request.data)
        body.is_valid(raise_exception=True)
        job = services.create_run(
            request.user,
            Run.Kind.SHRINK,
            tasks.shrink,
            {"sensei_run": run.pk, "conversation": row.pk, **body.validated_data},
            project=run.project,
        )
        return Response(RunSerializer(job, context={"request": request}).data, status=202)


def report_hider(run: Run, request: Request) -> Hide | None:
    """What a reader of a shrink run's report may not see (workspace.visibility): the chatbot's and the LLM
    server's addresses, for anyone but the owner."""
    view = visibility.for_runs(request.user, run)
    return None if view.owner else view.text


class ShrinkReportView(APIView):
    """/api/runs/{id}/shrink-report/{markdown|junit}/: a shrink run's result as a bug report or a JUnit case."""

    permission_classes = (AllowAny,)  # readable_runs decides

    @extend_schema(
        responses={(200, "text/markdown"): OpenApiTypes.STR, (200, "application/xml"): OpenApiTypes.STR},
        summary="The shrunk failure as a Markdown bug report (default) or a JUnit case",
    )
    def get(self, request: Request, id: int, fmt: str) -> HttpResponse:
        run = get_object_or_404(readable_runs(request.user), pk=id)
        if fmt not in ("markdown", "junit"):
            raise exceptions.ValidationError({"fmt": ["Write markdown or junit."]})
        if run.kind != Run.Kind.SHRINK or run.status != Run.Status.SUCCEEDED:
            raise exceptions.ValidationError({"run": ["Only a finished shrink run has a report."]})
        try:
            result = ShrinkResult.model_validate(run.result)
        except ValueError:
            raise exceptions.ValidationError({"run": ["This shrink run's result is not readable."]}) from None
        hide = report_hider(run, request)
        if fmt == "junit":
            body, kind, ext = to_junit(result, hide=hide), "application/xml", "xml"
        else:
            body, kind, ext = to_markdown(result, hide=hide), "text/markdown; charset=utf-8", "md"
        response = HttpResponse(body, content_type=kind)
        response["Content-Disposition"] = f'attachment; filename="parley-shrink-{run.pk}.{ext}"'
        return response
