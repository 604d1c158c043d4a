"""A run's artefact as the API serves it: one shape per artefact name, its content through the engine's model of
that document, so the generated web client knows every field (`Artefact`, a union discriminated on `name`).

`CONTENT_MODELS` is the one registry of the JSON documents: one stored before its model (or hand-edited) is
brought to the model's current shape (`runs.http.serializers.served_content`) — fields that do not load take
their defaults, never an error.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from drf_spectacular.utils import PolymorphicProxySerializer
from pydantic import BaseModel

from engine.evaluation.bench_report import BenchReport
from engine.sensei.plan_document import PlanDocument
from engine.tracer.documents import ModelDocument, TracerUsage, Transcripts, WorkflowGraph
from runs.models import Artefact

CONTENT_MODELS: dict[str, type[BaseModel]] = {
    Artefact.Name.MODEL: ModelDocument,
    Artefact.Name.GRAPH: WorkflowGraph,
    Artefact.Name.TRANSCRIPTS: Transcripts,
    Artefact.Name.USAGE: TracerUsage,
    Artefact.Name.BENCH: BenchReport,
    Artefact.Name.PLAN: PlanDocument,
}


class ModelArtefact(BaseModel):
    name: Literal["model"]
    content: ModelDocument
    created_at: datetime


class GraphArtefact(BaseModel):
    name: Literal["graph"]
    content: WorkflowGraph
    created_at: datetime


class TranscriptsArtefact(BaseModel):
    name: Literal["transcripts"]
    content: Transcripts
    created_at: datetime


class UsageArtefact(BaseModel):
    name: Literal["usage"]
    content: TracerUsage
    created_at: datetime


class BenchArtefact(BaseModel):
    name: Literal["bench"]
    content: BenchReport
    created_at: datetime


class ReportArtefact(BaseModel):
    """TRACER's report.md, or a bench's bench.md: Markdown text."""

    name: Literal["report"]
    content: str
    created_at: datetime


class PlanArtefact(BaseModel):
    name: Literal["plan"]
    content: PlanDocument
    created_at: datetime


SERVED_ARTEFACTS: dict[str, type[BaseModel]] = {
    Artefact.Name.MODEL: ModelArtefact,
    Artefact.Name.GRAPH: GraphArtefact,
    Artefact.Name.TRANSCRIPTS: TranscriptsArtefact,
    Artefact.Name.USAGE: UsageArtefact,
    Artefact.Name.BENCH: BenchArtefact,
    Artefact.Name.REPORT: ReportArtefact,
    Artefact.Name.PLAN: PlanArtefact,
}

ArtefactResponse = PolymorphicProxySerializer(
    component_name="Artefact",
    serializers=SERVED_ARTEFACTS,  # type: ignore[arg-type]  # pydantic classes, resolved by `ResultSchema`
    resource_type_field_name="name",
    many=False,
)
