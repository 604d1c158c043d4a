"""`TracerConfig`: every knob of a TRACER run, passed in by the caller (CLI, worker, test), never read from env."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class TracerConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    sessions: int = Field(default=3, ge=1, le=200, description="exploration sessions (s)")
    turns: int = Field(default=8, ge=2, le=100, description="explorer messages per session at most (n)")
    profile_model: str | None = Field(
        default=None, description="model written into the profiles' llm.model; None = the exploring model"
    )
    output_dir: Path | None = Field(default=None, description="where the artefacts go; None = write nothing")
    seed: int = Field(default=0, description="seeds every random choice (opener, temperature, personality)")

    # Exploration
    history_messages: int = Field(default=20, ge=4, description="transcript messages the explorer sees")
    fallback_sure: float = Field(
        default=0.82, ge=0, le=1, description="similarity to the fallback at which a reply surely is one"
    )
    fallback_unsure: float = Field(
        default=0.55, ge=0, le=1, description="similarity above which the LLM decides whether it is one"
    )
    abandon_after_fallbacks: int = Field(
        default=2, ge=1, description="fallbacks in a row before a topic change"
    )

    # Consolidation
    duplicate_threshold: float = Field(
        default=0.55,
        ge=0,
        le=1,
        description="similarity from which two functionalities are candidate duplicates",
    )
    certain_duplicate: float = Field(
        default=0.9, ge=0, le=1, description="similarity from which they merge without asking the LLM"
    )
    max_candidates_per_call: int = Field(default=12, ge=1, description="candidate pairs judged per LLM call")

    # Profiles
    max_profiles: int = Field(default=8, ge=1, description="profiles the grouping may propose at most")
    repair_rounds: int = Field(default=2, ge=0, le=5, description="LLM repair rounds for an invalid profile")
    personality_probability: float = Field(default=0.75, ge=0, le=1)

    @property
    def model_for_profiles(self) -> str | None:
        return self.profile_model
