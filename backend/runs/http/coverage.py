"""The coverage map on the platform (Regression item 4), and profiles drafted for what it left unreached.

- `GET /api/runs/{id}/coverage/?tracer={id}` lays a SENSEI run's conversations (and the rules its latest check
  run failed on them) over a TRACER run's graph — the project's latest succeeded TRACER run unless one is named:
  per functionality, the conversations that reached it and those that failed there, the functionalities never
  reached and those for which it is not decidable (`engine.regression.coverage`, the code `parley sensei
  coverage` runs). The response carries the graph itself, so a client draws the map from one request. Whoever
  may read the run may read its map; a visitor of a public project gets it without the chatbot's address.
- `POST /api/runs/{id}/coverage/drafts/` with `{"functionalities": [...], "tracer": id?}` starts a short run
  (`profile_draft`) in which the project's LLM drafts SENSEI profiles for those functionalities with TRACER's
  own profile synthesis (`engine.tracer.drafts`); they land in the project's test center as profiles the user
  edits (origin `manual`, named `draft_…`, `source_run` the drafting run; `runs.worker.drafting`). The owner only.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.regression.coverage import coverage, graph_nodes
from engine.tracer.documents import WorkflowGraph
from engine.tracer.drafts import MAX_CHOSEN
from runs import services
from runs.http.compare import run_data_of
from runs.http.serializers import RunSerializer, served_content, stored_model_field
from runs.models import Artefact, Run
from runs.selectors import readable_runs
from runs.worker import tasks
from workspace import visibility


def _readable_sensei_run(request: Request, run_id: int) -> Run:
    run = get_object_or_404(readable_runs(request.user), pk=run_id)
    if run.kind != Run.Kind.SENSEI or run.project_id is None:
        raise exceptions.ValidationError({"run": ["Only a project's SENSEI runs have a coverage map."]})
    return run


def tracer_run_for(request: Request, run: Run, tracer_id: int | None) -> Run:
    """The TRACER run whose graph the map uses: the named one (readable, same project, with a graph), else the
    project's latest succeeded one that has a graph."""
    graphs = Artefact.objects.filter(name=Artefact.Name.GRAPH).values("run_id")
    candidates = readable_runs(request.user).filter(
        project_id=run.project_id, kind=Run.Kind.TRACER, pk__in=graphs
    )
    if tracer_id is not None:
        chosen = candidates.filter(pk=tracer_id).first()
        if chosen is None:
            raise exceptions.ValidationError(
                {"tracer": ["Choose a TRACER run of this project that drew a graph."]}, code="no_tracer_run"
            )
        return chosen
    latest = candidates.filter(status=Run.Status.SUCCEEDED).order_by("-finished_at", "-id").first()
    if latest is None:
        raise exceptions.ValidationError(
            {"tracer": ["This project has no finished TRACER run: explore the chatbot with TRACER first."]},
            code="no_tracer_run",
        )
    return latest


def _artefact(run: Run, name: str) -> Any:
    return Artefact.objects.filter(run=run, name=name).values_list("content", flat=True).first()


class CoverageQuery(serializers.Serializer[Any]):
    tracer = serializers.IntegerField(required=False, min_value=1)


_EVIDENCE = inline_serializer(
    "CoverageEvidence",
    {
        "conversation": serializers.CharField(),
        "turn": serializers.IntegerField(),
        "words": serializers.ListField(child=serializers.CharField()),
    },
)
_NODE = inline_serializer(
    "CoverageNode",
    {
        "name": serializers.CharField(),
        "label": serializers.CharField(),
        "description": serializers.CharField(),
        "parents": serializers.ListField(child=serializers.CharField()),
        "decidable": serializers.BooleanField(
            help_text="False: no distinctive word, reached is not decidable."
        ),
        "reached": serializers.IntegerField(help_text="Conversations with a chatbot reply that matched it."),
        "failed": serializers.IntegerField(help_text="Failed conversations whose fault was placed here."),
        "evidence": serializers.ListField(child=_EVIDENCE, help_text="Replies that decided it (a few)."),
        "failed_conversations": serializers.ListField(child=serializers.CharField()),
    },
)
COVERAGE_RESPONSE = inline_serializer(
    "RunCoverage",
    {
        "run": serializers.IntegerField(),
        "tracer_run": serializers.IntegerField(),
        "graph": stored_model_field(WorkflowGraph),  # the TRACER run's graph, as its `graph` artefact
        "method": serializers.CharField(),
        "method_note": serializers.CharField(),
        "decided": serializers.BooleanField(
            help_text="False when no reply matched any functionality: nothing is called unreached."
        ),
        "conversations": serializers.IntegerField(),
        "reached_none": serializers.IntegerField(),
        "failed_unplaced": serializers.IntegerField(),
        "nodes": serializers.ListField(child=_NODE),
        "unreached": serializers.ListField(child=serializers.CharField()),
        "undecidable": serializers.ListField(child=serializers.CharField()),
        "notes": serializers.ListField(child=serializers.CharField()),
    },
)


