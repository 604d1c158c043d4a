"""/api/runs/ and /api/projects/{id}/runs/: starting runs, following them live, and reading what they left.

Who sees what follows the workspace's policy: the owner sees and controls their runs; anyone may read the runs of
a public project with their results and artefacts, but never owner-only events (the system log).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view, inline_serializer
from rest_framework import exceptions, generics, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from runs import services
from runs.http import exports
from runs.http.artefacts import ArtefactResponse
from runs.http.conversation_list import FAULTS, VERDICTS, listed_conversations, with_fault, with_verdict
from runs.http.serializers import (
    ArtefactSerializer,
    ConversationListSerializer,
    ConversationSerializer,
    PingSerializer,
    RuleResultSerializer,
    RunEventSerializer,
    RunRequestSerializer,
    RunSerializer,
    SecurityAttemptSerializer,
)
from runs.http.statistics import RunStatistics, statistics
from runs.models import Artefact, Conversation, RuleResult, Run, RunEvent, SecurityAttempt
from runs.selectors import ORDERINGS, filter_runs, readable_runs
from runs.worker import bookkeeping, tasks
from workspace import visibility
from workspace.permissions import readable_projects, writable_projects

EVENTS_PER_PAGE = 500


class RunAccess(BasePermission):
    message = "Only the owner can change this run."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.method in SAFE_METHODS or bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request: Request, view: APIView, obj: Run) -> bool:
        return request.method in SAFE_METHODS or obj.owner_id == request.user.pk


LIST_FILTERS = [
    OpenApiParameter("project", int, required=False),
    OpenApiParameter("kind", str, required=False, enum=[k.value for k in Run.Kind]),
    OpenApiParameter("status", str, required=False, enum=[s.value for s in Run.Status]),
    OpenApiParameter("created_after", OpenApiTypes.DATE, required=False),
    OpenApiParameter("created_before", OpenApiTypes.DATE, required=False),
    OpenApiParameter("search", str, required=False, description="Part of the project name."),
    OpenApiParameter("ordering", str, required=False, enum=sorted(ORDERINGS)),
    OpenApiParameter("scope", str, required=False, enum=["mine", "public"]),
]


@extend_schema_view(list=extend_schema(parameters=LIST_FILTERS))
class RunViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet[Run]
):
    serializer_class = RunSerializer
    permission_classes = (RunAccess,)

    def get_queryset(self) -> QuerySet[Run]:
        if getattr(self, "swagger_fake_view", False):
            return Run.objects.none()
        user = self.request.user
        if self.action != "list":
            return readable_runs(user)
        # Lists name one side of the policy directly (no OR across a join), so the (owner, -created_at)
        # index serves them.
        runs = Run.objects.select_related("project__connector", "project__llm_key", "owner")
        mine = user.is_authenticated and self.request.query_params.get("scope", "mine") != "public"
        runs = runs.filter(owner=user) if mine else runs.filter(project__public=True)
        return filter_runs(runs, self.request.query_params)

    def perform_destroy(self, instance: Run) -> None:
        if instance.status in Run.ACTIVE:
            raise exceptions.ValidationError("Cancel the run before deleting it.", code="active")
        instance.delete()

    @extend_schema(request=PingSerializer, responses={201: RunSerializer}, summary="Start a ping run")
    @action(detail=False, methods=["post"])
    def ping(self, request: Request) -> Response:
        body = PingSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        run = services.create_run(
            request.user, Run.Kind.PING, tasks.ping, {"message": body.validated_data["message"]}
        )
        return Response(RunSerializer(run, context={"request": request}).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None, responses={202: RunSerializer}, summary="Cancel: the run stops within seconds"
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        if run.status == Run.Status.QUEUED:
            bookkeeping.cancel(run.pk)
        elif run.status == Run.Status.RUNNING:
            Run.objects.filter(pk=run.pk).update(cancel_requested=True)
        run.refresh_from_db()
        return Response(self.get_serializer(run).data, status=status.HTTP_202_ACCEPTED)

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        """Every answer about one run — detail, events, conversations, artefacts, attempts, results, statistics,
        exports — as the caller may see it (workspace.visibility): a visitor's without the chatbot's address."""
        response = super().finalize_response(request, response, *args, **kwargs)
        view = getattr(self, "_view", None)
        if view is None or view.owner or not response.status_code or response.status_code >= 400:
            return response
        if isinstance(response, Response):
            response.data = view.data(response.data)
        elif isinstance(response, HttpResponse) and response.get("Content-Type", "").startswith(
            ("text/", "application/")
        ):
            response.content = view.text(response.content.decode("utf-8")).encode("utf-8")
        return response

    def get_object(self) -> Run:
        run = super().get_object()
        self._view = visibility.for_runs(self.request.user, run)
        return run

    @extend_schema(
        parameters=[
            OpenApiParameter("after", int, required=False, description="Last event id already seen.")
        ],
        responses=inline_serializer(
            "RunEvents", {"results": RunEventSerializer(many=True), "next_after": serializers.IntegerField()}
        ),
        summary="Live events after a cursor",
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def events(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        try:
            after = int(request.query_params.get("after", 0))
        except ValueError:
            raise exceptions.ValidationError({"after": ["A whole number (an event id)."]}) from None
        events = RunEvent.objects.filter(run=run, id__gt=after)
        if not self._view.owner:
            events = events.filter(visibility=RunEvent.Visibility.PUBLIC)
        page = list(events.order_by("id")[:EVENTS_PER_PAGE])
        return Response(
            {
                "results": RunEventSerializer(page, many=True).data,
                "next_after": page[-1].pk if page else after,
            }
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("profile", str, required=False),
            OpenApiParameter("has_errors", bool, required=False),
            OpenApiParameter("error_code", int, required=False),
            OpenApiParameter(
                "verdict",
                str,
                required=False,
                enum=list(VERDICTS),
                description="Only conversations with this verdict (only `failed` is a chatbot fault).",
            ),
            OpenApiParameter(
                "fault",
                str,
                required=False,
                enum=list(FAULTS),
                description="Only conversations whose fault is this (who caused a failed or inconclusive one).",
            ),
            OpenApiParameter(
                "record",
                str,
                required=False,
                description="A conversation's record id (what check results name): that conversation only.",
            ),
        ],
        responses=ConversationListSerializer(many=True),
        summary="The run's conversations (SENSEI)",
    )
    @action(detail=True, methods=["get"])
    def conversations(self, request: Request, pk: str | None = None) -> Response:
        rows = Conversation.objects.filter(run=self.get_object())
        params = request.query_params
        if params.get("record"):
            rows = rows.filter(record__id=params["record"][:200])
        if params.get("profile"):
            rows = rows.filter(profile=params["profile"])
        if params.get("has_errors") in ("true", "false"):
            rows = rows.filter(has_errors=params["has_errors"] == "true")
        if params.get("error_code", "").isdigit():
            rows = rows.filter(error_codes__contains=[int(params["error_code"])])
        if params.get("verdict"):
            if params["verdict"] not in VERDICTS:
                raise exceptions.ValidationError({"verdict": [f"One of: {', '.join(VERDICTS)}."]})
            rows = with_verdict(rows, params["verdict"])
        if params.get("fault"):
            if params["fault"] not in FAULTS:
                raise exceptions.ValidationError({"fault": [f"One of: {', '.join(FAULTS)}."]})
            rows = with_fault(rows, params["fault"])
        page = self.paginate_queryset(listed_conversations(rows))
        return self.get_paginated_response(ConversationListSerializer(page, many=True).data)

    @extend_schema(responses=ConversationSerializer, summary="One conversation with its transcript")
    @action(detail=True, methods=["get"], url_path=r"conversations/(?P<cid>\d+)")
    def conversation(self, request: Request, pk: str | None = None, cid: str | None = None) -> Response:
        row = get_object_or_404(Conversation, run=self.get_object(), pk=cid)
        return Response(ConversationSerializer(row).data)

    @extend_schema(
        responses=ArtefactResponse,
        summary="An artefact: TRACER's model, report, graph, transcripts or usage; a bench's bench or report; "
        "a SENSEI run's plan",
    )
    @action(
        detail=True,
        methods=["get"],
        url_path=r"artefacts/(?P<name>model|report|graph|transcripts|usage|bench|plan)",
    )
    def artefact(self, request: Request, pk: str | None = None, name: str | None = None) -> Response:
        return Response(
            ArtefactSerializer(get_object_or_404(Artefact, run=self.get_object(), name=name)).data
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("attack", str, required=False, description="An attack's label in the campaign."),
            OpenApiParameter(
                "verdict", str, required=False, enum=["breached", "resisted", "inconclusive", "error"]
            ),
            OpenApiParameter("delivery", str, required=False),
        ],
        responses=SecurityAttemptSerializer(many=True),
        summary="The attempts of a security campaign run, with their verdicts and quoted evidence",
    )
    @action(detail=True, methods=["get"])
    def attempts(self, request: Request, pk: str | None = None) -> Response:
        rows = SecurityAttempt.objects.filter(run=self.get_object())
        params = request.query_params
        for field, name in (("attack_id", "attack"), ("verdict", "verdict"), ("delivery", "delivery")):
            if params.get(name):
                rows = rows.filter(**{field: params[name][:100]})
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(SecurityAttemptSerializer(page, many=True).data)

    @extend_schema(responses=RuleResultSerializer(many=True), summary="Rule results of a check run")
    @action(detail=True, methods=["get"], pagination_class=None)
    def results(self, request: Request, pk: str | None = None) -> Response:
        rows = RuleResult.objects.filter(run=self.get_object())
        return Response(RuleResultSerializer(rows, many=True).data)

    @extend_schema(responses={200: RunStatistics}, summary="Aggregates for the dashboards")
    @action(detail=True, methods=["get"], pagination_class=None)
    def stats(self, request: Request, pk: str | None = None) -> Response:
        return Response(statistics(self.get_object()).model_dump(mode="json", by_alias=True))

    @extend_schema(
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY},
        summary="Export as JSON, CSV or JUnit XML",
    )
    @action(detail=True, methods=["get"], url_path=r"export/(?P<fmt>json|csv|junit)")
    def export(self, request: Request, pk: str | None = None, fmt: str | None = None) -> HttpResponse:
        run = self.get_object()
        body, content_type, extension = exports.render(run, str(fmt))
        response = HttpResponse(body, content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="parley-run-{run.pk}.{extension}"'
        return response


@extend_schema_view(get=extend_schema(parameters=LIST_FILTERS[1:7]))
class ProjectRunsView(generics.ListCreateAPIView[Run]):
    """/api/projects/{project_id}/runs/: a project's runs; POST starts one."""

    serializer_class = RunSerializer
    permission_classes = (RunAccess,)

    def project(self, *, write: bool) -> Any:
        project = get_object_or_404(readable_projects(self.request.user), pk=self.kwargs["project_id"])
        if write and not writable_projects(self.request.user).filter(pk=project.pk).exists():
            raise exceptions.PermissionDenied("Only the owner can start runs of this project.")
        return project

    def get_queryset(self) -> QuerySet[Run]:
        if getattr(self, "swagger_fake_view", False):
            return Run.objects.none()
        project = self.project(write=False)
        return filter_runs(
            Run.objects.filter(project=project).select_related(
                "project__connector", "project__llm_key", "owner"
            ),
            self.request.query_params,
        )

    @extend_schema(request=RunRequestSerializer, responses={201: RunSerializer}, summary="Start a run")
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        project = self.project(write=True)
        body = RunRequestSerializer(data=request.data, context={"project": project})
        body.is_valid(raise_exception=True)
        kind = body.validated_data["kind"]
        run = services.create_run(
            request.user, kind, tasks.TASKS[kind], body.validated_data["input"], project=project
        )
        return Response(RunSerializer(run, context={"request": request}).data, status=status.HTTP_201_CREATED)
