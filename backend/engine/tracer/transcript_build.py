"""The one path from imported conversations to TRACER's model and profiles, for the CLI and the platform.

`parley tracer --from-transcripts DIR` and a platform TRACER run with `source: transcripts` both call
`build_from_transcripts`: the sampling plan, extraction, consolidation, workflow inference and profile writing
(`from_transcripts.model_from_transcripts`), then the profiles that follow real traffic (`traffic_profiles`). Its
`TranscriptBuildResult` is the platform run's typed result (D31).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.context import RunContext
from engine.llm import LLMClient
from engine.tracer.config import TracerConfig
from engine.tracer.deps import sensei_errors
from engine.tracer.from_transcripts import (
    DEFAULT_SAMPLE,
    SamplingPlan,
    TranscriptModel,
    model_from_transcripts,
)
from engine.tracer.result import Reached, TrafficProfileSummary, TranscriptBuildResult
from engine.tracer.traffic_profiles import TrafficProfile, traffic_profiles
from engine.transcripts import Conversation


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
    context: RunContext | None = None,
    on_plan: Callable[[SamplingPlan], None] | None = None,
) -> TranscriptBuild:
    built = model_from_transcripts(
        conversations, llm, config=config, sample=sample, seed=seed, context=context, on_plan=on_plan
    )
    traffic = traffic_profiles(
        conversations,
        fallback=built.model.fallback,
        language=built.model.languages[0] if built.model.languages else "English",
        validate=sensei_errors,
    )
    return TranscriptBuild(built, traffic)
