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
    source: Literal["live", "transcripts"] = "live"  # explored live, or built from imported conversations
    ok: bool = False  # a model with a functionality and a valid profile (the CLI's exit 0)
    functionalities: int = 0
    profiles: int = 0
    valid_profiles: int = 0
    resumed: bool = False  # continued from a checkpoint after a crash
    warnings: list[str] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    transcripts: TranscriptBuildResult | None = (
        None  # a model built from transcripts: its sample, paths, reach
    )


class Reached(BaseModel):
    conversations: float  # imported conversations estimated to reach the functionality
    share: float  # of all imported conversations, 0..1


class TrafficProfileSummary(BaseModel):
    name: str
    kind: str  # frequent | rare
    share: float
    valid: bool
    errors: list[str] = Field(default_factory=list)


class TranscriptBuildResult(BaseModel):
    """What a model built from transcripts holds, in numbers (the platform run's result)."""

    ok: bool
    source: Literal["transcripts"] = "transcripts"
    conversations: int  # imported
    sampled: int  # read by the LLM
    paths: int  # distinct first answers of the chatbot
    estimated_calls: int  # the plan's estimate, before the first call
    llm_calls: int  # what the build spent
    cost_usd: float
    functionalities: int
    profiles: int
    valid_profiles: int
    reached: dict[str, Reached] = Field(default_factory=dict)
    traffic_profiles: list[TrafficProfileSummary] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


TracerSummary.model_rebuild()
