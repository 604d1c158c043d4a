"""What a TRACER run leaves as its result (D31): the counts of what it found, whether it resumed, its warnings and
its LLM usage — one pydantic model, built by `TracerResult.summary()`, stored by the platform as it is and served
typed. The model, graph, transcripts and profiles themselves are the run's artefacts, not its result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from engine.llm import UsageTotals


class TracerSummary(BaseModel):
    """A finished (or resumed) exploration in figures. Every field has a default, so a result stored before one
    was added still loads."""

    kind: Literal["tracer"] = "tracer"
    ok: bool = False  # a model with a functionality and a valid profile (the CLI's exit 0)
    functionalities: int = 0
    profiles: int = 0
    valid_profiles: int = 0
    resumed: bool = False  # continued from a checkpoint after a crash
    warnings: list[str] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)
