"""The one entry point of a TRACER run: `run_tracer(TracerJob(config, deps, run_id, checkpointer), context)`.

The run's checkpoints live under `thread_id = run_id`. Calling `run_tracer` again with the same run id and
checkpointer continues an interrupted run from its last checkpoint; calling it for a finished run returns the
stored result without doing anything again. The LLM's calls are reported to the context's usage sink as they
happen; the result's usage comes from the state, so it also counts the calls made before a resume.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from engine.context import RunContext
from engine.llm import UsageTotals
from engine.tracer.artefacts import usage_json
from engine.tracer.config import TracerConfig
from engine.tracer.deps import TracerDeps
from engine.tracer.graph import build_graph
from engine.tracer.model import FunctionalModel
from engine.tracer.result import TracerSummary
from engine.tracer.state import ExplorationTranscript, ProfileRecord

logger = logging.getLogger("engine.tracer")


@dataclass(frozen=True)
class TracerResult:
    run_id: str
    model: FunctionalModel
    profiles: list[ProfileRecord]
    transcripts: list[ExplorationTranscript]
    usage: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    output_dir: Path | None = None
    resumed: bool = False

    @property
    def valid_profiles(self) -> list[ProfileRecord]:
        return [p for p in self.profiles if p["valid"]]

    @property
    def ok(self) -> bool:
        """A model with at least one functionality and at least one valid profile (the CLI's exit 0)."""
        return bool(self.model.functionalities) and bool(self.valid_profiles)

    def summary(self) -> TracerSummary:
        """The run's result in figures, as the platform stores it."""
        return TracerSummary(
            ok=self.ok,
            functionalities=len(self.model.functionalities),
            profiles=len(self.profiles),
            valid_profiles=len(self.valid_profiles),
            resumed=self.resumed,
            warnings=self.warnings,
            usage=UsageTotals.model_validate(self.usage),
        )


@dataclass(frozen=True)
class TracerJob:
    """One TRACER run: its settings, what it talks to (the LLM, the chatbot, the profile validator), the run's id
    and where its checkpoints go."""

    config: TracerConfig
    deps: TracerDeps
    run_id: str
    checkpointer: BaseCheckpointSaver[Any]


def run_tracer(job: TracerJob, context: RunContext | None = None) -> TracerResult:
    """Run (or resume) TRACER for `job.run_id`. Raises `Cancelled`, `LLMError`s and `ConnectorError`s; the
    checkpoint keeps everything finished before the error, so the same call resumes the run."""
    config, run_id = job.config, job.run_id
    context = context or job.deps.context
    deps = replace(job.deps, config=config, context=context)
    graph = build_graph(deps).compile(checkpointer=job.checkpointer)
    run_config: RunnableConfig = {
        "configurable": {"thread_id": run_id},
        "recursion_limit": 3 * config.sessions + 30,
    }
    context.meter(deps.llm.ledger)
    snapshot = graph.get_state(run_config)
    resumed = bool(snapshot.values)
    if snapshot.next:
        logger.info("Resuming TRACER run %s at %s", run_id, ", ".join(snapshot.next))
        graph.invoke(None, run_config, durability="sync")
    elif not snapshot.values:
        graph.invoke({"run_id": run_id}, run_config, durability="sync")
    values = graph.get_state(run_config).values
    return TracerResult(
        run_id=run_id,
        model=FunctionalModel.model_validate(values.get("model") or {}),
        profiles=list(values.get("profiles", [])),
        transcripts=list(values.get("transcripts", [])),
        usage=usage_json(values.get("usage", [])),
        warnings=list(values.get("warnings", [])),
        output_dir=config.output_dir,
        resumed=resumed,
    )
