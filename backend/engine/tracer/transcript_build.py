"""The one path from imported conversations to TRACER's model and profiles, for the CLI and the platform.

`parley tracer --from-transcripts DIR` and a platform TRACER run with `source: transcripts` both call
`build_from_transcripts`: the sampling plan, extraction, consolidation, workflow inference and profile writing
(`from_transcripts.model_from_transcripts`), then the profiles that follow real traffic (`traffic_profiles`). Its
`TranscriptBuildResult` is the platform run's typed result (D31).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from engine.llm import LLMClient
from engine.tracer.config import TracerConfig
from engine.tracer.deps import sensei_errors
from engine.tracer.from_transcripts import (
    DEFAULT_SAMPLE,
    SamplingPlan,
    TranscriptModel,
    model_from_transcripts,
)
from engine.tracer.reporter import Reporter
from engine.tracer.traffic_profiles import TrafficProfile, traffic_profiles
from engine.transcripts import Conversation


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


class TranscriptBuild:
    """The model, its profiles and the traffic profiles; `result()` is the summary in numbers."""

    def __init__(self, built: TranscriptModel, traffic: list[TrafficProfile]) -> None:
        self.built = built
        self.traffic = traffic

    def result(self) -> TranscriptBuildResult:
        built = self.built
        return TranscriptBuildResult(
            ok=bool(built.model.functionalities) and bool(built.valid_profiles),
            conversations=built.plan.conversations,
            sampled=len(built.plan.sampled),
            paths=built.plan.groups,
            estimated_calls=built.plan.estimated_calls.get("total", 0),
            llm_calls=int(built.usage.get("calls", 0)),
            cost_usd=float(built.usage.get("cost_usd", 0.0)),
            functionalities=len(built.model.functionalities),
            profiles=len(built.profiles),
            valid_profiles=len(built.valid_profiles),
            reached={name: Reached(**info) for name, info in built.reached.items()},
            traffic_profiles=[
                TrafficProfileSummary(name=p.name, kind=p.kind, share=p.share, valid=p.valid, errors=p.errors)
                for p in self.traffic
            ],
            warnings=list(built.warnings),
        )


def build_from_transcripts(
    conversations: Sequence[Conversation],
    llm: LLMClient,
    *,
    config: TracerConfig,
    sample: int = DEFAULT_SAMPLE,
    seed: int = 0,
    reporter: Reporter | None = None,
    on_plan: Callable[[SamplingPlan], None] | None = None,
) -> TranscriptBuild:
    built = model_from_transcripts(
        conversations, llm, config=config, sample=sample, seed=seed, reporter=reporter, on_plan=on_plan
    )
    traffic = traffic_profiles(
        conversations,
        fallback=built.model.fallback,
        language=built.model.languages[0] if built.model.languages else "English",
        validate=sensei_errors,
    )
    return TranscriptBuild(built, traffic)
