"""The JSON documents a TRACER run leaves, as pydantic models: `ModelDocument` (model.json), `WorkflowGraph`
(graph.json), `TracerUsage` (usage.json) and `Transcripts` (transcripts.json). `engine.tracer.artefacts` builds
them; the CLI writes their dump as files and the platform stores it as the run's artefacts, served typed.

Their text was written by an LLM from what the chatbot under test said: untrusted, shown as text, never as HTML.
Every field has a default, so a document stored before a field was added still loads; a graph stored before it
listed its categories and joins gets them from its nodes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, RootModel, model_validator

from engine.llm import UsageTotals
from engine.tracer.model import ChatbotType, FoundAt, Output, Parameter
from engine.tracer.state import ExplorationTranscript


class ModelFunctionality(BaseModel):
    """A functionality of model.json: its place in the workflow, what it asks for and what it tells."""

    name: str = ""
    description: str = ""
    category: str = ""
    parents: list[str] = Field(default_factory=list)
    children: list[str] = Field(default_factory=list)
    parameters: list[Parameter] = Field(default_factory=list)
    outputs: list[Output] = Field(default_factory=list)
    discovered_in_sessions: list[int] = Field(default_factory=list)
    found_at: list[FoundAt] = Field(default_factory=list)
    merged_from: list[str] = Field(default_factory=list)


class ModelDocument(BaseModel):
    """model.json: the functional model TRACER inferred (joins are functionalities with several parents)."""

    languages: list[str] = Field(default_factory=list)
    fallback: str | None = None
    chatbot_type: ChatbotType = "unknown"
    greets_first: bool = False
    categories: list[str] = Field(default_factory=list)
    functionalities: list[ModelFunctionality] = Field(default_factory=list)


class GraphNode(BaseModel):
    """A node of graph.json: the start node, or a functionality."""

    id: str = ""
    label: str = ""
    kind: Literal["start", "functionality"] = "functionality"
    category: str = ""
    description: str = ""
    parameters: list[Parameter] = Field(default_factory=list)
    outputs: list[Output] = Field(default_factory=list)
    depth: int = 0
    is_root: bool = False
    is_join: bool = False
    found_at: list[FoundAt] = Field(default_factory=list)


class GraphEdge(BaseModel):
    source: str = ""
    target: str = ""
    kind: Literal["entry", "flow"] = "flow"


class WorkflowGraph(BaseModel):
    """graph.json: a start node, one node per functionality with its category, one edge per parent (a join has
    several)."""

    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list)
    joins: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _whole(self) -> WorkflowGraph:
        """Every node named and labelled and every edge between known nodes; an older graph's categories and
        joins taken from its nodes."""
        self.nodes = [node for node in self.nodes if node.id]
        for node in self.nodes:
            node.label = node.label or node.id
        ids = {node.id for node in self.nodes}
        self.edges = [edge for edge in self.edges if edge.source in ids and edge.target in ids]
        if not self.categories:
            self.categories = list(dict.fromkeys(node.category for node in self.nodes if node.category))
        if not self.joins:
            self.joins = [node.id for node in self.nodes if node.is_join]
        return self


class TracerUsage(UsageTotals):
    """usage.json: the run's LLM calls, by tag and by step."""

    calls_by_tag: dict[str, int] = Field(default_factory=dict)
    by_step: dict[str, UsageTotals] = Field(default_factory=dict)


class Transcripts(RootModel[list[ExplorationTranscript]]):
    """transcripts.json: every exploration session, turn by turn."""

    root: list[ExplorationTranscript] = Field(default_factory=list)
