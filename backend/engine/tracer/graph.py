"""The TRACER pipeline as a LangGraph graph; `build_graph(deps)` returns the uncompiled builder.

    START → probe → select ─┬─→ converse → extract → select      (one loop per exploration session)
                            └─→ consolidate → classify → workflow → group → write_profiles → artefacts → END

Every node returns only the fields it changed, so each finished node is one checkpoint: a crash resumes at
the node that was running (at worst the session in progress is redone, never a finished one). The caller
compiles with its own checkpointer (memory in tests, sqlite in the CLI, Postgres in the platform) and uses
the run id as `thread_id`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from langgraph.graph import END, START, StateGraph

from engine.tracer import consolidate as consolidation
from engine.tracer import explore, profiles, workflow
from engine.tracer.artefacts import write_artefacts
from engine.tracer.deps import TracerDeps
from engine.tracer.explore import load_model
from engine.tracer.state import TracerInput, TracerOutput, TracerState

NodeFunction = Callable[[TracerDeps, TracerState], Any]


def artefacts(deps: TracerDeps, state: TracerState) -> dict[str, object]:
    """Write the files (when an output directory is configured) and mark the run done."""
    deps.context.reporter.stage("artefacts")
    finished = deps.clock()
    out = deps.config.output_dir
    if out is not None:
        write_artefacts(
            out,
            load_model(state),
            state.get("profiles", []),
            state.get("transcripts", []),
            state.get("usage", []),
            duration_s=finished - state.get("started_at", finished),
            warnings=state.get("warnings", []),
        )
    deps.context.reporter.stage("done")
    return {"stage": "done", "finished_at": finished}


NODES: dict[str, NodeFunction] = {
    "probe": explore.probe,
    "select": explore.select,
    "converse": explore.converse,
    "extract": consolidation.extract,
    "consolidate": consolidation.consolidate,
    "classify": workflow.classify,
    "workflow": workflow.workflow,
    "group": profiles.group,
    "write_profiles": profiles.write_profiles,
    "artefacts": artefacts,
}


def build_graph(deps: TracerDeps) -> StateGraph[TracerState, None, TracerInput, TracerOutput]:
    builder = StateGraph(TracerState, input_schema=TracerInput, output_schema=TracerOutput)
    for name, function in NODES.items():
        node = partial(function, deps)
        if name == "select":
            # select routes with Command; the possible targets are declared for drawing and validation.
            builder.add_node(name, node, destinations=("converse", "consolidate"))
        else:
            builder.add_node(name, node)
    builder.add_edge(START, "probe")
    builder.add_edge("probe", "select")
    builder.add_edge("converse", "extract")
    builder.add_edge("extract", "select")
    builder.add_edge("consolidate", "classify")
    builder.add_edge("classify", "workflow")
    builder.add_edge("workflow", "group")
    builder.add_edge("group", "write_profiles")
    builder.add_edge("write_profiles", "artefacts")
    builder.add_edge("artefacts", END)
    return builder
