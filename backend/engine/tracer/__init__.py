"""TRACER: black-box exploration of a chatbot → functional model → workflow graph → SENSEI profiles.

A LangGraph graph (`graph.build_graph(deps)`) with a typed, JSON-only state (`state.py`), checkpointed after
every session and every phase so that an interrupted run resumes (`run.run_tracer`). Modules by kind:
`config` (knobs), `model` (the functional model and the LLM's structured answers), `prompts` (every prompt),
`similarity` (local shortlist and checks), `explore` / `consolidate` / `workflow` / `profiles` (the nodes),
`artefacts` (the files). Events and cancellation go through the run context (`engine.context`).
"""

from engine.tracer.config import TracerConfig
from engine.tracer.deps import TRACER_CANCELLED, TracerDeps, sensei_errors
from engine.tracer.graph import build_graph
from engine.tracer.model import Functionality, FunctionalModel, Output, Parameter
from engine.tracer.run import TracerJob, TracerResult, run_tracer

__all__ = [
    "TRACER_CANCELLED",
    "FunctionalModel",
    "Functionality",
    "Output",
    "Parameter",
    "TracerConfig",
    "TracerDeps",
    "TracerJob",
    "TracerResult",
    "build_graph",
    "run_tracer",
    "sensei_errors",
]