class CoverageView(APIView):
    """/api/runs/{id}/coverage/: the run's conversations over a TRACER graph."""

    permission_classes = (AllowAny,)  # readable_runs decides

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "tracer",
                int,
                required=False,
                description="Default: the project's latest finished TRACER run.",
            )
        ],
        responses=COVERAGE_RESPONSE,
        summary="Coverage map: which TRACER functionalities the run's conversations reached, and failed at",
    )
    def get(self, request: Request, id: int) -> Response:
        run = _readable_sensei_run(request, id)
        query = CoverageQuery(data={k: v for k, v in request.query_params.items() if k == "tracer"})
        query.is_valid(raise_exception=True)
        tracer = tracer_run_for(request, run, query.validated_data.get("tracer"))
        graph = served_content(Artefact.Name.GRAPH, _artefact(tracer, Artefact.Name.GRAPH))
        data = {
            "run": run.pk,
            "tracer_run": tracer.pk,
            "graph": graph,
            **coverage(graph, run_data_of(run)).to_json(),
        }
        return Response(visibility.for_runs(request.user, run, tracer).data(data))


class DraftRequest(serializers.Serializer[Any]):
    functionalities = serializers.ListField(
        child=serializers.CharField(max_length=200), min_length=1, max_length=MAX_CHOSEN
    )
    tracer = serializers.IntegerField(required=False, min_value=1)


class CoverageDraftView(APIView):
    """/api/runs/{id}/coverage/drafts/: draft profiles for functionalities the run did not reach."""

    @extend_schema(
        request=DraftRequest,
        responses={202: RunSerializer},
        summary="Draft SENSEI profiles for chosen functionalities of the TRACER graph (a short run)",
    )
    def post(self, request: Request, id: int) -> Response:
        readable = get_object_or_404(readable_runs(request.user), pk=id)
        if readable.project is None or readable.project.owner_id != request.user.pk:
            raise exceptions.PermissionDenied("Only the project's owner drafts profiles for it.")
        run = _readable_sensei_run(request, id)
        project = readable.project
        body = DraftRequest(data=request.data)
        body.is_valid(raise_exception=True)
        tracer = tracer_run_for(request, run, body.validated_data.get("tracer"))
        if project.llm_key_id is None or not (project.profile_model or project.exploration_model):
            raise exceptions.ValidationError(
                {"functionalities": ["This project has no LLM key or model to draft profiles with."]}
            )
        graph = _artefact(tracer, Artefact.Name.GRAPH)
        known = {node.name for node in graph_nodes(graph if isinstance(graph, dict) else {})}
        names = list(dict.fromkeys(body.validated_data["functionalities"]))
        unknown = [name for name in names if name not in known]
        if unknown:
            raise exceptions.ValidationError(
                {
                    "functionalities": [
                        f"Not functionalities of TRACER run #{tracer.pk}: {', '.join(unknown)}."
                    ]
                }
            )
        if Run.objects.filter(project=project, kind=Run.Kind.PROFILE_DRAFT, status__in=Run.ACTIVE).exists():
            raise exceptions.ValidationError(
                {
                    "functionalities": [
                        "Profiles are being drafted for this project already: wait until it ends."
                    ]
                },
                code="active",
            )
        job = services.create_run(
            request.user,
            Run.Kind.PROFILE_DRAFT,
            tasks.profile_draft,
            {"tracer_run": tracer.pk, "sensei_run": run.pk, "functionalities": names},
            project=project,
        )
        return Response(RunSerializer(job, context={"request": request}).data, status=202)
